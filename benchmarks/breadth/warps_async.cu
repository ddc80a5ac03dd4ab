// sm_80/sm_90 warp instructions and asynchronous copies: redux, match, elect, cp.async + groups, mbarrier.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
__global__ void reductions(const int *in, unsigned *out) {
  int v = in[threadIdx.x];
  unsigned t = threadIdx.x;
  out[t] = __reduce_add_sync(~0u, v) + __reduce_min_sync(~0u, v) * 3 + __reduce_max_sync(~0u, v) * 5
         + __reduce_and_sync(~0u, t | 64) + __reduce_or_sync(~0u, t) * 7 + __reduce_xor_sync(~0u, t * 3)
         + __reduce_min_sync(~0u, t + 9) + __reduce_max_sync(~0u, t) * 11;
  int all;
  unsigned m = __match_any_sync(~0u, v & 3) + __match_all_sync(~0u, v, &all) * 2 + all;
  unsigned long long wide = (unsigned long long)(v & 1) << 33;
  m ^= __match_any_sync(~0u, wide) + __match_all_sync(~0u, (long long)(t / 64), &all) + all;
  out[t + 32] = m;
  // elect.sync over a partial member mask: only the lanes it names may execute it (the others' result
  // would be undefined), so lanes 0-3 stay out and report no leader.
  unsigned leader = 0, is_leader = 0;
  if ((t & 31) >= 4)
    asm volatile("{\n .reg .pred p;\n elect.sync %0|p, 0xfffffff0;\n selp.u32 %1, 1, 0, p;\n}"
                 : "=r"(leader), "=r"(is_leader));
  out[t + 64] = leader * 2 + is_leader;
}
__global__ void async_copies(const float4 *in, float *out, int n) {
  __shared__ float4 tile[64];
  __shared__ float2 t8[64];
  __shared__ float t4[64];
  __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_memcpy_async(&t8[threadIdx.x], (const float2 *)in + threadIdx.x, sizeof(float2), threadIdx.x < n ? 0 : 8);
  __pipeline_memcpy_async(&t4[threadIdx.x], (const float *)in + threadIdx.x, sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x].x + t8[threadIdx.x].y + t4[threadIdx.x];
}
__global__ void barrier_copy(const float *in, float *out) {
  __shared__ float buf[2][128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  for (int phase = 0; phase < 2; phase++) {
    cuda::memcpy_async(block, buf[phase], in + phase * 128, sizeof(buf[0]), bar);
    bar.arrive_and_wait();
  }
  out[threadIdx.x] = buf[0][127 - threadIdx.x] * buf[1][threadIdx.x];
}
int main() {
  int host_in[64];
  for (int i = 0; i < 64; i++) host_in[i] = (i * 37) % 11 - 4;
  int *in;
  unsigned *out, host_out[96];
  cudaMalloc(&in, sizeof(host_in));
  cudaMalloc(&out, sizeof(host_out));
  cudaMemcpy(in, host_in, sizeof(host_in), cudaMemcpyHostToDevice);
  reductions<<<1, 32>>>(in, out);
  cudaMemcpy(host_out, out, sizeof(host_out), cudaMemcpyDeviceToHost);
  printf("reductions:");
  for (int i = 0; i < 96; i++) printf(" %u", host_out[i]);
  printf("\n");
  float host_f[256], *f, *g, result[128];
  for (int i = 0; i < 256; i++) host_f[i] = i * 0.5f;
  cudaMalloc(&f, sizeof(host_f));
  cudaMalloc(&g, sizeof(result));
  cudaMemcpy(f, host_f, sizeof(host_f), cudaMemcpyHostToDevice);
  async_copies<<<1, 64>>>((const float4 *)f, g, 40);
  cudaMemcpy(result, g, 64 * sizeof(float), cudaMemcpyDeviceToHost);
  double s = 0;
  for (int i = 0; i < 64; i++) s += result[i] * (i + 1);
  printf("cp.async: %.2f\n", s);
  barrier_copy<<<1, 128>>>(f, g);
  cudaMemcpy(result, g, 128 * sizeof(float), cudaMemcpyDeviceToHost);
  s = 0;
  for (int i = 0; i < 128; i++) s += result[i] * (i % 7 + 1);
  printf("mbarrier: %.2f (%s)\n", s, cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
