"""CUDA APIs that HIP lacks or spells differently, built for gfx1100 by the real clang: each rule in
cuda_compat.h, the cassc/*.h library headers, and the one-line message for a missing ROCm library."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import cassc as cassc_package

from conftest import gpu_targets, system_headers_missing, write


def test_atomic_inc_and_dec_become_the_amdgpu_instructions(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", """\
__global__ void k(unsigned* c) { atomicInc(c, 10u); atomicDec(c + 1, 10u); }
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    assembly = (tmp_path / "k.s").read_text()
    assert "global_atomic_inc_u32" in assembly and "global_atomic_dec_u32" in assembly


def test_runtime_calls_that_take_a_kernel_itself(cassc, tmp_path: Path) -> None:
    """CUDA's C++ overloads take the kernel; HIP 5.2 only `const void*`."""
    write(tmp_path / "main.cu", """\
#include <cuda_runtime.h>
__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }
int main() {
  float* x = nullptr;
  cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1);
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  cudaFuncAttributes attributes;
  cudaFuncGetAttributes(&attributes, k);
  cudaFuncGetAttributes(&attributes, (const void*)k);
  cudaEvent_t event;
  cudaEventCreate(&event, cudaEventDisableTiming);
  void* args[] = {&x};
  cudaLaunchKernel(k, dim3(1), dim3(32), args);
  return 0;
}
""")
    cassc("main.cu", "-o", "app")
    assert (tmp_path / "app").is_file()


def test_bfloat16_keeps_cudas_names_and_rounding(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <cuda_bf16.h>
#include <cstdio>
__global__ void k(__nv_bfloat16* x, __nv_bfloat162* y, float* out) {
  __nv_bfloat16 a = x[0] * x[1] + __float2bfloat16(1.0f);
  __nv_bfloat162 b = __hmul2(y[0], __float22bfloat162_rn(make_float2(2.f, 3.f)));
  out[0] = __bfloat162float(a) + __low2float(b) + __bfloat162float(__hfma(a, a, a));
}
int main() {
  printf("%.6f %.6f %04x\\n", __bfloat162float(__float2bfloat16(3.14159f)),
         __bfloat162float(__float2bfloat16_rz(3.14159f)), __bfloat16_as_ushort(__float2bfloat16(1.0f)));
}
""")
    cassc("main.cu", "-o", "app")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.strip() == "3.140625 3.140625 3f80"


def test_library_calls_hip_libraries_lack(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <curand.h>
#include <cusparse.h>
#include <cstdio>
int main() {
  curandGenerator_t generator;
  curandOrdering_t order = CURAND_ORDERING_PSEUDO_BEST;
  if (curandSetGeneratorOrdering(generator, order) != CURAND_STATUS_SUCCESS) return 1;
  printf("%s|%s\\n", cusparseGetErrorString(CUSPARSE_STATUS_INVALID_VALUE),
         cusparseGetErrorName(CUSPARSE_STATUS_SUCCESS));
}
""")
    cassc("main.cu", "-o", "app", "-lcurand", "-lcusparse")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.strip() == "invalid value|CUSPARSE_STATUS_SUCCESS"


def test_curand_quasi_random_states_and_direction_vectors(cassc, tmp_path: Path) -> None:
    """cuRAND's Sobol64 and scrambled Sobol states, whose curand() of a 64-bit state is 64 bits, and its
    JOEKUO6 direction vectors: hipRAND 5 has none of them. The digests are libcurand 10.4's own vectors
    (curandGetDirectionVectors32/64 run on the host, NVIDIA's nvidia-curand wheel)."""
    write(tmp_path / "main.cu", """\
#include <curand.h>
#include <curand_kernel.h>
#include <cstdio>
#include <type_traits>
__global__ void k(curandDirectionVectors64_t* v64, curandDirectionVectors32_t* v32, double* out) {
  curandStateSobol64_t s64;
  curandStateScrambledSobol64_t t64;
  curandStateScrambledSobol32_t t32;
  curand_init(v64[0], 5ull, &s64);
  curand_init(v64[1], 0x1234ull, 7ull, &t64);
  curand_init(v32[0], 0x55u, 3u, &t32);
  static_assert(std::is_same<decltype(curand(&s64)), unsigned long long>::value, "64-bit Sobol is 64 bits");
  skipahead(2ull, &s64);
  out[threadIdx.x] = curand_uniform_double(&s64) + curand_normal(&t64) + curand_uniform(&t32) +
                     curand_log_normal_double(&s64, 0.0, 1.0) + (double)(curand(&t64) >> 40) + curand(&t32);
}
int main() {
  curandDirectionVectors32_t* v32;
  curandDirectionVectors64_t* v64;
  if (curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6) != CURAND_STATUS_SUCCESS) return 1;
  if (curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6) != CURAND_STATUS_SUCCESS) return 2;
  unsigned long long h32 = 0, h64 = 0;
  for (int d = 0; d < 20000; d++)
    for (int i = 0; i < 64; i++) {
      if (i < 32) h32 = h32 * 1000003ull + v32[d][i];
      h64 = h64 * 1000003ull + v64[d][i];
    }
  printf("%llu %llu\\n", h32, h64);
}
""")
    cassc("main.cu", "-o", "app", "-lcurand")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.strip() == "11599736504725523972 2540303259654714944", run.stdout + run.stderr


def test_default_arguments_error_names_callbacks_and_libcudacxx_std(cassc, tmp_path: Path) -> None:
    """What CUDA's headers give that HIP 5.2's lack: the runtime calls whose CUDA declaration has default
    arguments HIP's twin lacks, CUDA 12's cudaGraphInstantiate/cudaStreamGetCaptureInfo forms, the driver's
    cuGetErrorName/cuGetErrorString, the CUDART_CB calling-convention macro, the cudaLimit values HIP lacks,
    cudaLaunchHostFunc (HIP 5.2's library lacks hipLaunchHostFunc),
    and libcu++'s <cuda/std/...>
    headers (cuda::std::identity at C++17, cuda::std function objects in device code)."""
    write(tmp_path / "main.cu", """\
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda/std/functional>
#include <cuda/std/type_traits>
#include <cstdio>
void CUDART_CB callback(cudaStream_t, cudaError_t, void*) {}
__global__ void k(int* x) {
  x[threadIdx.x] = cuda::std::plus<int>()(cuda::std::identity()(x[threadIdx.x]), 1);
  static_assert(cuda::std::is_same<cuda::std::remove_cv_t<const int>, int>::value, "");
}
int main(int argc, char**) {
  cudaStream_t stream = 0;
  cudaEvent_t event = 0;
  cudaGraph_t graph = 0;
  cudaGraphExec_t exec;
  cudaArray_t array;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaStreamCaptureStatus status;
  unsigned long long id;
  if (argc > 1) {
    cudaStreamWaitEvent(stream, event);
    cudaGraphInstantiate(&exec, graph);
    cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphInstantiateWithFlags(&exec, graph);
    cudaMalloc3DArray(&array, &desc, make_cudaExtent(4, 4, 4));
    cudaSignalExternalSemaphoresAsync(nullptr, nullptr, 0);
    cudaWaitExternalSemaphoresAsync(nullptr, nullptr, 0);
    cudaStreamGetCaptureInfo(stream, &status);
    cudaStreamGetCaptureInfo(stream, &status, &id, &graph);
    cudaStreamAddCallback(stream, callback, nullptr, 0);
    cudaLaunchHostFunc(stream, [](void*) {}, nullptr);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    cudaDeviceSetLimit(cudaLimitStackSize, 4096);
  }
  const char* name = nullptr;
  const char* text = nullptr;
  CUresult result = cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &name);
  cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text);
  printf("%d %d %s\\n", result == CUDA_SUCCESS, text != nullptr, name);
}
""")
    cassc("main.cu", "-o", "app")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.strip() in ("1 1 hipErrorInvalidValue", "1 1 CUDA_ERROR_INVALID_VALUE"), run.stdout + run.stderr


def test_zero_assignment_of_half2_dim3_from_uint3_and_scoped_inc_dec(cassc, tmp_path: Path) -> None:
    """CUDA forms HIP's classes and intrinsics reject: `half2 x; x = {};` (ambiguous between HIP's assignments),
    `grid = make_uint3(...)` into a dim3 (CUDA's dim3 converts from uint3), atomicInc/atomicDec's
    _system and _block forms."""
    write(tmp_path / "k.cu", """\
#include <cuda_fp16.h>
__global__ void k(half2* out, unsigned int* counter, const half2* in) {
  half2 sum;
  sum = {};
  sum = __hadd2(sum, in[threadIdx.x]);
  out[threadIdx.x] = sum;
  atomicInc_system(counter, 10u);
  atomicDec_block(counter + 1, 10u);
  atomicInc_block(counter + 2, 10u);
  atomicDec_system(counter + 3, 10u);
}
void launch(half2* out, unsigned int* counter, const half2* in, int blocks) {
  dim3 grid(blocks, 1, 1), threads(64, 1, 1);
  if (blocks > 8) {
    grid = make_uint3(8, 1, 1);
    threads = make_uint3(32, 1, 1);
  }
  uint3 plain = make_uint3(1, 2, 3);
  k<<<grid, threads>>>(out, counter + plain.x, in);
}
""")
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()


def test_two_rdc_units_with_cooperative_groups_link(cassc, tmp_path: Path) -> None:
    """HIP 5's cooperative groups define a device function in their header without `inline`: two -rdc units
    that include them used to stop the device link on a duplicate symbol (cassc's HIP 5 header overlay)."""
    for name in ("a", "b"):
        write(tmp_path / f"{name}.cu", f"""\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void {name}(unsigned* out) {{ out[threadIdx.x] = cg::coalesced_threads().thread_rank(); }}
""")
    write(tmp_path / "main.cu", "__global__ void a(unsigned*);\n__global__ void b(unsigned*);\n"
                                "int main() { a<<<1, 32>>>(nullptr); b<<<1, 32>>>(nullptr); }\n")
    cassc("-rdc=true", "a.cu", "b.cu", "main.cu", "-o", "app")
    assert (tmp_path / "app").is_file()


def test_libcudacxx_barrier_and_pipeline(cassc, tmp_path: Path) -> None:
    """libcu++'s <cuda/barrier> and <cuda/pipeline> (CUDA samples' simpleAWBarrier, globalToShmemAsyncCopy): a
    block barrier with tokens, memcpy_async into it and into thread- and block-scope pipelines, partitioned by role."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;
__global__ void reduce(const float* in, float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> barrier;
  __shared__ float staged[256];
  if (threadIdx.x == 0) init(&barrier, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(&staged[threadIdx.x], &in[threadIdx.x], sizeof(float), barrier);
  auto token = barrier.arrive();
  barrier.wait(std::move(token));
  barrier.arrive_and_wait();
  out[threadIdx.x] = staged[(threadIdx.x + 1) % blockDim.x];
}
__global__ void stages(const float4* in, float4* out) {
  __shared__ float4 buffer[2][64];
  const auto shape = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int stage = 0; stage < 2; stage++) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buffer[stage][threadIdx.x], &in[stage * 64 + threadIdx.x], shape, pipe);
    pipe.producer_commit();
  }
  cuda::pipeline_consumer_wait_prior<1>(pipe);
  pipe.consumer_wait();
  out[threadIdx.x] = buffer[0][threadIdx.x];
  pipe.consumer_release();
}
__global__ void roles(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  __shared__ float buffer[2][64];
  const auto role = threadIdx.x < 64 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer;
  auto pipe = cuda::make_pipeline(block, &state, role);
  for (int i = 0; i < 4; i++) {
    if (role == cuda::pipeline_role::producer) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buffer[i % 2][threadIdx.x], &in[i * 64 + threadIdx.x], sizeof(float), pipe);
      pipe.producer_commit();
    } else {
      pipe.consumer_wait();
      out[i * 64 + threadIdx.x - 64] = buffer[i % 2][threadIdx.x - 64];
      pipe.consumer_release();
    }
  }
}
""")
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()


def test_reduce_over_a_coalesced_group(cassc, tmp_path: Path) -> None:
    """cg::reduce over a coalesced group (CUDA samples' binaryPartitionCG: a binary_partition's group), whose size
    need not be a power of two and which HIP 5 gives no shfl_xor."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const int* in, int* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  cg::coalesced_group odd = cg::binary_partition(tile, in[threadIdx.x] & 1);
  int sum = cg::reduce(odd, in[threadIdx.x], cg::plus<int>());
  if (odd.thread_rank() == 0) out[threadIdx.x] = sum + cg::reduce(tile, sum, cg::greater<int>());
}
""")
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()


def test_half_and_bfloat16_atomics_tanh_and_cooperative_reduce(cassc, tmp_path: Path) -> None:
    """CUDA APIs HIP 5.2 lacks: atomicAdd on the 16-bit float types (a CAS loop on the enclosing
    32-bit word), htanh/h2tanh_approx, cooperative_groups::reduce over a tile (of a struct too), a
    tile's meta_group_rank/size, and the cache-hinted loads and stores."""
    write(tmp_path / "k.cu", """\
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(__half* h, __half2* h2, __nv_bfloat16* b, __nv_bfloat162* b2, float* out) {
  atomicAdd(h + 1, __float2half(1.0f));
  atomicAdd(h2, h2tanh_approx(h2[1]));
  atomicAdd(b + 1, __float2bfloat16(2.0f));
  atomicAdd(b2, b2[1]);
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, out[threadIdx.x], cg::plus<float>())
                     + cg::reduce(tile, out[threadIdx.x], cg::greater<float>());
  struct Pair { float sum, max; };
  Pair pair = cg::reduce(tile, Pair{out[0], out[1]}, [](Pair a, Pair b) { return Pair{a.sum + b.sum, b.max}; });
  __stcs(out + tile.meta_group_rank() * tile.meta_group_size(), pair.sum + __ldcs(out + 1));
}
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    assembly = (tmp_path / "k.s").read_text()
    assert assembly.count("atomic_cmpswap_b32") >= 4  # flat_ or global_, as the pointer's address space allows
    assert "ds_bpermute_b32" in assembly  # the tile's shuffles


def test_fp8_conversions_round_to_nearest_even_and_saturate_as_cuda(cassc, tmp_path: Path) -> None:
    """cuda_fp8.h (HIP 5.2 has none): CUDA's encodings, checked on the host, and usable in kernels."""
    write(tmp_path / "main.cu", """\
#include <cstdio>
#include <cuda_fp8.h>
__global__ void k(const __nv_fp8x4_e4m3* in, __nv_fp8_e5m2* out) { out[0] = __nv_fp8_e5m2(float4(in[0]).x); }
int main() {
  const float values[] = {1.0f, -2.0f, 448.0f, 1000.0f, 0.001953125f, 1.0625f, 1.1875f, 1e6f};
  for (float v : values)
    printf("%02x %02x %02x %02x\\n", __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3),
           __nv_cvt_float_to_fp8(v, __NV_NOSAT, __NV_E4M3), __nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E5M2),
           __nv_cvt_float_to_fp8(v, __NV_NOSAT, __NV_E5M2));
  float4 back = float4(__nv_fp8x4_e4m3(make_float4(1, 2, 3, 4)));
  printf("%g %g %g\\n", float(__nv_fp8_e4m3(3.3f)), back.w, float(__half(__nv_cvt_fp8_to_halfraw(0x7E, __NV_E4M3))));
}
""")
    cassc("main.cu", "-o", "app")
    printed = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout.split("\n")
    assert printed[:9] == ["38 38 3c 3c", "c0 c0 c0 c0", "7e 7e 5f 5f", "7e 7f 64 64", "01 01 18 18",
                           "38 38 3c 3c",  # 1.0625 is halfway: ties to even
                           "3a 3a 3d 3d", "7e 7f 7b 7c",  # beyond the range: largest finite, or NaN / infinity
                           "3.25 4 448"]


def test_managed_variables_byte_dot_products_math_constants_and_register(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <math_constants.h>
__managed__ int counter;
__global__ void k(int* out) {
  register int x = __dp4a(0x01020304, 0x01010101, 5);
  out[0] = x + __dp4a(0xFFu, 0x02u, 0u) + counter + (CUDART_PI_F > 3.0f);
}
int main() { return counter; }
""")
    cassc("-std=c++17", "main.cu", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_a_missing_rocm_library_is_one_line_naming_the_package(cassc, tmp_path: Path) -> None:
    """cuDNN -> MIOpen: no toolchain the tests run on has MIOpen."""
    from cassc.toolchain import find_toolchain

    if any((d / "miopen/miopen.h").is_file() for d in find_toolchain().library_include_dirs):
        pytest.skip("this toolchain has MIOpen")
    write(tmp_path / "dnn.cu", """\
#include <cstdio>
#include <cudnn.h>
int main() { cudnnHandle_t handle; cudnnCreate(&handle); }
""")
    result = cassc("-c", "dnn.cu", check=False)
    assert result.returncode == 1
    # in the toolchain's own terms: the distribution's package, AMD's, or (Debian 12) a ROCm at all
    hint = {"distro": "apt-get install libmiopen-dev",
            "rocm": f"install MIOpen into the ROCm at {find_toolchain().root} (AMD's miopen-dev package), or "
                    "point ROCM_PATH at a ROCm install that has it",
            "debian": "install ROCm >= 6 with MIOpen, or point ROCM_PATH at a ROCm install that has it"}
    assert result.stderr.strip().splitlines() == [
        f"cassc fatal   : dnn.cu:2: needs MIOpen (for cudnn.h): {hint[find_toolchain().kind]}"]



def test_a_missing_library_in_a_dead_branch_leaves_the_real_error_to_clang(cassc, tmp_path: Path) -> None:
    """An optional library's #include under an #ifdef the build leaves undefined (MULTI_GPU -> nccl.h) is not
    what stops the compile: the error shown is the unit's own."""
    from cassc.toolchain import find_toolchain

    if any((d / "miopen/miopen.h").is_file() for d in find_toolchain().library_include_dirs):
        pytest.skip("this toolchain has MIOpen")
    write(tmp_path / "dnn.cu", "#ifdef WITH_CUDNN\n#include <cudnn.h>\n#endif\nint main() { return undeclared; }\n")
    result = cassc("-c", "dnn.cu", check=False)
    assert result.returncode == 1
    assert "dnn.cu:4:21: error: use of undeclared identifier 'undeclared'" in result.stderr
    assert "MIOpen" not in result.stderr


MATH_LIBRARY_PROGRAMS = {
    "hipBLAS": ("cublas", """\
#include <cublas_v2.h>
#include <cuComplex.h>
#include <cuda_fp16.h>
int main() {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  float alpha = 1, beta = 0, *a = nullptr;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, 4, 4, 4, &alpha, a, 4, a, 4, &beta, a, 4);
  cuComplex calpha = make_cuComplex(1, 0), *c = nullptr;
  cublasCgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &calpha, c, 4, c, 4, &calpha, c, 4);
  __half hone = __float2half(1.0f), *h = nullptr;
  cublasHgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &hone, h, 4, 16, h, 4, 16, &hone, h, 4, 16, 2);
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, a, CUDA_R_32F, 4, a, CUDA_R_32F, 4, &beta,
               a, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  // what hipBLAS may decline as cuBLAS documents it: algorithm choices, a workspace, fp32 emulation
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, a, CUDA_R_32F, 4, a, CUDA_R_32F, 4, &beta,
               a, CUDA_R_32F, 4, CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
  cublasSetWorkspace(handle, nullptr, 0);
  cublasSetMathMode(handle, CUBLAS_FP32_EMULATED_BF16X9_MATH);
  cublasEmulationStrategy_t strategy = CUBLAS_EMULATION_STRATEGY_EAGER;
  cublasSetEmulationStrategy(handle, strategy);
  cublasGetEmulationStrategy(handle, &strategy);
  cuComplex* complex_array[2] = {c, c};
  cublasCgemm3m(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &calpha, c, 4, c, 4, &calpha, c, 4);
  cublasCgemm3mBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &calpha, complex_array, 4, complex_array, 4,
                       &calpha, complex_array, 4, 2);
  // cuBLAS 12.5's grouped batched GEMM: two groups of one problem each
  cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  int sizes[2] = {4, 8}, ones[2] = {1, 1};
  double alphas[2] = {1, 2}, betas[2] = {0, 0}, **d = nullptr;
  cublasDgemmGroupedBatched(handle, ops, ops, sizes, sizes, sizes, alphas, d, sizes, d, sizes, betas, d, sizes, 2,
                            ones);
  void** untyped = nullptr;  // cuBLAS's arrays are `const void* const[]`: a void** converts
  cublasGemmBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha, untyped, CUDA_R_32F, 4, untyped, CUDA_R_32F,
                      4, &beta, untyped, CUDA_R_32F, 4, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  cublasDestroy(handle);
}
"""),
    # cuBLASLt's in-place API (descriptors in the program's own storage) beside the handle API, fp8
    # types, and FAST_ACCUM, which hipBLASLt lacks (accepted; read back as the full-precision mode it runs),
    # and the COMPUTE_TYPE/SCALE_TYPE attributes hipBLASLt fixes at creation.
    "hipBLASLt": ("cublasLt", """\
#include <cublasLt.h>
int main() {
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasLtMatmulDescOpaque_t operation = {};
  cublasLtMatrixLayoutOpaque_t a = {}, c = {};
  cublasLtMatmulPreferenceOpaque_t preference = {};
  if (cublasLtMatmulDescInit(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F) != CUBLAS_STATUS_SUCCESS) return 2;
  cublasOperation_t transpose = CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(&operation, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));
  int8_t fast = 1, read = 7;
  size_t written = 0;
  if (cublasLtMatmulDescSetAttribute(&operation, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)) !=
      CUBLAS_STATUS_SUCCESS) return 3;
  cublasLtMatmulDescGetAttribute(&operation, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &read, sizeof(read), &written);
  // the scale and compute types hipBLASLt fixes at creation: stating the same again, and reading them
  cudaDataType_t scale = CUDA_R_32F;
  if (cublasLtMatmulDescSetAttribute(&operation, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale, sizeof(scale)) !=
      CUBLAS_STATUS_SUCCESS) return 5;
  cublasLtMatmulDesc_t created = nullptr;
  cublasLtMatmulDescCreate(&created, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F);
  cublasComputeType_t compute = CUBLAS_COMPUTE_16F;
  cublasLtMatmulDescGetAttribute(created, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute, sizeof(compute), &written);
  cublasLtMatmulDescDestroy(created);
  cublasLtMatrixLayoutInit(&a, CUDA_R_8F_E4M3, 16, 16, 16);
  cublasLtMatrixLayout_t b = nullptr;
  cublasLtMatrixLayoutCreate(&b, CUDA_R_8F_E5M2, 16, 16, 16);
  cublasLtMatrixLayoutInit(&c, CUDA_R_32F, 16, 16, 16);
  cublasLtMatmulPreferenceInit(&preference);
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  cublasLtMatmulAlgoGetHeuristic(lt, &operation, &a, b, &c, &c, &preference, 1, &heuristic, &found);
  float alpha = 1, beta = 0;
  cublasLtMatmul(lt, &operation, &alpha, nullptr, &a, nullptr, b, &beta, nullptr, &c, nullptr, &c, nullptr,
                 nullptr, 0, 0);
  cublasLtMatrixLayoutDestroy(b);
  cublasLtDestroy(lt);
  return read == 0 && written == sizeof(read) ? 0 : 4;
}
"""),
    "hipFFT": ("cufft", """\
#include <cufft.h>
int main() {
  cufftHandle plan;
  cufftComplex* data = nullptr;
  if (cufftPlan1d(&plan, 64, CUFFT_C2C, 1) != CUFFT_SUCCESS) return 1;
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  cufftDestroy(plan);
}
"""),
    "hipSOLVER": ("cusolver", """\
#include <cusolverDn.h>
int main() {
  cusolverDnHandle_t handle;
  if (cusolverDnCreate(&handle) != CUSOLVER_STATUS_SUCCESS) return 1;
  int work = 0;
  double* a = nullptr;
  cusolverDnDgetrf_bufferSize(handle, 4, 4, a, 4, &work);
  cusolverDnDestroy(handle);
}
"""),
}


@pytest.mark.parametrize("package", sorted(MATH_LIBRARY_PROGRAMS))
def test_cuda_math_library_programs_build_where_the_rocm_library_is(package: str, cassc, tmp_path: Path) -> None:
    """cuBLAS (v2), cuFFT, cuSOLVER programs through hipBLAS/hipFFT/hipSOLVER: `-lcublas` is hipBLAS."""
    from cassc.hipify.tables import load_tables
    from cassc.toolchain import find_toolchain

    library, source = MATH_LIBRARY_PROGRAMS[package]
    [probe] = [p.probe_header for p in load_tables().packages if p.name == package]
    if not any((d / probe).is_file() for d in find_toolchain().library_include_dirs):
        pytest.skip(f"this toolchain has no {package}")
    write(tmp_path / "main.cu", source)
    cassc("main.cu", "-o", "app", f"-l{library}")
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "app")], capture_output=True, text=True, check=True).stdout
    assert f"lib{package.lower()}.so" in needed


def test_every_cufft_and_cusolver_status_names_a_value(cassc, tmp_path: Path) -> None:
    """NVIDIA's samples' helper_cuda.h switches over every cuFFT result and cuSOLVER status, some of which hipFFT and
    hipSOLVER lack (CUFFT_MISSING_DEPENDENCY..., CUSOLVER_STATUS_INVALID_LICENSE): they name values HIP never returns."""
    from cassc.toolchain import find_toolchain

    if not all(any((d / probe).is_file() for d in find_toolchain().library_include_dirs)
               for probe in ("hipfft/hipfft.h", "hipsolver/hipsolver.h")):
        pytest.skip("this toolchain has no hipFFT or hipSOLVER")
    write(tmp_path / "main.cu", """\
#include <cufft.h>
#include <cusolverDn.h>
static const char* name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    case CUFFT_LICENSE_ERROR: return "CUFFT_LICENSE_ERROR";
    case CUFFT_MISSING_DEPENDENCY: return "CUFFT_MISSING_DEPENDENCY";
    case CUFFT_NVRTC_FAILURE: return "CUFFT_NVRTC_FAILURE";
    case CUFFT_NVJITLINK_FAILURE: return "CUFFT_NVJITLINK_FAILURE";
    case CUFFT_NVSHMEM_FAILURE: return "CUFFT_NVSHMEM_FAILURE";
    default: return "other";
  }
}
static const char* name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_INVALID_LICENSE: return "CUSOLVER_STATUS_INVALID_LICENSE";
    default: return "other";
  }
}
int main() { return name(CUFFT_SUCCESS)[0] != name(CUSOLVER_STATUS_SUCCESS)[0]; }
""")
    cassc("-c", "main.cu", "-o", "main.o")
    assert (tmp_path / "main.o").is_file()


def test_cmath_alone_gives_the_global_host_classification_functions(cassc, tmp_path: Path) -> None:
    """nvcc's cuda_runtime.h includes <math.h>, so a unit that includes only <cmath> calls ::isfinite,
    ::isnan, ::isinf in host code (libstdc++ declares them globally only in <math.h>)."""
    write(tmp_path / "main.cu", "#include <cmath>\n#include <cstdio>\n"
          "bool ordinary(float x) { return isfinite(x) && !isnan(x) && !isinf(x); }\n"
          "int main() { std::printf(\"%d\\n\", ordinary(1.0f)); }\n")
    cassc("main.cu", "-o", "app")


def test_cudas_host_math_functions_that_glibc_lacks(cassc, tmp_path: Path) -> None:
    """rsqrt/rcbrt and their float forms: nvcc's headers define them for host code too, HIP for the device
    only; host, device and __host__ __device__ callers all compile, and the host ones compute as CUDA's."""
    write(tmp_path / "main.cu", """\
#include <cstdio>
__host__ __device__ float both(float x) { return rsqrtf(x) + rcbrtf(x); }
__global__ void k(float* out, float x) { out[0] = rsqrtf(x) + rcbrt(8.0) + both(x); }
int main() { std::printf("%g %g %g %g\\n", rsqrtf(4.0f), rsqrt(16.0), rcbrtf(8.0f), both(64.0f)); }
""")
    cassc("main.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "0.5 0.25 0.5 0.375\n"


def test_legacy_cublas_programs_and_configure_checks_link(cassc, tmp_path: Path) -> None:
    """cuBLAS's legacy API (<cublas.h>: cublasInit, character transposes, results returned) over hipBLAS,
    and autoconf's AC_CHECK_LIB(cublas, cublasInit), which links the bare symbol with -lcublas."""
    from cassc.hipify.tables import load_tables
    from cassc.toolchain import find_toolchain

    [probe] = [p.probe_header for p in load_tables().packages if p.name == "hipBLAS"]
    if not any((d / probe).is_file() for d in find_toolchain().library_include_dirs):
        pytest.skip("this toolchain has no hipBLAS")
    write(tmp_path / "main.cu", """\
#include "cublas.h"
int main() {
  if (cublasInit() != CUBLAS_STATUS_SUCCESS) return 1;
  float *a = nullptr, *x = nullptr;
  double* d = nullptr;
  cublasSgemm('n', 'T', 4, 4, 4, 1.0f, a, 4, a, 4, 0.0f, a, 4);
  cublasDgemm('N', 'n', 4, 4, 4, 1.0, d, 4, d, 4, 0.0, d, 4);
  cublasSaxpy(4, 2.0f, x, 1, x, 1);
  float dot = cublasSdot(4, x, 1, x, 1) + cublasSnrm2(4, x, 1);
  cublasStatus status = cublasGetError();
  cublasAlloc(16, sizeof(float), (void**)&x);
  cublasFree(x);
  return cublasShutdown() == CUBLAS_STATUS_SUCCESS && status == CUBLAS_STATUS_SUCCESS && dot == 0 ? 0 : 2;
}
""")
    cassc("main.cu", "-o", "app", "-lcublas")
    write(tmp_path / "conftest.cpp", 'extern "C" char cublasInit();\nint main() { return cublasInit(); }\n')
    cassc("conftest.cpp", "-o", "conftest", "-lcublas")
    symbols = subprocess.run(["nm", str(tmp_path / "conftest")], capture_output=True, text=True, check=True).stdout
    assert " T cublasInit" in symbols
    # Host code compiled against NVIDIA's <cublas.h> (the binary path: SHOC's GEMM) calls the routines by
    # cuBLAS's names with C linkage: these are NVIDIA's declarations.
    write(tmp_path / "host.cpp", """\
extern "C" {
int cublasInit(void);
void cublasSgemm(char, char, int, int, int, float, const float*, int, const float*, int, float, float*, int);
float cublasSdot(int, const float*, int, const float*, int);
int cublasIdamax(int, const double*, int);
int cublasShutdown(void);
}
int main() {
  cublasSgemm('N', 'T', 0, 0, 0, 1.0f, nullptr, 1, nullptr, 1, 0.0f, nullptr, 1);
  return cublasInit() + int(cublasSdot(0, nullptr, 1, nullptr, 1)) + cublasIdamax(0, nullptr, 1) + cublasShutdown();
}
""")
    subprocess.run(["g++", "-c", "host.cpp", "-o", "host.o"], cwd=tmp_path, check=True)
    cassc("host.o", "-o", "host", "-lcublas")
    symbols = subprocess.run(["nm", str(tmp_path / "host")], capture_output=True, text=True, check=True).stdout
    assert all(f" T {name}\n" in symbols for name in ("cublasSgemm", "cublasSdot", "cublasIdamax")), symbols


def test_a_library_include_in_a_dead_branch_is_not_needed(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", """\
#ifdef USE_CUB
#include <cub/cub.cuh>
#endif
__global__ void k(int* x) { x[0] = 1; }
""")
    cassc("-c", "k.cu")
    assert (tmp_path / "k.o").is_file()


def test_a_users_own_copy_of_cub_gives_way_to_hipcub(cassc, tmp_path: Path) -> None:
    """Projects that vendor CUB get hipCUB, as HIPIFY does: CUB's own code is NVIDIA PTX."""
    write(tmp_path / "vendor" / "cub" / "cub.cuh", '#pragma once\n#error "NVIDIA-only CUB"\n')
    write(tmp_path / "k.cu", """\
#include <cub/cub.cuh>
__global__ void k(const int* in, int* out) {
  typedef cub::BlockReduce<int, 128> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  int total = Reduce(storage).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) *out = total;
}
""")
    cassc("-Ivendor", "-c", "k.cu")
    assert (tmp_path / "k.o").is_file()


def test_cuda_12_8_atomics_and_typed_host_allocations(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
__global__ void k(long long* a, long long* out) {
  out[0] = __nv_atomic_load_n(a, __NV_ATOMIC_RELAXED);
  out[1] = __nv_atomic_load_n(a, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_add(a, 1ll, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_BLOCK);
}
int main() {
  int* pinned;
  cudaHostAlloc(&pinned, 16, cudaHostAllocDefault);
  float* rows;
  size_t pitch;
  cudaMallocPitch(&rows, &pitch, 16, 16);
}
""")
    result = cassc("main.cu", "-o", "app")
    assert "warning" not in result.stderr
    assert (tmp_path / "app").is_file()


def test_a_byte_order_mark_is_allowed(cassc, tmp_path: Path) -> None:
    (tmp_path / "bom.cu").write_bytes(b'\xef\xbb\xbf#include <cstdio>\nint main() { printf("bom\\n"); }\n')
    cassc("bom.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "bom\n"


def test_half_arithmetic_in_host_code_and_hmax(cassc, tmp_path: Path) -> None:
    """CUDA 12 has host __half operators and __hmax/__hmin; HIP 5.2 has device operators only."""
    write(tmp_path / "main.cu", """\
#include <cuda_fp16.h>
#include <cstdio>
__global__ void k(__half* a) { a[0] = __hmax(a[0] + a[1] * a[2], a[1]); }
int main() {
  __half a = __float2half(1.5f), b = __float2half(2.0f);
  const __half c = a + b * a;
  __half d = c;
  d += a;
  printf("%g %d %g\\n", __half2float(d), a < b, __half2float(__hmin(a, b)));
}
""")
    cassc("main.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "6 1 1.5\n"


def test_hadd_is_the_integer_halving_add_for_integers_only(cassc, tmp_path: Path) -> None:
    """CUDA's integer __hadd and the half/bf16 __hadd share a name; compat.tsv renames the calls, and the
    rename is type-aware: the halving add for integer arguments, the argument type's own __hadd for any
    other (halves, bf16, and a user's own type, which a by-name rename to the integer adapter broke)."""
    write(tmp_path / "main.cu", """\
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <type_traits>
struct fixed { int raw; };
__host__ __device__ fixed __hadd(fixed a, fixed b) { return fixed{a.raw + b.raw}; }
__global__ void k(__half* h, __nv_bfloat16* b, int* i) {
  h[0] = __hadd(h[0], h[1]);
  b[0] = __hadd(b[0], b[1]);
  i[0] = __hadd(i[0], i[1]);
}
__global__ void integers(int* out, unsigned u, short s) {
  out[0] = __hadd(2147483647, 2147483647);  // no overflow: CUDA's halving add
  out[1] = __hadd(u, s);                     // mixed integer arguments, as int __hadd(int, int) takes them
  out[2] = __hadd(fixed{3}, fixed{4}).raw;
}
static_assert(std::is_same<decltype(__hadd(__half(), __half())), __half>::value, "half __hadd is half addition");
static_assert(std::is_same<decltype(__hadd(__nv_bfloat16(), __nv_bfloat16())), __nv_bfloat16>::value, "bf16 too");
int main() {
  printf("%g %d\\n", __half2float(__hadd(__float2half(1.5f), __float2half(2.25f))), __hadd(fixed{1}, fixed{2}).raw);
}
""")
    cassc("main.cu", "-o", "app", "--keep", "--keep-dir", "kept")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "3.75 3\n"
    ir = next((tmp_path / "kept").rglob("*-gfx1100.ll")).read_text()
    stores = re.search(r"define [^\n]*@_Z8integersPijs\(.*?\n}", ir, re.DOTALL)
    assert stores and "store i32 2147483647" in stores.group(0) and "store i32 7" in stores.group(0), stores


def test_cuda_version_macros_and_quiet_unused_results(cassc, tmp_path: Path) -> None:
    """nvcc's units see CUDART_VERSION; HIP's [[nodiscard]] stays quiet even under -Xcompiler -Wall."""
    write(tmp_path / "main.cu", """\
#if CUDART_VERSION != 12090 || CUDA_VERSION != 12090
#error nvcc pre-includes cuda_runtime.h, which defines the version
#endif
int main() { float* x; cudaMalloc(&x, 4); cudaFree(x); }
""")
    result = cassc("-Xcompiler", "-Wall", "main.cu", "-o", "app")
    assert "nodiscard" not in result.stderr


def test_half_conversions_round_as_their_names_say(cassc, tmp_path: Path) -> None:
    """CUDA's _rz/_rd/_ru (and half -> integer _rn) conversions: HIP rounds float/int -> half to nearest
    and truncates half -> integer whatever the suffix. cassc's adapters are __host__ __device__: the host
    run checks the bits the device gets too, and the kernel shows the device side compiles."""
    write(tmp_path / "main.cu", """\
#include <cuda_fp16.h>
#include <cstdio>
__global__ void k(float* f, int* i, __half* h) {
  h[0] = __float2half_rz(f[0]);
  h[1] = __int2half_ru(i[0]);
  i[1] = __half2int_rn(h[2]) + __half2ll_rd(h[3]) + __half2ushort_ru(h[4]);
  h[5] = hrcp(h[6]);
  h[7] = __low2half(h2rcp(__halves2half2(h[8], h[9])));
}
static void bits(__half h) { printf("%04x ", __half_as_ushort(h)); }
int main() {
  const float between = 1.000732421875f;  // 0.75 ulp above 1.0: nearest is 1 + 2^-10
  for (float x : {between, -between, 70000.0f, 1e-10f}) {
    bits(__float2half(x)); bits(__float2half_rz(x)); bits(__float2half_rd(x)); bits(__float2half_ru(x));
  }
  bits(__int2half_rn(2049)); bits(__int2half_rz(2049)); bits(__int2half_ru(2049)); bits(__ll2half_rd(-2049));
  bits(__uint2half_ru(65505u)); bits(hrcp(__float2half(3.0f)));
  const __half two_and_half = __float2half(2.5f), minus = __float2half(-2.5f), nan = __float2half(0.0f / 0.0f);
  printf("%d %d %d %d %d %d %u %u %d\\n", __half2int_rn(two_and_half), __half2int_rd(minus), __half2int_ru(two_and_half),
         __half2int_rz(minus), __half2int_rn(nan), __half2short_rn(__float2half(1e6f)), __half2uint_rn(minus),
         __half2ushort_ru(__float2half(65504.0f)), (int)__half2ll_rn(__float2half(-0.5f)));
}
""")
    cassc("-arch=sm_80", "main.cu", "-o", "app")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.split() == [
        "3c01", "3c00", "3c00", "3c01",  "bc01", "bc00", "bc01", "bc00",  "7c00", "7bff", "7bff", "7c00",
        "0000", "0000", "0000", "0001",  "6800", "6800", "6801", "e801",  "7c00", "3555",
        "2", "-3", "3", "-2", "0", "32767", "0", "65504", "0"]


def test_half2_members_are_halves(cassc, tmp_path: Path) -> None:
    """CUDA's __half2 has __half members x and y; HIP 5.2's are raw `unsigned short` (HIP 6 changed it),
    so `float f = h2.x` compiled and read the bits. cassc's HIP 5 toolchain searches a copy of HIP's fp16
    header with CUDA's member types first."""
    write(tmp_path / "main.cu", """\
#include <cuda_fp16.h>
#include <cstdio>
__global__ void k(__half2* v) { v[0].x = __hadd(v[0].x, v[0].y); v[1].y = v[0].x; }
int main() {
  __half2 h2 = __halves2half2(__float2half(1.5f), __float2half(-2.0f));
  float x = h2.x, y = __half2float(h2.y);
  h2.y = __float2half(0.25f);
  printf("%g %g %g\\n", x, y, __high2float(h2));
}
""")
    cassc("main.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "1.5 -2 0.25\n"


def test_bfloat16_conversions_round_once_and_as_named(cassc, tmp_path: Path) -> None:
    """double -> bfloat16 rounds once, as CUDA does (through float it rounded twice); _rz/_rd/_ru as named;
    NaN is CUDA's 0x7fff, and bf16 -> int of NaN is 0."""
    write(tmp_path / "main.cu", """\
#include <cuda_bf16.h>
#include <cstdio>
int main() {
  const double above_midpoint = 1.0 + 0x1p-8 + 0x1p-30;  // float rounds it to the midpoint 1 + 2^-8
  const float midpoint = 1.00390625f, nan = 0.0f / 0.0f;
  printf("%04x %04x %04x %04x %04x %04x %d\\n", __bfloat16_as_ushort(__double2bfloat16(above_midpoint)),
         __bfloat16_as_ushort(__float2bfloat16_rd(-midpoint)),
         __bfloat16_as_ushort(__float2bfloat16_ru(-midpoint)), __bfloat16_as_ushort(__float2bfloat16_ru(midpoint)),
         __bfloat16_as_ushort(__float2bfloat16_rz(-midpoint)), __bfloat16_as_ushort(__float2bfloat16_rz(nan)),
         __bfloat162int_rn(__float2bfloat16(nan)));
}
""")
    cassc("main.cu", "-o", "app")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.split() == ["3f81", "bf81", "bf80", "3f81", "bf80", "7fff", "0"]


def test_bfloat16_math_functions(cassc, tmp_path: Path) -> None:
    """cuda_bf16.h's math functions, which HIP 5.2's bfloat16 lacks (HIP 6 has them)."""
    write(tmp_path / "k.cu", """\
#include <cuda_bf16.h>
__global__ void k(__nv_bfloat16* x, __nv_bfloat162* y, int* inf) {
  x[0] = hfloor(hlog2(x[0])) + hsqrt(x[1]) + hexp10(x[2]) + hrcp(x[3]) + hcos(x[4]);
  y[0] = h2rsqrt(y[0]) + h2trunc(y[1]);
  *inf = __hisinf(x[5]);
}
""")
    cassc("-ptx", "k.cu", "-o", "k.s")


def test_cuda_13_memory_location_forms_of_prefetch_and_advise(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <cuda_runtime.h>
int main() {
  float* a;
  cudaMallocManaged(&a, 1024);
  cudaMemLocation location;
  location.type = cudaMemLocationTypeDevice;
  location.id = 0;
  cudaMemAdvise(a, 1024, cudaMemAdviseSetPreferredLocation, location);
  cudaMemPrefetchAsync(a, 1024, location, 0);
  return cudaDeviceSynchronize();
}
""")
    cassc("main.cu", "-o", "app")


def test_grid_constant_kernel_parameters(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", """\
struct Params { int n; float scale; };
__global__ void k(const __grid_constant__ Params p, float* x) { const Params* q = &p; x[q->n] *= q->scale; }
""")
    cassc("-ptx", "k.cu", "-o", "k.s")


def test_narrowing_initializer_lists_in_cuda_files_warn_as_with_nvcc(cassc, tmp_path: Path) -> None:
    """nvcc 13 accepts `int y[] = {0.0, 1.0}` in a .cu file with warning #2361-D; clang's default is an error."""
    write(tmp_path / "k.cu", "__global__ void k(int* o) { int y[2] = {0.0, 1.0}; o[threadIdx.x] = y[threadIdx.x % 2]; }\n")
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()


def test_coalesced_group_and_tile_members_hip_lacks(cassc, tmp_path: Path) -> None:
    """CUDA's coalesced_group and thread_block_tile members (ballot, any, all, match_any, match_all,
    num_threads) compile whether HIP's class has them or not; a class with members of those names
    (std::bitset) keeps its own, in CUDA and C++ units."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
#include <bitset>
namespace cg = cooperative_groups;
__global__ void k(unsigned long long* out, float* f) {
  cg::coalesced_group active = cg::coalesced_threads();
  int v = threadIdx.x, pred = 0;
  out[0] = active.ballot(v > 3) + active.any(v > 3) + active.all(v > 3) + active.num_threads();
  out[1] = active.match_any(f[v]) + active.match_all(v, pred) + pred + active.shfl(v, 0) + active.thread_rank();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  out[2] = tile.ballot(v & 1) + tile.any(v) + tile.all(v) + tile.match_any(v) + tile.num_threads();
  cg::coalesced_group odd = cg::binary_partition(tile, v & 1), same = cg::labeled_partition(active, v / 4);
  out[3] = odd.size() + odd.thread_rank() + same.shfl(v, 0) + cg::labeled_partition(tile, v % 3).size();
  cg::invoke_one(tile, [&](int x) { out[4] = x; }, v);
  out[5] = cg::invoke_one_broadcast(active, [&] { return (int)atomicAdd((unsigned long long*)out, 1ull); });
  cg::cluster_group cluster = cg::this_cluster();
  __shared__ int slot;
  cluster.sync();
  out[6] = *cluster.map_shared_rank(&slot, 0) + cluster.block_rank() + cluster.num_blocks() + cluster.thread_rank();
}
int main() { std::bitset<8> bits(5); return bits.any() && !bits.all() ? 0 : 1; }
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    assert "ds_bpermute_b32" in (tmp_path / "k.s").read_text()  # match_any's shuffles
    cassc("k.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")]).returncode == 0
    write(tmp_path / "host.cpp", "#include <bitset>\nint main() { std::bitset<4> b(15); return b.all() ? 0 : 1; }\n")
    cassc("host.cpp", "-o", "host")
    assert subprocess.run([str(tmp_path / "host")]).returncode == 0


def test_group_member_calls_leave_other_classes_alone_and_know_their_place(cassc, tmp_path: Path) -> None:
    """The member-call rule reaches HIP's groups only: a user's class with private members named as CUDA's
    group members, called inside the class, keeps them (device and host). A coalesced group is the one group
    of its set, as CUDA's coalesced_threads() is; a tile of a 32-thread tile is one of its parent's tiles."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
class Votes {
  unsigned bits;
  __host__ __device__ bool any(int) const { return bits != 0; }
  __host__ __device__ unsigned ballot(int p) const { return bits & p; }
  __host__ __device__ unsigned meta_group_rank() const { return 7; }
 public:
  __host__ __device__ explicit Votes(unsigned b) : bits(b) {}
  __host__ __device__ unsigned count(const Votes& other) const {
    return this->any(1) + other.ballot(3) + meta_group_rank() + other.meta_group_rank();
  }
};
__global__ void k(unsigned* out) {
  cg::coalesced_group active = cg::coalesced_threads();
  out[0] = 1000 + active.meta_group_rank();
  out[1] = 2000 + active.meta_group_size();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::thread_block_tile<8, cg::thread_block_tile<32>> quarter = cg::tiled_partition<8>(warp);
  out[2] = 3000 + quarter.meta_group_size();
  out[3] = 4000 + Votes(5).count(Votes(6));
  out[4] = warp.meta_group_rank() + quarter.meta_group_rank();
}
int main() { return Votes(1).count(Votes(2)) == 17 ? 0 : 1; }
""")
    cassc("--keep", "--keep-dir", "keep", "-c", "k.cu")
    ir = next((tmp_path / "keep").rglob("*-gfx1100.ll")).read_text()
    for value in (1000, 2001, 3004, 4017):
        assert re.search(rf"store i32 {value},", ir), value
    cassc("k.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")]).returncode == 0


def test_a_tile_wider_than_a_gfx11_wavefront_is_refused(cassc, tmp_path: Path) -> None:
    """gfx11 runs 32-lane wavefronts: HIP 5's cooperative groups, which took gfx11 for a 64-lane target,
    compiled a 64-thread tile whose shuffles cross lanes that do not exist. Now HIP's own size check stops it."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int* out) {
  cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cg::this_thread_block());
  out[threadIdx.x] = tile.shfl(out[threadIdx.x], 40);
}
""")
    result = cassc("-c", "k.cu", check=False)
    assert result.returncode != 0 and "k.cu:4:" in result.stderr and "wavefront" in result.stderr


def test_asynchronous_group_reductions_and_scan_updates_over_libcuxx_atomics(cassc, tmp_path: Path) -> None:
    """cg::reduce_update_async/reduce_store_async and inclusive/exclusive_scan_update over <cuda/atomic>'s
    scoped atomics (cassc's own: HIP has no libcu++): each combines the group's result with the operation's
    atomic instruction at the atomic's scope (a block-scope atomic in shared memory is an LDS atomic), a
    compare-and-swap loop where there is none; cuda::std::atomic works in host code."""
    write(tmp_path / "k.cu", """\
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>
#include <cuda/std/atomic>
namespace cg = cooperative_groups;
__global__ void k(int* out, float* f, unsigned* u) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ cuda::atomic<int, cuda::thread_scope_block> total;
  if (block.thread_rank() == 0) total.store(0);
  block.sync();
  cg::reduce_update_async(tile, total, (int)threadIdx.x, cg::plus<int>());
  cg::reduce_update_async(tile, cuda::atomic_ref<float, cuda::thread_scope_device>(f[0]), f[threadIdx.x],
                          cg::greater<float>());
  cg::reduce_store_async(tile, out + 1, (int)threadIdx.x, cg::less<int>());
  cg::reduce_store_async(tile, total, (int)threadIdx.x, [](int a, int b) { return a * b; });
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(u[0]);
  out[2 + threadIdx.x] = cg::exclusive_scan_update(tile, counter, 1u)
                         + cg::inclusive_scan_update(tile, counter, 2u, cg::bit_or<unsigned>());
  block.sync();
  out[0] = total.load(cuda::memory_order_relaxed);
}
int main() { cuda::std::atomic<int> host(3); host.fetch_add(2); return host.load() == 5 ? 0 : 1; }
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    assembly = (tmp_path / "k.s").read_text()
    for instruction in ("ds_add_u32", "global_atomic_cmpswap_b32", "global_atomic_add_u32", "global_atomic_or_b32"):
        assert instruction in assembly, instruction
    cassc("k.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")]).returncode == 0


def test_runtime_hints_the_binary_path_answers_succeed_on_the_source_path_too(cassc, tmp_path: Path) -> None:
    """The runtime functions the binary path's runtime answers with success (cudart-api.tsv's `success` rows)
    build from source too, with CUDA's types where HIP has none (a stream's access-policy window, as CUDA's
    samples set it), and succeed."""
    write(tmp_path / "hints.cu", """\
#include <cuda_runtime.h>
int main(int argc, char**) {
  cudaStream_t stream = nullptr;
  float* data = nullptr;
  cudaStreamAttrValue attribute;
  attribute.accessPolicyWindow.base_ptr = data;
  attribute.accessPolicyWindow.num_bytes = 1 << 20;
  attribute.accessPolicyWindow.hitRatio = 0.6f;
  attribute.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attribute.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  int failures = cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attribute) != cudaSuccess;
  failures += cudaStreamCopyAttributes(stream, stream) != cudaSuccess;
  failures += cudaGraphKernelNodeCopyAttributes(nullptr, nullptr) != cudaSuccess;
  failures += cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                                 cudaFlushGPUDirectRDMAWritesToOwner) != cudaSuccess;
  int devices[] = {0};
  failures += cudaSetValidDevices(devices, 1) != cudaSuccess;
  failures += cudaKernelSetAttributeForDevice(nullptr, cudaFuncAttributeMaxDynamicSharedMemorySize, 0, 0) != cudaSuccess;
  unsigned long long zero = 0;
  failures += cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero) != cudaSuccess;
  void* pointers[] = {data};
  size_t sizes[] = {0}, location_indices[] = {0};
  cudaMemLocation location = {};
  failures += cudaMemPrefetchBatchAsync(pointers, sizes, 1, &location, location_indices, 1, 0, stream) != cudaSuccess;
  failures += cudaMemDiscardAndPrefetchBatchAsync(pointers, sizes, 1, &location, location_indices, 1, 0, stream) != cudaSuccess;
  failures += cudaMemDiscardBatchAsync(pointers, sizes, 1, 0, stream) != cudaSuccess;
  if (argc > 1) failures += cudaGraphUpload(nullptr, stream) != cudaSuccess;  // HIP 6 asks the device
  return failures;
}
""")
    cassc("hints.cu", "-o", "hints")
    assert subprocess.run([str(tmp_path / "hints")]).returncode == 0


def test_cudas_integer_min_max_overloads_on_the_device(cassc, tmp_path: Path) -> None:
    """CUDA's min/max take every integer pairing (crt/math_functions.hpp): with HIP's threadIdx/blockDim members
    (classes convertible to unsigned int) or mixed signedness the call was ambiguous. Mixed signs compare as
    unsigned, as CUDA's do: min(-1, 5u) is 5."""
    write(tmp_path / "k.cu", """\
__global__ void k(unsigned* out, unsigned rem, int s, long l, unsigned long ul, long long ll, unsigned long long ull,
                  float f, double d) {
  out[0] = min(rem, blockDim.x) + max(threadIdx.x, rem) + min(s, rem) + max(rem, s) + min(s, s);
  out[1] = min(l, l) + min(ul, l) + max(ll, ull) + min(ull, ull) + (unsigned)min(f, d) + (unsigned)max(d, f);
  out[2] = 1000 + min(-1, 5u);
}
""")
    cassc("--keep", "--keep-dir", "keep", "-c", "k.cu")
    assert "store i32 1005," in next((tmp_path / "keep").rglob("*-gfx1100.ll")).read_text()


@pytest.mark.skipif(system_headers_missing("cuda_egl_interop.h"), reason="needs EGL's headers (libegl-dev)")
def test_egl_interop_types_build_and_its_calls_name_the_users_line(cassc, tmp_path: Path) -> None:
    """HIP has no EGL interop: <cuda_egl_interop.h> gives CUDA's types; a call is an error at its line."""
    write(tmp_path / "types.cu", "#include <cuda_egl_interop.h>\n"
          "unsigned planes(const cudaEglFrame& f) { return f.planeCount + f.planeDesc[0].width; }\n"
          "cudaEglStreamConnection connection;\n")
    cassc("-c", "types.cu")
    write(tmp_path / "call.cu", "#include <cuda_egl_interop.h>\nint main() {\n  cudaEglStreamConnection c;\n"
          "  return cudaEGLStreamConsumerConnect(&c, 0);\n}\n")
    result = cassc("-c", "call.cu", check=False)
    assert result.returncode != 0
    assert "call.cu:4:" in result.stderr and "EGL interop has no HIP counterpart" in result.stderr


def _hip_deprecated(hip_include: Path) -> set[str]:
    text = (hip_include / "hip_runtime_api.h").read_text()
    return set(re.findall(r"\b(?:HIP_DEPRECATED|DEPRECATED)\s*\((?:[^()]|\([^()]*\))*\)\s*[\w\s*]*?\b(hip\w+)\s*\(", text))


@pytest.mark.skipif(not Path("/usr/local/cuda/include/cuda.h").is_file(), reason="no CUDA headers to compare with")
def test_hip_deprecations_of_functions_cuda_keeps_are_silenced(cassc, tmp_path: Path) -> None:
    """Every function HIP deprecates (the installed HIP's headers) that a runtime or driver name CUDA 13 declares
    and does not deprecate maps to is silenced in cuda_compat.h; nvcc's build of the same calls warns of none."""
    from cassc.hipify.tables import TABLE_DIR, read_table
    from cassc.toolchain import find_toolchain

    cuda = "".join((Path("/usr/local/cuda/include") / h).read_text() for h in ("cuda_runtime_api.h", "cuda.h"))
    cuda_deprecated = set(re.findall(r"__CUDA_DEPRECATED\s+[\w\s*]*?\b(cu\w+)\s*\(", cuda))
    hip_deprecated = _hip_deprecated(find_toolchain().hip_include_dir)
    rows = read_table(TABLE_DIR / "runtime.tsv") + read_table(TABLE_DIR / "driver.tsv")
    expected = {hip for name, hip, _ in rows if hip in hip_deprecated and name not in cuda_deprecated
                and not re.search(r"_v\d+$", name) and re.search(rf"\b{name}\s*\(", cuda)}
    compat = (Path(cassc_package.__file__).parent / "data" / "cuda_compat.h").read_text()
    silenced = set(re.findall(r"^#define (hip\w+) __CASSC_NOT_DEPRECATED_IN_CUDA\(\1\)$", compat, re.MULTILINE))
    assert expected and expected <= silenced, sorted(expected - silenced)
    write(tmp_path / "calls.cu", "#include <cuda.h>\n#include <cuda_profiler_api.h>\nint main() {\n"
          "  CUcontext context;\n  cuCtxGetCurrent(&context);\n  cudaProfilerStart();\n  void* host;\n"
          "  cudaHostAlloc(&host, 16, cudaHostAllocDefault);\n  return 0;\n}\n")
    cassc("-Werror", "all-warnings", "-c", "calls.cu", "-o", "calls.o")


def test_cuda_13s_library_type_enumerations_hip_lacks_compile(cassc, tmp_path: Path) -> None:
    """library_types.h's emulation controls (CUDA 13), which cuBLAS's samples size workspaces with: in CUDA
    units, where nvcc's cuda_runtime.h brings them, and in host code compiled against the stand-in toolkit."""
    use = ("int slices(cudaEmulationMantissaControl control, cudaEmulationStrategy strategy) {\n"
           "  return (control == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC) + (strategy == CUDA_EMULATION_STRATEGY_EAGER)\n"
           "         + (CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT == 0xFFFF);\n}\n")
    write(tmp_path / "k.cu", use)
    cassc("-c", "k.cu", "-o", "k.o")
    exports = dict(line.removeprefix("export ").split("=", 1) for line in cassc("env").stdout.splitlines())
    source = write(tmp_path / "host.cpp", "#include <library_types.h>\n" + use)
    subprocess.run(["g++", f"-I{exports['CUDA_PATH']}/include", "-fsyntax-only", str(source)], check=True,
                   capture_output=True, text=True)
