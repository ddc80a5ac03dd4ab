// histogram: 256-bin byte histogram using shared-memory atomics, merged into
// a global histogram with global atomics, checked against the host.
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

#define NUM_BINS 256

__global__ void histogramKernel(const unsigned char *data, unsigned int *hist,
                                int n)
{
    __shared__ unsigned int local[NUM_BINS];

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        if (local[b] != 0)
            atomicAdd(&hist[b], local[b]);
    }
}

int main()
{
    const int n = 1 << 22;

    // Deterministic pseudo-random bytes (simple LCG), skewed so bins differ.
    std::vector<unsigned char> h_data(n);
    unsigned int state = 12345u;
    for (int i = 0; i < n; ++i) {
        state = state * 1664525u + 1013904223u;
        unsigned int r = state >> 8;
        h_data[i] = (unsigned char)((r & 0xff) & ((r >> 8) & 0xff));
    }

    std::vector<unsigned int> host_hist(NUM_BINS, 0);
    for (int i = 0; i < n; ++i)
        host_hist[h_data[i]]++;

    unsigned char *d_data = nullptr;
    unsigned int *d_hist = nullptr;
    CHECK(cudaMalloc(&d_data, n));
    CHECK(cudaMalloc(&d_hist, NUM_BINS * sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_data, h_data.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_hist, 0, NUM_BINS * sizeof(unsigned int)));

    const int threads = 256;
    const int blocks = 120;
    printf("histogram: n=%d, %d bins, %d blocks of %d threads\n", n,
           NUM_BINS, blocks, threads);
    histogramKernel<<<blocks, threads>>>(d_data, d_hist, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<unsigned int> gpu_hist(NUM_BINS);
    CHECK(cudaMemcpy(gpu_hist.data(), d_hist,
                     NUM_BINS * sizeof(unsigned int),
                     cudaMemcpyDeviceToHost));

    int errors = 0;
    unsigned long long total = 0;
    for (int b = 0; b < NUM_BINS; ++b) {
        total += gpu_hist[b];
        if (gpu_hist[b] != host_hist[b]) {
            if (errors < 5)
                fprintf(stderr, "bin %d: got %u, expected %u\n", b,
                        gpu_hist[b], host_hist[b]);
            ++errors;
        }
    }

    printf("bin[0]=%u bin[1]=%u bin[128]=%u bin[255]=%u\n", gpu_hist[0],
           gpu_hist[1], gpu_hist[128], gpu_hist[255]);
    printf("total count: %llu\n", total);
    printf("mismatched bins: %d\n", errors);

    CHECK(cudaFree(d_data));
    CHECK(cudaFree(d_hist));

    if (errors == 0 && total == (unsigned long long)n) {
        printf("PASS\n");
        return 0;
    }
    printf("FAIL\n");
    return 1;
}
