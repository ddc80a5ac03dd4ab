/* cassc: the search of CUDA's cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags (cuda_runtime.h),
 * apart from the runtime that answers its queries, so that cuda_compat.h's adapter over HIP's occupancy
 * query and a host test share it. From the block size limit down in steps of the warp size, the block
 * size with the most resident threads per multiprocessor (the largest such: it is met first), stopping
 * once a size fills the multiprocessor. `blocks_at(size, &blocks)` answers how many blocks of `size`
 * threads fit on one multiprocessor; a Status other than Status() (success) ends the search. */
#pragma once

template <typename Status, typename BlocksAt>
static inline Status __cassc_max_potential_block_size(int block_size_limit, int granularity,
                                                      int threads_per_multiprocessor, BlocksAt blocks_at,
                                                      int* block_size, int* blocks_per_multiprocessor) {
  int best_size = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (block_size_limit + granularity - 1) / granularity * granularity; aligned > 0;
       aligned -= granularity) {
    int tried = block_size_limit < aligned ? block_size_limit : aligned;
    int blocks = 0;
    Status status = blocks_at(tried, &blocks);
    if (status != Status()) return status;
    if (tried * blocks > best_threads) {
      best_size = tried;
      best_blocks = blocks;
      best_threads = tried * blocks;
    }
    if (best_threads == threads_per_multiprocessor) break;
  }
  *block_size = best_size;
  *blocks_per_multiprocessor = best_blocks;
  return Status();
}
