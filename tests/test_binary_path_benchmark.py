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
