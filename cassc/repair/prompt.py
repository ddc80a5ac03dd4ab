"""What the model is asked, and how its answer is read.

Every prompt is a single user message. The CASS models were fine-tuned on "Convert the following CUDA
code to AMD GPU code:" with the code in a ```cuda block, answering in an ```amd block (CASS README); cassc
keeps that opening verbatim and adds the compiler's errors and the renames hipify applied after it.
General instruct models get an explicit repair instruction. The answer is untrusted text: only the
code block is taken, and only up to a size limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cassc.errors import CasscError

MAX_ANSWER_CHARS = 64 * 1024  # the whole answer: beyond this the generation is cut off and rejected
MAX_DIAGNOSTIC_CHARS = 4000
MAX_HINTS = 40

CASS_SOURCE_OPENING = "Convert the following CUDA code to AMD GPU code:"


class AnswerRejected(CasscError):
    """A model answer cassc will not use; the message says why."""


@dataclass(frozen=True)
class RepairRequest:
    code: str  # the failing region as the compiler saw it (hipified)
    diagnostics: str  # the compiler's errors in that region
    renames: tuple[tuple[str, str], ...]  # (CUDA name, HIP name) hipify applied in the region
    unmapped: tuple[str, ...]  # CUDA-looking names hipify has no rename for
    rejection: str = ""  # why cassc did not use the previous answer for this code


def repair_prompt(prompt_format: str, request: RepairRequest) -> str:
    diagnostics = request.diagnostics[:MAX_DIAGNOSTIC_CHARS]
    hints = ", ".join(f"{cuda} -> {hip}" for cuda, hip in request.renames[:MAX_HINTS])
    context = [f"The AMD compiler (clang, HIP, gfx1100) reports:\n```\n{diagnostics.rstrip()}\n```"]
    if hints:
        context.append(f"CUDA to HIP renames already applied: {hints}.")
    if request.unmapped:
        context.append(f"Names with no known HIP equivalent: {', '.join(request.unmapped[:MAX_HINTS])}.")
    if request.rejection:
        context.append(f"A previous answer was not used because {request.rejection}.")
    keep = ("Change only the lines these errors point at; keep every string literal, every output stream "
            "(printf, std::cout, std::cerr) and all other code exactly as it is.")
    if prompt_format == "cass-source":
        return "\n".join([f"{CASS_SOURCE_OPENING}\n```cuda\n{request.code.rstrip()}\n```", *context, keep])
    if prompt_format == "instruct":
        return "\n".join([
            "This code was translated from CUDA to HIP for an AMD GPU and fails to compile.", *context, keep,
            "Answer with the complete corrected code in one ```amd block.",
            f"```cuda\n{request.code.rstrip()}\n```",
        ])
    raise AnswerRejected(f"prompt format '{prompt_format}' is not for source repair (use a source model)")


_FENCE = re.compile(r"```[ \t]*(?P<tag>[A-Za-z0-9+_-]*)[^\n]*\n(?P<code>.*?)```", re.DOTALL)
_PREFERRED_TAGS = ("amd", "hip", "cpp", "c++", "cuda", "")
# An assembly answer: the CASS assembly models' ```hipasm block, else ```amd (cassc's instruction to
# instruct models), ```asm or an untagged block.
ASSEMBLY_TAGS = ("hipasm", "amd", "asm", "")


def parse_answer(answer: str, preferred: tuple[str, ...] = _PREFERRED_TAGS) -> str:
    """The code of the answer's block of the first `preferred` tag that it has (by default ```amd, else
    ```hip, ```cpp, ```cuda, or an untagged block)."""
    if len(answer) > MAX_ANSWER_CHARS:
        raise AnswerRejected(f"the answer is longer than {MAX_ANSWER_CHARS} characters")
    blocks: dict[str, str] = {}
    for match in _FENCE.finditer(answer):
        blocks[match.group("tag").lower()] = match.group("code")  # the last block of a kind wins, as in CASS
    for tag in preferred:
        if tag in blocks:
            return blocks[tag]
    raise AnswerRejected(f"the answer holds no complete ```{preferred[0]} code block")
