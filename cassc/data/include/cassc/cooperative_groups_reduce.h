/* cassc: <cooperative_groups/reduce.h> for HIP, which has tiles with shuffles but no cg::reduce.
 * A butterfly over shfl_xor: every thread of the tile gets the result, as with CUDA's reduce.
 * Tiles (thread_block_tile<N>, tiled_partition) have power-of-two sizes, which this relies on. */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cooperative_groups {
template <typename T> struct plus {
  __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <typename T> struct less {  // CUDA's cg::less<T> reduces to the minimum
  __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <typename T> struct greater {  // and cg::greater<T> to the maximum
  __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <typename T> struct bit_and {
  __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <typename T> struct bit_or {
  __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <typename T> struct bit_xor {
  __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

/* CUDA reduces any trivially copyable type; HIP's shuffles take scalars, so values move as 32-bit words. */
template <typename Group, typename T>
__device__ T __cassc_shfl_xor_words(const Group& group, T value, unsigned int lane_mask) {
  int words[(sizeof(T) + 3) / 4] = {};
  __builtin_memcpy(words, &value, sizeof(T));
  for (unsigned int i = 0; i < (sizeof(T) + 3) / 4; ++i) words[i] = group.shfl_xor(words[i], lane_mask);
  __builtin_memcpy(&value, words, sizeof(T));
  return value;
}

template <typename Group, typename T, typename Operation>
__device__ T reduce(const Group& group, T value, Operation operation) {
  for (unsigned int offset = group.size() / 2; offset > 0; offset /= 2) {
    value = operation(value, __cassc_shfl_xor_words(group, value, offset));
  }
  return value;
}
}  // namespace cooperative_groups
