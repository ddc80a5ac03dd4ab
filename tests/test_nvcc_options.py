"""Options whose nvcc meaning differs from clang's: each one does its AMD equivalent (issue 19, 14)."""

from __future__ import annotations

import platform
import re
import subprocess
from pathlib import Path

import pytest

from cassc.clang_options import XARCH_REFUSED_LIST, nvcc_diagnostics, refused_by_xarch
from cassc.errors import UsageError
from cassc.invocation import parse_invocation
from cassc.toolchain import find_toolchain
from conftest import write

FORWARD = "-forward-unknown-to-host-compiler"


@pytest.mark.parametrize("flag", ["-march=native", "-mtune=native", "-mavx2", "-mfma", "-m32"])
def test_host_flags_sharing_nvccs_m_prefix_are_forwarded(flag: str) -> None:
    """nvcc's rule: `-m<value>` is --machine only where the value is one --machine takes; otherwise
    the word is unknown, so it is forwarded (or refused, as nvcc refuses it)."""
    assert parse_invocation([FORWARD, flag, "a.cu"], env={}).host_compiler_options == (flag,)
    with pytest.raises(UsageError, match=f"Unknown option '{flag}'"):
        parse_invocation([flag, "a.cu"], env={})


def test_march_native_reaches_the_host_compile(cassc, tmp_path: Path) -> None:
    """A popular benchmark's default build: the host pass compiles for this CPU, the device pass is untouched."""
    write(tmp_path / "k.cu", "__global__ void k(float *p) { p[threadIdx.x] *= 2.f; }\nint main() { return 0; }\n")
    result = cassc("-v", FORWARD, "-march=native", "-mtune=native", "-c", "k.cu")
    assert re.search(r"^#\$ \S*clang\+\+ .* -Xarch_host -march=native -Xarch_host -mtune=native ", result.stderr,
                     re.MULTILINE), result.stderr


@pytest.mark.parametrize("words", [["-m64"], ["--machine", "64"], ["-machine=64"]])
def test_machine_64_is_nvccs_own(words: list[str]) -> None:
    inv = parse_invocation([FORWARD, *words, "a.cu"], env={})
    assert inv.machine == "64" and inv.host_compiler_options == ()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="-m64 restates an x86-64 host's default")
def test_xcompiler_m64_is_dropped_as_the_hosts_default() -> None:
    inv = parse_invocation(["-Xcompiler", "-m64,-fPIC", "a.cu"], env={})
    assert inv.host_compiler_options == ("-fPIC",)
    assert any(note.startswith("-Xcompiler -m64") for note in inv.dropped)


@pytest.mark.skipif(find_toolchain().clang_version != "19", reason="the list is clang 19's option table")
def test_the_xarch_refused_list_is_what_clang_refuses(tmp_path: Path) -> None:
    """Every listed option is refused by the installed clang behind -Xarch_host; common host flags are not."""
    source = write(tmp_path / "t.cu", "int main() { return 0; }\n")
    listed = [line for line in XARCH_REFUSED_LIST.read_text().splitlines() if line and not line.startswith("#")]
    sample = [o for o in listed if o.startswith("-m")] + ["-fPIC", "-march=native", "-Wall", "-fopenmp", "-O3"]
    for option in sample:
        word = option + "1" if option.endswith("=") else option
        result = subprocess.run([str(find_toolchain().clang), "-x", "hip", "--offload-arch=gfx1100", "-nogpulib", "-nogpuinc",
                                 "-Xarch_host", word, "-###", "-c", str(source)], capture_output=True, text=True)
        assert ("forwared via Xarch" in result.stderr) == refused_by_xarch(word), option


@pytest.mark.parametrize("kind, value, flag", [
    ("suppress", "177", "-Wno-unused-variable"),
    ("suppress", "declared_but_not_referenced", "-Wno-unused-variable"),
    ("warn", "550", "-Wunused-but-set-variable"),
    ("error", "2464", "-Werror=writable-strings"),
])
def test_diag_options_map_nvcc_numbers_to_clang_warnings(cassc, tmp_path: Path, kind: str, value: str,
                                                          flag: str) -> None:
    write(tmp_path / "a.cu", "int main() { return 0; }\n")
    result = cassc("-dryrun", "-c", "a.cu", f"--diag-{kind}={value}")
    assert flag in result.stderr


def test_diag_suppress_silences_the_warning_nvcc_would_not_print(cassc, tmp_path: Path) -> None:
    write(tmp_path / "a.cu", "__global__ void k() { int unused; }\nint main() { return 0; }\n")
    assert "unused variable" in cassc("-c", "a.cu", "-Xcompiler", "-Wall").stderr
    quiet = cassc("-c", "a.cu", "-Xcompiler", "-Wall", "--diag-suppress", "177,20012")
    assert "unused variable" not in quiet.stderr


def test_diag_numbers_without_a_clang_counterpart_are_reported_by_v() -> None:
    inv = parse_invocation(["--diag-suppress=20012", "a.cu"], env={})
    assert any("20012" in note and "no clang counterpart" in note for note in inv.dropped)
    with pytest.raises(UsageError, match="expected a number"):
        parse_invocation(["--diag-suppress=no_such_warning", "a.cu"], env={})
    assert all(row.number.isdigit() for row in nvcc_diagnostics().values())


def test_nvcc_ccbin_environment_names_the_host_compiler() -> None:
    assert parse_invocation(["a.cu"], env={"NVCC_CCBIN": "g++-12"}).host_compiler == "g++-12"
    assert parse_invocation(["-ccbin", "clang++", "a.cu"], env={"NVCC_CCBIN": "g++-12"}).host_compiler == "clang++"


def test_maxrregcount_caps_each_kernels_vgprs_in_the_code_object(cassc, tmp_path: Path) -> None:
    write(tmp_path / "heavy.cu", """\
__global__ void heavy(float *out, const float *in) {
  float acc[48];
#pragma unroll
  for (int i = 0; i < 48; ++i) acc[i] = in[threadIdx.x * 48 + i];
  float s = 0.f;
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < 48; ++i) s += acc[i] * acc[(i * 7 + r) % 48];
  out[threadIdx.x] = s;
}
""")

    def vgprs(*options: str) -> int:
        cassc("-cubin", "heavy.cu", "-o", "heavy.cubin", *options)
        from cassc.formats.code_object import kernel_descriptors

        return max(d.vgprs for d in kernel_descriptors((tmp_path / "heavy.cubin").read_bytes()).values())

    assert vgprs() > 32 >= vgprs("-maxrregcount=32")
    with pytest.raises(UsageError):
        parse_invocation(["-maxrregcount=many", "a.cu"], env={})


def test_ccbin_compiles_host_only_units_as_nvcc_does(cassc, tmp_path: Path) -> None:
    """nvcc hands .cpp/.c inputs to its host compiler; with -ccbin (or $NVCC_CCBIN) cassc does too."""
    write(tmp_path / "main.cpp", "#include <cuda_runtime.h>\nint main() { return cudaSuccess; }\n")
    write(tmp_path / "util.c", "int twice(int x) { return 2 * x; }\n")
    result = cassc("-v", "-c", "main.cpp", "util.c", "-odir", ".", env={"NVCC_CCBIN": "gcc"})
    commands = [line for line in result.stderr.splitlines() if line.startswith("#$ /")]
    assert any(re.match(r"#\$ \S*/g\+\+ .*main\.cpp", line) for line in commands), commands
    assert any(re.match(r"#\$ \S*/gcc .*util\.c", line) for line in commands), commands
    assert (tmp_path / "main.o").exists() and (tmp_path / "util.o").exists()
