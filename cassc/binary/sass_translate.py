"""The SASS route of the binary path: a file's machine code, when it has no PTX (or the user asks for it).

The route is chosen per file: PTX first when the fatbin has it (nvcc's default), SASS when only machine
code exists (`-gencode arch=compute_XX,code=sm_XX`, CMake's `XX-real`), and SASS for every file when the
user forces it (`--cassc-sass` or `CASSC_SASS=1`). The cubin of the highest architecture cassc reads
(sm_75 to sm_90) is disassembled by NVIDIA's nvdisasm (`sass.py`), lifted through the same emission core
as PTX (`sass_lift.py`) and compiled and checked as the PTX route's code objects are.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cassc.binary.codegen import amdgpu_object, data_layout, device_libraries, link_code_object
from cassc.binary.emit import AMDGPU
from cassc.binary.extract import BinaryModule, DeviceImage
from cassc.binary.fallback import Fallback, ModelKernel, ask_for_kernel
from cassc.binary.sass import SassSyntaxError, read_program
from cassc.binary.sass_lift import lift_sass_kernels
from cassc.errors import CompileError, InputError
from cassc.repair.prompt import AnswerRejected
from cassc.toolchain import find_toolchain

SASS_ARCHS = (75, 80, 86, 87, 89, 90)  # the machine code the parser and lifter read


def route(module: BinaryModule, force_sass: bool) -> str:
    """"ptx" or "sass": how `module`'s device code is translated."""
    return "sass" if force_sass or not module.ptx_images() else "ptx"


def best_cubin_image(module: BinaryModule, archs: tuple[int, ...] = SASS_ARCHS) -> DeviceImage:
    cubins = sorted((i for i in module.images if i.entry.kind == "elf" and i.entry.arch in archs),
                    key=lambda i: i.entry.arch)
    if not cubins:
        archs_present = sorted({f"sm_{i.entry.arch}" for i in module.images if i.entry.kind == "elf"})
        raise InputError(f"{module.origin} carries no PTX and no SASS cassc reads (it has "
                         f"{', '.join(archs_present) or 'none'}; cassc reads {', '.join(f'sm_{a}' for a in archs)}): "
                         "rebuild it with nvcc's default -arch (which embeds PTX) or add "
                         "-gencode arch=compute_XX,code=compute_XX")
    return cubins[-1]


def lift_modules_sass(modules: list[BinaryModule], target=AMDGPU):  # type: ignore[no-untyped-def]
    """(IR, the cubins' arch, translated kernels, kernel -> why not, the kernels) of one whole-program
    module's best cubin, or of the -rdc modules of a program, linked (their highest arch in common)."""
    common = tuple(a for a in SASS_ARCHS if all(any(i.entry.kind == "elf" and i.entry.arch == a for i in m.images)
                                                for m in modules)) or SASS_ARCHS
    images = [best_cubin_image(m, common) for m in modules]
    arch = images[0].entry.arch
    try:
        kernels = read_program([i.entry.payload for i in images], arch)
    except SassSyntaxError as error:
        raise CompileError(f"{' + '.join(m.origin for m in modules)}: sm_{arch} SASS: {error}") from error
    ir, names, failures = lift_sass_kernels(kernels, target, data_layout(target))
    return ir, arch, names, failures, kernels


def translate_sass(modules: list[BinaryModule], work_dir: Path, lld: Path, offload_arch: str = AMDGPU.cpu,
                   fallback: Fallback | None = None):  # type: ignore[no-untyped-def]
    """The kernels of one whole-program module, or of the -rdc modules of a program, from their SASS -> a
    validated gfx1100 code object (a `translate.Translation`). With `fallback`, a kernel the lifter cannot
    translate is asked of the model with its SASS, and its answer used only if it checks out
    (`fallback.ask_for_kernel`), as on the PTX route."""
    from cassc.binary.translate import TranslatedKernel, Translation
    from cassc.formats.code_object import kernel_descriptors

    target = replace(AMDGPU, cpu=offload_arch)
    ir, arch, names, failures, kernels = lift_modules_sass(modules, target)
    origin = " + ".join(m.origin for m in modules)
    from_model: dict[str, ModelKernel] = {}
    if fallback is not None:
        sizes = {k.name: k.metadata.param_size for k in kernels}
        for name, reason in list(failures.items()):
            module = next(m for m in modules if any(k.name == name for k in m.kernels)) \
                if len(modules) > 1 else modules[0]
            try:
                from_model[name] = ask_for_kernel(fallback, module, name, "", reason, sizes[name], work_dir, lld,
                                                  offload_arch)
                del failures[name]
            except AnswerRejected as why:
                failures[name] = f"{reason}; the model's answer was not used: {why}"
    stem = "".join(c if c.isalnum() else "_" for c in Path(modules[0].origin).name)[-60:] + f".sm_{arch}"
    # Textures, printf, assert and malloc call HIP's device library, linked in as HIP clang links it.
    libraries = device_libraries(find_toolchain().device_lib_dir((offload_arch,)), offload_arch) \
        if "@__ockl_" in ir else ()
    code_object = link_code_object(amdgpu_object([ir], target, libraries), work_dir, stem, lld) if names else b""
    descriptors = kernel_descriptors(code_object) if code_object else {}
    recorded = {k.name: k for m in modules for k in m.kernels}
    translated = []
    descriptors.update({name: kernel.descriptor for name, kernel in from_model.items()})
    for kernel in kernels:
        if kernel.name not in names and kernel.name not in from_model:
            continue
        metadata = kernel.metadata
        descriptor = descriptors.get(kernel.name)
        if descriptor is None:
            raise CompileError(f"{origin}: the gfx1100 code object lacks kernel {kernel.name}")
        mismatch = descriptor.mismatch_with_cuda(metadata.param_size)
        if mismatch:
            raise CompileError(f"{origin}: kernel {kernel.name} {mismatch}")
        host = recorded.get(kernel.name)
        translated.append(TranslatedKernel(
            kernel.name, host.host_stub if host else None, tuple(p.offset for p in metadata.params),
            tuple(p.size for p in metadata.params), metadata.param_size, descriptor.kernarg_size,
            descriptor.lds_size, descriptor.scratch_size, descriptor.vgprs, descriptor.sgprs,
            from_model[kernel.name].model if kernel.name in from_model else None))
    variables = sorted({name for k in kernels for name, (bank, _, _) in k.constant_symbols.items() if bank == 3}
                       | {name for k in kernels for name in k.device_variables if f"@{name} " in ir
                          or f'@"{name}" ' in ir})
    return Translation(origin, arch, code_object, translated, failures, variables if names else [],
                       {name: kernel.code_object for name, kernel in from_model.items()}, route="sass")


def kernel_routes(module: BinaryModule, force_sass: bool = False) -> dict[str, tuple[str, str]]:
    """Each kernel's route ("PTX compute_XX" or "SASS sm_XX") and what the SASS lifter says of it ("lifts",
    or why not), as `cassc inspect --sass` reports them."""
    chosen = route(module, force_sass)
    best_ptx = max((i.entry.arch for i in module.ptx_images()), default=None)
    try:
        _, arch, names, failures, _ = lift_modules_sass([module])
        verdicts = {name: "lifts" for name in names} | failures
        sass_route = f"SASS sm_{arch}"
    except (InputError, CompileError) as error:
        verdicts, sass_route = {}, f"SASS: {error}"
    return {k.name: (f"PTX compute_{best_ptx}" if chosen == "ptx" else sass_route,
                     verdicts.get(k.name, "no SASS cassc reads")) for k in module.kernels}
