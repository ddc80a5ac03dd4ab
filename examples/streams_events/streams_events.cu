// streams_events: overlap copies and kernels on several streams using pinned
// host memory and cudaMemcpyAsync, timed with CUDA events.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call,         \
                    __FILE__, __LINE__, cudaGetErrorString(err_));         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

#define NUM_STREAMS 2
#define NUM_CHUNKS 8

__global__ void saxpyInPlace(float *x, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}

int main()
{
    const int n = 1 << 20;
    const int chunk = n / NUM_CHUNKS;
    const size_t bytes = n * sizeof(float);
    const size_t chunk_bytes = chunk * sizeof(float);
    const float a = 2.0f, b = 1.0f;

    float *h_in = nullptr, *h_out = nullptr, *d_buf = nullptr;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaMallocHost(&h_out, bytes));
    CHECK(cudaMalloc(&d_buf, bytes));

    for (int i = 0; i < n; ++i)
        h_in[i] = (float)(i % 1024);

    cudaStream_t streams[NUM_STREAMS];
    for (int s = 0; s < NUM_STREAMS; ++s)
        CHECK(cudaStreamCreate(&streams[s]));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));

    printf("streams_events: n=%d, %d chunks on %d streams\n", n, NUM_CHUNKS,
           NUM_STREAMS);

    CHECK(cudaEventRecord(start, 0));
    const int threads = 256;
    const int blocks = (chunk + threads - 1) / threads;
    for (int c = 0; c < NUM_CHUNKS; ++c) {
        cudaStream_t st = streams[c % NUM_STREAMS];
        int offset = c * chunk;
        CHECK(cudaMemcpyAsync(d_buf + offset, h_in + offset, chunk_bytes,
                              cudaMemcpyHostToDevice, st));
        saxpyInPlace<<<blocks, threads, 0, st>>>(d_buf + offset, a, b, chunk);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out + offset, d_buf + offset, chunk_bytes,
                              cudaMemcpyDeviceToHost, st));
    }
    CHECK(cudaEventRecord(stop, 0));

    for (int s = 0; s < NUM_STREAMS; ++s)
        CHECK(cudaStreamSynchronize(streams[s]));
    CHECK(cudaEventSynchronize(stop));

    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float expect = a * h_in[i] + b;
        if (std::fabs(h_out[i] - expect) > 1e-5f) {
            if (errors < 5)
                fprintf(stderr, "mismatch at %d: got %f, expected %f\n", i,
                        h_out[i], expect);
            ++errors;
        }
    }

    printf("out[0]=%.1f out[1023]=%.1f out[%d]=%.1f\n", h_out[0],
           h_out[1023], n - 1, h_out[n - 1]);
    printf("mismatches: %d\n", errors);
    printf("time: %.3f ms\n", ms);

    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    for (int s = 0; s < NUM_STREAMS; ++s)
        CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFree(d_buf));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));

    if (errors == 0) {
        printf("PASS\n");
        return 0;
    }
    printf("FAIL\n");
    return 1;
}
