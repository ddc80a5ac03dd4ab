// this_grid().sync() under cudaLaunchCooperativeKernel: three phases that each read the whole grid's writes.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__global__ void phases(int *a, long long *sums, int rounds) {
  cg::grid_group g = cg::this_grid();
  unsigned n = g.size(), i = g.thread_rank();
  a[i] = i;
  for (int r = 0; r < rounds; r++) {
    g.sync();
    int next = a[(i + 1) % n] + a[(i + n - 1) % n];
    g.sync();
    a[i] = next % 1000;
    g.sync();
    if (i == 0) { long long s = 0; for (unsigned k = 0; k < n; k++) s += a[k]; sums[r] = s; }
  }
}
int main() {
  int blocks = 0, device = 0;
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, phases, 128, 0);
  int grid = prop.multiProcessorCount * blocks < 64 ? prop.multiProcessorCount * blocks : 64;
  int *a, rounds = 5;
  long long *sums, host[5];
  cudaMalloc(&a, grid * 128 * sizeof(int));
  cudaMalloc(&sums, sizeof(host));
  void *args[] = {&a, &sums, &rounds};
  for (int launch = 0; launch < 2; launch++) {
    cudaError_t error = cudaLaunchCooperativeKernel((void *)phases, grid, 128, args, 0, 0);
    cudaDeviceSynchronize();
    cudaMemcpy(host, sums, sizeof(host), cudaMemcpyDeviceToHost);
    printf("launch %d (%s, %d blocks):", launch, cudaGetErrorName(error), grid >= 64 ? 64 : -1);
    for (int r = 0; r < rounds; r++) printf(" %lld", host[r]);
    printf("\n");
  }
  return 0;
}
