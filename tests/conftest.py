"""Shared fixtures. Tests drive the real toolchain: cassc as a subprocess, real clang/lld/llvm-ar."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh data directory, with the hipCUB/rocThrust headers `make setup` installed (downloading
    them is `cassc setup`'s job, not each test's)."""
    directory = tmp_path_factory.mktemp("cassc-data")
    installed = Path(platformdirs.user_data_dir("cassc")) / "header-libraries"
    if installed.is_dir():
        (directory / "header-libraries").symlink_to(installed)
    return directory


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def cassc_env(data_dir: Path, cache_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVCC_", "CASSC_"))}
    # the user's own config.toml (a repair model, say) must not reach the tests
    env.update(CASSC_DATA_DIR=str(data_dir), CASSC_CACHE_DIR=str(cache_dir),
               CASSC_CONFIG_DIR=str(cache_dir.parent / "config"))
    return env


@pytest.fixture
def cassc(cassc_env: dict[str, str], tmp_path: Path):
    """Run `cassc ARGS` (in `cwd`, default the test's tmp dir) and return its Result."""

    def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, check: bool = True) -> Result:
        completed = subprocess.run([sys.executable, "-m", "cassc", *args], cwd=cwd or tmp_path,
                                   env={**cassc_env, **(env or {})}, capture_output=True, text=True)
        result = Result(completed.returncode, completed.stdout, completed.stderr)
        if check and result.returncode != 0:
            raise AssertionError(f"cassc {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
        return result

    return run


@pytest.fixture
def cassc_command() -> str:
    """A shell word that runs cassc (for Makefiles)."""
    return f"{sys.executable} -m cassc"


def gpu_targets(path: Path) -> list[str]:
    """The AMD GPU targets of every code object in an executable, object or library."""
    from cassc.formats.archive import is_archive, read_archive
    from cassc.formats.code_object import code_object_target
    from cassc.formats.host_object import read_host_object

    data = path.read_bytes()
    blobs = [m.data for m in read_archive(data)] if is_archive(data) else [data]
    targets = []
    for blob in blobs:
        for entry in read_host_object(blob).bundle_entries():
            if entry.payload:
                targets.append(code_object_target(entry.payload))
    return targets


# CUDA headers that include a system library's headers, as CUDA's do: on a machine without that library
# cassc's header is the one-line #error CUDA's would give, so the every-header tests leave it out.
HEADERS_NEEDING_SYSTEM_HEADERS = {"cuda_egl_interop.h": ("EGL/egl.h", "EGL/eglext.h")}


def system_headers_missing(cuda_header: str) -> bool:
    return not all(Path("/usr/include", h).is_file() for h in HEADERS_NEEDING_SYSTEM_HEADERS.get(cuda_header, ()))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
