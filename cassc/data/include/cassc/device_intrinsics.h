/* cassc: CUDA's documented device intrinsics that HIP lacks and that are not plain arithmetic
 * (device_arithmetic.h has those): address-space queries and conversions, warp and block
 * synchronisation forms, sleeping, vector atomics, and sm_90's thread-block clusters.
 * Pre-included through cuda_compat.h; tests/api_audit.tsv lists each as `provided`.
 */
#pragma once
#include <cassc/packed_atomics.h>
#include <cassc/ptx_registers.h>

/* ---- Address spaces (sm_20_intrinsics.h). gfx11 keeps __constant__ data and kernel parameters in
 * global memory, where no pointer test can tell them apart: __isGlobal is true for them too, and
 * __isConstant/__isGridConstant are not provided. */
#define __CASSC_GENERIC(pointer) ((const __attribute__((address_space(0))) void*)(pointer))
__device__ static inline unsigned int __isShared(const void* pointer) { return __builtin_amdgcn_is_shared(__CASSC_GENERIC(pointer)); }
__device__ static inline unsigned int __isLocal(const void* pointer) { return __builtin_amdgcn_is_private(__CASSC_GENERIC(pointer)); }
__device__ static inline unsigned int __isGlobal(const void* pointer) { return !__isShared(pointer) && !__isLocal(pointer); }
/* CUDA's window addresses: the LDS offset for shared, the scratch offset for local; global and constant
 * addresses are the generic ones on AMDGPU. */
__device__ static inline size_t __cvta_generic_to_shared(const void* pointer) {
  return (size_t)(__attribute__((address_space(3))) const void*)pointer;
}
__device__ static inline size_t __cvta_generic_to_local(const void* pointer) {
  return (size_t)(__attribute__((address_space(5))) const void*)pointer;
}
__device__ static inline size_t __cvta_generic_to_global(const void* pointer) { return (size_t)pointer; }
__device__ static inline size_t __cvta_generic_to_constant(const void* pointer) { return (size_t)pointer; }
__device__ static inline void* __cvta_shared_to_generic(size_t address) {
  return (void*)(__attribute__((address_space(3))) void*)(unsigned int)address;
}
__device__ static inline void* __cvta_local_to_generic(size_t address) {
  return (void*)(__attribute__((address_space(5))) void*)(unsigned int)address;
}
__device__ static inline void* __cvta_global_to_generic(size_t address) { return (void*)address; }
/* Inline PTX's cp.async (inline-ptx.tsv): `bytes` (4, 8 or 16, aligned to itself, as PTX requires) to the
 * shared window address from global memory, of which `source_bytes` are read and the rest zero. */
__device__ static inline void __cassc_cp_async(size_t shared_address, const void* source, size_t bytes,
                                               size_t source_bytes) {
  void* target = __cvta_shared_to_generic(shared_address);
  if (source_bytes == bytes && bytes == 16) {
    *static_cast<uint4*>(target) = *static_cast<const uint4*>(source);
  } else if (source_bytes == bytes && bytes == 8) {
    *static_cast<uint2*>(target) = *static_cast<const uint2*>(source);
  } else if (source_bytes == bytes && bytes == 4) {
    *static_cast<unsigned int*>(target) = *static_cast<const unsigned int*>(source);
  } else {
    for (size_t i = 0; i < bytes; ++i)
      static_cast<char*>(target)[i] = i < source_bytes ? static_cast<const char*>(source)[i] : 0;
  }
}
__device__ static inline void* __cvta_constant_to_generic(size_t address) { return (void*)address; }

/* ---- Inline PTX (inline-ptx.tsv): registers, bfind and the video instructions in ptx_registers.h. */
/* An instruction's address in its state space: .shared's is the shared window's, the others C++'s own (a
 * pointer, or the integer an "l" operand holds). */
template <class T, class A> __device__ static inline T* __cassc_ptx_generic(A address) { return (T*)(address); }
template <class T, class A> __device__ static inline T* __cassc_ptx_shared(A address) {
  return (T*)__cvta_shared_to_generic((size_t)address);
}
/* The memory model's loads, stores, atomics and fences, with PTX's order and scope as HIP's (constants, as
 * the builtins want them). */
template <int order, int scope, class T> __device__ static inline T __cassc_ptx_load(T* address) {
  return __hip_atomic_load(address, order, scope);
}
template <int order, int scope, class T> __device__ static inline void __cassc_ptx_store(T* address, T value) {
  __hip_atomic_store(address, value, order, scope);
}
template <int operation, int order, int scope, class T> __device__ static inline T __cassc_ptx_atomic(T* address, T value) {
  switch (operation) {
    case __CASSC_PTX_ADD: return __hip_atomic_fetch_add(address, value, order, scope);
    case __CASSC_PTX_AND: return __hip_atomic_fetch_and(address, value, order, scope);
    case __CASSC_PTX_OR: return __hip_atomic_fetch_or(address, value, order, scope);
    case __CASSC_PTX_XOR: return __hip_atomic_fetch_xor(address, value, order, scope);
    case __CASSC_PTX_MIN: return __hip_atomic_fetch_min(address, value, order, scope);
    case __CASSC_PTX_MAX: return __hip_atomic_fetch_max(address, value, order, scope);
    default: return __hip_atomic_exchange(address, value, order, scope);
  }
}
/* atom.cas: the value found at the address, swapped for `value` where it equalled `compare`. */
template <int order, int scope, class T> __device__ static inline T __cassc_ptx_cas(T* address, T compare, T value) {
  __hip_atomic_compare_exchange_strong(address, &compare, value, order,
      order == __ATOMIC_RELEASE ? __ATOMIC_RELAXED : order == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : order, scope);
  return compare;
}
/* fence.sc or fence.acq_rel (PTX has no other), each builtin call spelled with constants as clang wants */
#define __CASSC_PTX_FENCE(scope_name)                                                              \
  (order == __ATOMIC_SEQ_CST ? __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, scope_name)               \
                             : __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, scope_name))
template <int order, int scope> __device__ static inline void __cassc_ptx_fence() {
  if (scope == __HIP_MEMORY_SCOPE_WORKGROUP) {
    __CASSC_PTX_FENCE("workgroup");
  } else if (scope == __HIP_MEMORY_SCOPE_AGENT) {
    __CASSC_PTX_FENCE("agent");
  } else {
    __CASSC_PTX_FENCE("");
  }
}
#undef __CASSC_PTX_FENCE
/* vabsdiff4.add: the four byte distances of a and b, summed onto c. */
__device__ static inline unsigned int __cassc_ptx_sad4(unsigned int a, unsigned int b, unsigned int c) {
  return __builtin_amdgcn_sad_u8(a, b, c);
}
/* ex2/tanh.approx on halves (bits in, bits out), computed in float and rounded back. */
template <class F> __host__ __device__ static inline unsigned short __cassc_ptx_map_f16(unsigned short bits, F function) {
  return __builtin_bit_cast(unsigned short, (_Float16)function((float)__builtin_bit_cast(_Float16, bits)));
}
template <class F> __host__ __device__ static inline unsigned int __cassc_ptx_map_f16x2(unsigned int bits, F function) {
  return __cassc_ptx_map_f16((unsigned short)bits, function) |
         (unsigned int)__cassc_ptx_map_f16((unsigned short)(bits >> 16), function) << 16;
}

/* ---- Synchronisation. bar.sync with an id and no count waits for every thread of the block, as
 * __syncthreads does; a thread count (__barrier_sync_count) has no gfx11 counterpart. */
__device__ static inline void __barrier_sync(unsigned int) { __syncthreads(); }
__device__ static inline int __uni_sync(unsigned int mask, int predicate) {
  unsigned long long active = __ballot(1) & mask, set = __ballot(predicate) & mask;
  return set == 0 || set == active;
}
/* sm_20's deprecated lowercase forms. */
__device__ static inline unsigned int ballot(bool predicate) { return static_cast<unsigned int>(__ballot(predicate)); }
__device__ static inline int syncthreads_count(bool predicate) { return __syncthreads_count(predicate); }
__device__ static inline bool syncthreads_and(bool predicate) { return __syncthreads_and(predicate); }
__device__ static inline bool syncthreads_or(bool predicate) { return __syncthreads_or(predicate); }
/* CUDA sleeps "approximately" ns nanoseconds (at most 1 ms); s_sleep 1 waits 64 clocks, ~30 ns on RDNA3. */
__device__ static inline void __nanosleep(unsigned int ns) {
  for (unsigned int slept = 0; slept < ns && slept < 1000000u; slept += 32u) __builtin_amdgcn_s_sleep(1);
}

/* CUDA's __trap ends the kernel with an error the host sees at its next synchronisation; the trap instruction
   does the same on AMD GPUs (the queue reports it, the launch fails). */
__device__ static inline __attribute__((noreturn)) void __trap(void) { __builtin_trap(); }

/* sm_70's 16-bit compare-and-swap: the compare-and-swap loop on the word that holds it. */
__device__ static inline unsigned short int atomicCAS(unsigned short int* address, unsigned short int compare,
                                                      unsigned short int value) {
  return __cassc_atomic_update(address, [=](unsigned short int old) { return old == compare ? value : old; });
}

/* ---- sm_90's vector atomics: CUDA guarantees atomicity per element only, which two or four float
 * atomics give. */
#define __CASSC_FLOAT_ATOMIC_ADD(name, scope)                                                \
  __device__ static inline float name(float* address, float value) {                         \
    return __hip_atomic_fetch_add(address, value, __ATOMIC_RELAXED, scope);                  \
  }
__CASSC_FLOAT_ATOMIC_ADD(__cassc_atomic_add_agent, __HIP_MEMORY_SCOPE_AGENT)
__CASSC_FLOAT_ATOMIC_ADD(__cassc_atomic_add_block, __HIP_MEMORY_SCOPE_WORKGROUP)
__CASSC_FLOAT_ATOMIC_ADD(__cassc_atomic_add_system, __HIP_MEMORY_SCOPE_SYSTEM)
#define __CASSC_VECTOR_ATOMIC_ADD(name, scalar)                                              \
  __device__ static inline float2 name(float2* address, float2 value) {                      \
    return float2(scalar(&address->x, value.x), scalar(&address->y, value.y));               \
  }                                                                                          \
  __device__ static inline float4 name(float4* address, float4 value) {                      \
    return float4(scalar(&address->x, value.x), scalar(&address->y, value.y),                \
                  scalar(&address->z, value.z), scalar(&address->w, value.w));               \
  }
__CASSC_VECTOR_ATOMIC_ADD(atomicAdd, __cassc_atomic_add_agent)
__CASSC_VECTOR_ATOMIC_ADD(atomicAdd_block, __cassc_atomic_add_block)
__CASSC_VECTOR_ATOMIC_ADD(atomicAdd_system, __cassc_atomic_add_system)

/* ---- sm_90's thread-block clusters. A kernel launched without a cluster shape runs in clusters of
 * one block (CUDA's own rule), and cassc launches no other shape (cudaLaunchKernelEx's cluster
 * attribute and __cluster_dims__ are not provided): the cluster is the block. */
__device__ static inline unsigned int __clusterDimIsSpecified() { return 0; }
__device__ static inline dim3 __clusterDim() { return dim3(1, 1, 1); }
__device__ static inline dim3 __clusterRelativeBlockIdx() { return dim3(0, 0, 0); }
__device__ static inline dim3 __clusterGridDimInClusters() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
__device__ static inline dim3 __clusterIdx() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
__device__ static inline unsigned int __clusterRelativeBlockRank() { return 0; }
__device__ static inline unsigned int __clusterSizeInBlocks() { return 1; }
__device__ static inline unsigned int __isCtaShared(const void* pointer) { return __isShared(pointer); }
__device__ static inline unsigned int __isClusterShared(const void* pointer) { return __isShared(pointer); }
__device__ static inline void* __cluster_map_shared_rank(const void* pointer, unsigned int) { return const_cast<void*>(pointer); }
__device__ static inline unsigned int __cluster_query_shared_rank(const void*) { return 0; }
/* arrive + wait across the cluster's threads: every thread that arrives also waits, so waiting at a
 * block barrier gives the same ordering. */
__device__ static inline void __cluster_barrier_arrive() {}
__device__ static inline void __cluster_barrier_arrive_relaxed() {}
__device__ static inline void __cluster_barrier_wait() { __syncthreads(); }
__device__ static inline void __threadfence_cluster() { __threadfence_block(); }
