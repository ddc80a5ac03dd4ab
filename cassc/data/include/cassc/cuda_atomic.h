/* cassc: libcu++'s scoped atomics (<cuda/atomic>, <cuda/std/atomic>) for HIP, which has no libcu++:
 * cuda::atomic<T, Scope> and cuda::atomic_ref<T, Scope> over clang's scoped __hip_atomic builtins, a CUDA
 * thread scope being the AMDGPU synchronisation scope of the same reach (block: workgroup, device: agent,
 * system: system, thread: one thread). cuda::std::atomic and atomic_ref are the system-scope ones, as in
 * libcu++; memory orders are std's. fetch_min/fetch_max of a type the hardware has no such atomic for
 * (floating point) are a compare-and-swap loop. */
#pragma once
#include <hip/hip_runtime.h>
#include <atomic>
#include <type_traits>

namespace cuda {
enum thread_scope { thread_scope_system, thread_scope_device, thread_scope_block, thread_scope_thread };
namespace std {
using ::std::memory_order;
using ::std::memory_order_relaxed;
using ::std::memory_order_consume;
using ::std::memory_order_acquire;
using ::std::memory_order_release;
using ::std::memory_order_acq_rel;
using ::std::memory_order_seq_cst;
}  // namespace std
using std::memory_order;
using std::memory_order_relaxed;
using std::memory_order_consume;
using std::memory_order_acquire;
using std::memory_order_release;
using std::memory_order_acq_rel;
using std::memory_order_seq_cst;

namespace __cassc_atomic {
#define __CASSC_ATOMIC_FN __host__ __device__ inline
/* The builtins take the scope as a constant: one instantiation per scope. */
template <thread_scope Scope>
struct scope;
template <> struct scope<thread_scope_system> { static constexpr int value = __HIP_MEMORY_SCOPE_SYSTEM; };
template <> struct scope<thread_scope_device> { static constexpr int value = __HIP_MEMORY_SCOPE_AGENT; };
template <> struct scope<thread_scope_block> { static constexpr int value = __HIP_MEMORY_SCOPE_WORKGROUP; };
template <> struct scope<thread_scope_thread> { static constexpr int value = __HIP_MEMORY_SCOPE_SINGLETHREAD; };
/* The failure order compare-exchange derives from a single order, as std::atomic does. */
__CASSC_ATOMIC_FN int failure_order(memory_order order) {
  return order == memory_order_acq_rel ? __ATOMIC_ACQUIRE
         : order == memory_order_release ? __ATOMIC_RELAXED : static_cast<int>(order);
}

/* The operations, on the object address() names (a member for atomic, a reference for atomic_ref). */
template <class Derived, class T, thread_scope Scope>
struct operations {
  static constexpr int S = scope<Scope>::value;
  __CASSC_ATOMIC_FN T* at() const { return static_cast<const Derived*>(this)->address(); }
  __CASSC_ATOMIC_FN T load(memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_load(at(), static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN void store(T value, memory_order order = memory_order_seq_cst) const {
    __hip_atomic_store(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T exchange(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_exchange(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN bool compare_exchange_weak(T& expected, T desired, memory_order success, memory_order failure) const {
    return __hip_atomic_compare_exchange_weak(at(), &expected, desired, static_cast<int>(success),
                                              static_cast<int>(failure), S);
  }
  __CASSC_ATOMIC_FN bool compare_exchange_strong(T& expected, T desired, memory_order success, memory_order failure) const {
    return __hip_atomic_compare_exchange_strong(at(), &expected, desired, static_cast<int>(success),
                                                static_cast<int>(failure), S);
  }
  __CASSC_ATOMIC_FN bool compare_exchange_weak(T& expected, T desired, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_compare_exchange_weak(at(), &expected, desired, static_cast<int>(order), failure_order(order), S);
  }
  __CASSC_ATOMIC_FN bool compare_exchange_strong(T& expected, T desired, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_compare_exchange_strong(at(), &expected, desired, static_cast<int>(order), failure_order(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_add(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_fetch_add(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_sub(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_fetch_add(at(), static_cast<T>(-value), static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_and(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_fetch_and(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_or(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_fetch_or(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_xor(T value, memory_order order = memory_order_seq_cst) const {
    return __hip_atomic_fetch_xor(at(), value, static_cast<int>(order), S);
  }
  __CASSC_ATOMIC_FN T fetch_min(T value, memory_order order = memory_order_seq_cst) const {
    if constexpr (::std::is_integral<T>::value) {
      return __hip_atomic_fetch_min(at(), value, static_cast<int>(order), S);
    } else {
      T old = load(memory_order_relaxed);
      while (value < old && !compare_exchange_weak(old, value, order)) {}
      return old;
    }
  }
  __CASSC_ATOMIC_FN T fetch_max(T value, memory_order order = memory_order_seq_cst) const {
    if constexpr (::std::is_integral<T>::value) {
      return __hip_atomic_fetch_max(at(), value, static_cast<int>(order), S);
    } else {
      T old = load(memory_order_relaxed);
      while (old < value && !compare_exchange_weak(old, value, order)) {}
      return old;
    }
  }
  __CASSC_ATOMIC_FN bool is_lock_free() const { return sizeof(T) <= 8; }
  __CASSC_ATOMIC_FN operator T() const { return load(); }
  __CASSC_ATOMIC_FN T operator++(int) const { return fetch_add(T(1)); }
  __CASSC_ATOMIC_FN T operator--(int) const { return fetch_sub(T(1)); }
  __CASSC_ATOMIC_FN T operator++() const { return fetch_add(T(1)) + T(1); }
  __CASSC_ATOMIC_FN T operator--() const { return fetch_sub(T(1)) - T(1); }
  __CASSC_ATOMIC_FN T operator+=(T value) const { return fetch_add(value) + value; }
  __CASSC_ATOMIC_FN T operator-=(T value) const { return fetch_sub(value) - value; }
  __CASSC_ATOMIC_FN T operator&=(T value) const { return fetch_and(value) & value; }
  __CASSC_ATOMIC_FN T operator|=(T value) const { return fetch_or(value) | value; }
  __CASSC_ATOMIC_FN T operator^=(T value) const { return fetch_xor(value) ^ value; }
};
}  // namespace __cassc_atomic

template <class T, thread_scope Scope = thread_scope_system>
struct atomic : __cassc_atomic::operations<atomic<T, Scope>, T, Scope> {
  alignas(sizeof(T) > alignof(T) ? sizeof(T) : alignof(T)) T value;
  atomic() = default;
  __CASSC_ATOMIC_FN constexpr atomic(T initial) : value(initial) {}
  atomic(const atomic&) = delete;
  atomic& operator=(const atomic&) = delete;
  __CASSC_ATOMIC_FN T operator=(T desired) { this->store(desired); return desired; }
  __CASSC_ATOMIC_FN T* address() const { return const_cast<T*>(&value); }
};

template <class T, thread_scope Scope = thread_scope_system>
struct atomic_ref : __cassc_atomic::operations<atomic_ref<T, Scope>, T, Scope> {
  T* referenced;
  __CASSC_ATOMIC_FN explicit atomic_ref(T& object) : referenced(&object) {}
  atomic_ref& operator=(const atomic_ref&) = delete;
  __CASSC_ATOMIC_FN T operator=(T desired) const { this->store(desired); return desired; }
  __CASSC_ATOMIC_FN T* address() const { return referenced; }
};

/* A fence of the scope's reach (the order is taken as seq_cst, which is stronger than any other). */
__CASSC_ATOMIC_FN void atomic_thread_fence(memory_order, thread_scope scope = thread_scope_system) {
#if defined(__HIP_DEVICE_COMPILE__)
  switch (scope) {
    case thread_scope_block: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); break;
    case thread_scope_device: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); break;
    case thread_scope_thread: break;
    default: __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); break;
  }
#else
  if (scope != thread_scope_thread) __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

namespace std {
template <class T>
using atomic = cuda::atomic<T, thread_scope_system>;
template <class T>
using atomic_ref = cuda::atomic_ref<T, thread_scope_system>;
}  // namespace std
#undef __CASSC_ATOMIC_FN
}  // namespace cuda
