/* cassc: atomic read-modify-write of a 2- or 4-byte value the hardware has no instruction for
 * (CUDA's atomicAdd on __half, __half2, __nv_bfloat16, __nv_bfloat162): a compare-and-swap loop on
 * the aligned 32-bit word that holds it. Returns the old value, as CUDA's atomics do. */
#pragma once
#include <hip/hip_runtime.h>

#if defined(__HIP__)  /* device code only; a host compiler including cuda_fp16.h skips it */
template <typename T, typename Update>
__device__ inline T __cassc_atomic_update(T* address, Update update) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "a 2- or 4-byte value");
  const __UINTPTR_TYPE__ raw = reinterpret_cast<__UINTPTR_TYPE__>(address);
  unsigned int* word = reinterpret_cast<unsigned int*>(raw & ~static_cast<__UINTPTR_TYPE__>(3));
  const unsigned int shift = sizeof(T) == 2 ? static_cast<unsigned int>(raw & 2) * 8 : 0;
  const unsigned int mask = sizeof(T) == 2 ? 0xffffu << shift : 0xffffffffu;
  unsigned int old = *word, assumed;
  T value;
  do {
    assumed = old;
    const unsigned int bits = (assumed & mask) >> shift;
    __builtin_memcpy(&value, &bits, sizeof(T));  // little-endian: the value's bytes come first
    const T next = update(value);
    unsigned int next_bits = 0;
    __builtin_memcpy(&next_bits, &next, sizeof(T));
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((next_bits << shift) & mask));
  } while (old != assumed);
  return value;
}
#endif
