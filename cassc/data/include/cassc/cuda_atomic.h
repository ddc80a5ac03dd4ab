/* cassc: libcu++'s scoped atomics (<cuda/atomic>, <cuda/std/atomic>) for HIP, which has no libcu++:
 * cuda::atomic<T, Scope> and cuda::atomic_ref<T, Scope> over clang's scoped __hip_atomic builtins, a CUDA
 * thread scope being the AMDGPU synchronisation scope of the same reach (block: workgroup, device: agent,
 * system: system, thread: one thread). cuda::std::atomic and atomic_ref are the system-scope ones, as in
 * libcu++; memory orders are std's. fetch_min/fetch_max of a type the hardware has no such atomic for
 * (floating point) are a compare-and-swap loop. A host compiler (g++ on the stand-in toolkit's headers) gets
 * the same API over GCC's __atomic builtins, every read-modify-write a compare-and-swap loop. */
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
#if defined(__HIP__)
#define __CASSC_ATOMIC_FN __host__ __device__ inline
/* The builtins take the scope as a constant: one instantiation per scope. */
template <thread_scope Scope>
struct scope;
template <> struct scope<thread_scope_system> { static constexpr int value = __HIP_MEMORY_SCOPE_SYSTEM; };
template <> struct scope<thread_scope_device> { static constexpr int value = __HIP_MEMORY_SCOPE_AGENT; };
template <> struct scope<thread_scope_block> { static constexpr int value = __HIP_MEMORY_SCOPE_WORKGROUP; };
template <> struct scope<thread_scope_thread> { static constexpr int value = __HIP_MEMORY_SCOPE_SINGLETHREAD; };
#define __CASSC_ATOMIC_CALL(operation, ...) __hip_atomic_##operation(__VA_ARGS__, scope<Scope>::value)
#else
#define __CASSC_ATOMIC_FN inline
#endif
/* The failure order compare-exchange derives from a single order, as std::atomic does. */
__CASSC_ATOMIC_FN int failure_order(memory_order order) {
  return order == memory_order_acq_rel ? __ATOMIC_ACQUIRE
         : order == memory_order_release ? __ATOMIC_RELAXED : static_cast<int>(order);
}

/* The operations, on the object address() names (a member for atomic, a reference for atomic_ref). */
template <class Derived, class T, thread_scope Scope>
struct operations {
  __CASSC_ATOMIC_FN T* at() const { return static_cast<const Derived*>(this)->address(); }
#if defined(__HIP__)
  __CASSC_ATOMIC_FN T load(memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(load, at(), static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN void store(T value, memory_order order = memory_order_seq_cst) const {
    __CASSC_ATOMIC_CALL(store, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T exchange(T value, memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(exchange, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN bool compare_exchange_weak(T& expected, T desired, memory_order success, memory_order failure) const {
    return __CASSC_ATOMIC_CALL(compare_exchange_weak, at(), &expected, desired, static_cast<int>(success),
                               static_cast<int>(failure));
  }
  __CASSC_ATOMIC_FN bool compare_exchange_strong(T& expected, T desired, memory_order success, memory_order failure) const {
    return __CASSC_ATOMIC_CALL(compare_exchange_strong, at(), &expected, desired, static_cast<int>(success),
                               static_cast<int>(failure));
  }
  __CASSC_ATOMIC_FN T fetch_add(T value, memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(fetch_add, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T fetch_and(T value, memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(fetch_and, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T fetch_or(T value, memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(fetch_or, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T fetch_xor(T value, memory_order order = memory_order_seq_cst) const {
    return __CASSC_ATOMIC_CALL(fetch_xor, at(), value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T fetch_min(T value, memory_order order = memory_order_seq_cst) const {
    if constexpr (::std::is_integral<T>::value) {
      return __CASSC_ATOMIC_CALL(fetch_min, at(), value, static_cast<int>(order));
    } else {
      return update(order, [](T old, T v) { return v < old ? v : old; }, value);
    }
  }
  __CASSC_ATOMIC_FN T fetch_max(T value, memory_order order = memory_order_seq_cst) const {
    if constexpr (::std::is_integral<T>::value) {
      return __CASSC_ATOMIC_CALL(fetch_max, at(), value, static_cast<int>(order));
    } else {
      return update(order, [](T old, T v) { return old < v ? v : old; }, value);
    }
  }
#else
  __CASSC_ATOMIC_FN T load(memory_order order = memory_order_seq_cst) const {
    T value;
    __atomic_load(at(), &value, static_cast<int>(order));
    return value;
  }
  __CASSC_ATOMIC_FN void store(T value, memory_order order = memory_order_seq_cst) const {
    __atomic_store(at(), &value, static_cast<int>(order));
  }
  __CASSC_ATOMIC_FN T exchange(T value, memory_order order = memory_order_seq_cst) const {
    T old;
    __atomic_exchange(at(), &value, &old, static_cast<int>(order));
    return old;
  }
  __CASSC_ATOMIC_FN bool compare_exchange_weak(T& expected, T desired, memory_order success, memory_order failure) const {
    return __atomic_compare_exchange(at(), &expected, &desired, true, static_cast<int>(success), static_cast<int>(failure));
  }
  __CASSC_ATOMIC_FN bool compare_exchange_strong(T& expected, T desired, memory_order success, memory_order failure) const {
    return __atomic_compare_exchange(at(), &expected, &desired, false, static_cast<int>(success), static_cast<int>(failure));
  }
  __CASSC_ATOMIC_FN T fetch_add(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return old + v; }, value);
  }
  __CASSC_ATOMIC_FN T fetch_and(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return old & v; }, value);
  }
  __CASSC_ATOMIC_FN T fetch_or(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return old | v; }, value);
  }
  __CASSC_ATOMIC_FN T fetch_xor(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return old ^ v; }, value);
  }
  __CASSC_ATOMIC_FN T fetch_min(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return v < old ? v : old; }, value);
  }
  __CASSC_ATOMIC_FN T fetch_max(T value, memory_order order = memory_order_seq_cst) const {
    return update(order, [](T old, T v) { return old < v ? v : old; }, value);
  }
#endif
  /* A read-modify-write as a compare-and-swap loop; the old value. */
  template <class Operation>
  __CASSC_ATOMIC_FN T update(memory_order order, Operation operation, T value) const {
    T old = load(memory_order_relaxed);
    while (!compare_exchange_weak(old, operation(old, value), order)) {}
    return old;
  }
  __CASSC_ATOMIC_FN bool compare_exchange_weak(T& expected, T desired, memory_order order = memory_order_seq_cst) const {
    return compare_exchange_weak(expected, desired, order, static_cast<memory_order>(failure_order(order)));
  }
  __CASSC_ATOMIC_FN bool compare_exchange_strong(T& expected, T desired, memory_order order = memory_order_seq_cst) const {
    return compare_exchange_strong(expected, desired, order, static_cast<memory_order>(failure_order(order)));
  }
  __CASSC_ATOMIC_FN T fetch_sub(T value, memory_order order = memory_order_seq_cst) const {
    return fetch_add(static_cast<T>(-value), order);
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
#undef __CASSC_ATOMIC_CALL
}  // namespace cuda
