"""CUDA's driver result type kept apart from the runtime's where a static/inline definition overloads on it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cassc.hipify.driver_results import separate_driver_results
from conftest import write

# What NVIDIA's samples' helper_cuda.h does where CUDA_DRIVER_API is defined.
OVERLOADS = """\
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }
// the driver's own error names
static const char *_cudaGetErrorEnum(CUresult error) {
  static char unknown[] = "<unknown>";
  const char *ret = NULL;
  cuGetErrorName(error, &ret);
  return ret ? ret : unknown;
}
template <typename T> void check(T result) { printf("%d %s\\n", static_cast<int>(result), _cudaGetErrorEnum(result)); }
int main() {
  check(cudaErrorInvalidValue);
  CUresult result = CUDA_ERROR_INVALID_VALUE;
  check(result);
  if (result != CUDA_SUCCESS) check(CUDA_SUCCESS);
}
"""


def test_only_static_and_inline_definitions_get_the_separate_type() -> None:
    text, changed = separate_driver_results(OVERLOADS)
    assert changed == 1 and "_cudaGetErrorEnum(__cassc_CUresult error) {" in text
    assert "CUresult result = CUDA_ERROR_INVALID_VALUE;" in text
    for unchanged in ("CUresult f(CUresult r) { return r; }", "static CUresult g(CUresult a);",
                      "void h() { static int x = 0; CUresult r = cuInit(0); }"):
        assert separate_driver_results(unchanged) == (unchanged, 0)


def test_overloads_on_both_error_types_build_and_report_hips_names(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", OVERLOADS)
    cassc("main.cu", "-o", "app")
    run = subprocess.run([str(tmp_path / "app")], capture_output=True, text=True)
    assert run.stdout.split() == ["1", "hipErrorInvalidValue", "1", "hipErrorInvalidValue", "0", "hipSuccess"], run.stdout
