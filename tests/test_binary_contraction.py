"""Float contraction on the binary path: PTX's mul/add/sub with no rounding modifier may be fused into an fma
(the PTX ISA's rule, which nvcc's default -fmad=true leaves ptxas to apply), the `.rn` forms never. The lifter
marks exactly the former with LLVM's `contract`, so the NVPTX lowering of the lifted IR assembles into the
fused instructions ptxas makes of nvcc's PTX, and gfx1100 fuses the same operations."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from cassc.binary.codegen import amdgpu_object, data_layout, nvptx_assembly
from cassc.binary.emit import AMDGPU, NVPTX
from cassc.binary.extract import sass_text
from cassc.binary.lift import lift_module
from cassc.binary.ptx import parse_ptx
from cassc.toolchain import find_toolchain

from conftest import write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
PTXAS = Path(NVCC).with_name("ptxas")
pytestmark = pytest.mark.skipif(not PTXAS.exists(), reason="NVIDIA's nvcc and ptxas are not installed")

# Straight-line kernels, so that ptxas and LLVM see the same operations (no loop either may unroll its own way).
KERNELS = r"""
#include <cuda_fp16.h>
// cuThomasBatch's elimination step: NVVM leaves mul.f64/sub.f64 for ptxas to fuse.
__global__ void thomas_step(const double *a, const double *b, const double *c, double *d, double *x) {
  int t = threadIdx.x;
  double m = 1.0 / (b[t] - a[t] * c[t]);
  double cp = c[t + 32] * m;
  double dp = (d[t] - a[t] * d[t + 32]) * m;
  x[t] = dp - cp * x[t + 32];
}
__global__ void single(const float *a, const float *b, float *o) {
  int t = threadIdx.x;
  float q = a[t] * a[t] - b[t];
  float s = a[t] * 3.0f + b[t];
  o[t] = q * s - o[t] * b[t];
}
// The explicitly rounded intrinsics are mul.rn/add.rn/sub.rn: never fused.
__global__ void rounded(const float *a, const float *b, float *o, double *d) {
  int t = threadIdx.x;
  o[t] = __fadd_rn(__fmul_rn(a[t], b[t]), o[t]) + __fsub_rn(__fmul_rn(a[t], a[t]), b[t]);
  d[t] = __dadd_rn(__dmul_rn(d[t], d[t + 32]), d[t + 64]);
}
__global__ void halves(const __half2 *a, __half2 *o) {
  int t = threadIdx.x;
  o[t] = a[t] * a[t + 32] + o[t];
}
"""

FUSED = ("FFMA", "DFMA", "HFMA2")
# `HFMA2.MMA Rd, -RZ, RZ, ...` (0 * 0 + constant) is how ptxas moves a constant: not arithmetic.
SASS_ARITHMETIC = re.compile(r"\b(FFMA|DFMA|HFMA2|FMUL|DMUL|HMUL2|FADD|DADD|HADD2)\b(?![.\w]* R\d+, -RZ, RZ,)")


@pytest.fixture(scope="module")
def ptx(tmp_path_factory: pytest.TempPathFactory) -> str:
    directory = tmp_path_factory.mktemp("contraction")
    write(directory / "k.cu", KERNELS)
    subprocess.run([str(NVCC), "-arch=sm_80", "-ptx", "k.cu", "-o", "k.ptx"], cwd=directory, check=True)
    return (directory / "k.ptx").read_text()


def sass_counts(ptx_text: str, directory: Path, stem: str) -> dict[str, Counter[str]]:
    """Each kernel's float arithmetic instructions as ptxas (sm_80) assembles `ptx_text`."""
    (directory / f"{stem}.ptx").write_text(ptx_text)
    subprocess.run([str(PTXAS), "-arch=sm_80", f"{stem}.ptx", "-o", f"{stem}.cubin"], cwd=directory, check=True)
    listing = sass_text(directory / f"{stem}.cubin")
    counts: dict[str, Counter[str]] = {}
    for function in re.split(r"\n\s*Function : ", listing)[1:]:
        name, body = function.split("\n", 1)
        counts[name.strip()] = Counter(SASS_ARITHMETIC.findall(body))
    return counts


def kernel_of(counts: dict[str, Counter[str]], name: str) -> Counter[str]:
    return next(c for k, c in counts.items() if re.fullmatch(rf"_Z\d+{name}\w*", k))


def test_the_lowering_fuses_what_ptxas_fuses_in_nvccs_ptx(ptx: str, tmp_path: Path) -> None:
    lifted = lift_module(parse_ptx(ptx), NVPTX, data_layout(NVPTX))
    assert lifted.failures == {}
    original = sass_counts(ptx, tmp_path, "original")
    lowered = sass_counts(nvptx_assembly(lifted.ir, "sm_80"), tmp_path, "lowered")
    for name in ("thomas_step", "single", "rounded", "halves"):
        have, want = kernel_of(lowered, name), kernel_of(original, name)
        assert {k: have[k] for k in FUSED} == {k: want[k] for k in FUSED}, name
    assert kernel_of(original, "thomas_step")["DFMA"] >= 3 and kernel_of(original, "single")["FFMA"] >= 3
    assert kernel_of(original, "halves")["HFMA2"] >= 1
    assert not any(kernel_of(lowered, "rounded")[k] for k in FUSED)


def test_contract_marks_exactly_the_unrounded_float_mul_add_sub(ptx: str) -> None:
    unrounded = len(re.findall(r"^\s*\{?(?:mul|add|sub)(?:\.ftz)?\.(?:f32|f64|f16x2|f16)\s", ptx, re.M))
    rounded = len(re.findall(r"^\s*\{?(?:mul|add|sub)\.rn(?:\.ftz)?\.(?:f32|f64|f16x2|f16)\s", ptx, re.M))
    assert unrounded and rounded
    ir = lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU)).ir
    assert len(re.findall(r"= f(?:mul|add|sub) contract ", ir)) == unrounded
    assert len(re.findall(r"= f(?:mul|add|sub) (?:float|double|half|<2 x half>) ", ir)) == rounded


def test_gfx1100_fuses_the_contractible_operations_only(ptx: str, tmp_path: Path) -> None:
    ir = lift_module(parse_ptx(ptx), AMDGPU, data_layout(AMDGPU)).ir
    code_object = tmp_path / "k.o"
    code_object.write_bytes(amdgpu_object([ir], AMDGPU))
    listing = subprocess.run([str(find_toolchain().llvm_objdump), "-d", "--mcpu=gfx1100", str(code_object)],
                             capture_output=True, text=True, check=True).stdout
    bodies = dict(re.findall(r"^[0-9a-f]+ <(\w+)>:\n(.*?)(?=^[0-9a-f]+ <|\Z)", listing, re.M | re.S))
    fused = {re.sub(r"^_Z\d+([a-z_]+?)P.*", r"\1", name): len(re.findall(
                 r"\bv_(?:dual_)?(?:pk_)?fma(?:c|mk|ak)?_(?:f32|f64|f16)\b", body))
             for name, body in bodies.items()}
    assert fused["thomas_step"] >= 3 and fused["single"] >= 3
    assert fused["rounded"] == 0
