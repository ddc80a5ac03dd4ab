"""LLVM IR -> machine code with llvmlite: a gfx1100 code object (linked by ld.lld) or NVPTX PTX text."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from cassc.binary.lift import AMDGPU, NVPTX, Target
from cassc.errors import CompileError


@cache
def _llvm():  # type: ignore[no-untyped-def]
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    # NVVM already ran LLVM's slow-division bypass (64 -> 32 bits, as AMDGPU's) over the PTX's 64-bit
    # divisions: where it judged a 32-bit path worthwhile the PTX has both paths, so a div.s64 there is the
    # wide path; the others it judged wide. Bypassing again would add a second, dead 32-bit division.
    llvm.set_option("", "-amdgpu-bypass-slow-div=0")
    return llvm


@cache
def target_machine(target: Target):  # type: ignore[no-untyped-def]
    llvm = _llvm()
    return llvm.Target.from_triple(target.triple).create_target_machine(cpu=target.cpu, opt=3, reloc="pic",
                                                                        codemodel="default")


def data_layout(target: Target) -> str:
    return str(target_machine(target).target_data)


_PARSE_ERROR_LINE = re.compile(r"<string>:(\d+):\d+: error")
_DEFINE = re.compile(r"^define\b.*?@(\"[^\"]+\"|[\w$.]+)\(")


def _parsed(llvm, text: str):  # type: ignore[no-untyped-def]
    """The parsed module; a parse error says which function (kernel or device function) it is in."""
    try:
        return llvm.parse_assembly(text)
    except RuntimeError as error:
        line = _PARSE_ERROR_LINE.search(str(error))
        if line:
            before = text.splitlines()[:int(line.group(1))]
            function = next((m.group(1).strip('"') for l in reversed(before) if (m := _DEFINE.match(l))), None)
            if function:
                raise RuntimeError(f"in function {function}: {error}") from error
        raise


def optimized_module(ir: str | list[str], target: Target):  # type: ignore[no-untyped-def]
    """Parse, verify, link (several modules of an -rdc program) and optimise (O3) the IR for `target`."""
    llvm = _llvm()
    texts = [ir] if isinstance(ir, str) else ir
    if target.name == AMDGPU.name:
        # Code object v5: what ROCm 5.x/6.x runtimes load (LLVM 22's default is v6).
        texts = [t + '\n!llvm.module.flags = !{!900}\n!900 = !{i32 1, !"amdhsa_code_object_version", i32 500}\n'
                 for t in texts]
    try:
        module = _parsed(llvm, texts[0])
        for text in texts[1:]:
            module.link_in(_parsed(llvm, text))
        module.verify()
    except RuntimeError as error:
        raise CompileError(f"cassc produced invalid LLVM IR (a cassc bug, please report it): {error}") from error
    machine = target_machine(target)
    tuning = llvm.create_pipeline_tuning_options(speed_level=3)
    # The PTX is NVVM's optimised output: its loops are already unrolled as NVVM chose (by 4 with a remainder
    # loop, grid-stride loops included). Unrolling them again multiplies code for nothing; loops a pragma
    # asks to unroll still are.
    tuning.loop_unrolling = False
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return module


def amdgpu_object(ir: str | list[str], target: Target = AMDGPU) -> bytes:
    """A relocatable AMD GPU object (link it with `link_code_object`)."""
    return target_machine(target).emit_object(optimized_module(ir, target))


def amdgpu_assembly(ir: str, target: Target = AMDGPU) -> str:
    return target_machine(target).emit_assembly(optimized_module(ir, target))


def nvptx_assembly(ir: str) -> str:
    return target_machine(NVPTX).emit_assembly(optimized_module(ir, NVPTX))


def link_code_object(obj: bytes, work_dir: Path, name: str, lld: Path) -> bytes:
    """ld.lld -shared: the loadable code object (ET_DYN) the HIP runtime wants."""
    from cassc.toolchain import run

    source = work_dir / f"{name}.o"
    output = work_dir / f"{name}.hsaco"
    source.write_bytes(obj)
    run([str(lld), "-m", "elf64_amdgpu", "--no-undefined", "-shared", str(source), "-o", str(output)])
    return output.read_bytes()
