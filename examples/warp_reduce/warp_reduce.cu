// warp_reduce: per-warp shuffle reduction followed by one atomicAdd per warp.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call,         \
                    __FILE__, __LINE__, cudaGetErrorString(err_));         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define FULL_MASK 0xffffffff

__inline__ __device__ int warpReduceSum(int v)
{
    // Assumes a 32-wide warp, as most CUDA code does.
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void sumKernel(const int *in, int *out, int n)
{
    int sum = 0;
    // Grid-stride loop: every thread accumulates several elements.
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        sum += in[i];

    sum = warpReduceSum(sum);

    // Lane 0 of each warp holds the warp's total.
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, sum);
}

int main()
{
    const int n = 1 << 20;

    std::vector<int> h_in(n);
    long long host_sum = 0;
    for (int i = 0; i < n; ++i) {
        h_in[i] = (i * 13) % 101 - 50;
        host_sum += h_in[i];
    }

    int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_out, sizeof(int)));
    CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(int),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, sizeof(int)));

    const int threads = 256; // a multiple of 32
    const int blocks = 256;
    printf("warp_reduce: n=%d, %d blocks of %d threads, %d warps\n", n,
           blocks, threads, blocks * threads / 32);
    sumKernel<<<blocks, threads>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    int gpu_sum = 0;
    CHECK(cudaMemcpy(&gpu_sum, d_out, sizeof(int), cudaMemcpyDeviceToHost));

    printf("gpu sum:  %d\n", gpu_sum);
    printf("host sum: %lld\n", host_sum);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));

    if ((long long)gpu_sum == host_sum) {
        printf("PASS\n");
        return 0;
    }
    printf("FAIL\n");
    return 1;
}
