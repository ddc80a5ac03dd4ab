"""hipCUB and rocThrust on the Debian toolchain: the headers `cassc setup` installs from Debian 13's
packages, used by real CUB and Thrust programs, and refused when a download is not the pinned one."""

from __future__ import annotations

from pathlib import Path

import pytest

from cassc import header_libraries
from cassc.errors import ToolchainError
from conftest import gpu_targets, write


def test_cub_and_thrust_programs_build_for_gfx1100(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\\
#include <cstdio>
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
int main() {
  thrust::device_vector<int> v(1000);
  thrust::sequence(v.begin(), v.end());
  thrust::sort(v.begin(), v.end(), thrust::greater<int>());
  int* sum = nullptr;
  cudaMalloc(&sum, sizeof(int));
  size_t bytes = 0;
  cub::DeviceReduce::Sum(nullptr, bytes, thrust::raw_pointer_cast(v.data()), sum, 1000);
  printf("%d\\n", thrust::reduce(v.begin(), v.end()));
  return 0;
}
""")
    cassc("-O3", "main.cu", "-o", "app")
    assert gpu_targets(tmp_path / "app") == ["gfx1100"]


def test_a_download_that_is_not_the_pinned_package_is_refused(tmp_path: Path, monkeypatch) -> None:
    mirror = tmp_path / "mirror"
    for package in header_libraries.PACKAGES:
        write(mirror / package.pool_path, "not the package\n")
    monkeypatch.setenv("CASSC_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(ToolchainError, match="not the pinned"):
        header_libraries.install(mirror=f"file://{mirror}")
    assert header_libraries.installed_include_dir() is None
    assert list((tmp_path / "data" / "header-libraries").iterdir()) == []
