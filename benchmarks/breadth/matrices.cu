// Tensor-core forms: nvcuda::wmma (m16n16k16, f16 and bf16 inputs, f32 and f16 accumulators), mma.sync
// m16n8k16 with ldmatrix-loaded fragments, each checked against a CPU product.
#include <cstdio>
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

const int N = 32;  // N x N matrices: 2 x 2 tiles of 16 x 16

__global__ void wmma_f32(const half *a, const half *b, const float *c, float *d) {
  int tile_row = blockIdx.y * 16, tile_col = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fc, c + tile_row * N + tile_col, N, wmma::mem_row_major);
  for (int k = 0; k < N; k += 16) {
    wmma::load_matrix_sync(fa, a + tile_row * N + k, N);
    wmma::load_matrix_sync(fb, b + tile_col * N + k, N);  // b stored column-major
    wmma::mma_sync(fc, fa, fb, fc);
  }
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * 0.5f;
  wmma::store_matrix_sync(d + tile_row * N + tile_col, fc, N, wmma::mem_row_major);
}

__global__ void wmma_f16(const half *a, const half *b, half *d) {
  __shared__ half tile[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::fill_fragment(fc, __float2half(1.0f));
  for (int i = threadIdx.x; i < 256; i += 32) tile[i] = b[(i / 16) * N + i % 16];
  __syncwarp();
  wmma::load_matrix_sync(fa, a, N);  // the top-left 16 x 16 of a, read as column-major
  wmma::load_matrix_sync(fb, tile, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_col_major);
}

__global__ void wmma_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, N);
  wmma::load_matrix_sync(fb, b, N);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

// D (16 x 8) = A (16 x 16, row-major in shared memory, fragments by ldmatrix) x B (16 x 8) + 0 with mma.sync.
__global__ void mma_ldmatrix(const half *a, const half *b, float *d) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[8 * 16];  // B transposed: row n holds column n of B
  int lane = threadIdx.x;
  for (int i = lane; i < 256; i += 32) sa[i] = a[(i / 16) * N + i % 16];
  for (int i = lane; i < 128; i += 32) sb[i] = b[(i % 16) * N + i / 16];
  __syncwarp();
  unsigned a0, a1, a2, a3, b0, b1;
  // x4: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15).
  unsigned row_a = (unsigned)__cvta_generic_to_shared(&sa[(lane % 16) * 16 + (lane / 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "r"(row_a));
  unsigned row_b = (unsigned)__cvta_generic_to_shared(&sb[(lane % 8) * 16 + ((lane / 8) % 2) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(b0), "=r"(b1) : "r"(row_b));
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%10,%10,%10,%10};" : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(0.0f));
  int g = lane / 4, t = lane % 4;
  d[g * 8 + 2 * t] = d0; d[g * 8 + 2 * t + 1] = d1; d[(g + 8) * 8 + 2 * t] = d2; d[(g + 8) * 8 + 2 * t + 1] = d3;
}

static double compare(const char *name, const float *got, const double *want, int n) {
  double worst = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    double e = got[i] - want[i];
    worst = e < 0 ? (-e > worst ? -e : worst) : (e > worst ? e : worst);
    sum += got[i];
  }
  printf("%s: checksum %.3f, largest error %.3g\n", name, sum, worst);
  return worst;
}

int main() {
  float fa[N * N], fb[N * N], fc[N * N];
  half ha[N * N], hb[N * N], hb_columns[N * N];
  __nv_bfloat16 ba[N * N], bb[N * N];
  for (int i = 0; i < N * N; i++) {
    fa[i] = (i * 7 % 9 - 4) * 0.25f;
    fb[i] = (i * 5 % 11 - 5) * 0.5f;
    fc[i] = i % 13 - 6;
    ha[i] = __float2half(fa[i]); hb[i] = __float2half(fb[i]);
    ba[i] = __float2bfloat16(fa[i]); bb[i] = __float2bfloat16(fb[i]);
  }
  for (int r = 0; r < N; r++) for (int c = 0; c < N; c++) hb_columns[c * N + r] = hb[r * N + c];
  half *da, *db, *db_columns, *dh;
  __nv_bfloat16 *dba, *dbb;
  float *dc, *dd;
  cudaMalloc(&da, sizeof(ha)); cudaMalloc(&db, sizeof(hb)); cudaMalloc(&db_columns, sizeof(hb));
  cudaMalloc(&dba, sizeof(ba)); cudaMalloc(&dbb, sizeof(bb));
  cudaMalloc(&dc, sizeof(fc)); cudaMalloc(&dd, sizeof(fc)); cudaMalloc(&dh, 256 * sizeof(half));
  cudaMemcpy(da, ha, sizeof(ha), cudaMemcpyHostToDevice);
  cudaMemcpy(db, hb, sizeof(hb), cudaMemcpyHostToDevice);
  cudaMemcpy(db_columns, hb_columns, sizeof(hb), cudaMemcpyHostToDevice);
  cudaMemcpy(dba, ba, sizeof(ba), cudaMemcpyHostToDevice);
  cudaMemcpy(dbb, bb, sizeof(bb), cudaMemcpyHostToDevice);
  cudaMemcpy(dc, fc, sizeof(fc), cudaMemcpyHostToDevice);

  float out[N * N];
  double want[N * N];
  wmma_f32<<<dim3(2, 2), 32>>>(da, db_columns, dc, dd);
  cudaMemcpy(out, dd, sizeof(out), cudaMemcpyDeviceToHost);
  for (int r = 0; r < N; r++) for (int c = 0; c < N; c++) {
    double s = fc[r * N + c];
    for (int k = 0; k < N; k++) s += (double)fa[r * N + k] * fb[k * N + c];
    want[r * N + c] = s * 0.5;
  }
  compare("wmma f16 -> f32, 2x2 tiles", out, want, N * N);

  wmma_f16<<<1, 32>>>(da, db, dh);
  half hout[256];
  cudaMemcpy(hout, dh, sizeof(hout), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 16; r++) for (int c = 0; c < 16; c++) {
    double s = 1.0;
    for (int k = 0; k < 16; k++) s += (double)fa[k * N + r] * fb[k * N + c];  // a read column-major
    want[c * 16 + r] = s;  // stored column-major
    out[c * 16 + r] = __half2float(hout[c * 16 + r]);
  }
  compare("wmma f16 -> f16", out, want, 256);

  wmma_bf16<<<1, 32>>>(dba, dbb, dd);
  cudaMemcpy(out, dd, 256 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 16; r++) for (int c = 0; c < 16; c++) {
    double s = 0;
    for (int k = 0; k < 16; k++) s += (double)fa[r * N + k] * fb[k * N + c];
    want[r * 16 + c] = s;
  }
  compare("wmma bf16 -> f32", out, want, 256);

  mma_ldmatrix<<<1, 32>>>(da, db, dd);
  cudaMemcpy(out, dd, 128 * sizeof(float), cudaMemcpyDeviceToHost);
  for (int r = 0; r < 16; r++) for (int c = 0; c < 8; c++) {
    double s = 0;
    for (int k = 0; k < 16; k++) s += (double)fa[r * N + k] * fb[k * N + c];
    want[r * 8 + c] = s;
  }
  compare("ldmatrix + mma.sync m16n8k16", out, want, 128);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
