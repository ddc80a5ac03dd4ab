"""What build systems parse from nvcc: --version, -v, --dryrun, the CMake toolkit probe."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import write

NVCC = "/usr/local/cuda/bin/nvcc"


def test_version_banner_has_nvccs_shape(cassc) -> None:
    lines = cassc("--version").stdout.splitlines()
    assert len(lines) == 5
    assert re.match(r"nvcc: [^\n]+ Cuda compiler driver", lines[0])  # CMake's vendor regex
    assert re.match(r"nvcc: NVIDIA \(R\) Cuda compiler driver", lines[0])  # CMake 3.25's
    assert re.search(r"V(\d+\.\d+\.\d+)", "\n".join(lines))
    assert re.fullmatch(r"Cuda compilation tools, release \d+\.\d+, V\d+\.\d+\.\d+", lines[3])
    assert "cassc" in lines[1]


def test_cmake_toolkit_probe(cassc) -> None:
    result = cassc("-v", "__cmake_determine_cuda", check=False)
    assert result.returncode == 1
    top = re.search(r"^#\$ TOP=(.*)$", result.stderr, re.M)
    assert top and Path(top.group(1), "nvvm", "libdevice").is_dir()
    assert re.search(r"^#\$ NVVMIR_LIBRARY_DIR=.*nvvm/libdevice$", result.stderr, re.M)
    assert "Don't know what to do with '__cmake_determine_cuda'" in result.stderr


def test_dryrun_prints_a_link_line_containing_libraries(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", "int main() { return 0; }\n")
    result = cassc("--dryrun", "-arch=sm_75", "k.cu")
    libraries = re.search(r"^#\$ LIBRARIES= *(.*)$", result.stderr, re.M).group(1)  # type: ignore[union-attr]
    commands = [line for line in result.stderr.splitlines() if line.startswith("#$ ") and "=" not in line.split()[1]]
    assert any(libraries in line for line in commands)
    assert "-arch compute_75" in result.stderr
    assert not (tmp_path / "a.out").exists()


# What scripts read from nvcc's link line (SHOC's config/find_cuda_libs.sh): everything after `-o "a.out"`,
# objects and the group options taken out.
LINK_LINE_LIBRARIES = r"""tail -1 | sed 's#^.*-o "a.out"##' | sed 's#"[a-zA-Z0-9./_-]*\.o"##g' \
    | sed 's/-Wl,--start-group//' | sed 's/-Wl,--end-group//'"""


@pytest.mark.parametrize("arguments", [["bogus.cu"], ["-cudart", "shared", "bogus.cu"], ["-c", "bogus.cu"],
                                       ["bogus.o"], ["-lib", "bogus.o"], ["-M", "bogus.cu"], ["bogus.cpp"]])
def test_dryrun_lists_the_steps_of_a_missing_input_as_nvcc_does(cassc, cassc_command: str, tmp_path: Path,
                                                                 arguments: list[str]) -> None:
    """nvcc --dryrun reads no input: configure scripts probe it with a file that does not exist."""
    result = cassc("--dryrun", *arguments)
    commands = [line for line in result.stderr.splitlines() if line.startswith("#$ ") and "=" not in line.split()[1]]
    assert commands and "bogus" in commands[-1]
    assert list(tmp_path.iterdir()) == []
    if arguments[-1] == "bogus.cu" and arguments[0] not in ("-c", "-M"):
        assert commands[-1].endswith('-o "a.out"')  # nvcc's spelling of the output, last as nvcc 10.2+ puts it
        parsed = subprocess.run(f"{cassc_command} -dryrun bogus.cu 2>&1 | {LINK_LINE_LIBRARIES}", shell=True,
                                cwd=tmp_path, capture_output=True, text=True).stdout
        if Path(NVCC).is_file():
            assert parsed.strip() == subprocess.run(f"{NVCC} -dryrun bogus.cu 2>&1 | {LINK_LINE_LIBRARIES}", shell=True,
                                                    cwd=tmp_path, capture_output=True, text=True).stdout.strip()
        assert parsed.strip() == ""


def test_info_options(cassc) -> None:
    assert "compute_80" in cassc("--list-gpu-arch").stdout
    assert "sm_90" in cassc("-code-ls").stdout
    assert "--cassc-offload-arch" in cassc("--help").stdout


def test_doctor_json(cassc) -> None:
    import json

    report = json.loads(cassc("doctor", "--json").stdout)
    assert report["toolchain"]["kind"] in ("rocm", "distro", "debian")
    assert report["problems"] == []
