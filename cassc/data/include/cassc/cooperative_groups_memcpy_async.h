/* cassc: <cooperative_groups/memcpy_async.h> for HIP, which has no group copies. gfx11 has no
 * asynchronous global-to-shared copy: the group's threads copy the bytes (strided by rank) at once,
 * which CUDA allows (a copy may complete before its wait), and wait/wait_prior synchronise the group,
 * as CUDA's do after the copy completes. */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cooperative_groups {
template <typename Group, typename Element, typename Size>
__device__ void memcpy_async(const Group& group, Element* destination, const Element* source, const Size& bytes) {
  char* to = reinterpret_cast<char*>(destination);
  const char* from = reinterpret_cast<const char*>(source);
  for (size_t i = group.thread_rank(); i < static_cast<size_t>(bytes); i += group.size()) to[i] = from[i];
}
/* element counts: the shorter of the two layouts */
template <typename Group, typename Element, typename DestinationCount, typename SourceCount>
__device__ void memcpy_async(const Group& group, Element* destination, const DestinationCount& destination_count,
                             const Element* source, const SourceCount& source_count) {
  size_t count = static_cast<size_t>(destination_count) < static_cast<size_t>(source_count)
                     ? static_cast<size_t>(destination_count) : static_cast<size_t>(source_count);
  memcpy_async(group, destination, source, count * sizeof(Element));
}
template <unsigned int Stage, typename Group>
__device__ void wait_prior(const Group& group) { group.sync(); }
template <typename Group>
__device__ void wait(const Group& group) { group.sync(); }
}  // namespace cooperative_groups
