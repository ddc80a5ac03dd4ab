/* cassc: the hand-written part of the hip-to-cuda header set (`--cassc-target=nvidia`).
 *
 * Pre-included into every translated unit compiled by NVIDIA's nvcc, and included by each generated
 * hip/... header. The renames themselves (hipMalloc -> cudaMalloc, __cassc_shfl_sync -> __shfl_sync...)
 * are generated from the hipify tables into cassc_hip_names.h; what is here is only what is not a
 * rename: HIP builtins that inline-ptx.tsv's rules produce, which CUDA lacks or spells differently.
 * Each one is written with the PTX instruction the rule took it from, so the translated program runs the
 * instruction the original ran.
 */
#pragma once
#include <cuda_runtime.h>
#include "cassc_hip_names.h"
/* hipify/driver_results.py's spelling of CUDA's driver result type in a static/inline overload's parameters:
 * CUDA's own type here (cuda.h, which the unit naming it includes). */
#define __cassc_CUresult CUresult

#if defined(__CUDACC__) && defined(__cplusplus)
__device__ inline unsigned int __lane_id() {
  unsigned int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
__device__ inline unsigned long long wall_clock64() {
  unsigned long long time;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(time));
  return time;
}
__device__ inline unsigned int __bitextract_u32(unsigned int source, unsigned int offset, unsigned int width) {
  unsigned int field;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(field) : "r"(source), "r"(offset), "r"(width));
  return field;
}
__device__ inline unsigned long long __bitextract_u64(unsigned long long source, unsigned int offset,
                                                      unsigned int width) {
  unsigned long long field;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(field) : "l"(source), "r"(offset), "r"(width));
  return field;
}
/* HIP's argument order: the base first, then the bits inserted into it (PTX bfi takes them the other way). */
__device__ inline unsigned int __bitinsert_u32(unsigned int base, unsigned int insert, unsigned int offset,
                                               unsigned int width) {
  unsigned int result;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(result) : "r"(insert), "r"(base), "r"(offset), "r"(width));
  return result;
}
__device__ inline unsigned long long __bitinsert_u64(unsigned long long base, unsigned long long insert,
                                                     unsigned int offset, unsigned int width) {
  unsigned long long result;
  asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(result) : "l"(insert), "l"(base), "r"(offset), "r"(width));
  return result;
}
/* inline-ptx.tsv's registers, bfind and video rules (shared with the AMD side), then the rest of what its rules
 * produce: addresses by state space, the memory model through libcu++'s atomic_ref of the scope PTX named,
 * half-precision functions through cuda_fp16.h. */
#include "cassc/ptx_registers.h"
#include <cuda/atomic>
#include <cuda_fp16.h>
#ifndef __HIP_MEMORY_SCOPE_WORKGROUP
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
#endif
template <class T, class A> __device__ inline T* __cassc_ptx_generic(A address) { return (T*)(address); }
template <class T, class A> __device__ inline T* __cassc_ptx_shared(A address) {
  return (T*)__cvta_shared_to_generic((size_t)address);
}
template <int scope> struct __cassc_ptx_scope {
  static constexpr cuda::thread_scope value = scope == __HIP_MEMORY_SCOPE_WORKGROUP ? cuda::thread_scope_block
      : scope == __HIP_MEMORY_SCOPE_SYSTEM ? cuda::thread_scope_system : cuda::thread_scope_device;
};
template <int scope, class T> __device__ inline cuda::atomic_ref<T, __cassc_ptx_scope<scope>::value> __cassc_ptx_ref(T* address) {
  return cuda::atomic_ref<T, __cassc_ptx_scope<scope>::value>(*address);
}
template <int order, int scope, class T> __device__ inline T __cassc_ptx_load(T* address) {
  return __cassc_ptx_ref<scope>(address).load(static_cast<cuda::std::memory_order>(order));
}
template <int order, int scope, class T> __device__ inline void __cassc_ptx_store(T* address, T value) {
  __cassc_ptx_ref<scope>(address).store(value, static_cast<cuda::std::memory_order>(order));
}
template <int operation, int order, int scope, class T> __device__ inline T __cassc_ptx_atomic(T* address, T value) {
  auto reference = __cassc_ptx_ref<scope>(address);
  constexpr auto memory_order = static_cast<cuda::std::memory_order>(order);
  switch (operation) {
    case __CASSC_PTX_ADD: return reference.fetch_add(value, memory_order);
    case __CASSC_PTX_AND: return reference.fetch_and(value, memory_order);
    case __CASSC_PTX_OR: return reference.fetch_or(value, memory_order);
    case __CASSC_PTX_XOR: return reference.fetch_xor(value, memory_order);
    case __CASSC_PTX_MIN: return reference.fetch_min(value, memory_order);
    case __CASSC_PTX_MAX: return reference.fetch_max(value, memory_order);
    default: return reference.exchange(value, memory_order);
  }
}
template <int order, int scope, class T> __device__ inline T __cassc_ptx_cas(T* address, T compare, T value) {
  __cassc_ptx_ref<scope>(address).compare_exchange_strong(compare, value, static_cast<cuda::std::memory_order>(order));
  return compare;
}
template <int order, int scope> __device__ inline void __cassc_ptx_fence() {
  cuda::atomic_thread_fence(static_cast<cuda::std::memory_order>(order), __cassc_ptx_scope<scope>::value);
}
__device__ inline unsigned int __cassc_ptx_sad4(unsigned int a, unsigned int b, unsigned int c) {
  return __vsadu4(a, b) + c;
}
template <class F> __device__ inline unsigned short __cassc_ptx_map_f16(unsigned short bits, F function) {
  return __half_as_ushort(__float2half(function(__half2float(__ushort_as_half(bits)))));
}
template <class F> __device__ inline unsigned int __cassc_ptx_map_f16x2(unsigned int bits, F function) {
  return __cassc_ptx_map_f16((unsigned short)bits, function) |
         (unsigned int)__cassc_ptx_map_f16((unsigned short)(bits >> 16), function) << 16;
}
__device__ inline unsigned int __smid() {
  unsigned int id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
/* The `trap;` rule's builtin: nvcc's device pass knows it as __trap. */
#if defined(__CUDA_ARCH__)
#define __builtin_trap __trap
#endif
/* PTX lop3 with its truth table; with a constant table ptxas folds this to one lop3 again. */
__host__ __device__ inline unsigned int __cassc_lop3(unsigned int a, unsigned int b, unsigned int c,
                                                     unsigned int table) {
  unsigned int result = 0;
  for (int row = 0; row < 8; ++row) {
    if (table & (1u << row)) {
      result |= ((row & 4) ? a : ~a) & ((row & 2) ? b : ~b) & ((row & 1) ? c : ~c);
    }
  }
  return result;
}
/* HIP's mask-less shuffles, which the shfl.sync rules produce (HIP 5.2 has no masked ones). CUDA removed
 * them for sm_70+; the lanes that reach the call are the ones the PTX's mask named. */
template <typename T>
__device__ inline T __shfl(T var, int src_lane, int width = warpSize) {
  return __shfl_sync(__activemask(), var, src_lane, width);
}
template <typename T>
__device__ inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return __shfl_up_sync(__activemask(), var, delta, width);
}
template <typename T>
__device__ inline T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return __shfl_down_sync(__activemask(), var, delta, width);
}
template <typename T>
__device__ inline T __shfl_xor(T var, int lane_mask, int width = warpSize) {
  return __shfl_xor_sync(__activemask(), var, lane_mask, width);
}
#endif
