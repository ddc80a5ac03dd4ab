// Device virtual functions (vtables in device memory), function pointer tables, new/delete.
#include <cstdio>
struct Shape { __device__ virtual float area() const = 0; __device__ virtual ~Shape() {} };
struct Square : Shape { float s; __device__ Square(float s) : s(s) {} __device__ float area() const override { return s * s; } };
struct Circle : Shape { float r; __device__ Circle(float r) : r(r) {} __device__ float area() const override { return 3.0f * r * r; } };
__device__ float twice(float x) { return 2 * x; }
__device__ float thrice(float x) { return 3 * x; }
typedef float (*op_t)(float);
__device__ op_t ops[2] = {twice, thrice};
__global__ void shapes(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Square sq(in[i]);
  Circle c(in[i]);
  Shape *s = (i & 1) ? (Shape *)&sq : (Shape *)&c;
  out[i] = s->area() + ops[i & 1](in[i]);
}
__global__ void heap_shapes(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Shape *s = (i % 3) ? (Shape *)new Square(in[i]) : (Shape *)new Circle(in[i]);
  out[i] = s->area();
  delete s;
}
int main() {
  const int n = 100;
  float host[n], *in, *out;
  for (int i = 0; i < n; i++) host[i] = i * 0.25f;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&out, sizeof(host));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  shapes<<<4, 32>>>(in, out, n);
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  printf("shapes: %.4f %.4f %.4f %.4f\n", host[1], host[2], host[50], host[99]);
  for (int i = 0; i < n; i++) host[i] = i * 0.25f;
  heap_shapes<<<4, 32>>>(in, out, n);
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  printf("heap shapes: %.4f %.4f %.4f (%s)\n", host[3], host[4], host[98], cudaGetErrorName(cudaDeviceSynchronize()));
  return 0;
}
