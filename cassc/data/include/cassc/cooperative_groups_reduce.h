/* cassc: <cooperative_groups/reduce.h> for HIP, which has tiles with shuffles but no cg::reduce.
 * A butterfly over shfl_xor: every thread of the tile gets the result, as with CUDA's reduce.
 * Tiles (thread_block_tile<N>, tiled_partition) have power-of-two sizes, which this relies on.
 * The asynchronous forms (reduce_store_async, reduce_update_async) reduce at once, which CUDA allows (their
 * result is visible after the group's next sync): the group's rank-0 thread stores the result, or combines it
 * into libcu++'s atomic (cassc/cuda_atomic.h) with the operation's atomic where there is one, as CUDA's do. */
#pragma once
#include <hip/hip_runtime.h>
#include <cassc/cooperative_groups.h>
#include <cassc/cuda_atomic.h>

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

/* Combine `value` into the atomic by `operation`; the atomic's old value. */
template <typename Atomic, typename T, typename Operation>
__device__ T __cassc_atomic_update(const Atomic& destination, T value, const Operation& operation) {
  constexpr cuda::memory_order relaxed = cuda::memory_order_relaxed;
  if constexpr (std::is_same<Operation, plus<T>>::value) {
    return destination.fetch_add(value, relaxed);
  } else if constexpr (std::is_same<Operation, less<T>>::value) {
    return destination.fetch_min(value, relaxed);
  } else if constexpr (std::is_same<Operation, greater<T>>::value) {
    return destination.fetch_max(value, relaxed);
  } else if constexpr (std::is_same<Operation, bit_and<T>>::value) {
    return destination.fetch_and(value, relaxed);
  } else if constexpr (std::is_same<Operation, bit_or<T>>::value) {
    return destination.fetch_or(value, relaxed);
  } else if constexpr (std::is_same<Operation, bit_xor<T>>::value) {
    return destination.fetch_xor(value, relaxed);
  } else {
    T old = destination.load(relaxed);
    while (!destination.compare_exchange_weak(old, operation(old, value), relaxed)) {}
    return old;
  }
}
template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>
__device__ void reduce_update_async(const Group& group, const cuda::atomic_ref<T, Scope>& destination, Value&& value,
                                    Operation&& operation) {
  const T result = reduce(group, static_cast<T>(value), operation);
  if (group.thread_rank() == 0) __cassc_atomic_update(destination, result, operation);
}
template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>
__device__ void reduce_update_async(const Group& group, cuda::atomic<T, Scope>& destination, Value&& value,
                                    Operation&& operation) {
  const T result = reduce(group, static_cast<T>(value), operation);
  if (group.thread_rank() == 0) __cassc_atomic_update(destination, result, operation);
}
template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>
__device__ void reduce_store_async(const Group& group, const cuda::atomic_ref<T, Scope>& destination, Value&& value,
                                   Operation&& operation) {
  const T result = reduce(group, static_cast<T>(value), operation);
  if (group.thread_rank() == 0) destination.store(result, cuda::memory_order_relaxed);
}
template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>
__device__ void reduce_store_async(const Group& group, cuda::atomic<T, Scope>& destination, Value&& value,
                                   Operation&& operation) {
  const T result = reduce(group, static_cast<T>(value), operation);
  if (group.thread_rank() == 0) destination.store(result, cuda::memory_order_relaxed);
}
template <typename Group, typename T, typename Value, typename Operation>
__device__ void reduce_store_async(const Group& group, T* destination, Value&& value, Operation&& operation) {
  const T result = reduce(group, static_cast<T>(value), operation);
  if (group.thread_rank() == 0) *destination = result;
}
}  // namespace cooperative_groups
