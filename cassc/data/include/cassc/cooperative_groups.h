/* cassc: <cooperative_groups.h>: HIP's, plus block_tile_memory, the scratch CUDA's this_thread_block
 * takes to partition tiles wider than a warp. HIP's tiles are at most a wavefront (32 on gfx11, as a
 * CUDA warp), which need no scratch: the overload returns the plain block, and a wider tile stops at
 * HIP's own size check. */
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cooperative_groups {
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {};
template <unsigned int MaxBlockSize>
__device__ inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) { return this_thread_block(); }
}  // namespace cooperative_groups
