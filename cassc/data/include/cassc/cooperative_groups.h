/* cassc: <cooperative_groups.h>: HIP's, plus block_tile_memory, the scratch CUDA's this_thread_block
 * takes to partition tiles wider than a warp. HIP's tiles are at most a wavefront (32 on gfx11, as a
 * CUDA warp), which need no scratch: the overload returns the plain block, and a wider tile stops at
 * HIP's own size check (cassc's diagnostics name it in one error at the user's line: diagnostics.py). And tiled_partition<N>(tile), thread_block_tile<N, ParentTile>, which HIP declares
 * but defines for a block parent only: tiles have power-of-two sizes, so a tile of a tile is the block's tile
 * of that size, which knows its parent (meta_group_rank/size). */
#pragma once
#include <hip/hip_runtime.h>
/* HIP 5's cooperative groups take the wavefront size from a list of wave32 targets that ends at gfx1031, so
 * on gfx11 (32 lanes) they size lane masks and tiles for 64: a tiled_partition<64> compiled and shuffled
 * across lanes that do not exist. For a 32-lane device compile the header sees one target of its list;
 * nothing else there reads it. HIP 6 reads __AMDGCN_WAVEFRONT_SIZE. */
#if defined(__HIP_DEVICE_COMPILE__) && defined(__AMDGCN_WAVEFRONT_SIZE) && HIP_VERSION_MAJOR < 6 && \
    !defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_COOPERATIVE_GROUPS_HELPER_H)
#if __AMDGCN_WAVEFRONT_SIZE == 32 && !defined(__gfx1030__)
#define __gfx1030__ 1
#define __CASSC_WAVE32_GROUPS
#endif
#endif
#include <hip/hip_cooperative_groups.h>
#if defined(__CASSC_WAVE32_GROUPS)
#undef __gfx1030__
#undef __CASSC_WAVE32_GROUPS
#endif

#if defined(__HIP__) /* HIP's groups exist in HIP compiles only; a host compiler including the header skips them */
namespace cooperative_groups {
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {};
template <unsigned int MaxBlockSize>
__device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) { return this_thread_block(); }
namespace impl {
/* A tile whose parent is a tile is built as a tile of the block is: HIP 6's generic constructor from another
 * tile passes the parent's meta-group place to a constructor only its void-parent tiles have. */
template <unsigned int size, unsigned int parent_size, class Grandparent>
class thread_block_tile_internal<size, thread_block_tile<parent_size, Grandparent>>
    : public thread_block_tile_type<size, thread_block_tile<parent_size, Grandparent>> {
 protected:
  template <unsigned int other_size, class OtherParent>
  __device__ thread_block_tile_internal(const thread_block_tile_internal<other_size, OtherParent>&)
      : thread_block_tile_type<size, thread_block_tile<parent_size, Grandparent>>() {}
  __device__ thread_block_tile_internal(const thread_block&)
      : thread_block_tile_type<size, thread_block_tile<parent_size, Grandparent>>() {}
};
template <unsigned int size, unsigned int parent_size, class Grandparent>
struct tiled_partition_internal<size, thread_block_tile<parent_size, Grandparent>>
    : public thread_block_tile<size, thread_block_tile<parent_size, Grandparent>> {
  __device__ tiled_partition_internal(const thread_block_tile<parent_size, Grandparent>& parent)
      : thread_block_tile<size, thread_block_tile<parent_size, Grandparent>>(parent) {}
};
}  // namespace impl

/* The members CUDA's groups have and HIP's lack (HIP 5.2: ballot, any, all, match_any, match_all,
 * num_threads, meta_group_rank/size; HIP 6 without its warp-sync builtins: the votes and matches), reached
 * through member_calls.h's __cassc_members(group), which gives HIP's groups the view below. CUDA's masks
 * number a group's threads by rank: bit r is the thread of thread_rank() r. */
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
/* A group's place among the groups its parent was partitioned into. A tile of a tile: its rank in the parent
 * tile over its size (HIP's tiles are lanes of one wavefront, so the parent's rank is the block rank modulo
 * the parent's size); a tile of the block, the dynamic tiled_partition's group, or a tile whose parent type
 * was dropped (thread_block_tile<N>): among the block's tiles. A coalesced group: CUDA's coalesced_threads()
 * is the one group of its set (rank 0 of 1), and HIP 5.2 keeps no parent for a partitioned one. */
namespace __cassc_cg {
__device__ inline unsigned int block_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
template <class Group>
struct meta {
  __device__ static unsigned int rank(const Group& group) { return block_rank() / group.size(); }
  __device__ static unsigned int size(const Group& group) {
    return (blockDim.x * blockDim.y * blockDim.z + group.size() - 1) / group.size();
  }
};
template <unsigned int Size, unsigned int ParentSize, class Grandparent>
struct meta<thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>>> {
  using Tile = thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>>;
  __device__ static unsigned int rank(const Tile&) { return block_rank() % ParentSize / Size; }
  __device__ static unsigned int size(const Tile&) { return ParentSize / Size; }
};
template <>
struct meta<coalesced_group> {
  __device__ static unsigned int rank(const coalesced_group&) { return 0; }
  __device__ static unsigned int size(const coalesced_group&) { return 1; }
};
}  // namespace __cassc_cg
template <class Group>
__device__ inline unsigned int __cassc_meta_group_rank_of(const Group& group) {
  return __cassc_cg::meta<Group>::rank(group);
}
template <class Group>
__device__ inline unsigned int __cassc_meta_group_size_of(const Group& group) {
  return __cassc_cg::meta<Group>::size(group);
}
/* The view: each member is the group's own where HIP's class has it (the _own overload; the tag makes it the
 * better match), else cassc's __cassc_<member>_of above. */
#define __CASSC_CG_MEMBER(member)                                                                              \
  template <class Group, class... A>                                                                          \
  __device__ inline auto __cassc_##member##_call(__cassc_member_own, const Group& group, A&&... a)              \
      -> decltype(group.member(static_cast<A&&>(a)...)) {                                                      \
    return group.member(static_cast<A&&>(a)...);                                                               \
  }                                                                                                            \
  template <class Group, class... A>                                                                          \
  __device__ inline auto __cassc_##member##_call(__cassc_member_fallback, const Group& group, A&&... a)         \
      -> decltype(__cassc_##member##_of(group, static_cast<A&&>(a)...)) {                                      \
    return __cassc_##member##_of(group, static_cast<A&&>(a)...);                                               \
  }
#define __CASSC_CG_VIEW_MEMBER(member)                                                                         \
  template <class... A>                                                                                        \
  __device__ auto member(A&&... a) const                                                                       \
      -> decltype(__cassc_##member##_call(__cassc_member_own{}, group, static_cast<A&&>(a)...)) {             \
    return __cassc_##member##_call(__cassc_member_own{}, group, static_cast<A&&>(a)...);                      \
  }
__CASSC_CG_MEMBER(num_threads)
__CASSC_CG_MEMBER(ballot)
__CASSC_CG_MEMBER(any)
__CASSC_CG_MEMBER(all)
__CASSC_CG_MEMBER(match_any)
__CASSC_CG_MEMBER(match_all)
__CASSC_CG_MEMBER(meta_group_rank)
__CASSC_CG_MEMBER(meta_group_size)
namespace __cassc_cg {
/* CUDA's group shuffles move any trivially copyable type; HIP's take integers and floating point only: another
 * type moves as its 32-bit words, each shuffled as the group's own shuffle moves an int (HIP's vector types,
 * which CUDA code shuffles, are not trivially copyable to the compiler, but their bytes are their value). */
template <class T, class Shuffle>
__device__ inline T by_words(const T& value, Shuffle shuffle) {
  constexpr int words = (sizeof(T) + sizeof(int) - 1) / sizeof(int);
  int in[words] = {};
  __builtin_memcpy(in, &value, sizeof(T));
  for (int word = 0; word < words; ++word) in[word] = shuffle(in[word]);
  union {
    T value;
    unsigned char bytes[sizeof(T)];
  } result;
  __builtin_memcpy(result.bytes, in, sizeof(T));
  return result.value;
}
#define __CASSC_CG_VIEW_SHUFFLE(member)                                                                        \
  template <class T, class Lane>                                                                               \
  __device__ T member(T value, Lane lane) const {                                                              \
    if constexpr (std::is_integral<T>::value || std::is_floating_point<T>::value)                              \
      return group.member(value, lane);                                                                        \
    else                                                                                                       \
      return by_words(value, [&](int word) { return group.member(word, lane); });                              \
  }
template <class Group>
struct members {
  const Group& group;
  __CASSC_CG_VIEW_SHUFFLE(shfl)
  __CASSC_CG_VIEW_SHUFFLE(shfl_up)
  __CASSC_CG_VIEW_SHUFFLE(shfl_down)
  __CASSC_CG_VIEW_SHUFFLE(shfl_xor)
  __CASSC_CG_VIEW_MEMBER(num_threads)
  __CASSC_CG_VIEW_MEMBER(ballot)
  __CASSC_CG_VIEW_MEMBER(any)
  __CASSC_CG_VIEW_MEMBER(all)
  __CASSC_CG_VIEW_MEMBER(match_any)
  __CASSC_CG_VIEW_MEMBER(match_all)
  __CASSC_CG_VIEW_MEMBER(meta_group_rank)
  __CASSC_CG_VIEW_MEMBER(meta_group_size)
};
}  // namespace __cassc_cg
#undef __CASSC_CG_MEMBER
#undef __CASSC_CG_VIEW_MEMBER
#undef __CASSC_CG_VIEW_SHUFFLE
/* Group may be const-qualified: the overload takes the object as member_calls.h's fallback does, so the tag
 * alone makes it the better match. */
template <class Group, class Plain = typename std::remove_const<Group>::type,
          typename std::enable_if<std::is_base_of<thread_group, Plain>::value, int>::type = 0>
__device__ inline __cassc_cg::members<Plain> __cassc_members_of(Group& group, __cassc_member_own) {
  return __cassc_cg::members<Plain>{group};
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
  return __cassc_cg::members<Group>{group}.shfl(result, 0);
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
