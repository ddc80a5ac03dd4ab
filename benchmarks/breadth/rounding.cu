// Directed rounding: CUDA's _rz/_ru/_rd arithmetic, square roots, reciprocals, fmas and conversions over inputs
// across the whole range (denormals, near-overflow, cancelling sums); one hash of the results' bits per operation.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#define N 8192
#define OPERATIONS 96

__device__ unsigned long long bits_of(double x) { return x != x ? 0x7ff8ull : (unsigned long long)__double_as_longlong(x); }
__device__ unsigned long long bits_of(float x) { return x != x ? 0x7fc0ull : (unsigned long long)__float_as_uint(x); }
__device__ unsigned long long bits_of(__half x) { return (unsigned long long)__half_as_ushort(x); }

#define ROUNDINGS(F) F(rz) F(ru) F(rd)
__global__ void directed(const float *f, const double *d, const long long *l, unsigned long long *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  unsigned long long *o = out + (size_t)i * OPERATIONS;
  int k = 0;
  float a = f[i], b = f[(i * 7 + 3) % N], c = f[(i * 13 + 5) % N];
  double x = d[i], y = d[(i * 7 + 3) % N], z = d[(i * 13 + 5) % N];
  long long n = l[i];
#define FLOATS(r) o[k++] = bits_of(__fadd_##r(a, b)); o[k++] = bits_of(__fsub_##r(a, b)); \
  o[k++] = bits_of(__fmul_##r(a, b)); o[k++] = bits_of(__fdiv_##r(a, b)); o[k++] = bits_of(__fsqrt_##r(fabsf(a))); \
  o[k++] = bits_of(__frcp_##r(a)); o[k++] = bits_of(__fmaf_##r(a, b, c));
#define DOUBLES(r) o[k++] = bits_of(__dadd_##r(x, y)); o[k++] = bits_of(__dsub_##r(x, y)); \
  o[k++] = bits_of(__dmul_##r(x, y)); o[k++] = bits_of(__ddiv_##r(x, y)); o[k++] = bits_of(__dsqrt_##r(fabs(x))); \
  o[k++] = bits_of(__drcp_##r(x)); o[k++] = bits_of(__fma_##r(x, y, z));
#define CONVERSIONS(r) o[k++] = bits_of(__ll2float_##r(n)); o[k++] = bits_of(__ull2float_##r((unsigned long long)n)); \
  o[k++] = bits_of(__ll2double_##r(n)); o[k++] = bits_of(__ull2double_##r((unsigned long long)n)); \
  o[k++] = bits_of(__int2float_##r((int)n)); o[k++] = bits_of(__uint2float_##r((unsigned)n)); \
  o[k++] = bits_of(__double2float_##r(x)); o[k++] = bits_of(__float2half_##r(a));
  ROUNDINGS(FLOATS) ROUNDINGS(DOUBLES) ROUNDINGS(CONVERSIONS)
  while (k < OPERATIONS) o[k++] = 0;
}

static unsigned long long state = 0x9e3779b97f4a7c15ull;
static unsigned long long next() {
  state ^= state << 13; state ^= state >> 7; state ^= state << 17;
  return state;
}

int main() {
  static float f[N];
  static double d[N];
  static long long l[N];
  for (int i = 0; i < N; i++) {
    unsigned long long r = next();
    // a spread of exponents, with denormals, values near overflow and exact cancellations
    unsigned fb = (unsigned)r;
    if (i % 8 == 1) fb = (fb & 0x807fffffu) | ((unsigned)(r >> 40) % 3u << 23);
    if (i % 8 == 2) fb = (fb & 0x807fffffu) | ((250u + (unsigned)(r >> 40) % 4u) << 23);
    if (i % 8 == 3) fb = (fb & 0x807fffffu) | ((120u + (unsigned)(r >> 40) % 16u) << 23);
    std::memcpy(&f[i], &fb, 4);
    unsigned long long db = next();
    if (i % 8 == 1) db = (db & 0x800fffffffffffffull) | ((r >> 40) % 3ull << 52);
    if (i % 8 == 2) db = (db & 0x800fffffffffffffull) | ((2040ull + (r >> 40) % 6ull) << 52);
    if (i % 8 == 3 || i % 8 == 4) db = (db & 0x800fffffffffffffull) | ((1000ull + (r >> 40) % 48ull) << 52);
    std::memcpy(&d[i], &db, 8);
    l[i] = (long long)(next() >> (r % 40));
    if (i % 16 == 5) f[i] = -f[(i * 7 + 3) % N];
    if (i % 16 == 6) d[i] = -d[(i * 7 + 3) % N];
  }
  float *df; double *dd; long long *dl; unsigned long long *out;
  cudaMalloc(&df, sizeof(f)); cudaMalloc(&dd, sizeof(d)); cudaMalloc(&dl, sizeof(l));
  cudaMalloc(&out, sizeof(unsigned long long) * N * OPERATIONS);
  cudaMemcpy(df, f, sizeof(f), cudaMemcpyHostToDevice);
  cudaMemcpy(dd, d, sizeof(d), cudaMemcpyHostToDevice);
  cudaMemcpy(dl, l, sizeof(l), cudaMemcpyHostToDevice);
  directed<<<N / 128, 128>>>(df, dd, dl, out);
  static unsigned long long results[(size_t)N * OPERATIONS];
  cudaMemcpy(results, out, sizeof(results), cudaMemcpyDeviceToHost);
  for (int k = 0; k < 66; k++) {
    unsigned long long hash = 1469598103934665603ull;
    for (int i = 0; i < N; i++) hash = (hash ^ results[(size_t)i * OPERATIONS + k]) * 1099511628211ull;
    std::printf("%d %016llx\n", k, hash);
  }
  return 0;
}
