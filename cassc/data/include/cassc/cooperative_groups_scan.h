/* cassc: <cooperative_groups/scan.h> for HIP, which has tiles with shuffles but no cg scans. A
 * Hillis-Steele scan over shfl_up: after it, thread r holds value_0 op ... op value_r. The exclusive
 * scan is the inclusive one moved up a rank; rank 0 gets T{} (the identity of cg::plus and the bit
 * operations; CUDA leaves it undefined for the others). The _update forms also combine the group's total into
 * libcu++'s atomic (the last rank's one update) and add its old value to every thread's result: rank 0 of an
 * exclusive scan gets the old value itself. */
#pragma once
#include <cassc/cooperative_groups_reduce.h>

#if defined(__HIP__) /* as cooperative_groups.h: a host compiler including the header skips the groups */
namespace cooperative_groups {
template <typename Group, typename T, typename Operation>
__device__ T inclusive_scan(const Group& group, T value, Operation operation) {
  for (unsigned int offset = 1; offset < group.size(); offset *= 2) {
    T other = group.shfl_up(value, offset);
    if (group.thread_rank() >= offset) value = operation(other, value);
  }
  return value;
}
template <typename Group, typename T>
__device__ T inclusive_scan(const Group& group, T value) { return inclusive_scan(group, value, plus<T>()); }
template <typename Group, typename T, typename Operation>
__device__ T exclusive_scan(const Group& group, T value, Operation operation) {
  T inclusive = inclusive_scan(group, value, operation);
  T previous = group.shfl_up(inclusive, 1);
  return group.thread_rank() == 0 ? T{} : previous;
}
template <typename Group, typename T>
__device__ T exclusive_scan(const Group& group, T value) { return exclusive_scan(group, value, plus<T>()); }
/* The update of `destination` by the group's total; every thread gets the atomic's old value. */
template <typename Group, typename Atomic, typename T, typename Operation>
__device__ T __cassc_scan_update(const Group& group, Atomic& destination, T inclusive, const Operation& operation) {
  T old{};
  if (group.thread_rank() == group.size() - 1) old = __cassc_atomic_update(destination, inclusive, operation);
  return group.shfl(old, group.size() - 1);
}
#define __CASSC_SCAN_UPDATE(...)                                                                                 \
  template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>          \
  __device__ T inclusive_scan_update(const Group& group, __VA_ARGS__ destination, Value&& value,                \
                                     Operation&& operation) {                                                   \
    const T inclusive = inclusive_scan(group, static_cast<T>(value), operation);                                \
    return operation(__cassc_scan_update(group, destination, inclusive, operation), inclusive);                \
  }                                                                                                             \
  template <typename Group, typename T, cuda::thread_scope Scope, typename Value>                               \
  __device__ T inclusive_scan_update(const Group& group, __VA_ARGS__ destination, Value&& value) {              \
    return inclusive_scan_update(group, destination, static_cast<T>(value), plus<T>());                         \
  }                                                                                                             \
  template <typename Group, typename T, cuda::thread_scope Scope, typename Value, typename Operation>          \
  __device__ T exclusive_scan_update(const Group& group, __VA_ARGS__ destination, Value&& value,                \
                                     Operation&& operation) {                                                   \
    const T inclusive = inclusive_scan(group, static_cast<T>(value), operation);                                \
    const T old = __cassc_scan_update(group, destination, inclusive, operation);                                \
    const T previous = group.shfl_up(inclusive, 1);                                                             \
    return group.thread_rank() == 0 ? old : operation(old, previous);                                           \
  }                                                                                                             \
  template <typename Group, typename T, cuda::thread_scope Scope, typename Value>                               \
  __device__ T exclusive_scan_update(const Group& group, __VA_ARGS__ destination, Value&& value) {              \
    return exclusive_scan_update(group, destination, static_cast<T>(value), plus<T>());                         \
  }
__CASSC_SCAN_UPDATE(cuda::atomic<T, Scope>&)
__CASSC_SCAN_UPDATE(const cuda::atomic_ref<T, Scope>&)
#undef __CASSC_SCAN_UPDATE
}  // namespace cooperative_groups
#endif
