"""benchmarks/corpus_inputs.py (the inputs Rodinia's and Parboil's programs run on, a result file shown as
text) and corpora_build.py's compiler wrapper for the lent GPU (real bash, real files)."""

from __future__ import annotations

import importlib.util
import random
import struct
import subprocess
import sys
from pathlib import Path

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
_spec = importlib.util.spec_from_file_location("corpus_inputs", REPO / "benchmarks" / "corpus_inputs.py")
assert _spec and _spec.loader
inputs = importlib.util.module_from_spec(_spec)
sys.modules["corpus_inputs"] = inputs
_spec.loader.exec_module(inputs)


def test_a_parboil_program_runs_as_the_driver_runs_it_beside_its_benchmarks_inputs() -> None:
    spec = inputs.parboil_run("sgemm/cuda")
    assert spec.directory == "sgemm/cuda"
    assert spec.args == "-i ../input/matrix1.txt,../input/matrix2.txt,../input/matrix2t.txt -o run.out"
    assert inputs.parboil_run("stencil/cuda_fermi").args.endswith(" -- 64 64 32 20")
    assert spec.shows == ("run.out",)


def test_generated_inputs_are_the_same_every_time_and_in_their_readers_format(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        inputs.parboil_histo(tmp_path / name, random.Random(7))
        inputs.parboil_lbm(tmp_path / name, random.Random(7))
    assert (tmp_path / "a" / "img.bin").read_bytes() == (tmp_path / "b" / "img.bin").read_bytes()
    width, height, histo_width, histo_height = struct.unpack("<4I", (tmp_path / "a" / "img.bin").read_bytes()[:16])
    assert (tmp_path / "a" / "img.bin").stat().st_size == 16 + 4 * width * height
    # lbm's main.cc refuses an obstacle file of another size: SIZE_X*SIZE_Y*SIZE_Z + (SIZE_Y+1)*SIZE_Z
    assert (tmp_path / "a" / "120_120_150_ldc.of").stat().st_size == 120 * 120 * 150 + 121 * 150
    text = inputs.graph_text(random.Random(1), 50, 3).split()
    nodes, first_of_last, degree_of_last = int(text[0]), int(text[2 * 50 - 1]), int(text[2 * 50])
    assert nodes == 50 and int(text[2 * 50 + 2]) == first_of_last + degree_of_last  # the edge count


def test_a_binary_result_is_shown_as_its_floats_and_a_text_result_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "out.bin").write_bytes(struct.pack("<4f", 1.5, -2.0, 0.0, 3.25))
    (tmp_path / "out.txt").write_text("0) cost:0\n1) cost:3\n")
    shown = inputs.show(tmp_path / "out.bin")
    assert shown.splitlines()[0] == "out.bin: 4 float32, 0 not finite, sum 2.75, sum of magnitudes 6.75"
    assert "1.5 -2 0 3.25" in shown
    assert inputs.show(tmp_path / "out.txt") == "out.txt:\n0) cost:0\n1) cost:3\n\n"
    assert inputs.show(tmp_path / "missing") == "missing: not written\n"


def test_the_gpu_build_wrapper_replaces_every_architecture_option(tmp_path: Path) -> None:
    import corpora_build
    wrapper = tmp_path / "nvcc"
    wrapper.write_text(corpora_build.DEVICE_NVCC.format(compiler="printf '%s\\n'", arch="sm_90"))
    wrapper.chmod(0o755)
    words = ["-arch", "sm_20", "-gencode=arch=compute_13,code=sm_13", "--gpu-architecture=compute_80", "-O2",
             "-gencode", "arch=compute_70,code=sm_70", "-c", "a b.cu"]
    printed = subprocess.run([str(wrapper), *words], capture_output=True, text=True, check=True).stdout
    assert printed.splitlines() == ["-arch=sm_90", "-O2", "-c", "a b.cu"]
