"""LLVM IR -> machine code with llvmlite: a gfx1100 code object (linked by ld.lld) or NVPTX PTX text."""

from __future__ import annotations

from dataclasses import replace

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
    # NVPTX: PTX ISA 8.0, the first with sm_90's instructions (elect.sync), which every CUDA 12+ driver takes.
    features = "+ptx80" if target.name == NVPTX.name else ""
    return llvm.Target.from_triple(target.triple).create_target_machine(cpu=target.cpu, features=features, opt=3,
                                                                        reloc="pic", codemodel="default")


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


# The device libraries keep values in VGPRs with inline asm that is empty or a comment (`"=v,0"`, an identity):
# the object streamer would have to parse it, and llvmlite has no AMDGPU asm parser. LLVM's convergence rules
# already keep the ballots and readfirstlanes it guards where they are, so the identity is a freeze.
_VGPR_IDENTITY = re.compile(r'^(\s*%[-\w.$]+ = )(?:tail |notail )?call (\w+) asm sideeffect "(?:;[^"]*)?", "=v,0"'
                            r'\((\w+) (%[-\w.$]+)\).*$', re.MULTILINE)


@cache
def _library_text(path: str, mtime_ns: int) -> str:
    """A device library's IR, ready to link: its VGPR-identity inline asm made freezes, its unnamed globals
    named (`mtime_ns`: a changed file is read again)."""
    text = str(_llvm().parse_bitcode(Path(path).read_bytes()))
    text = _VGPR_IDENTITY.sub(r"\1freeze \3 \4", text)
    # Its unnamed globals (@0, @1...) get named __unnamed_N when emitted, as nvcc names PTX's: name them apart.
    text = re.sub(r"@(\d+)\b", r"@__cassc_device_library.\1", text)
    if " asm " in text:
        raise CompileError(f"{path}: inline assembly cassc cannot compile without an AMDGPU assembler")
    return text


def optimized_module(ir: str | list[str], target: Target,
                     libraries: tuple[Path, ...] = ()):  # type: ignore[no-untyped-def]
    """Parse, verify, link (several modules of an -rdc program) and optimise (O3) the IR for `target`.
    `libraries`: device-library bitcode linked in as clang links it (-mlink-builtin-bitcode): only what the
    code calls stays, internal to the code object."""
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
        own = {f.name for f in module.functions if not f.is_declaration} | {
            g.name for g in module.global_variables if not g.is_declaration}
        for library in libraries:
            module.link_in(_parsed(llvm, _library_text(str(library), library.stat().st_mtime_ns)))
        if libraries:
            for symbol in [*module.functions, *module.global_variables]:
                if not symbol.is_declaration and symbol.name not in own and not symbol.name.startswith("llvm."):
                    symbol.linkage = "internal"
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


def amdgpu_object(ir: str | list[str], target: Target = AMDGPU, libraries: tuple[Path, ...] = ()) -> bytes:
    """A relocatable AMD GPU object (link it with `link_code_object`)."""
    return target_machine(target).emit_object(optimized_module(ir, target, libraries))


def device_libraries(directory: Path, offload_arch: str) -> tuple[Path, ...]:
    """The device libraries HIP clang links for code calling the device library (ockl: printf's hostcalls, the
    device heap), with its default control settings, from `directory` (the toolchain's, with the ISA file)."""
    from cassc.toolchain import isa_number

    names = ["ockl.bc", "oclc_abi_version_500.bc", f"oclc_isa_version_{isa_number(offload_arch)}.bc",
             "oclc_wavefrontsize64_off.bc", "oclc_daz_opt_off.bc", "oclc_finite_only_off.bc",
             "oclc_unsafe_math_off.bc", "oclc_correctly_rounded_sqrt_on.bc"]
    missing = [name for name in names[:3] if not (directory / name).exists()]
    if missing:
        raise CompileError(f"the device libraries in {directory} lack {', '.join(missing)} (printf, assert and "
                           "malloc in device code call them)")
    return tuple(directory / name for name in names if (directory / name).exists())


def amdgpu_assembly(ir: str, target: Target = AMDGPU) -> str:
    return target_machine(target).emit_assembly(optimized_module(ir, target))


def nvptx_assembly(ir: str, cpu: str = NVPTX.cpu) -> str:
    """PTX of the IR lowered to NVPTX for `cpu` (the round trip keeps an object's own architecture: code such as
    CUB's dispatch compares the PTX version of its kernels with the architectures it was compiled for)."""
    target = replace(NVPTX, cpu=cpu)
    return target_machine(target).emit_assembly(optimized_module(ir, target))


def link_code_object(obj: bytes, work_dir: Path, name: str, lld: Path) -> bytes:
    """ld.lld -shared: the loadable code object (ET_DYN) the HIP runtime wants."""
    from cassc.toolchain import run

    source = work_dir / f"{name}.o"
    output = work_dir / f"{name}.hsaco"
    source.write_bytes(obj)
    run([str(lld), "-m", "elf64_amdgpu", "--no-undefined", "-shared", str(source), "-o", str(output)])
    return output.read_bytes()
