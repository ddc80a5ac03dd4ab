// __managed__ variables: memory host and device share, initialised from the device image, written by both.
#include <cstdio>
__managed__ int counter;
__managed__ float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
__managed__ unsigned long long sum = 7;
__global__ void bump(int n) {
  atomicAdd(&counter, n);
  if (threadIdx.x < 4) table[threadIdx.x] *= 2.0f;
}
__global__ void accumulate(const int *values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&sum, (unsigned long long)(values[i] + counter));
}
int main() {
  std::printf("initial %d %g %g %g %g %llu\n", counter, table[0], table[1], table[2], table[3], sum);
  counter = 5;
  table[3] = -1.0f;
  bump<<<2, 32>>>(3);
  cudaDeviceSynchronize();
  std::printf("after bump %d %g %g %g %g\n", counter, table[0], table[1], table[2], table[3]);
  int host[100], *values;
  for (int i = 0; i < 100; i++) host[i] = i;
  cudaMalloc(&values, sizeof(host));
  cudaMemcpy(values, host, sizeof(host), cudaMemcpyHostToDevice);
  accumulate<<<4, 32>>>(values, 100);
  cudaDeviceSynchronize();
  int *through_pointer = &counter;
  *through_pointer += 1;
  int copy = 0;
  cudaError_t status = cudaMemcpyFromSymbol(&copy, counter, sizeof(int));
  std::printf("sum %llu counter %d symbol %d %d\n", sum, counter, (int)status, copy);
  cudaFree(values);
  return 0;
}
