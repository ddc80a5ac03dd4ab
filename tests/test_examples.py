"""Every example builds for gfx1100 with `make NVCC=cassc`, unmodified."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, gpu_targets

PROGRAMS = {"vector_add": "vector_add", "reduction": "reduction", "warp_reduce": "warp_reduce",
            "histogram": "histogram", "streams_events": "streams_events", "multi_file_rdc": "multi_file_rdc"}


@pytest.mark.parametrize("example", sorted(PROGRAMS))
def test_example_builds_for_gfx1100(example: str, cassc_command: str, cassc_env: dict[str, str],
                                    tmp_path: Path) -> None:
    work = tmp_path / example
    shutil.copytree(EXAMPLES / example, work)
    result = subprocess.run(["make", f"NVCC={cassc_command}"], cwd=work, env=cassc_env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert gpu_targets(work / PROGRAMS[example]) == ["gfx1100"]
