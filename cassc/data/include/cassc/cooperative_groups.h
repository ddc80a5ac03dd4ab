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
}  // namespace cooperative_groups
#endif
