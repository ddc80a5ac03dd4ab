"""`cassc doctor` and `cassc setup` tell the truth: the verdict is a real compile and link, what setup
installed is reported as installed, and setup's exit status says whether every step worked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cassc.toolchain import find_toolchain
from test_toolchain import rocm_tree


def broken_rocm(root: Path) -> Path:
    """A ROCm-layout install with every file doctor looks for, whose HIP runtime header does not compile."""
    rocm_tree(root)
    real_hip = (root / "include" / "hip").resolve()
    hip = root / "include" / "hip"
    hip.unlink()
    hip.mkdir()
    for entry in real_hip.iterdir():
        (hip / entry.name).symlink_to(entry)
    (hip / "hip_runtime.h").unlink()
    (hip / "hip_runtime.h").write_text('#error "this HIP install is broken"\n')
    return root


def test_the_verdict_is_a_real_build(cassc, tmp_path: Path) -> None:
    rocm = {"ROCM_PATH": str(broken_rocm(tmp_path / "rocm"))}
    result = cassc("doctor", "--json", env=rocm, check=False)
    report = json.loads(result.stdout)
    assert result.returncode == 1 and report["build_check"]["ok"] is False
    [problem] = report["problems"]  # every file is there; only building shows the install is broken
    assert "this HIP install is broken" in problem
    assert "ready" not in cassc("doctor", env={**rocm, "COLUMNS": "300"}, check=False).stdout
    setup = cassc("setup", env=rocm, check=False)
    assert setup.returncode == 1 and "this HIP install is broken" in setup.stderr

    first = json.loads(cassc("doctor", "--json").stdout)["build_check"]
    assert first["ok"] and not first["cached"] and "compiled and linked a CUDA program for gfx1100" in first["detail"]
    again = json.loads(cassc("doctor", "--json").stdout)["build_check"]
    assert again["ok"] and again["cached"] and again["checked_at"] == first["checked_at"]
    assert "ready: compiled and linked" in cassc("doctor", env={"COLUMNS": "300"}).stdout


def test_doctor_reports_the_libraries_setup_installed(cassc, data_dir: Path) -> None:
    if find_toolchain().kind != "debian" or not (data_dir / "header-libraries").exists():
        pytest.skip("hipCUB/rocThrust come from cassc setup only for the Debian toolchain")
    report = json.loads(cassc("doctor", "--json").stdout)
    for name in ("hipCUB", "rocThrust", "rocPRIM"):
        assert report["libraries"][name], name
        assert Path(report["library_dirs"][name]).is_relative_to(data_dir / "header-libraries"), name


def test_setup_does_every_step_and_fails_if_any_failed(cassc, tmp_path: Path) -> None:
    if find_toolchain().kind != "debian":
        pytest.skip("only the Debian toolchain downloads hipCUB/rocThrust")
    fresh = {"CASSC_DATA_DIR": str(tmp_path / "fresh-data"), "CASSC_DEBIAN_MIRROR": "http://127.0.0.1:9"}
    result = cassc("setup", env=fresh, check=False)
    assert result.returncode == 1
    assert "cassc setup: hipCUB, rocThrust, rocPRIM headers: could not download librocprim-dev" in result.stderr
    assert "device libraries:" in result.stdout and "CUDA toolkit stand-in:" in result.stdout
