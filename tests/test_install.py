"""cassc as users install it: a wheel built from this tree (not an editable install) in a fresh venv,
run from another directory with nothing of the checkout on the path. Everything cassc needs at run time
comes from the installed package; each install has its own stand-in toolkit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from cassc import __version__
from conftest import EXAMPLES, REPO, gpu_targets, write

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
KERNEL = """\
__global__ void add_one(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }
extern "C" int launch(float* x, int n) { add_one<<<(n + 255) / 256, 256>>>(x, n); return 0; }
"""


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of this working tree's files (tracked and new, as git sees them; never build/ or .venv/)."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: no file list to build a wheel from")
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                           capture_output=True, check=True).stdout.split(b"\0")
    source = tmp_path_factory.mktemp("source")
    for name in filter(None, map(os.fsdecode, names)):
        original, copy = REPO / name, source / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if original.is_symlink():
            copy.symlink_to(os.readlink(original))
        elif original.is_file():  # a tracked file deleted in the working tree is not part of it
            shutil.copy2(original, copy)
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                   check=True, capture_output=True)
    [built] = dist.glob("cassc-*.whl")
    return built


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed by pip. cassc's dependencies (llvmlite, typer...) are the test
    environment's, appended to the venv's path by a .pth file, so no index is needed; cassc itself comes
    only from the wheel (that site-packages' editable-install hooks are not run)."""
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "cassc-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                    "-q", str(wheel)], check=True, capture_output=True)
    return root


@pytest.fixture
def installed(venv: Path, cassc_env: dict[str, str], tmp_path: Path):
    """Run the venv's `cassc` console script in a directory of its own, without PYTHONPATH."""
    env = {k: v for k, v in cassc_env.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def run(*args: str, program: Path | None = None) -> subprocess.CompletedProcess[str]:
        result = subprocess.run([str(program or venv / "bin" / "cassc"), *args], cwd=elsewhere, env=env,
                                capture_output=True, text=True)
        assert result.returncode == 0, f"cassc {' '.join(args)} failed ({result.returncode}):\n{result.stderr}"
        return result

    run.cwd = elsewhere  # type: ignore[attr-defined]
    return run


def exports(env_output: str) -> dict[str, str]:
    return dict(line.removeprefix("export ").split("=", 1) for line in env_output.splitlines())


def test_the_wheel_carries_what_cassc_needs_at_run_time(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"cassc-{__version__}.dist-info/METADATA").decode()
    shipped = {f"cassc/_resources/{p.relative_to(REPO)}" for top in ("shims", "models")
               for p in (REPO / top).rglob("*") if p.is_file()}
    shipped |= {str(p.relative_to(REPO)) for p in (REPO / "cassc" / "data").rglob("*.h")}
    shipped |= {str(p.relative_to(REPO)) for p in (REPO / "cassc" / "hipify" / "tables").glob("*.tsv")}
    assert shipped <= names, sorted(shipped - names)
    assert any(name.endswith(".toml") for name in shipped)
    assert "cassc/_resources/shims/runtime/cassc_cudart.cpp" in names
    assert f"\nVersion: {__version__}\n" in metadata
    assert "Provides-Extra: model" in metadata and "llama-cpp-python" in metadata


def test_an_installed_wheel_builds_from_any_directory(installed, venv: Path, data_dir: Path) -> None:
    assert f"cassc {__version__}, not NVIDIA's nvcc" in installed("--version").stdout
    installed("setup")
    report = json.loads(installed("doctor", "--json").stdout)
    assert report["cassc"] == __version__ and report["problems"] == []
    assert Path(report["package_dir"]).is_relative_to(venv)  # the wheel's package, not the checkout
    assert report["build_check"]["ok"]

    shutil.copy(EXAMPLES / "vector_add" / "vectorAdd.cu", installed.cwd)
    installed("-O2", "vectorAdd.cu", "-o", "va")
    assert gpu_targets(installed.cwd / "va") == ["gfx1100"]

    known = {k["name"] for k in json.loads(installed("model", "list", "--json").stdout)["known"]}
    assert known == {p.stem for p in (REPO / "models").glob("*.toml")}

    # The stand-in toolkit is this install's: its nvcc runs the wheel's cassc.
    toolkit = Path(exports(installed("env").stdout)["CUDA_PATH"])
    assert toolkit.is_relative_to(data_dir / "installs")
    via_toolkit = json.loads(installed("doctor", "--json", program=toolkit / "bin" / "nvcc").stdout)
    assert Path(via_toolkit["package_dir"]).is_relative_to(venv)


@pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")
def test_an_installed_wheel_runs_the_binary_path(installed) -> None:
    """inspect and the link of an nvcc-built object: the shim runtime is built from the wheel's shims."""
    write(installed.cwd / "k.cu", KERNEL)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "k.cu", "-o", "k.o"], cwd=installed.cwd, check=True)
    [module] = json.loads(installed("inspect", "k.o", "--json").stdout)
    assert [k["name"] for k in module["kernels"]] == ["_Z7add_onePfi"]
    write(installed.cwd / "main.cpp",
          'extern "C" int launch(float*, int);\nint main() { return launch(nullptr, 0); }\n')
    result = installed("main.cpp", "k.o", "-o", "app")
    assert "translated k.o: 1 kernel(s)" in result.stderr
    assert gpu_targets(installed.cwd / "app") == ["gfx1100"]


def test_each_install_has_its_own_toolkit(installed, cassc, venv: Path) -> None:
    """Two installs sharing one data directory (this checkout and the wheel in its venv): `cassc env`
    names the toolkit of the cassc that ran, and each toolkit's nvcc is that cassc."""
    checkout = Path(exports(cassc("env").stdout)["CUDA_PATH"])
    wheel = Path(exports(installed("env").stdout)["CUDA_PATH"])
    assert checkout != wheel and checkout.parent.parent == wheel.parent.parent
    assert Path(exports(cassc("env").stdout)["CUDA_PATH"]) == checkout  # the other install changed nothing
    for toolkit, package in ((checkout, REPO / "cassc"), (wheel, None)):
        report = json.loads(installed("doctor", "--json", program=toolkit / "bin" / "nvcc").stdout)
        if package is not None:
            assert Path(report["package_dir"]) == package.resolve()
        else:
            assert Path(report["package_dir"]).is_relative_to(venv)
