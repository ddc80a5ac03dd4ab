/* cassc: <cooperative_groups/scan.h> for HIP, which has tiles with shuffles but no cg scans. A
 * Hillis-Steele scan over shfl_up: after it, thread r holds value_0 op ... op value_r. The exclusive
 * scan is the inclusive one moved up a rank; rank 0 gets T{} (the identity of cg::plus and the bit
 * operations; CUDA leaves it undefined for the others). */
#pragma once
#include <cassc/cooperative_groups_reduce.h>

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
}  // namespace cooperative_groups
