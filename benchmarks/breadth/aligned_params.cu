// Kernel parameters aligned past 16 bytes (alignas structs by value): the cubin places them where PTX's layout
// does not, in constant-bank terms.
#include <cstdio>
struct alignas(32) Quad { double v[4]; };
struct alignas(64) Octet { double v[8]; };
__global__ void lattice(const double *in, double *out, char tag, Octet weights, int n, Quad bias, Octet scale,
                        double shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * weights.v[i % 8] * scale.v[(i + 3) % 8] + bias.v[i % 4] + tag + shift;
}
int main() {
  const int n = 64;
  double host[n], *in, *out;
  for (int i = 0; i < n; i++) host[i] = 0.5 * i;
  cudaMalloc(&in, sizeof(host));
  cudaMalloc(&out, sizeof(host));
  cudaMemcpy(in, host, sizeof(host), cudaMemcpyHostToDevice);
  Octet weights, scale;
  Quad bias;
  for (int i = 0; i < 8; i++) { weights.v[i] = i + 1; scale.v[i] = 0.25 * (8 - i); }
  for (int i = 0; i < 4; i++) bias.v[i] = 100.0 * i;
  lattice<<<2, 32>>>(in, out, 3, weights, n, bias, scale, 0.125);
  cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost);
  double total = 0;
  for (int i = 0; i < n; i++) total += host[i] * (i + 1);
  std::printf("%.3f %.3f %.3f %.3f\n", host[0], host[7], host[63], total);
  return 0;
}
