/* cassc: pre-included into every CUDA translation unit after hipify.
 *
 * 1. The HIP runtime comes first: HIP's own headers take __NVCC__ to mean "compiling for NVIDIA",
 *    so nvcc's identification macros are defined only after them.
 * 2. CUDA intrinsics whose HIP spelling differs in meaning get a `__cassc_` adapter here; the hipify
 *    tables rename the CUDA name to it (compat.tsv). gfx1100 runs 32-lane wavefronts, so CUDA's 32-bit
 *    lane masks mean exactly what they say.
 */
#pragma once
#include <hip/hip_runtime.h>
/* nvcc's cuda_runtime.h includes <math.h> and <stdlib.h> (crt/math_functions.h), so a unit that includes
 * only <cmath> still calls the global host isfinite/isnan/isinf, abs... libstdc++ declares those only in
 * <math.h>; clang's HIP wrapper includes <cmath> alone. */
#if defined(__cplusplus)
#include <math.h>
#include <stdlib.h>
#endif
/* rocThrust picks its CUDA back end when it sees __CUDACC__: its compiler detection runs here, before
 * nvcc's macros exist, and its #pragma once keeps that answer (HIP) for the unit's own includes. */
#if defined(__cplusplus) && __has_include(<thrust/system/hip/config.h>)
#include <thrust/detail/config/compiler.h>
#endif

/* -maxrregcount=N: nvcc caps every kernel of the file at N registers; AMD's cap is per kernel, the
 * amdgpu_num_vgpr attribute, so each __global__ carries it (device pass only: the host pass has no VGPRs). */
#if defined(__CASSC_MAX_VGPRS__) && defined(__HIP_DEVICE_COMPILE__)
#undef __global__
#define __global__ __attribute__((global, amdgpu_num_vgpr(__CASSC_MAX_VGPRS__)))
#endif

/* The calling-convention macros of CUDA's headers (host_defines.h, cuda.h): empty outside Windows. Callbacks are
 * declared `void CUDART_CB f(...)`. */
#ifndef CUDART_CB
#define CUDART_CB
#endif
#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDA_CB
#define CUDA_CB
#endif
#ifndef CUDAAPI
#define CUDAAPI
#endif
#define __NVCC__ 1
#define __CUDACC__ 1
/* nvcc pre-includes cuda_runtime.h, so every CUDA unit sees the toolkit's version macros. */
#ifndef CUDA_VERSION
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION CUDA_VERSION
#endif
#if defined(__HIP_DEVICE_COMPILE__) && defined(__CASSC_CUDA_ARCH__)
#define __CUDA_ARCH__ __CASSC_CUDA_ARCH__
#endif
/* rocThrust 6 takes __CUDA_ARCH__ for NVIDIA's device pass, where CUDA's libcu++ defines _CCCL_DEVICE
 * (its THRUST_INLINE_CONSTANT uses it); rocThrust 5 does not use it. */
#if defined(__CUDA_ARCH__) && !defined(_CCCL_DEVICE)
#define _CCCL_DEVICE __device__
#endif

/* HIP deprecates some functions whose CUDA twins CUDA does not (the driver API's contexts, cudaHostAlloc,
 * cudaProfilerStart...): a program calling them under their CUDA names gets no warning from nvcc, so none here
 * (`-Werror` builds stay green). Each name expands to itself with the deprecation warning off around it (a
 * macro does not expand itself again). tests/test_compat.py derives the list from HIP's and CUDA's headers. */
#define __CASSC_NOT_DEPRECATED_IN_CUDA(name) _Pragma("clang diagnostic push") \
  _Pragma("clang diagnostic ignored \"-Wdeprecated-declarations\"") name _Pragma("clang diagnostic pop")
#define hipCtxCreate __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxCreate)
#define hipCtxDestroy __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxDestroy)
#define hipCtxDisablePeerAccess __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxDisablePeerAccess)
#define hipCtxEnablePeerAccess __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxEnablePeerAccess)
#define hipCtxGetApiVersion __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxGetApiVersion)
#define hipCtxGetCacheConfig __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxGetCacheConfig)
#define hipCtxGetCurrent __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxGetCurrent)
#define hipCtxGetDevice __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxGetDevice)
#define hipCtxGetFlags __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxGetFlags)
#define hipCtxPopCurrent __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxPopCurrent)
#define hipCtxPushCurrent __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxPushCurrent)
#define hipCtxSetCacheConfig __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxSetCacheConfig)
#define hipCtxSetCurrent __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxSetCurrent)
#define hipCtxSynchronize __CASSC_NOT_DEPRECATED_IN_CUDA(hipCtxSynchronize)
#define hipDevicePrimaryCtxGetState __CASSC_NOT_DEPRECATED_IN_CUDA(hipDevicePrimaryCtxGetState)
#define hipDevicePrimaryCtxRelease __CASSC_NOT_DEPRECATED_IN_CUDA(hipDevicePrimaryCtxRelease)
#define hipDevicePrimaryCtxReset __CASSC_NOT_DEPRECATED_IN_CUDA(hipDevicePrimaryCtxReset)
#define hipDevicePrimaryCtxRetain __CASSC_NOT_DEPRECATED_IN_CUDA(hipDevicePrimaryCtxRetain)
#define hipDevicePrimaryCtxSetFlags __CASSC_NOT_DEPRECATED_IN_CUDA(hipDevicePrimaryCtxSetFlags)
#define hipHostAlloc __CASSC_NOT_DEPRECATED_IN_CUDA(hipHostAlloc)
#define hipMemAllocHost __CASSC_NOT_DEPRECATED_IN_CUDA(hipMemAllocHost)
#define hipProfilerStart __CASSC_NOT_DEPRECATED_IN_CUDA(hipProfilerStart)
#define hipProfilerStop __CASSC_NOT_DEPRECATED_IN_CUDA(hipProfilerStop)

#include <cassc/device_prop.h> /* cudaDeviceProp with the legacy fields HIP lacks */
#include <cassc/library_types.h> /* CUDA 13's library_types.h enumerations HIP lacks */
#include <cassc/runtime_api.h> /* runtime and driver calls HIP 5 lacks, cudaLimit values HIP lacks */
/* CUDA's driver result type where a static/inline definition overloads on it (hipify/driver_results.py):
 * a class of its own, to and from HIP's one error type. */
#if defined(__cplusplus)
struct __cassc_CUresult {
  hipError_t value;
  __host__ __device__ constexpr __cassc_CUresult(hipError_t result) : value(result) {}
  __host__ __device__ constexpr operator hipError_t() const { return value; }
};
#endif
#if defined(__cplusplus)
#include <cassc/device_arithmetic.h> /* SIMD video intrinsics, directed rounding */
#include <cassc/device_intrinsics.h> /* address spaces, clusters, vector atomics... */
#include <cassc/member_calls.h> /* CUDA member calls HIP's classes lack, as hipify rewrote them */
/* Managed variables: clang's HIP attribute, registered by HIP's runtime (__hipRegisterManagedVar). */
#ifndef __managed__
#define __managed__ __attribute__((managed))
#endif
/* `__grid_constant__` (CUDA 11.7) marks a const kernel parameter whose address the kernel may take without a
 * copy; AMDGPU kernel arguments already live in read-only kernarg memory, so the annotation has no work left. */
#ifndef __grid_constant__
#define __grid_constant__
#endif
/* Math functions nvcc's headers give host code too (crt/math_functions.hpp's host implementations for all
 * platforms) that glibc lacks and HIP declares for the device only: host definitions as CUDA's. A
 * __host__ and a __device__ function of one signature are overloads to clang. */
__host__ inline double rsqrt(double a) { return 1.0 / sqrt(a); }
__host__ inline float rsqrtf(float a) { return static_cast<float>(rsqrt(static_cast<double>(a))); }
__host__ inline double rcbrt(double a) { return 1.0 / cbrt(a); }
__host__ inline float rcbrtf(float a) { return static_cast<float>(rcbrt(static_cast<double>(a))); }
/* CUDA's typed integer min/max (crt/math_functions.h), which HIP 5.2 lacks. */
__device__ inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__device__ inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__device__ inline long long int llmin(long long int a, long long int b) { return a < b ? a : b; }
__device__ inline long long int llmax(long long int a, long long int b) { return a > b ? a : b; }
__device__ inline unsigned long long int ullmin(unsigned long long int a, unsigned long long int b) { return a < b ? a : b; }
__device__ inline unsigned long long int ullmax(unsigned long long int a, unsigned long long int b) { return a > b ? a : b; }
/* CUDA declares __ffs(int) and __ffsll(long long) only, so any other integer argument converts to that one
 * type; HIP adds unsigned overloads, and an argument of a third type (uint64_t is unsigned long) is then
 * ambiguous. A template taking the argument's exact type loses to HIP's functions on their own types and
 * converts everything else as nvcc does. */
template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value || std::is_enum<T>::value>::type>
__device__ inline int __ffs(T x) { return ::__ffs(static_cast<int>(x)); }
template <typename T, typename = typename std::enable_if<std::is_arithmetic<T>::value || std::is_enum<T>::value>::type>
__device__ inline int __ffsll(T x) { return ::__ffsll(static_cast<long long>(x)); }
/* CUDA's min/max overloads for every integer pairing and float/double mixes (crt/math_functions.hpp), on the
 * device, where clang's HIP headers have int, float, double and a same-type template only: a call whose
 * argument is HIP's threadIdx/blockDim member (a class convertible to unsigned int) or of mixed types was
 * ambiguous. A signed and an unsigned argument compare as unsigned, as CUDA's do. */
/* Only over clang's HIP wrapper headers: without them (HIP's own amd_math_functions.h) HIP defines some of
 * these pairings itself, `int min(uint32_t, int)`, and a second definition differing in return type is an error. */
#if defined(__CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__) && __CLANG_HIP_RUNTIME_WRAPPER_INCLUDED__
#define __CASSC_MIN_MAX(result, first, second)                                                                  \
  __device__ inline result min(const first a, const second b) {                                                  \
    return static_cast<result>(a) < static_cast<result>(b) ? static_cast<result>(a) : static_cast<result>(b);   \
  }                                                                                                              \
  __device__ inline result max(const first a, const second b) {                                                  \
    return static_cast<result>(a) > static_cast<result>(b) ? static_cast<result>(a) : static_cast<result>(b);   \
  }
__CASSC_MIN_MAX(unsigned int, unsigned int, unsigned int)
__CASSC_MIN_MAX(unsigned int, int, unsigned int)
__CASSC_MIN_MAX(unsigned int, unsigned int, int)
__CASSC_MIN_MAX(long int, long int, long int)
__CASSC_MIN_MAX(unsigned long int, unsigned long int, unsigned long int)
__CASSC_MIN_MAX(unsigned long int, long int, unsigned long int)
__CASSC_MIN_MAX(unsigned long int, unsigned long int, long int)
__CASSC_MIN_MAX(long long int, long long int, long long int)
__CASSC_MIN_MAX(unsigned long long int, unsigned long long int, unsigned long long int)
__CASSC_MIN_MAX(unsigned long long int, long long int, unsigned long long int)
__CASSC_MIN_MAX(unsigned long long int, unsigned long long int, long long int)
#undef __CASSC_MIN_MAX
__device__ inline double min(const float a, const double b) { return fmin(static_cast<double>(a), b); }
__device__ inline double min(const double a, const float b) { return fmin(a, static_cast<double>(b)); }
__device__ inline double max(const float a, const double b) { return fmax(static_cast<double>(a), b); }
__device__ inline double max(const double a, const float b) { return fmax(a, static_cast<double>(b)); }
#endif
/* Four-way byte dot products with a 32-bit accumulator (sm_61+). */
__device__ inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 32; i += 8) c += static_cast<signed char>(a >> i) * static_cast<signed char>(b >> i);
  return c;
}
__device__ inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xFFu) * ((b >> i) & 0xFFu);
  return c;
}
/* CUDA's cache-hinted loads and stores for every type (HIP 5.2 has the loads for __half only): plain
 * accesses, which mean the same; the hints have no gfx11 counterpart worth a different path. */
template <typename T> __device__ inline T __ldca(const T* address) { return *address; }
template <typename T> __device__ inline T __ldcg(const T* address) { return *address; }
template <typename T> __device__ inline T __ldcs(const T* address) { return *address; }
template <typename T> __device__ inline T __ldlu(const T* address) { return *address; }
template <typename T> __device__ inline T __ldcv(const T* address) { return *address; }
template <typename T> __device__ inline void __stwb(T* address, T value) { *address = value; }
template <typename T> __device__ inline void __stcg(T* address, T value) { *address = value; }
template <typename T> __device__ inline void __stcs(T* address, T value) { *address = value; }
template <typename T> __device__ inline void __stwt(T* address, T value) { *address = value; }
/* HIP shuffles the arithmetic types; CUDA's headers add __half, __half2, __nv_bfloat16 and __nv_bfloat162
 * (cuda_fp16.h, cuda_bf16.h), which HIP's shuffles see only through their conversion operators (ambiguous,
 * or a value conversion). Those move as their bits, in a 32- or 64-bit lane value. */
template <typename T, typename Shuffle>
__device__ inline typename std::enable_if<std::is_arithmetic<T>::value, T>::type
__cassc_shuffle_value(T var, Shuffle shuffle) { return shuffle(var); }
template <typename T, typename Shuffle>
__device__ inline typename std::enable_if<!std::is_arithmetic<T>::value && sizeof(T) <= 8, T>::type
__cassc_shuffle_value(T var, Shuffle shuffle) {
  typedef typename std::conditional<sizeof(T) <= 4, unsigned int, unsigned long long>::type Bits;
  Bits bits = 0;
  __builtin_memcpy(&bits, &var, sizeof(T));
  bits = shuffle(bits);
  __builtin_memcpy(&var, &bits, sizeof(T));
  return var;
}
/* Function objects rather than generic lambdas: CUDA code may be compiled as C++11. */
#define __CASSC_SHUFFLE(kind, shuffle, Operand)                                                      \
  struct __cassc_##kind {                                                                            \
    Operand operand;                                                                                 \
    int width;                                                                                       \
    template <typename V> __device__ V operator()(V value) const { return shuffle(value, operand, width); } \
  };                                                                                                 \
  template <typename T>                                                                              \
  __device__ inline T __cassc_##kind##_sync(unsigned long long, T var, Operand operand, int width = warpSize) { \
    return __cassc_shuffle_value(var, __cassc_##kind{operand, width});                               \
  }
__CASSC_SHUFFLE(shfl, __shfl, int)
__CASSC_SHUFFLE(shfl_up, __shfl_up, unsigned int)
__CASSC_SHUFFLE(shfl_down, __shfl_down, unsigned int)
__CASSC_SHUFFLE(shfl_xor, __shfl_xor, int)
#undef __CASSC_SHUFFLE

__device__ inline unsigned int __cassc_ballot_sync(unsigned long long mask, int predicate) {
  return static_cast<unsigned int>(__ballot(predicate) & mask);
}
__device__ inline int __cassc_any_sync(unsigned long long mask, int predicate) {
  return (__ballot(predicate) & mask) != 0;
}
__device__ inline int __cassc_all_sync(unsigned long long mask, int predicate) {
  return (__ballot(predicate) & mask) == (__ballot(1) & mask);
}
__device__ inline unsigned int __cassc_activemask() { return static_cast<unsigned int>(__ballot(1)); }

__device__ inline void __cassc_syncwarp(unsigned long long = 0xffffffffu) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

template <typename T>
__device__ inline unsigned int __cassc_match_any_sync(unsigned long long mask, T value) {
  unsigned int same = 0;
  for (int lane = 0; lane < warpSize; ++lane) {
    if (__shfl(value, lane) == value) same |= 1u << lane;
  }
  return same & static_cast<unsigned int>(mask);
}
template <typename T>
__device__ inline unsigned int __cassc_match_all_sync(unsigned long long mask, T value, int* predicate) {
  unsigned int same = __cassc_match_any_sync(mask, value);
  bool all = same == (static_cast<unsigned int>(__ballot(1)) & static_cast<unsigned int>(mask));
  *predicate = all;
  return all ? same : 0u;
}

#define __CASSC_WARP_REDUCE(name, type, op)                                      \
  __device__ inline type name(unsigned long long, type value) {                   \
    for (int offset = warpSize / 2; offset > 0; offset /= 2)                      \
      value = op(value, __shfl_xor(value, offset));                               \
    return value;                                                                 \
  }
#define __CASSC_ADD(a, b) ((a) + (b))
#define __CASSC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define __CASSC_MAX(a, b) ((a) > (b) ? (a) : (b))
#define __CASSC_AND(a, b) ((a) & (b))
#define __CASSC_OR(a, b) ((a) | (b))
#define __CASSC_XOR(a, b) ((a) ^ (b))
__CASSC_WARP_REDUCE(__cassc_reduce_add_sync, int, __CASSC_ADD)
__CASSC_WARP_REDUCE(__cassc_reduce_add_sync, unsigned int, __CASSC_ADD)
__CASSC_WARP_REDUCE(__cassc_reduce_min_sync, int, __CASSC_MIN)
__CASSC_WARP_REDUCE(__cassc_reduce_min_sync, unsigned int, __CASSC_MIN)
__CASSC_WARP_REDUCE(__cassc_reduce_max_sync, int, __CASSC_MAX)
__CASSC_WARP_REDUCE(__cassc_reduce_max_sync, unsigned int, __CASSC_MAX)
__CASSC_WARP_REDUCE(__cassc_reduce_and_sync, unsigned int, __CASSC_AND)
__CASSC_WARP_REDUCE(__cassc_reduce_or_sync, unsigned int, __CASSC_OR)
__CASSC_WARP_REDUCE(__cassc_reduce_xor_sync, unsigned int, __CASSC_XOR)

/* HIP 5.2 declares atomicInc/atomicDec through LLVM intrinsics that LLVM 17 removed; clang's builtins
 * are what newer HIP uses. CUDA's meaning: ((old >= val) ? 0 : old + 1), and for dec
 * ((old == 0 || old > val) ? val : old - 1), which is exactly the AMDGPU inc/dec instruction. */
__device__ inline unsigned int __cassc_atomicInc(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_inc32(address, val, __ATOMIC_RELAXED, "agent");
}
__device__ inline unsigned int __cassc_atomicDec(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_dec32(address, val, __ATOMIC_RELAXED, "agent");
}
/* Their system- and block-scope forms (CUDA's atomicInc_system/_block...), which HIP has for none. */
__device__ inline unsigned int __cassc_atomicInc_system(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_inc32(address, val, __ATOMIC_RELAXED, "");
}
__device__ inline unsigned int __cassc_atomicDec_system(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_dec32(address, val, __ATOMIC_RELAXED, "");
}
__device__ inline unsigned int __cassc_atomicInc_block(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_inc32(address, val, __ATOMIC_RELAXED, "workgroup");
}
__device__ inline unsigned int __cassc_atomicDec_block(unsigned int* address, unsigned int val) {
  return __builtin_amdgcn_atomic_dec32(address, val, __ATOMIC_RELAXED, "workgroup");
}

/* CUDA's dim3 converts from a uint3 (its constructor dim3(uint3)), HIP's does not: `grid = make_uint3(n, 1, 1)`.
 * make_uint3's value is a uint3 that also converts to dim3. */
struct __cassc_uint3 : uint3 {
  __host__ __device__ __cassc_uint3(const uint3& value) : uint3(value) {}
  __host__ __device__ operator dim3() const { return dim3(this->x, this->y, this->z); }
};
__host__ __device__ inline __cassc_uint3 __cassc_make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  return __cassc_uint3(make_uint3(x, y, z));
}

/* PTX lop3: any function of three bit vectors, given as its truth table (a = 0xF0, b = 0xCC, c = 0xAA).
 * With a constant table the compiler folds it to the few bit operations it names. */
__host__ __device__ inline unsigned int __cassc_lop3(unsigned int a, unsigned int b, unsigned int c, unsigned int table) {
  unsigned int result = 0;
  for (int row = 0; row < 8; ++row) {
    if (table & (1u << row)) {
      result |= ((row & 4) ? a : ~a) & ((row & 2) ? b : ~b) & ((row & 1) ? c : ~c);
    }
  }
  return result;
}

/* CUDA 12.8's __nv_atomic_* builtins are clang's __hip_atomic_* with nvcc's names for the orders
 * and scopes; the scope argument is optional in CUDA (system scope). */
#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_CONSUME __ATOMIC_CONSUME
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_ATOMIC_SEQ_CST __ATOMIC_SEQ_CST
#define __NV_THREAD_SCOPE_THREAD __HIP_MEMORY_SCOPE_SINGLETHREAD
#define __NV_THREAD_SCOPE_BLOCK __HIP_MEMORY_SCOPE_WORKGROUP
#define __NV_THREAD_SCOPE_CLUSTER __HIP_MEMORY_SCOPE_AGENT
#define __NV_THREAD_SCOPE_DEVICE __HIP_MEMORY_SCOPE_AGENT
#define __NV_THREAD_SCOPE_SYSTEM __HIP_MEMORY_SCOPE_SYSTEM
#define __CASSC_NV_SCOPE(...) __CASSC_NV_SCOPE_FIRST(__VA_ARGS__ __VA_OPT__(, ) __HIP_MEMORY_SCOPE_SYSTEM, 0)
#define __CASSC_NV_SCOPE_FIRST(scope, ...) scope
#define __nv_atomic_load_n(pointer, order, ...) __hip_atomic_load(pointer, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_store_n(pointer, value, order, ...) \
  __hip_atomic_store(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_exchange_n(pointer, value, order, ...) \
  __hip_atomic_exchange(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_add(pointer, value, order, ...) \
  __hip_atomic_fetch_add(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_sub(pointer, value, order, ...) \
  __hip_atomic_fetch_sub(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_and(pointer, value, order, ...) \
  __hip_atomic_fetch_and(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_or(pointer, value, order, ...) \
  __hip_atomic_fetch_or(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_xor(pointer, value, order, ...) \
  __hip_atomic_fetch_xor(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_min(pointer, value, order, ...) \
  __hip_atomic_fetch_min(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))
#define __nv_atomic_fetch_max(pointer, value, order, ...) \
  __hip_atomic_fetch_max(pointer, value, order, __CASSC_NV_SCOPE(__VA_ARGS__))

/* The CUDA runtime's C++ overloads that HIP 5.2 lacks: CUDA code passes a kernel itself where HIP
 * takes `const void*` (a function does not convert to void* implicitly in C++). Overloads, not
 * renames, so calls with a `const void*` still reach HIP's own function. */
template <typename T>
static inline hipError_t hipFuncSetCacheConfig(T* kernel, hipFuncCache_t config) {
  return hipFuncSetCacheConfig(reinterpret_cast<const void*>(kernel), config);
}
template <typename T>
static inline hipError_t hipFuncSetSharedMemConfig(T* kernel, hipSharedMemConfig config) {
  return hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(kernel), config);
}
template <typename T>
static inline hipError_t hipFuncSetAttribute(T* kernel, hipFuncAttribute attribute, int value) {
  return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attribute, value);
}
template <typename T>
static inline hipError_t hipFuncGetAttributes(hipFuncAttributes* attributes, T* kernel) {
  return hipFuncGetAttributes(attributes, reinterpret_cast<const void*>(kernel));
}
template <typename T>
static inline hipError_t hipLaunchKernel(T* kernel, dim3 grid, dim3 block, void** args, size_t shared_bytes = 0,
                                         hipStream_t stream = 0) {
  return hipLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, shared_bytes, stream);
}
#if HIP_VERSION_MAJOR < 6 /* HIP 6 declares this template itself */
template <typename T>
static inline hipError_t hipMallocPitch(T** pointer, size_t* pitch, size_t width, size_t height) {
  return hipMallocPitch(reinterpret_cast<void**>(pointer), pitch, width, height);
}
#endif
/* CUDA 13 names the place to prefetch to or advise for by a cudaMemLocation (its device-number forms
 * are gone); HIP takes a device number, hipCpuDeviceId for the host. */
static inline hipError_t hipMemPrefetchAsync(const void* pointer, size_t count, hipMemLocation location,
                                             unsigned int, hipStream_t stream = 0) {
  return hipMemPrefetchAsync(pointer, count, location.type == hipMemLocationTypeDevice ? location.id : hipCpuDeviceId,
                             stream);
}
static inline hipError_t hipMemAdvise(const void* pointer, size_t count, hipMemoryAdvise advice, hipMemLocation location) {
  return hipMemAdvise(pointer, count, advice, location.type == hipMemLocationTypeDevice ? location.id : hipCpuDeviceId);
}
/* More of cuda_runtime.h's C++ overloads (tests/test_api_audit.py reads them from CUDA's header):
 * typed pointers, and __device__ variables passed by reference where HIP takes their address. */
template <typename T>
static inline hipError_t hipHostGetDevicePointer(T** device_pointer, void* host_pointer, unsigned int flags) {
  return hipHostGetDevicePointer(reinterpret_cast<void**>(device_pointer), host_pointer, flags);
}
template <typename T>
static inline hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* dependencies,
                                                       size_t count, const T& symbol, const void* source, size_t bytes,
                                                       size_t offset, hipMemcpyKind kind) {
  return hipGraphAddMemcpyNodeToSymbol(node, graph, dependencies, count, static_cast<const void*>(&symbol), source, bytes,
                                       offset, kind);
}
template <typename T>
static inline hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t* node, hipGraph_t graph, const hipGraphNode_t* dependencies,
                                                         size_t count, void* destination, const T& symbol, size_t bytes,
                                                         size_t offset, hipMemcpyKind kind) {
  return hipGraphAddMemcpyNodeFromSymbol(node, graph, dependencies, count, destination, static_cast<const void*>(&symbol),
                                         bytes, offset, kind);
}
template <typename T>
static inline hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const T& symbol, const void* source,
                                                             size_t bytes, size_t offset, hipMemcpyKind kind) {
  return hipGraphMemcpyNodeSetParamsToSymbol(node, static_cast<const void*>(&symbol), source, bytes, offset, kind);
}
template <typename T>
static inline hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void* destination, const T& symbol,
                                                               size_t bytes, size_t offset, hipMemcpyKind kind) {
  return hipGraphMemcpyNodeSetParamsFromSymbol(node, destination, static_cast<const void*>(&symbol), bytes, offset, kind);
}
template <typename T>
static inline hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t exec, hipGraphNode_t node, const T& symbol,
                                                                 const void* source, size_t bytes, size_t offset,
                                                                 hipMemcpyKind kind) {
  return hipGraphExecMemcpyNodeSetParamsToSymbol(exec, node, static_cast<const void*>(&symbol), source, bytes, offset, kind);
}
template <typename T>
static inline hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t exec, hipGraphNode_t node, void* destination,
                                                                   const T& symbol, size_t bytes, size_t offset,
                                                                   hipMemcpyKind kind) {
  return hipGraphExecMemcpyNodeSetParamsFromSymbol(exec, node, destination, static_cast<const void*>(&symbol), bytes, offset,
                                                   kind);
}
/* The dynamic shared memory each of `blocks` resident blocks of `threads` can have: the
 * multiprocessor's share, less the kernel's static shared memory, within the per-block limit. */
template <typename T>
static inline hipError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, T* kernel, int blocks, int threads) {
  int device = 0, per_processor = 0, per_block = 0;
  hipFuncAttributes attributes;
  hipError_t status = hipGetDevice(&device);
  if (status == hipSuccess) status = hipDeviceGetAttribute(&per_processor, hipDeviceAttributeMaxSharedMemoryPerMultiprocessor, device);
  if (status == hipSuccess) status = hipDeviceGetAttribute(&per_block, hipDeviceAttributeMaxSharedMemoryPerBlock, device);
  if (status == hipSuccess) status = hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel));
  if (status != hipSuccess) return status;
  if (blocks <= 0 || threads <= 0 || threads > attributes.maxThreadsPerBlock) return hipErrorInvalidValue;
  size_t share = static_cast<size_t>(per_processor) / static_cast<size_t>(blocks);
  if (share > static_cast<size_t>(per_block)) share = static_cast<size_t>(per_block);
  *bytes = share > attributes.sharedSizeBytes ? share - attributes.sharedSizeBytes : 0;
  return hipSuccess;
}
/* cudaEventCreate(event, flags) is the C++ API's spelling of cudaEventCreateWithFlags. */
static inline hipError_t hipEventCreate(hipEvent_t* event, unsigned flags) {
  return hipEventCreateWithFlags(event, flags);
}
#endif /* __cplusplus */

/* ---- CUDA runtime functions HIP has no twin of (issue 19; tests/api_audit.tsv's `provided` runtime rows) ---- */
#if defined(__cplusplus)
#include <cassc/occupancy.h>
/* cudaOccupancyMaxPotentialBlockSizeVariableSMem(WithFlags): CUDA's templates (cuda_runtime.h), which HIP 5.2
 * lacks and cassc's tables leave unrenamed: CUDA's search (cassc/occupancy.h) over HIP's occupancy query,
 * with the dynamic shared memory the caller's function gives for each block size. */
template <typename UnaryFunction, typename T>
static inline hipError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int* minGridSize, int* blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0,
    unsigned int flags = 0) {
  if (!minGridSize || !blockSize || !func) return hipErrorInvalidValue;
  int device = 0, threads_per_multiprocessor = 0, warp = 0, multiprocessors = 0, device_block_limit = 0;
  hipFuncAttributes attributes;
  hipError_t status = hipGetDevice(&device);
  if (status == hipSuccess)
    status = hipDeviceGetAttribute(&threads_per_multiprocessor, hipDeviceAttributeMaxThreadsPerMultiProcessor, device);
  if (status == hipSuccess) status = hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device);
  if (status == hipSuccess) status = hipDeviceGetAttribute(&multiprocessors, hipDeviceAttributeMultiprocessorCount, device);
  if (status == hipSuccess) status = hipDeviceGetAttribute(&device_block_limit, hipDeviceAttributeMaxThreadsPerBlock, device);
  if (status == hipSuccess) status = hipFuncGetAttributes(&attributes, reinterpret_cast<const void*>(func));
  if (status != hipSuccess) return status;
  if (blockSizeLimit == 0 || blockSizeLimit > device_block_limit) blockSizeLimit = device_block_limit;
  if (attributes.maxThreadsPerBlock < blockSizeLimit) blockSizeLimit = attributes.maxThreadsPerBlock;
  int blocks = 0;
  status = __cassc_max_potential_block_size<hipError_t>(
      blockSizeLimit, warp, threads_per_multiprocessor,
      [&](int size, int* count) {
        return hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            count, reinterpret_cast<const void*>(func), size, blockSizeToDynamicSMemSize(size), flags);
      },
      blockSize, &blocks);
  if (status == hipSuccess) *minGridSize = blocks * multiprocessors;
  return status;
}
template <typename UnaryFunction, typename T>
static inline hipError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int* minGridSize, int* blockSize, T func,
                                                                        UnaryFunction blockSizeToDynamicSMemSize,
                                                                        int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                 blockSizeToDynamicSMemSize, blockSizeLimit, 0u);
}
/* Requests CUDA documents as no-ops where the feature is absent succeed, as the binary path's runtime
 * answers them (shims/runtime/cudart-api.tsv's `success` rows). AMD GPUs have no persisting L2 lines to
 * reset (HIP reports hipDeviceAttributePersistingL2CacheMaxSize 0 there). Graph memory: HIP 6 trims it;
 * HIP 5.2 has no graph memory nodes, so there is none to trim. */
static inline hipError_t cudaCtxResetPersistingL2Cache(void) { return hipSuccess; }
static inline hipError_t cudaDeviceGraphMemTrim(int device) {
#if HIP_VERSION_MAJOR >= 6
  return hipDeviceGraphMemTrim(device);
#else
  (void)device;
  return hipSuccess;
#endif
}
/* The other requests the binary path's runtime answers with success (cudart-api.tsv's `success` rows): hints
 * and attributes whose feature AMD GPUs lack (access-policy windows and stream synchronisation policies on
 * streams and kernel nodes, GPUDirect RDMA write flushes, the set of devices to try), graph uploads (HIP 5.2
 * uploads at launch; HIP 6's hipGraphUpload), prefetches and discards of managed memory (performance hints to
 * CUDA: the data stays where it is and stays valid), a graph-memory high watermark reset (HIP 5.2 has no graph
 * memory). CUDA's types for them that HIP lacks are CUDA's own, with CUDA's values. */
enum cudaFlushGPUDirectRDMAWritesTarget { cudaFlushGPUDirectRDMAWritesTargetCurrentDevice };
enum cudaFlushGPUDirectRDMAWritesScope { cudaFlushGPUDirectRDMAWritesToOwner = 100, cudaFlushGPUDirectRDMAWritesToAllDevices = 200 };
enum cudaGraphMemAttributeType {
  cudaGraphMemAttrUsedMemCurrent = 0, cudaGraphMemAttrUsedMemHigh = 1,
  cudaGraphMemAttrReservedMemCurrent = 2, cudaGraphMemAttrReservedMemHigh = 3
};
enum cudaSynchronizationPolicy { cudaSyncPolicyAuto = 1, cudaSyncPolicySpin = 2, cudaSyncPolicyYield = 3, cudaSyncPolicyBlockingSync = 4 };
typedef enum cudaLaunchMemSyncDomain { cudaLaunchMemSyncDomainDefault = 0, cudaLaunchMemSyncDomainRemote = 1 } cudaLaunchMemSyncDomain;
typedef struct cudaLaunchMemSyncDomainMap_st { unsigned char default_; unsigned char remote; } cudaLaunchMemSyncDomainMap;
typedef enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0, cudaLaunchAttributeAccessPolicyWindow = 1, cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3, cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5, cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7, cudaLaunchAttributePriority = 8, cudaLaunchAttributeMemSyncDomainMap = 9,
  cudaLaunchAttributeMemSyncDomain = 10
} cudaLaunchAttributeID;
/* The members a stream's attributes use, in CUDA's 64-byte union. */
typedef union cudaLaunchAttributeValue {
  char pad[64];
  hipAccessPolicyWindow accessPolicyWindow;
  int cooperative;
  enum cudaSynchronizationPolicy syncPolicy;
  struct { unsigned int x, y, z; } clusterDim;
  int programmaticStreamSerializationAllowed;
  int priority;
  cudaLaunchMemSyncDomainMap memSyncDomainMap;
  cudaLaunchMemSyncDomain memSyncDomain;
} cudaLaunchAttributeValue;
typedef cudaLaunchAttributeID cudaStreamAttrID;
typedef cudaLaunchAttributeValue cudaStreamAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority cudaLaunchAttributePriority
typedef struct CUkern_st* cudaKernel_t;
static inline hipError_t cudaStreamSetAttribute(hipStream_t, cudaStreamAttrID, const cudaStreamAttrValue*) { return hipSuccess; }
static inline hipError_t cudaStreamCopyAttributes(hipStream_t, hipStream_t) { return hipSuccess; }
static inline hipError_t cudaGraphKernelNodeCopyAttributes(hipGraphNode_t, hipGraphNode_t) { return hipSuccess; }
static inline hipError_t cudaGraphUpload(hipGraphExec_t graphExec, hipStream_t stream) {
#if HIP_VERSION_MAJOR >= 6
  return hipGraphUpload(graphExec, stream);
#else
  (void)graphExec, (void)stream;
  return hipSuccess;
#endif
}
static inline hipError_t cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTarget, cudaFlushGPUDirectRDMAWritesScope) {
  return hipSuccess;
}
static inline hipError_t cudaSetValidDevices(int*, int) { return hipSuccess; }
static inline hipError_t cudaKernelSetAttributeForDevice(cudaKernel_t, hipFuncAttribute, int, int) { return hipSuccess; }
static inline hipError_t cudaDeviceSetGraphMemAttribute(int, cudaGraphMemAttributeType, void*) { return hipSuccess; }
static inline hipError_t cudaMemPrefetchBatchAsync(void**, size_t*, size_t, hipMemLocation*, size_t*, size_t,
                                                   unsigned long long, hipStream_t) {
  return hipSuccess;
}
static inline hipError_t cudaMemDiscardAndPrefetchBatchAsync(void**, size_t*, size_t, hipMemLocation*, size_t*, size_t,
                                                             unsigned long long, hipStream_t) {
  return hipSuccess;
}
static inline hipError_t cudaMemDiscardBatchAsync(void**, size_t*, size_t, unsigned long long, hipStream_t) {
  return hipSuccess;
}
/* cuda_runtime.h's C++ forms of the two: typed pointers, and one location for the whole batch. */
#define __CASSC_BATCH_OVERLOADS(name)                                                                           \
  template <typename T>                                                                                         \
  static inline hipError_t name(T** pointers, size_t* sizes, size_t count, hipMemLocation* locations,           \
                                size_t* location_indices, size_t location_count, unsigned long long flags,      \
                                hipStream_t stream) {                                                           \
    return name(reinterpret_cast<void**>(pointers), sizes, count, locations, location_indices, location_count,  \
                flags, stream);                                                                                 \
  }                                                                                                             \
  template <typename T>                                                                                         \
  static inline hipError_t name(T** pointers, size_t* sizes, size_t count, hipMemLocation location,             \
                                unsigned long long flags, hipStream_t stream) {                                 \
    size_t first = 0;                                                                                           \
    return name(reinterpret_cast<void**>(pointers), sizes, count, &location, &first, 1, flags, stream);          \
  }
__CASSC_BATCH_OVERLOADS(cudaMemPrefetchBatchAsync)
__CASSC_BATCH_OVERLOADS(cudaMemDiscardAndPrefetchBatchAsync)
#undef __CASSC_BATCH_OVERLOADS
/* Runtime calls whose CUDA declaration has default arguments that HIP's twin lacks (found by comparing
 * cuda_runtime_api.h's __dv() defaults with hip_runtime_api.h's __dparm() ones): the shorter calls, as
 * overloads of HIP's name. CUDA 12's cudaGraphInstantiate(exec, graph, flags = 0) is HIP's WithFlags form
 * (HIP keeps CUDA 11's five-argument one), and CUDA 12's cudaStreamGetCaptureInfo HIP's _v2. */
static inline hipError_t hipGraphInstantiate(hipGraphExec_t* exec, hipGraph_t graph, unsigned long long flags = 0) {
  return hipGraphInstantiateWithFlags(exec, graph, flags);
}
static inline hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t* exec, hipGraph_t graph) {
  return hipGraphInstantiateWithFlags(exec, graph, 0);
}
static inline hipError_t hipMalloc3DArray(hipArray** array, const struct hipChannelFormatDesc* desc,
                                          struct hipExtent extent) {
  return hipMalloc3DArray(array, desc, extent, 0);
}
static inline hipError_t hipSignalExternalSemaphoresAsync(const hipExternalSemaphore_t* semaphores,
                                                          const hipExternalSemaphoreSignalParams* params,
                                                          unsigned int count) {
  return hipSignalExternalSemaphoresAsync(semaphores, params, count, nullptr);
}
static inline hipError_t hipWaitExternalSemaphoresAsync(const hipExternalSemaphore_t* semaphores,
                                                        const hipExternalSemaphoreWaitParams* params,
                                                        unsigned int count) {
  return hipWaitExternalSemaphoresAsync(semaphores, params, count, nullptr);
}
static inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status) {
  /* every argument spelled out: under -default-stream per-thread HIP renames the call to its _spt form,
   * which declares no defaults */
  return hipStreamGetCaptureInfo_v2(stream, status, nullptr, nullptr, nullptr, nullptr);
}
static inline hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* status,
                                                 unsigned long long* id, hipGraph_t* graph,
                                                 const hipGraphNode_t** dependencies = nullptr,
                                                 size_t* dependency_count = nullptr) {
  return hipStreamGetCaptureInfo_v2(stream, status, id, graph, dependencies, dependency_count);
}
#if HIP_VERSION_MAJOR < 6
static inline hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event) {
  return hipStreamWaitEvent(stream, event, 0);
}
#endif
#endif /* __cplusplus */
