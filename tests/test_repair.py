"""The repair loop with a fixed answer standing in for a model: the same parsing, checking, splicing and
recompiling code a model's answer goes through, with the real clang."""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cassc import stages
from cassc.cache import Cache
from cassc.errors import CompileError
from cassc.invocation import parse_invocation
from cassc.repair.apply import check_replacement, splice, user_lines
from cassc.repair.backends import Generation
from cassc.repair.hook import ModelRepairer
from cassc.repair.prompt import AnswerRejected, parse_answer
from cassc.repair.region import Region, enclosing_region
from cassc.repair.settings import RepairSettings
from cassc.toolchain import find_toolchain
from conftest import gpu_targets, write

# PTX inline assembly in a block: the inline PTX rules take single instructions only, so this stays and
# clang rejects it for gfx1100 at the asm string.
BROKEN_KERNEL = """\
#include <cstdio>

__global__ void lanes(unsigned* out) {
  unsigned lane;
  asm volatile("{ mov.u32 %0, %%laneid; }" : "=r"(lane));
  out[threadIdx.x] = lane;
  if (threadIdx.x == 0) printf("CUDA lanes\\n");
}

int main() {
  unsigned* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(unsigned));
  lanes<<<1, 64>>>(d);
  cudaDeviceSynchronize();
  printf("CUDA done\\n");
  return 0;
}
"""
KERNEL_FIX = """\
__global__ void lanes(unsigned* out) {
  unsigned lane;
  lane = __lane_id();
  out[threadIdx.x] = lane;
  if (threadIdx.x == 0) printf("CUDA lanes\\n");
}
"""

# __activemask() is device code; calling it from main fails on the line next to the std::cout.
BROKEN_HOST = """\
#include <iostream>

int main() {
  unsigned mask = 0;
  std::cout << "CUDA mask" << std::endl;
  mask = __activemask();
  std::cout << mask << std::endl;
  return 0;
}
"""
HOST_FIX = """\
int main() {
  unsigned mask = 0;
  std::cout << "CUDA mask" << std::endl;
  mask = 0xffffffffu;
  std::cout << mask << std::endl;
  return 0;
}
"""


@dataclass
class FixedAnswer:
    """A backend whose answer is a fixed text in the CASS answer shape."""

    replacement: str
    name: str = "fixed answer"
    prompt_format: str = "cass-source"
    prompts: list[str] = field(default_factory=list)

    @property
    def identity(self) -> str:
        return "fixed:" + hashlib.sha256(self.replacement.encode()).hexdigest()

    def generate(self, prompt: str, max_tokens: int, on_token) -> Generation:
        self.prompts.append(prompt)
        on_token(1)
        return Generation(f"Here is the AMD code:\n```amd\n{self.replacement}```\n", 1, 0.01, 0.0, 0.0, False)


def compile_with(source: Path, backend: FixedAnswer, cache: Cache) -> tuple[stages.CompiledObject, ModelRepairer]:
    """cassc's compile stage for `source`, with `backend` as the repair model."""
    inv = parse_invocation(["-c", source.name, "-o", source.with_suffix(".o").name])  # run in its directory
    toolchain = find_toolchain()
    work = source.parent / "work"
    unit = stages.hipify_source(inv.inputs[0], inv, toolchain, work / "0" / "mirror")
    flags = stages.unit_flags(inv.inputs[0].kind, inv, toolchain, unit)
    runner = stages.Runner(toolchain, work_dir=work)
    repairer = ModelRepairer(cache, settings=RepairSettings(), backend=backend)
    output = work / "out.o"
    return stages.compile_unit(unit, inv.inputs[0].kind, flags, output, work / "0" / "source", runner, cache, repairer=repairer), repairer


@pytest.fixture
def isolated(data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cache:
    monkeypatch.setenv("CASSC_DATA_DIR", str(data_dir))
    monkeypatch.chdir(tmp_path)
    return Cache(tmp_path / "cache", enabled=True)


def test_fixed_answer_repairs_a_broken_kernel(isolated: Cache, tmp_path: Path,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "lanes.cu", BROKEN_KERNEL)
    backend = FixedAnswer(KERNEL_FIX)
    compiled, repairer = compile_with(source, backend, isolated)

    assert gpu_targets(compiled.path) == ["gfx1100"]
    [record] = repairer.records
    assert record.accepted and (record.first_line, record.last_line, record.region) == (3, 8, "lanes")
    assert "-  asm volatile" in record.diff and "+  lane = __lane_id();" in record.diff
    # the prompt is CASS's: one message, the failing kernel in a ```cuda block, then the error
    assert backend.prompts[0].startswith("Convert the following CUDA code to AMD GPU code:\n```cuda\n__global__")
    assert "lanes.cu:5:16: error: invalid instruction" in backend.prompts[0]
    assert "cudaMalloc" not in backend.prompts[0]  # main is not the failing region
    stderr = capfd.readouterr().err
    assert "model repair accepted for lanes.cu:3-8 (lanes)" in stderr and "+  lane = __lane_id();" in stderr
    assert source.read_text() == BROKEN_KERNEL  # the user's file is only read

    # the accepted repair is cached by content: the same failure is repaired without asking the model
    shutil.rmtree(tmp_path / "work")
    again = FixedAnswer("this answer must not be used")
    compile_with(source, again, isolated)
    assert again.prompts == []


@pytest.mark.parametrize("name, source, answer, reason", [
    ("literal", BROKEN_KERNEL, KERNEL_FIX.replace('"CUDA lanes', '"HIP lanes'),
     'changes a string literal no error points at ("CUDA lanes\\n" -> "HIP lanes\\n")'),
    ("stream", BROKEN_HOST, HOST_FIX.replace("std::cout << mask", "std::cerr << mask"),
     "changes output streams (cout -> cerr)"),
    ("outside", BROKEN_KERNEL, KERNEL_FIX.replace("threadIdx.x == 0", "threadIdx.x < 1"),
     "changes region line 5 (`if (threadIdx.x == 0)"),
])
def test_answers_changing_what_no_error_implicates_are_rejected(
        isolated: Cache, tmp_path: Path, capfd: pytest.CaptureFixture[str], cassc,
        name: str, source: str, answer: str, reason: str) -> None:
    broken = write(tmp_path / f"{name}.cu", source)
    # each answer compiles: spliced into the user's file by hand, cassc builds it
    fix_start = source.index(answer.split("\n")[0])
    fix_end = source.index("\n}\n", fix_start) + 3
    write(tmp_path / "by_hand" / f"{name}.cu", source[:fix_start] + answer + source[fix_end:])
    cassc("-c", f"by_hand/{name}.cu", "-o", f"by_hand/{name}.o")

    with pytest.raises(CompileError):
        compile_with(broken, FixedAnswer(answer), isolated)
    stderr = capfd.readouterr().err
    assert f"model repair rejected for {name}.cu" in stderr and reason in stderr
    assert "model repair did not fix this unit; the errors above are those of hipify's translation" in stderr
    assert ": error: " in stderr  # the compiler's own errors, as without a model
    mirrored = next((tmp_path / "work" / "0" / "mirror").rglob(f"{name}.cu")).read_text()
    assert answer not in mirrored and ("asm volatile" in mirrored or "= __cassc_activemask();" in mirrored)


def test_region_is_the_smallest_enclosing_definition() -> None:
    text = ('namespace n {\nstruct S { int a; };\ntemplate <int N>\n__global__ void k() {\n'
            '  const char* s = "}";\n}\n}\nint x = 1;\n')
    assert enclosing_region(text, 5).name == "k" and enclosing_region(text, 5).first_line == 3
    assert enclosing_region(text, 2).name == "S"
    assert enclosing_region(text, 8).name == "declaration"


def test_answer_parsing_takes_the_amd_block_and_refuses_others() -> None:
    assert parse_answer("x\n```cuda\nold\n```\n```amd\nnew\n```") == "new\n"
    with pytest.raises(AnswerRejected, match="no complete"):
        parse_answer("```amd\nnever closed")
    with pytest.raises(AnswerRejected, match="longer than"):
        parse_answer("```amd\n" + "x" * 70000 + "\n```")


def test_unchanged_code_and_literal_changes_at_the_error_are_told_apart() -> None:
    original = 'void f() {\n  asm("bad");\n  puts("keep");\n}\n'
    with pytest.raises(AnswerRejected, match="unchanged"):
        check_replacement(original, original, {(2, 7)})
    check_replacement(original, 'void f() {\n  good();\n  puts("keep");\n}\n', {(2, 7)})  # the error is in "bad"
    with pytest.raises(AnswerRejected, match="string literal"):
        check_replacement(original, 'void f() {\n  good();\n  puts("kept");\n}\n', {(2, 7)})


def test_a_longer_replacement_keeps_later_lines_numbered_as_the_users() -> None:
    mirrored = '#line 1 "k.cu"\nint a;\nvoid f() {\n  bad();\n}\nint b;\n'
    region = Region(2, 4, "f")  # mirrored-file indexes: `void f() {` to `}`
    spliced = splice(mirrored, region, "void f() {\n  good();\n  more();\n}\n")
    assert spliced.split("\n")[6] == '#line 5 "k.cu"'
    numbers = user_lines(spliced)
    assert spliced.split("\n")[7] == "int b;" and numbers[7] == 5
    shorter = splice(mirrored, region, "void f() { good(); }\n")
    assert user_lines(shorter)[5] == 5 and shorter.split("\n")[5] == "int b;"


def test_no_model_advice_is_given_once_per_build_directory(cassc, tmp_path: Path) -> None:
    """A user fixing their own compile errors hears about repair models once here, or with -v."""
    advice = "no repair model configured"
    for directory in ("a", "b"):
        write(tmp_path / directory / "lanes.cu", BROKEN_KERNEL)
    first = cassc("-c", "lanes.cu", cwd=tmp_path / "a", check=False)
    assert first.returncode == 1 and advice in first.stderr and "lanes.cu:5:16: error" in first.stderr
    again = cassc("-c", "lanes.cu", cwd=tmp_path / "a", check=False)
    assert again.returncode == 1 and advice not in again.stderr and "lanes.cu:5:16: error" in again.stderr
    assert advice in cassc("-v", "-c", "lanes.cu", cwd=tmp_path / "a", check=False).stderr
    assert advice in cassc("-c", "lanes.cu", cwd=tmp_path / "b", check=False).stderr
