// Device printf (every conversion nvcc packs), malloc/free, then a failing assert.
#include <cassert>
#include <cstdio>
__global__ void report(int v, float f, double d, const char *s, long long l, char c, unsigned short h) {
  if (threadIdx.x < 2)
    printf("t%u v=%d f=%f d=%.3e s=%s l=%lld c=%c h=%hu x=%#x w=[%*d] p=%5.1f%%\n", threadIdx.x, v + (int)threadIdx.x,
           f, d, "literal", l, c, h, 48879u, 6, v, 99.5);
  int *p = (int *)malloc(4 * sizeof(int));
  p[0] = (int)threadIdx.x * 3;
  if (threadIdx.x == 1) printf("heap %d\n", p[0]);
  free(p);
}
__global__ void check(const int *x) { assert(x[threadIdx.x] < 3); }
int main() {
  report<<<1, 4>>>(-7, 1.5f, 12345.678, nullptr, -(1LL << 40), 'Z', 65535);
  cudaDeviceSynchronize();
  printf("host: kernel 1 %s\n", cudaGetErrorString(cudaGetLastError()));
  int host[4] = {0, 1, 5, 2}, *x;
  cudaMalloc(&x, sizeof(host));
  cudaMemcpy(x, host, sizeof(host), cudaMemcpyHostToDevice);
  check<<<1, 4>>>(x);
  cudaError_t error = cudaDeviceSynchronize();
  printf("host: assert kernel %s\n", cudaGetErrorName(error));
  return 0;
}
