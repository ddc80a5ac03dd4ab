// A half-precision dot product whose inputs come from rand() seeded with the clock, converted to half on
// the host, reduced with __half2 operators and with intrinsics: every run prints other sums.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_fp16.h>

constexpr int kThreads = 128, kBlocks = 64;

__global__ void dot(const __half2* a, const __half2* b, float* sums, int n, bool intrinsics) {
  __shared__ __half2 partial[kThreads];
  __half2 acc = __float2half2_rn(0.0f);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = intrinsics ? __hfma2(a[i], b[i], acc) : a[i] * b[i] + acc;
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int step = kThreads / 2; step > 0; step /= 2) {
    if (threadIdx.x < step)
      partial[threadIdx.x] = intrinsics ? __hadd2(partial[threadIdx.x], partial[threadIdx.x + step])
                                        : partial[threadIdx.x] + partial[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = __low2float(partial[0]) + __high2float(partial[0]);
}

int main() {
  srand(static_cast<unsigned>(time(nullptr)));
  const int n = kThreads * kBlocks * 8;
  __half2 *a, *b;
  float* sums;
  cudaMallocManaged(&a, n * sizeof(__half2));
  cudaMallocManaged(&b, n * sizeof(__half2));
  cudaMallocManaged(&sums, kBlocks * sizeof(float));
  for (int i = 0; i < n; ++i) {
    a[i] = __floats2half2_rn(static_cast<float>(rand() % 4), static_cast<float>(rand() % 2));
    b[i] = __floats2half2_rn(static_cast<float>(rand() % 3) * 0.5f, static_cast<float>(rand() % 5) * 0.25f);
  }
  for (bool intrinsics : {false, true}) {
    dot<<<kBlocks, kThreads>>>(a, b, sums, n, intrinsics);
    cudaDeviceSynchronize();
    float total = 0;
    for (int i = 0; i < kBlocks; ++i) total += sums[i];
    printf("dot (%s): %f\n", intrinsics ? "intrinsics" : "operators", total);
  }
  return 0;
}
