// Float contraction: a batched tridiagonal (Thomas) solve and a polynomial, whose unrounded mul/add/sub nvcc's
// default -fmad=true lets ptxas fuse, and the same with CUDA's explicitly rounded intrinsics, which it may not.
// Results print in hex: a single fused or unfused operation shows in the last bits.
#include <cstdio>
__global__ void thomas(const double *a, const double *b, const double *c, const double *d, double *x, int n,
                       int batch) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= batch) return;
  double cp[64], dp[64];
  cp[0] = c[t] / b[t];
  dp[0] = d[t] / b[t];
  for (int i = 1; i < n; ++i) {
    double m = 1.0 / (b[i * batch + t] - a[i * batch + t] * cp[i - 1]);
    cp[i] = c[i * batch + t] * m;
    dp[i] = (d[i * batch + t] - a[i * batch + t] * dp[i - 1]) * m;
  }
  x[(n - 1) * batch + t] = dp[n - 1];
  for (int i = n - 2; i >= 0; --i) x[i * batch + t] = dp[i] - cp[i] * x[(i + 1) * batch + t];
}
__global__ void polynomial(const float *in, float *fused, float *rounded, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float v = in[t], f = 0.1f, r = 0.1f;
  for (int k = 1; k < 12; ++k) {
    f = f * v + 1.0f / k;
    r = __fadd_rn(__fmul_rn(r, v), 1.0f / k);
  }
  fused[t] = f * v - v * v;
  rounded[t] = __fsub_rn(__fmul_rn(r, v), __fmul_rn(v, v));
}
int main() {
  const int n = 32, batch = 64, values = 256;
  double host[4][n * batch], *dev[5];
  for (int i = 0; i < n * batch; ++i) {
    host[0][i] = 0.3 + (i % 7) * 0.01;
    host[1][i] = 2.1 + (i % 11) * 0.013;
    host[2][i] = 0.7 - (i % 5) * 0.017;
    host[3][i] = 1.0 / (1 + i % 13);
  }
  for (int k = 0; k < 5; ++k) cudaMalloc(&dev[k], sizeof(host[0]));
  for (int k = 0; k < 4; ++k) cudaMemcpy(dev[k], host[k], sizeof(host[0]), cudaMemcpyHostToDevice);
  thomas<<<1, batch>>>(dev[0], dev[1], dev[2], dev[3], dev[4], n, batch);
  double x[n * batch];
  cudaMemcpy(x, dev[4], sizeof(x), cudaMemcpyDeviceToHost);
  printf("thomas:");
  for (int i = 0; i < n * batch; i += 97) printf(" %a", x[i]);
  printf("\n");
  float in[values], out[2][values], *din, *dout[2];
  for (int i = 0; i < values; ++i) in[i] = 0.37f + i * 0.0123f;
  cudaMalloc(&din, sizeof(in));
  cudaMalloc(&dout[0], sizeof(in));
  cudaMalloc(&dout[1], sizeof(in));
  cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
  polynomial<<<2, 128>>>(din, dout[0], dout[1], values);
  cudaMemcpy(out, dout[0], sizeof(in), cudaMemcpyDeviceToHost);
  cudaMemcpy(out[1], dout[1], sizeof(in), cudaMemcpyDeviceToHost);
  for (int which = 0; which < 2; ++which) {
    printf(which ? "rounded:" : "fused:");
    for (int i = 0; i < values; i += 23) printf(" %a", out[which][i]);
    printf("\n");
  }
  return cudaGetLastError() != cudaSuccess;
}
