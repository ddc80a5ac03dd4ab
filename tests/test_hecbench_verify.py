"""benchmarks/hecbench_verify.py's comparison of a translated run with the CUDA original's (pure functions)."""

from __future__ import annotations

import importlib.util
import sys

from conftest import REPO

_spec = importlib.util.spec_from_file_location("hecbench_verify", REPO / "benchmarks" / "hecbench_verify.py")
assert _spec and _spec.loader
verify = importlib.util.module_from_spec(_spec)
sys.modules["hecbench_verify"] = verify
_spec.loader.exec_module(verify)


def result(original: list[tuple[int, float, str]], translated: list[tuple[int, float, str]]):
    return verify.Result("b", {"original": True, "translated": True}, {}, "./main",
                         {"original": [verify.Run(*r) for r in original],
                          "translated": [verify.Run(*r) for r in translated]})


def test_timing_lines_and_tables_under_a_timing_header_are_not_compared() -> None:
    output = ("Function    MBytes/sec  Min (sec)   Max\nCopy        3758415.849 0.00014     0.00015\n"
              "Performance: MLUPS\n10479.7851\nchecksum 42\nAverage kernel execution time 0.39 (ms)\n"
              "Total Kernel time (s)\nGEMM: 0.187021, Extract upper triangle: 0.03712\nChecksum: 204.331\n")
    assert verify.comparable_lines(output) == ["checksum 42", "Checksum: 204.331"]


def test_times_in_seconds_clock_readings_and_rates_per_second_are_timing_lines() -> None:
    output = ("done in 1.523049 s for 1 iterations (1.523049 s by iteration)\npselect = 0.000416 (s)\n"
              "MCMD started on 11-21-2026 at 02:38:55\nAverage TriadFlops 13.445 GFLOPS/s\nGF/s (device): 3.714\n"
              "Kernel          Avg(ms)    BW(GB/s)\n─────────────\nbase   0.381  2111.1\n─────────────\n"
              "3 particles\nerror 1.5e-3s\nTree transformation took 0.002844\n")
    assert verify.comparable_lines(output) == ["3 particles"]


def test_a_slow_original_still_runs_the_least_number_of_times_asked_for() -> None:
    calls: list[str] = []

    def run(variant: str):
        calls.append(variant)
        return verify.Run(0, verify.REPEAT_BELOW_S + 1, "IO : 0.02\n")

    assert [len(r) for r in verify.alternate_runs(run).values()] == [1, 1]
    assert [len(r) for r in verify.alternate_runs(run, least=2).values()] == [2, 2]


def test_numbers_compare_within_the_tolerance_and_varying_lines_are_left_out() -> None:
    original = [(0, 1.0, "sum = 1.00000\nseed 17\nPASS\n"), (0, 1.0, "sum = 1.00001\nseed 99\nPASS\n")]
    same = result(original, [(0, 1.02, "sum = 1.00002\nseed 5\nPASS\n")])
    assert verify.compare(same, None).status == "matched"
    wrong = result(original, [(0, 1.0, "sum = 1.5\nseed 5\nPASS\n")])
    comparison = verify.compare(wrong, None)
    assert comparison.status == "mismatch" and "1.5" in comparison.first_difference
    failing = result(original, [(0, 1.0, "sum = 1.00000\nseed 5\nFAIL\n")])
    assert verify.compare(failing, None).status == "mismatch"


def test_runtime_ratio_uses_the_benchmarks_own_time_line() -> None:
    regex = r"(?:Average kernel execution time )([0-9.+-e]+)(?: \(ms\))"
    runs = result([(0, 5.0, "Average kernel execution time 2.0 (ms)\n")],
                  [(0, 1.0, "Average kernel execution time 2.2 (ms)\n")])
    comparison = verify.compare(runs, regex)
    assert comparison.time_source == "kernel" and abs(comparison.ratio - 1.1) < 1e-9
    assert verify.compare(runs, None).time_source == "kernel"  # "kernel ... time" without a regex too


def test_a_run_at_the_limit_is_not_a_mismatch_when_the_original_nearly_reached_it() -> None:
    near = result([(0, 11.5, "PASS\n")], [(verify.TIMED_OUT, 12.0, "")])
    assert verify.compare(near, None).status == "near-run-limit"
    hang = result([(0, 1.0, "PASS\n")], [(verify.TIMED_OUT, 12.0, "")])
    assert verify.compare(hang, None).status == "mismatch"


def test_originals_seeded_from_the_clock_differ_among_themselves_and_are_left_out() -> None:
    """A program that seeds its input from time(NULL) prints other numbers each second: every original run
    after the first starts in a new second, so those lines vary among the originals and are not compared."""
    import time

    def run(variant: str) -> object:
        seed = int(time.time()) + (1000 if variant == "translated" else 0)  # the translation's own second
        return verify.Run(0, 0.01, f"Result native operators : {seed % 97 + 1}.5\nPASSED\n")

    runs = verify.alternate_runs(run)
    assert len({r.output for r in runs["original"]}) == verify.RUNS
    compared = verify.compare(verify.Result("fp16", {"original": True, "translated": True}, {}, "./main", runs), None)
    # both lines: the varying number is left out, the text around it and PASSED are compared
    assert compared.status == "matched" and compared.compared_lines == 2


def test_what_varies_between_the_originals_runs_is_left_out_number_by_number() -> None:
    """The slot an atomicAdd handed out (p4-cuda), a statistic of timings (quicksort), an elapsed time the timing
    filter does not know (tpacf): the numbers that differ between two runs of the original are not compared; the
    numbers beside them on the same line and the other lines still are."""
    first = "Comparing values at location 243904 and reference location 242392\nStandard Deviation: 81.46\nPASS\n"
    second = "Comparing values at location 241017 and reference location 242392\nStandard Deviation: 95.02\nPASS\n"
    trip = "Comparing values at location 242122 and reference location 242392\nStandard Deviation: 57.83\nPASS\n"
    assert verify.compare_outputs([first], trip).status == "differs"  # one run: nothing is masked
    both = verify.compare_outputs([first, second], trip)
    assert (both.status, both.masked_numbers, both.compared_numbers, both.compared_lines) == ("same", 2, 1, 3)
    wrong_reference = trip.replace("242392", "240392")
    assert verify.compare_outputs([first, second], wrong_reference).status == "differs"
    assert verify.compare_outputs([first, second], trip.replace("PASS", "FAIL")).status == "differs"
    assert verify.compare_outputs([first, second], trip + "extra\n").status == "differs"
    # last-digit noise between the original's runs is no variation: the number is still compared
    noisy = verify.compare_outputs(["sum 1.00000\n", "sum 1.00001\n"], "sum 1.5\n")
    assert noisy.status == "differs" and noisy.masked_numbers == 0
    # a line whose text changes between the runs is left out as a whole
    worded = verify.compare_outputs(["mode fast 3\nok 7\n", "mode slow 3\nok 7\n"], "mode other 9\nok 7\n")
    assert (worded.status, worded.masked_numbers, worded.compared_lines) == ("same", 1, 1)


def test_an_original_whose_runs_leave_no_line_whole_is_nondeterministic() -> None:
    """Rodinia's particlefilter seeds its generator with time(0): every line it prints carries a number that
    changes from one run to the next, so nothing is left to compare; a program whose runs print different
    numbers of lines likewise. Output that does not vary is never called nondeterministic."""
    def run(seed: float) -> str:
        return f"SEND ARRAY X BACK: 0.0000{int(seed) % 9 + 1}\nXE: {seed:.6f}\nYE: {seed * 1.5:.6f}\n{seed / 3:.6f}\n"

    verdict = verify.compare_outputs([run(48.615309), run(50.520522)], run(48.43459))
    assert verdict.status == "nondeterministic" and verdict.masked_numbers == 4
    assert verify.compare_outputs(["a 1\nb 2\n", "a 1\n"], "a 1\nb 2\n").status == "nondeterministic"
    assert verify.compare_outputs([run(1.0), run(1.0)], run(2.0)).status == "differs"
