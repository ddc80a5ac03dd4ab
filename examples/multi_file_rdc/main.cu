// main.cu: host side of a multi-file, separately compiled (-rdc=true) program.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels.cuh"
#include "mathutil.cuh"

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call,         \
                    __FILE__, __LINE__, cudaGetErrorString(err_));         \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

int main()
{
    const int n = 100000;
    const float a = 1.5f, b = -2.0f, t = 0.25f;
    const size_t bytes = n * sizeof(float);

    std::vector<float> h_in(n), h_out(n);
    for (int i = 0; i < n; ++i)
        h_in[i] = (float)(i % 256) * 0.5f;

    float *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    printf("multi_file_rdc: n=%d, a=%.2f b=%.2f t=%.2f\n", n, a, b, t);
    transformKernel<<<blocks, threads>>>(d_in, d_out, a, b, t, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy(h_out.data(), d_out, bytes, cudaMemcpyDeviceToHost));

    int errors = 0;
    for (int i = 0; i < n; ++i) {
        float x = h_in[i];
        float expect = mix_f(x, a * x + b, t);
        if (std::fabs(h_out[i] - expect) > 1e-4f) {
            if (errors < 5)
                fprintf(stderr, "mismatch at %d: got %f, expected %f\n", i,
                        h_out[i], expect);
            ++errors;
        }
    }

    printf("out[0]=%.4f out[1]=%.4f out[255]=%.4f\n", h_out[0], h_out[1],
           h_out[255]);
    printf("mismatches: %d\n", errors);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));

    if (errors == 0) {
        printf("PASS\n");
        return 0;
    }
    printf("FAIL\n");
    return 1;
}
