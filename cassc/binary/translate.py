"""One nvcc-built file's device code -> a validated gfx1100 code object.

The PTX nvcc embedded (the highest compute capability present) is lifted to LLVM IR (lift.py),
compiled for gfx1100 by llvmlite and linked by ld.lld. Each kernel's code object descriptor is then
checked against what CUDA recorded: the kernarg segment must be exactly the CUDA parameter buffer (the
shim runtime copies that buffer as is), and the LDS must fit a gfx1100 workgroup.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from cassc.binary.codegen import amdgpu_object, data_layout, device_libraries, link_code_object
from cassc.binary.extract import BinaryModule, DeviceImage
from cassc.binary.fallback import Fallback, ModelKernel, ask_for_kernel
from cassc.binary.lift import AMDGPU, lift_module, ptx_parameter_layout
from cassc.binary.ptx import Function, function_text, parse_ptx
from cassc.binary.sass_translate import translate_sass
from cassc.errors import CompileError
from cassc.formats.code_object import code_object_target, kernel_descriptors
from cassc.repair.prompt import AnswerRejected
from cassc.toolchain import find_toolchain


@dataclass(frozen=True)
class TranslatedKernel:
    name: str
    host_stub: str | None
    param_offsets: tuple[int, ...]  # each parameter's place in the CUDA parameter buffer, by ordinal
    param_sizes: tuple[int, ...]
    param_size: int  # the CUDA parameter buffer
    kernarg_size: int  # the code object's
    lds_size: int
    scratch_size: int
    vgprs: int
    sgprs: int
    from_model: str | None = None  # the model whose assembly this kernel is (unverified), when not lifted


@dataclass
class Translation:
    origin: str
    ptx_arch: int
    code_object: bytes
    kernels: list[TranslatedKernel]
    failures: dict[str, str] = field(default_factory=dict)  # kernel -> why it was not translated
    variables: list[str] = field(default_factory=list)  # __device__ / __constant__ names the code object defines
    model_code_objects: dict[str, bytes] = field(default_factory=dict)  # kernel -> the model's code object
    route: str = "ptx"  # "ptx": lifted from PTX compute_<ptx_arch>; "sass": from sm_<ptx_arch> machine code


def parameter_arch(module: BinaryModule, image: DeviceImage) -> int:
    """The sm_XX whose parameter layout a module's kernels take: its highest cubin's (the description
    `extract` records, and what CUDA's runtime would load there), else the PTX's."""
    return max((arch for k in module.kernels for arch in k.sass_archs), default=image.entry.arch)


def is_separate(module: BinaryModule) -> bool:
    """Built with -rdc: its device code is linked with the other -rdc objects' before it runs."""
    return any(i.section == "__nv_relfatbin" for i in module.images)


def translate(module: BinaryModule, work_dir: Path, lld: Path, offload_arch: str = AMDGPU.cpu,
              force_sass: bool = False) -> Translation:
    return translate_group([module], work_dir, lld, offload_arch, separate=is_separate(module),
                           force_sass=force_sass)


def translate_group(modules: list[BinaryModule], work_dir: Path, lld: Path, offload_arch: str = AMDGPU.cpu,
                    separate: bool = True, fallback: Fallback | None = None,
                    force_sass: bool = False) -> Translation:
    """One code object for `modules`: one whole-program module, or the -rdc modules of a program, whose
    IR is linked (their device functions call one another) before it is compiled. With `fallback`, a
    kernel the lifter cannot translate is asked of the model; its answer is used only if it checks out.
    A program with a module without PTX (or every one, `force_sass`) takes the SASS route."""
    if force_sass or not all(m.ptx_images() for m in modules):
        return translate_sass(modules, work_dir, lld, offload_arch, fallback)
    images = [max(m.ptx_images(), key=lambda i: i.entry.arch) for m in modules]
    programs = [parse_ptx(i.entry.ptx) for i in images]
    archs = [parameter_arch(m, i) for m, i in zip(modules, images)]
    target = replace(AMDGPU, cpu=offload_arch)
    layout = data_layout(target)
    linked = frozenset(f.name for p in programs for f in p.functions if f.body is not None) if separate else None
    while True:  # a function one module could not translate is missing for the others too
        lifted = [lift_module(p, target, layout, linked, arch) for p, arch in zip(programs, archs)]
        failed = {name for one in lifted for name in one.failed_functions}
        if linked is None or not failed & linked:
            break
        linked = linked - failed
    origin = " + ".join(m.origin for m in modules)
    stem = "".join(c if c.isalnum() else "_" for c in Path(modules[0].origin).name)[-60:]
    failures = {k: v for one in lifted for k, v in one.failures.items()}
    from_model: dict[str, ModelKernel] = {}
    if fallback is not None:
        for name, reason in list(failures.items()):
            index, function = next((i, f) for i, p in enumerate(programs)
                                   if (f := p.function(name)) is not None and f.body is not None)
            try:
                from_model[name] = ask_for_kernel(
                    fallback, modules[index], name, function_text(images[index].entry.ptx, name), reason,
                    ptx_parameter_layout(function, archs[index])[2], work_dir, lld, offload_arch)
                del failures[name]
            except AnswerRejected as why:
                failures[name] = f"{reason}; the model's answer was not used: {why}"
    kernel_names = [name for one in lifted for name in one.kernels]
    # Device printf, assert and malloc call HIP's device library, linked in as HIP clang links it.
    libraries = device_libraries(find_toolchain().device_lib_dir((offload_arch,)), offload_arch) \
        if any("@__ockl_" in one.ir for one in lifted) else ()
    code_object = link_code_object(amdgpu_object([one.ir for one in lifted], target, libraries), work_dir, stem,
                                   lld) if kernel_names else b""
    if code_object and code_object_target(code_object) != offload_arch:
        raise CompileError(f"{origin}: the code object is for {code_object_target(code_object)}, not "
                           f"{offload_arch} (a cassc bug, please report it)")
    descriptors = kernel_descriptors(code_object) if code_object else {}
    descriptors.update({name: kernel.descriptor for name, kernel in from_model.items()})
    kernel_names += list(from_model)
    recorded = {k.name: k for m in modules for k in m.kernels}
    kernels = []
    for name in kernel_names:
        index, function = next((i, f) for i, p in enumerate(programs)
                               if (f := p.function(name)) is not None and f.body is not None)
        offsets, sizes, param_size = ptx_parameter_layout(function, archs[index])
        cubin = recorded.get(name)
        if cubin is not None and cubin.params and (tuple(p.offset for p in cubin.params) != offsets
                                                   or cubin.param_size != param_size):
            raise CompileError(f"{origin}: kernel {name}: the PTX parameter layout {offsets} ({param_size} "
                               f"bytes) differs from the cubin's {tuple(p.offset for p in cubin.params)} "
                               f"({cubin.param_size} bytes) (a cassc bug, please report it)")
        descriptor = descriptors.get(name)
        if descriptor is None:
            raise CompileError(f"{origin}: the gfx1100 code object lacks kernel {name}")
        mismatch = descriptor.mismatch_with_cuda(param_size)
        if mismatch:
            raise CompileError(f"{origin}: kernel {name} {mismatch}")
        kernels.append(TranslatedKernel(name, cubin.host_stub if cubin else None, offsets, sizes, param_size,
                                        descriptor.kernarg_size, descriptor.lds_size, descriptor.scratch_size,
                                        descriptor.vgprs, descriptor.sgprs,
                                        from_model[name].model if name in from_model else None))
    variables = [v.name for p in programs for v in p.variables if v.space in ("global", "const") and not v.extern]
    return Translation(origin, max(i.entry.arch for i in images), code_object, kernels, failures, variables,
                       {name: kernel.code_object for name, kernel in from_model.items()})
