"""benchmarks/binary_path.py's sample rule: which benchmarks a round trip cannot show anything for."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))  # binary_path imports hecbench_verify's comparison
_spec = importlib.util.spec_from_file_location("binary_path", REPO / "benchmarks" / "binary_path.py")
assert _spec and _spec.loader
binary_path = importlib.util.module_from_spec(_spec)
sys.modules["binary_path"] = binary_path  # its dataclasses look their module up
_spec.loader.exec_module(binary_path)


def test_only_originals_that_exit_with_an_error_in_every_run_are_left_out(tmp_path: Path) -> None:
    def runs(*statuses: int) -> dict:
        return {"runs": {"original": [{"exit_status": s, "seconds": 1.0, "output": ""} for s in statuses]}}

    record = {"fine": runs(0), "no-data": runs(1), "crashes": runs(-11), "slow": runs(124), "flaky": runs(1, 0),
              "not-run": {"runs": {}}}
    (tmp_path / "verify.json").write_text(json.dumps(record))
    assert binary_path.failing_originals(tmp_path / "verify.json") == {"no-data-cuda", "crashes-cuda"}


_corpora_spec = importlib.util.spec_from_file_location("binary_corpora", REPO / "benchmarks" / "binary_corpora.py")
assert _corpora_spec and _corpora_spec.loader
binary_corpora = importlib.util.module_from_spec(_corpora_spec)
_corpora_spec.loader.exec_module(binary_corpora)


def test_the_corpora_stand_in_compiles_for_one_architecture_and_finds_the_output() -> None:
    """binary_corpora.py's nvcc stand-in: a build's own GPU architecture options (joined or separate values)
    give way to its -arch=sm_80; a link's output is its -o (a.out without one)."""
    line = ["-O3", "-arch", "sm_60", "-gencode=arch=compute_70,code=sm_70", "--gpu-architecture=sm_75", "-gencode",
            "arch=compute_52,code=sm_52", "-c", "k.cu", "-o", "k.o"]
    assert binary_corpora.without_arch(line) == ["-O3", "-c", "k.cu", "-o", "k.o"]
    assert binary_corpora.output_of(["a.o", "-o", "app", "-lm"]) == "app"
    assert binary_corpora.output_of(["a.o", "--output-file=app"]) == "app"
    assert binary_corpora.output_of(["a.o"]) == "a.out"
