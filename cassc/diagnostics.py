"""clang's diagnostics as an nvcc user reads them.

clang compiles a CUDA unit twice (host and device pass) and reports each warning in both; nvcc reports
it once. `-Rpass-analysis=kernel-resource-usage` (cassc's -Xptxas -v) prints a remark per figure, each
with a source snippet and "could not determine the original source location" notes; nvcc prints one
`ptxas info` block per kernel. `present` turns the one into the other, a pure function of the text, so
its result can be stored with a cached object and replayed on a hit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# `file:line:col: kind: text` (or `clang: kind: text`): the first line of one diagnostic.
_HEADER = re.compile(r"^(?:\S[^:]*:(?:\d+:(?:\d+:)?)? ?)?(warning|error|fatal error|note|remark): ")
_RESOURCE_REMARK = re.compile(r"remark: (.+?): (.*?) \[-Rpass-analysis=kernel-resource-usage\]$")
_LOCATION_NOTE = "could not determine the original source location"
_WARNING_COUNT = re.compile(r"^\d+ warnings? generated( when compiling for \S+)?\.$")


@dataclass
class KernelResources:
    name: str
    figures: dict[str, str] = field(default_factory=dict)

    def ptxas_lines(self, arch: str) -> list[str]:
        """nvcc's -Xptxas -v block, with what gfx1100 reports in place of what an NVIDIA GPU would."""
        get = self.figures.get
        lines = [f"ptxas info    : Compiling entry function '{self.name}' for '{arch}'",
                 f"ptxas info    : Function properties for {self.name}",
                 f"    {get('ScratchSize [bytes/lane]', '0')} bytes stack frame, "
                 f"{get('VGPRs Spill', '0')} VGPR spills, {get('SGPRs Spill', '0')} SGPR spills"
                 + (", dynamic stack" if get("Dynamic Stack") == "True" else "")]
        used = [f"Used {get('VGPRs', '?')} registers", f"{get('SGPRs', get('TotalSGPRs', '?'))} SGPRs",  # clang 21 says TotalSGPRs
                f"{get('LDS Size [bytes/block]', '0')} bytes smem"]
        if "AGPRs" in self.figures:
            used.append(f"{get('AGPRs')} AGPRs")
        used.append(f"occupancy {get('Occupancy [waves/SIMD]', '?')} waves/SIMD")
        return lines + ["ptxas info    : " + ", ".join(used)]


def _units(text: str) -> list[list[str]]:
    """The diagnostics as units: a warning or error with its snippet and the notes that follow it."""
    units: list[list[str]] = []
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header and (header.group(1) != "note" or not units) or _WARNING_COUNT.match(line):
            units.append([line])
        elif units:
            units[-1].append(line)
        else:
            units.append([line])
    return units


def present(text: str, arch: str = "gfx1100") -> str:
    """Each diagnostic once, no warning counts, resource remarks folded into ptxas blocks."""
    kernels: list[KernelResources] = []
    seen: set[str] = set()
    shown: list[str] = []
    for unit in _units(text):
        remark = _RESOURCE_REMARK.search(unit[0])
        if remark:
            key, value = remark.group(1).strip(), remark.group(2).strip()
            if key == "Function Name":
                kernels.append(KernelResources(value))
            elif kernels:
                kernels[-1].figures[key] = value
            continue
        if _LOCATION_NOTE in unit[0] or _WARNING_COUNT.match(unit[0]):
            continue
        kept = [line for line in unit if _LOCATION_NOTE not in line]
        block = "\n".join(kept)
        if block in seen:
            continue
        seen.add(block)
        shown += kept
    for kernel in kernels:
        shown += kernel.ptxas_lines(arch)
    return "".join(line + "\n" for line in shown)
