/* cassc: <cooperative_groups/reduce.h> for HIP, which has tiles with shuffles but no cg::reduce.
 * A butterfly over shfl_xor: every thread of the tile gets the result, as with CUDA's reduce.
 * Tiles (thread_block_tile<N>, tiled_partition) have power-of-two sizes, which this relies on; a coalesced group,
 * whose size need not be one, reduces along a tree over its lanes.
 * The asynchronous forms (reduce_store_async, reduce_update_async) reduce at once, which CUDA allows (their
 * result is visible after the group's next sync): the group's rank-0 thread stores the result, or combines it
 * into libcu++'s atomic (cassc/cuda_atomic.h) with the operation's atomic where there is one, as CUDA's do. */
#pragma once
#include <hip/hip_runtime.h>
#include <cassc/cooperative_groups.h>
#include <cassc/cuda_atomic.h>

#if defined(__HIP__) /* as cooperative_groups.h: a host compiler including the header skips the groups */
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
template <typename Group, typename T, typename Operation>
__device__ T reduce(const Group& group, T value, Operation operation) {
  for (unsigned int offset = group.size() / 2; offset > 0; offset /= 2) {
    value = operation(value, __cassc_cg::by_words(value, [&](int word) { return group.shfl_xor(word, offset); }));
  }
  return value;
}

/* A coalesced group (HIP 5's has no shfl_xor; its size need not be a power of two): a tree towards rank 0 over the
 * group's lanes, then rank 0's value to every member. */
template <typename T, typename Operation>
__device__ T reduce(const coalesced_group& group, T value, Operation operation) {
  const unsigned long long lanes = __cassc_cg::lanes(group);
  const unsigned int rank = group.thread_rank(), size = group.size();
  auto lane_of = [lanes](unsigned int r) {  // the lane of rank r: lanes' r-th set bit
    unsigned long long rest = lanes;
    for (unsigned int i = 0; i < r; ++i) rest &= rest - 1;
    return static_cast<int>(__builtin_ctzll(rest));
  };
  for (unsigned int offset = 1; offset < size; offset *= 2) {
    const int from = lane_of(rank + offset < size ? rank + offset : rank);  // every member takes part in each shuffle
    const T other = __cassc_cg::by_words(value, [&](int word) { return __shfl(word, from); });
    if (rank % (2 * offset) == 0 && rank + offset < size) value = operation(value, other);
  }
  const int first = lane_of(0);
  return __cassc_cg::by_words(value, [&](int word) { return __shfl(word, first); });
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
#endif
