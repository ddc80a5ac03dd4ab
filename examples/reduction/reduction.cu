// reduction: shared-memory tree reduction of ~1M ints, checked against the host.
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

#define BLOCK_SIZE 256

// Each block reduces 2 * BLOCK_SIZE input elements to one partial sum.
__global__ void blockReduce(const int *in, int *out, int n)
{
    __shared__ int sdata[BLOCK_SIZE];

    int tid = threadIdx.x;
    int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    int v = 0;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

int main()
{
    const int n = 1 << 20;

    std::vector<int> h_in(n);
    long long host_sum = 0;
    for (int i = 0; i < n; ++i) {
        h_in[i] = (i * 31) % 97 - 48;
        host_sum += h_in[i];
    }

    const int max_blocks = (n + 2 * BLOCK_SIZE - 1) / (2 * BLOCK_SIZE);
    int *d_a = nullptr, *d_b = nullptr;
    CHECK(cudaMalloc(&d_a, n * sizeof(int)));
    CHECK(cudaMalloc(&d_b, max_blocks * sizeof(int)));
    CHECK(cudaMemcpy(d_a, h_in.data(), n * sizeof(int),
                     cudaMemcpyHostToDevice));

    // Reduce repeatedly until a single value remains, ping-ponging buffers.
    int remaining = n;
    int pass = 0;
    int *src = d_a, *dst = d_b;
    while (remaining > 1) {
        int blocks = (remaining + 2 * BLOCK_SIZE - 1) / (2 * BLOCK_SIZE);
        blockReduce<<<blocks, BLOCK_SIZE>>>(src, dst, remaining);
        CHECK(cudaGetLastError());
        printf("pass %d: %d elements -> %d partial sums\n", pass, remaining,
               blocks);
        remaining = blocks;
        int *tmp = src;
        src = dst;
        dst = tmp;
        ++pass;
    }
    CHECK(cudaDeviceSynchronize());

    int gpu_sum = 0;
    CHECK(cudaMemcpy(&gpu_sum, src, sizeof(int), cudaMemcpyDeviceToHost));

    printf("gpu sum:  %d\n", gpu_sum);
    printf("host sum: %lld\n", host_sum);

    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));

    if ((long long)gpu_sum == host_sum) {
        printf("PASS\n");
        return 0;
    }
    printf("FAIL\n");
    return 1;
}
