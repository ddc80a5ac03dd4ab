"""A kernel the lifter cannot translate, asked of the configured model as assembly.

The model (a CASS assembly model, SASS -> RDNA3, or an instruct model) gets the kernel's SASS (from the
cubin, through cuobjdump) or its PTX. A CASS assembly model is asked in its own format: "Convert the following
CUDA device assembly code to HIP device assembly:" and the code in a ```cudaasm block, answered in a ```hipasm
block; an instruct model gets cassc's instruction and answers in an ```amd block. The answer
is untrusted text: it is only assembled (llvm-mc through clang) and linked (ld.lld), never run here, and
it is used only if the result defines the kernel with a kernel descriptor whose kernarg segment is the
CUDA parameter buffer and whose LDS fits a workgroup. Otherwise the kernel stays untranslated and the
build stops with the lifter's reason and the model's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cassc.binary.extract import BinaryModule, find_cuda_tool
from cassc.errors import CasscError
from cassc.formats.code_object import KernelDescriptor, kernel_descriptors
from cassc.repair.prompt import ASSEMBLY_TAGS, AnswerRejected, parse_answer

if TYPE_CHECKING:
    from cassc.repair.backends import Backend
    from cassc.repair.hook import ModelRepairer

CASS_ASSEMBLY_OPENING = "Convert the following CUDA device assembly code to HIP device assembly:"
MAX_CODE_CHARS = 48 * 1024  # the kernel's SASS or PTX in the prompt; a longer kernel is not asked


@dataclass(frozen=True)
class Fallback:
    """The configured model, for kernels the lifter cannot translate."""

    backend: Callable[[], Backend]  # made (and loaded) on first use
    max_tokens: int
    clang: Path


def configured_fallback(repairer: ModelRepairer, clang: Path) -> Fallback | None:
    """The repair model configured for this process (--cassc-model, CASSC_MODEL, config.toml), if any."""
    if repairer.configured().model is None:
        return None
    return Fallback(repairer.model, repairer.configured().max_answer_tokens, clang)


@dataclass(frozen=True)
class ModelKernel:
    name: str
    model: str
    # A code object of its own: linked with the lifter's, the two objects' metadata notes would not merge.
    code_object: bytes
    descriptor: KernelDescriptor


def kernel_code(module: BinaryModule, kernel: str, ptx_function: str, work_dir: Path) -> tuple[str, str]:
    """("sass", text) from the lowest-arch cubin holding the kernel, else ("ptx", its PTX function)."""
    from cassc.toolchain import run

    for image in sorted((i for i in module.images if i.entry.kind == "elf"), key=lambda i: i.entry.arch):
        cubin = work_dir / f"fallback-sm_{image.entry.arch}.cubin"
        cubin.write_bytes(image.entry.payload)
        try:
            listing = run([str(find_cuda_tool("cuobjdump")), "-sass", "-fun", kernel, str(cubin)], check=False)
        except CasscError:
            break  # no cuobjdump: PTX it is
        if listing.returncode == 0 and "Function" in listing.stdout:
            return "sass", listing.stdout
    return "ptx", ptx_function


def assembly_prompt(prompt_format: str, kind: str, code: str, kernel: str, reason: str,
                    param_size: int) -> str:
    language = "SASS" if kind == "sass" else "PTX"
    if prompt_format == "cass-assembly":
        return f"{CASS_ASSEMBLY_OPENING}\n```cudaasm\n{code.rstrip()}\n```"
    return "\n".join([
        f"Translate this CUDA kernel's {language} into AMD gfx1100 (RDNA3, wave32, code object v5) assembly for "
        "llvm-mc, with its .amdhsa_kernel descriptor and .amdgpu_metadata.",
        f"The kernel symbol must be `{kernel}`; its kernel arguments are CUDA's {param_size}-byte parameter "
        "buffer, byte for byte.",
        f"An automatic translator stopped at: {reason}",
        "Answer with the complete assembly in one ```amd block.",
        f"```\n{code.rstrip()}\n```",
    ])


def ask_for_kernel(fallback: Fallback, module: BinaryModule, kernel: str, ptx_function: str, reason: str,
                   param_size: int, work_dir: Path, lld: Path, offload_arch: str) -> ModelKernel:
    """The model's assembly for `kernel`, assembled and checked; AnswerRejected says why not."""
    from cassc.toolchain import run

    kind, code = kernel_code(module, kernel, ptx_function, work_dir)
    if len(code) > MAX_CODE_CHARS:
        raise AnswerRejected(f"the kernel's {kind.upper()} is longer than {MAX_CODE_CHARS} characters")
    backend = fallback.backend()
    prompt = assembly_prompt(backend.prompt_format, kind, code, kernel, reason, param_size)
    assembly = parse_answer(backend.generate(prompt, fallback.max_tokens, lambda _: None).text, ASSEMBLY_TAGS)
    stem = "".join(c if c.isalnum() else "_" for c in kernel)[-60:]
    source = work_dir / f"model-{stem}.s"
    source.write_text(assembly)
    obj = source.with_suffix(".o")
    assembled = run([str(fallback.clang), "-x", "assembler", "-target", "amdgcn-amd-amdhsa", f"-mcpu={offload_arch}", "-c",
                     str(source), "-o", str(obj)], check=False)
    if assembled.returncode != 0:
        raise AnswerRejected(f"its assembly does not assemble: {assembled.stderr.strip()[:300]}")
    alone = obj.with_suffix(".hsaco")
    linked = run([str(lld), "-m", "elf64_amdgpu", "--no-undefined", "-shared", str(obj), "-o", str(alone)],
                 check=False)
    if linked.returncode != 0:
        raise AnswerRejected(f"its code object does not link: {linked.stderr.strip()[:300]}")
    descriptor = kernel_descriptors(alone.read_bytes()).get(kernel)
    if descriptor is None:
        raise AnswerRejected(f"it defines no kernel named {kernel} (with a {kernel}.kd descriptor)")
    mismatch = descriptor.mismatch_with_cuda(param_size)
    if mismatch:
        raise AnswerRejected(f"its kernel {mismatch}")
    return ModelKernel(kernel, backend.name, alone.read_bytes(), descriptor)
