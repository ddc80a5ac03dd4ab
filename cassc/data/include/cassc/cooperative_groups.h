/* cassc: <cooperative_groups.h>: HIP's, plus block_tile_memory, the scratch CUDA's this_thread_block
 * takes to partition tiles wider than a warp. HIP's tiles are at most a wavefront (32 on gfx11, as a
 * CUDA warp), which need no scratch: the overload returns the plain block, and a wider tile stops at
 * HIP's own size check. And tiled_partition<N>(tile), which HIP declares but defines for a block
 * parent only: tiles have power-of-two sizes, so a tile of a tile is the block's tile of that size. */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

#if defined(__HIP__) /* HIP's groups exist in HIP compiles only; a host compiler including the header skips them */
namespace cooperative_groups {
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {};
template <unsigned int MaxBlockSize>
__device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) { return this_thread_block(); }
namespace impl {
template <unsigned int size, unsigned int parent_size, class Grandparent>
struct tiled_partition_internal<size, thread_block_tile<parent_size, Grandparent>>
    : public thread_block_tile<size, thread_block_tile<parent_size, Grandparent>> {
  __device__ tiled_partition_internal(const thread_block_tile<parent_size, Grandparent>& parent)
      : thread_block_tile<size, thread_block_tile<parent_size, Grandparent>>(parent) {}
};
}  // namespace impl

/* The members CUDA's tiles and coalesced groups have and HIP 5.2's lack (ballot, any, all, match_any,
 * match_all, num_threads), reached through member_calls.h's __cassc_<member> where the class has no such
 * member. CUDA's masks number a group's threads by rank: bit r is the thread of thread_rank() r. */
namespace __cassc_cg {
/* The wavefront lanes of a group: a coalesced group's are the lanes active at the call (CUDA requires
 * every member to make it); a tile's, size() lanes from the caller's lane less its rank. */
template <class Group>
__device__ inline unsigned long long lanes(const Group& group) {
  if constexpr (std::is_same<Group, coalesced_group>::value) {
    return __ballot(1);
  } else {
    const unsigned long long window = group.size() >= 64 ? ~0ull : (1ull << group.size()) - 1;
    return window << (__lane_id() - group.thread_rank());
  }
}
/* The lanes whose `value` equals the caller's. Every lane takes part; lanes outside a group are masked off. */
template <class T>
__device__ inline unsigned long long lanes_with(T value) {
  unsigned long long same = 0;
  for (int lane = 0; lane < warpSize; ++lane)
    if (__shfl(value, lane) == value) same |= 1ull << lane;
  return same;
}
/* A coalesced group of the given lanes (HIP's constructor from a mask is for its own functions). */
struct coalesced_of_lanes : coalesced_group {
  __device__ explicit coalesced_of_lanes(unsigned long long lanes) : coalesced_group(lanes) {}
};
/* The bits of `value` at the lanes of `mask`, packed in lane order: by rank. */
__device__ inline unsigned long long by_rank(unsigned long long value, unsigned long long mask) {
  unsigned long long packed = 0;
  for (int lane = 0, rank = 0; lane < warpSize; ++lane)
    if (mask >> lane & 1ull) packed |= (value >> lane & 1ull) << rank++;
  return packed;
}
}  // namespace __cassc_cg
template <class Group>
__device__ inline unsigned long long __cassc_num_threads_of(const Group& group) { return group.size(); }
template <class Group>
__device__ inline unsigned long long __cassc_ballot_of(const Group& group, int predicate) {
  const unsigned long long lanes = __cassc_cg::lanes(group);
  return __cassc_cg::by_rank(__ballot(predicate) & lanes, lanes);
}
template <class Group>
__device__ inline int __cassc_any_of(const Group& group, int predicate) {
  return (__ballot(predicate) & __cassc_cg::lanes(group)) != 0;
}
template <class Group>
__device__ inline int __cassc_all_of(const Group& group, int predicate) {
  const unsigned long long lanes = __cassc_cg::lanes(group);
  return (__ballot(predicate) & lanes) == lanes;
}
template <class Group, class T>
__device__ inline unsigned long long __cassc_match_any_of(const Group& group, T value) {
  const unsigned long long lanes = __cassc_cg::lanes(group);
  return __cassc_cg::by_rank(__cassc_cg::lanes_with(value) & lanes, lanes);
}
template <class Group, class T>
__device__ inline unsigned long long __cassc_match_all_of(const Group& group, T value, int& predicate) {
  const unsigned long long lanes = __cassc_cg::lanes(group);
  const unsigned long long everyone = __cassc_cg::by_rank(lanes, lanes);
  predicate = __cassc_match_any_of(group, value) == everyone;
  return predicate ? everyone : 0;
}

/* The partitions of a tile or coalesced group into coalesced groups, by a predicate (HIP 6 has it) or a
 * label: the group's lanes that voted as the caller did, or hold its label. */
#if HIP_VERSION_MAJOR < 6 || !defined(HIP_ENABLE_WARP_SYNC_BUILTINS) /* HIP 6 declares it with its *_sync builtins */
template <class Group>
__device__ inline coalesced_group binary_partition(const Group& group, bool predicate) {
  const unsigned long long lanes = __cassc_cg::lanes(group), votes = __ballot(predicate) & lanes;
  return __cassc_cg::coalesced_of_lanes(predicate ? votes : lanes & ~votes);
}
#endif
template <class Group, class Label>
__device__ inline coalesced_group labeled_partition(const Group& group, Label label) {
  return __cassc_cg::coalesced_of_lanes(__cassc_cg::lanes_with(label) & __cassc_cg::lanes(group));
}

/* invoke_one: the group's rank-0 thread calls; _broadcast hands its result to the group by a shuffle. */
template <class Group, class Fn, class... Args>
__device__ inline void invoke_one(const Group& group, Fn&& fn, Args&&... args) {
  if (group.thread_rank() == 0) std::forward<Fn>(fn)(std::forward<Args>(args)...);
}
template <class Group, class Fn, class... Args>
__device__ inline auto invoke_one_broadcast(const Group& group, Fn&& fn, Args&&... args)
    -> typename std::decay<decltype(std::forward<Fn>(fn)(std::forward<Args>(args)...))>::type {
  typename std::decay<decltype(std::forward<Fn>(fn)(std::forward<Args>(args)...))>::type result{};
  if (group.thread_rank() == 0) result = std::forward<Fn>(fn)(std::forward<Args>(args)...);
  return group.shfl(result, 0);
}

/* sm_90's thread-block clusters: a kernel runs in clusters of one block here (device_intrinsics.h), so
 * this_cluster() is the block, its shared memory the only one mapped. */
class cluster_group {
 public:
  struct arrival_token {};
  __device__ static void sync() { __syncthreads(); }
  __device__ static arrival_token barrier_arrive() { return arrival_token(); }
  __device__ static void barrier_wait() { __syncthreads(); }  // every arriving thread also waits
  __device__ static void barrier_wait(arrival_token&&) { __syncthreads(); }
  __device__ static unsigned int query_shared_rank(const void*) { return 0; }
  template <class T>
  __device__ static T* map_shared_rank(T* address, int) { return address; }
  __device__ static dim3 block_index() { return dim3(0, 0, 0); }
  __device__ static unsigned int block_rank() { return 0; }
  __device__ static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ static unsigned int thread_rank() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  }
  __device__ static dim3 dim_blocks() { return dim3(1, 1, 1); }
  __device__ static unsigned int num_blocks() { return 1; }
  __device__ static dim3 dim_threads() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ static unsigned int num_threads() { return blockDim.x * blockDim.y * blockDim.z; }
  __device__ static unsigned int size() { return num_threads(); }
};
__device__ inline cluster_group this_cluster() { return cluster_group(); }
}  // namespace cooperative_groups
#endif
