"""benchmarks/binary_path.py's sample rule: which benchmarks a round trip cannot show anything for."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_parboil_run_prints_its_output_and_result_file_without_its_timers(tmp_path: Path) -> None:
    """binary_corpora.py's Parboil runs: the driver's arguments with each variant's own result file, then that
    file as text (corpus_inputs.py's `show`); pb_PrintTimerSet's lines are left out of what is compared."""
    program = tmp_path / "build" / "sgemm"
    program.parent.mkdir()
    for variant, value in (("original", 1.5), ("roundtrip", 1.5)):
        Path(f"{program}.{variant}").write_text(
            "#!/bin/sh\nout=$(echo \"$@\" | sed 's/.*-o \\([^ ]*\\).*/\\1/')\n"
            f"python3 -c \"import struct; open('$out', 'wb').write(struct.pack('<2f', {value}, 2))\"\n"
            "echo \"args: $*\"\necho 'IO        : 0.012'\necho ' -Setup    : 0.001'\necho 'Kernel    : 0.5'\n"
            "echo 'Pass'\necho 'Timer Wall Time: 0.9'\n")
    (tmp_path / "parboil.json").write_text(json.dumps({"sgemm/cuda": {"round_trip": True, "outputs": [str(program)]}}))
    out = tmp_path / "pack"
    out.mkdir()
    (jobs,) = binary_corpora.pack_parboil(tmp_path, out)
    directory = out / str(jobs["name"])
    (out / "parboil-inputs" / "sgemm" / "input").mkdir(parents=True)
    runs = {v: subprocess.run([f"./{v}"], cwd=directory, capture_output=True, text=True) for v in ("original", "roundtrip")}
    lines = runs["original"].stdout.splitlines()
    assert lines[0] == "args: -i ../input/matrix1.txt,../input/matrix2.txt,../input/matrix2t.txt -o run.out"
    assert lines[1] == "Pass" and lines[2].startswith("run.out: 2 float32") and "1.5 2" in runs["original"].stdout
    assert runs["original"].stdout == runs["roundtrip"].stdout
    assert (directory / "out-original" / "run.out").exists() and (directory / "out-roundtrip" / "run.out").exists()


def test_a_program_whose_round_trip_was_not_built_still_runs_its_original(tmp_path: Path) -> None:
    """binary_corpora.py's pack: the original runs where the round trip could not be built (a refused kernel), and
    the round trip's place says why and fails, so the program counts among those whose original ran."""
    program = tmp_path / "build" / "sgemm"
    program.parent.mkdir()
    Path(f"{program}.original").write_text("#!/bin/sh\necho 'Pass'\n")
    (tmp_path / "parboil.json").write_text(json.dumps({"sgemm/cuda": {
        "round_trip": False, "round_trip_note": "main.o: instruction 'dp4a' is not translated", "outputs": [str(program)]}}))
    out = tmp_path / "pack"
    out.mkdir()
    (jobs,) = binary_corpora.pack_parboil(tmp_path, out)
    directory = out / str(jobs["name"])
    (out / "parboil-inputs" / "sgemm" / "input").mkdir(parents=True)
    trip = subprocess.run([str(directory / "roundtrip.bin")], capture_output=True, text=True)
    assert trip.returncode == 127 and "no round trip: main.o: instruction dp4a is not translated" in trip.stderr
    assert subprocess.run(["./original"], cwd=directory, capture_output=True, text=True).stdout.startswith("Pass")


@pytest.mark.skipif(not Path("/usr/local/cuda/bin/nvcc").exists(), reason="NVIDIA's nvcc is not installed")
def test_objects_a_makefile_builds_in_a_subdirectory_are_translated(tmp_path: Path) -> None:
    """A benchmark whose Makefile compiles into src/ (HeCBench's logan) has its kernels counted, not none."""
    source = tmp_path / "src" / "demo-cuda"
    (source / "src").mkdir(parents=True)
    (source / "src" / "k.cu").write_text("__global__ void twice(float *x) { x[threadIdx.x] *= 2.f; }\n"
                                         "int main() { return 0; }\n")
    (source / "Makefile").write_text("demo: src/k.o\n\t$(CC) -arch=$(ARCH) src/k.o -o demo\n"
                                     "src/k.o: src/k.cu\n\t$(CC) -arch=$(ARCH) -c src/k.cu -o src/k.o\n")
    (tmp_path / "work" / "pack").mkdir(parents=True)
    result = binary_path.prepare_one("demo-cuda", tmp_path / "src", tmp_path / "work", "sm_80", sass=True)
    assert [(k.name, k.translated) for k in result.kernels] == [("_Z5twicePf", True)]


def test_device_runs_the_original_again_only_where_the_round_trip_differs(tmp_path: Path) -> None:
    """device.py (with the comparison a binary_corpora pack carries): a second run of the original, after the round
    trip, for a program whose round trip printed something else; none where the outputs agree (a second run could
    only mask differences); and report's verdict then leaves out what the original's two runs disagree on."""
    import shutil

    pack = tmp_path / "pack"
    counter = tmp_path / "count"
    variants = {"same": ("echo 'sum 42'", "echo 'sum 42'"),
                # the original prints how often it ran (a slot an atomic handed out, say); the round trip another
                "varies": (f"echo x >> {counter}; echo \"slot $(wc -l < {counter}) sum 42\"; echo PASS",
                           "echo 'slot 7 sum 42'; echo PASS")}
    for name, (original, trip) in variants.items():
        (pack / name).mkdir(parents=True)
        for variant, body in (("original", original), ("roundtrip", trip)):
            (pack / name / variant).write_text(f"#!/bin/sh\n{body}\n")
            (pack / name / variant).chmod(0o755)
    (pack / "jobs.json").write_text(json.dumps([{"name": n, "args": []} for n in variants]))
    (pack / "device.py").write_text(binary_path.DEVICE_SCRIPT)
    shutil.copyfile(REPO / "benchmarks" / "hecbench_verify.py", pack / "hecbench_verify.py")
    subprocess.run([sys.executable, str(pack / "device.py"), str(pack), str(tmp_path), "--jobs", "1"], check=True,
                   capture_output=True)
    results = json.loads((tmp_path / "results-1-of-1.json").read_text())
    assert "again" not in results["same"] and len(results["varies"]["again"]) == 1
    assert binary_corpora.pair_verdict(results["same"])[0] == "same"
    assert binary_corpora.pair_verdict(results["varies"])[0] == "same"
    assert binary_corpora.pair_verdict({**results["varies"], "again": []})[0] == "differs"


def test_outputs_device_py_cut_short_are_compared_from_their_first_whole_line() -> None:
    """device.py keeps a run's last OUTPUT_TAIL characters: two runs of a program that prints more (SHOC's
    MaxFlops: a progress bar) are cut in different places of their first kept line, which is no difference."""
    def run(seconds: str) -> dict:
        text = "".join(f"|{'=' * (i % 50):<50}| {i / 10:.1f}%\n" for i in range(2000)) + f"PASS in {seconds} s\n"
        return {"rc": 0, "stdout": text[-binary_corpora.OUTPUT_TAIL:]}

    pair = {"original": run("1.5"), "roundtrip": run("1.5234567")}
    assert pair["original"]["stdout"].split("\n", 1)[0] != pair["roundtrip"]["stdout"].split("\n", 1)[0]
    assert binary_corpora.pair_verdict(pair) == ("same", "")
    short = {**pair, "roundtrip": {"rc": 0, "stdout": "|====| 199.9%\nPASS in 1 s\n"}}  # not cut: all it printed
    assert binary_corpora.pair_verdict(short)[0] == "differs"
