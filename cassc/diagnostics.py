"""clang's diagnostics as an nvcc user reads them.

clang compiles a CUDA unit twice (host and device pass) and reports each warning in both; nvcc reports
it once. `-Rpass-analysis=kernel-resource-usage` (cassc's -Xptxas -v) prints a remark per figure, each
with a source snippet and "could not determine the original source location" notes; nvcc prints one
`ptxas info` block per kernel. `present` turns the one into the other, a pure function of the text, so
its result can be stored with a cached object and replayed on a hit. Before it, `restore_source_lines`
puts the user's own line (not the hipified mirror's) under each location; after it, `promote_warnings`
gives `-Werror all-warnings` nvcc's scope.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Callable

# `file:line:col: kind: text` (or `clang: kind: text`): the first line of one diagnostic.
_HEADER = re.compile(r"^(?:\S[^:]*:(?:\d+:(?:\d+:)?)? ?)?(warning|error|fatal error|note|remark): ")
_RESOURCE_REMARK = re.compile(r"remark: (.+?): (.*?) \[-Rpass-analysis=kernel-resource-usage\]$")
_LOCATION_NOTE = "could not determine the original source location"
# clang's words for a name it does not know, where the name is one of CUDA's (runtime, driver, libraries)
_MISSING_NAME = re.compile(r"^(?P<where>.*?)error: (?:use of undeclared identifier|unknown type name|no type named|"
                           r"no member named|use of undeclared label) '(?P<name>(?:cuda|cu[A-Z]|CU_|CUDA_|cublas|"
                           r"cusparse|curand|cufft|cusolver|nvrtc|nvml|NVML_|cudnn|nccl|CUBLAS|CUSPARSE|CURAND|CUFFT|CUSOLVER|CUDNN_|"
                           r"NCCL_)\w*)'")
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


_LOCATED = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):(?P<column>\d+): (?:warning|error|fatal error|note|remark): ")
_SNIPPET = re.compile(r"^(?P<gutter> *(?P<line>\d+) \| )(?P<text>.*)$")
_UNDERLINE = re.compile(r"^(?P<gutter> +\| )(?P<marks>[ ~^]*)$")


_TOKEN = re.compile(r"\w+|\s+|.")


def _column_map(mirror: str, original: str) -> tuple[Callable[[int], tuple[int, int]], dict[str, str]]:
    """Mirror column (0-based) -> the original's span (start, end) for the text at that column: the same
    character where hipify left the text alone, the whole original token(s) where it rewrote some.
    Compared token by token, as hipify renames whole identifiers; also the renames seen (mirror
    identifier -> the user's)."""
    mirror_tokens = [m.span() for m in _TOKEN.finditer(mirror)]
    original_tokens = [m.span() for m in _TOKEN.finditer(original)]
    matcher = difflib.SequenceMatcher(None, [mirror[a:b] for a, b in mirror_tokens],
                                      [original[a:b] for a, b in original_tokens], autojunk=False)
    spans: list[tuple[int, int, int, int, bool]] = []  # mirror start/end -> original start/end, equal?
    renames: dict[str, str] = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1 == 1:
            renames[mirror[slice(*mirror_tokens[i1])]] = original[slice(*original_tokens[j1])]
        mirror_start = mirror_tokens[i1][0] if i1 < len(mirror_tokens) else len(mirror)
        mirror_end = mirror_tokens[i2 - 1][1] if i2 > i1 else mirror_start
        original_start = original_tokens[j1][0] if j1 < len(original_tokens) else len(original)
        original_end = original_tokens[j2 - 1][1] if j2 > j1 else original_start
        spans.append((mirror_start, mirror_end, original_start, original_end, tag == "equal"))

    def span(column: int) -> tuple[int, int]:
        for mirror_start, mirror_end, original_start, original_end, equal in spans:
            if mirror_start <= column < mirror_end:
                if equal:
                    return original_start + column - mirror_start, original_start + column - mirror_start + 1
                return original_start, max(original_end, original_start + 1)
        return len(original), len(original) + 1

    return span, renames


def restore_source_lines(text: str, original_line: Callable[[str, int], str | None]) -> str:
    """Snippets as the user wrote them. clang quotes the line it compiled (the hipified mirror's: e.g.
    `hipHostMalloc`), under a location that #line already maps to the user's file and line; the quoted
    line, the caret and tilde marks under it and the header's column are mapped back to the text of
    `original_line(file, line)` (None: leave the diagnostic alone)."""
    lines = text.splitlines()
    shown: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        located = _LOCATED.match(line)
        snippet = _SNIPPET.match(lines[index + 1]) if located and index + 1 < len(lines) else None
        original = (original_line(located["file"], int(located["line"]))
                    if located and snippet and snippet["line"] == located["line"] else None)
        if original is None or snippet is None or located is None:
            shown.append(line)
            index += 1
            continue
        raw = original
        original = raw.expandtabs(8)  # clang expands tabs in what it quotes
        mirror = snippet["text"]
        span, renames = _column_map(mirror, original)
        column = int(located["column"])
        # The header's column counts bytes, a tab as one. Tabs in the indentation (hipify leaves it alone)
        # shift both lines alike; a tab further on would need the mirror's raw line: the column stays.
        indent = len(raw) - len(raw.lstrip(" \t"))
        if "\t" not in raw[indent:] and original != mirror:
            shift = len(raw[:indent].expandtabs(8)) - indent
            column = span(column - 1 + shift)[0] - shift + 1
        message = line[located.end("column"):]
        for hipified, written in renames.items():  # clang quotes names as 'name'
            message = message.replace(f"'{hipified}'", f"'{written}'")
        shown.append(f"{located['file']}:{located['line']}:{column}{message}")
        shown.append(snippet["gutter"] + original)
        underline = _UNDERLINE.match(lines[index + 2]) if index + 2 < len(lines) else None
        index += 2
        if underline:
            marks = [" "] * (len(original) + 1)
            for position, mark in enumerate(underline["marks"]):
                if mark != " ":
                    start, end = span(position)
                    for target in range(start, min(end, len(marks))):
                        caret = mark == "^" and target == start
                        marks[target] = "^" if caret or marks[target] == "^" else "~"
            shown.append(underline["gutter"] + "".join(marks).rstrip())
            index += 1
    return "".join(line + "\n" for line in shown)


_WARNING_HEADER = re.compile(r"^(.*?)\bwarning: (.*?)(?: \[-W([^\],]+)(?:,[^\]]*)?\])?$")


def promote_warnings(text: str, in_scope: Callable[[str | None], bool]) -> tuple[str, int]:
    """nvcc's `-Werror all-warnings`: the warnings `in_scope` accepts (by clang warning group) become errors,
    spelled as clang spells an -Werror error. Returns the text and how many were promoted."""
    promoted = 0
    lines = []
    for line in text.splitlines():
        warning = _WARNING_HEADER.match(line) if _HEADER.match(line) else None
        if warning and in_scope(warning.group(3)):
            promoted += 1
            group = f" [-Werror,-W{warning.group(3)}]" if warning.group(3) else ""
            line = f"{warning.group(1)}error: {warning.group(2)}{group}"
        lines.append(line)
    return "".join(line + "\n" for line in lines), promoted


def _name_missing_api(unit: list[str]) -> list[str]:
    """A CUDA name clang does not know is one hipify has no HIP counterpart for: cassc's one line naming
    it, in place of clang's "undeclared identifier" and its guesses at HIP names (`did you mean`, notes)."""
    missing = _MISSING_NAME.match(unit[0])
    if missing is None:
        return unit
    header = f"{missing['where']}error: '{missing['name']}' is a CUDA API with no HIP counterpart: cassc cannot build it for AMD GPUs"
    snippet: list[str] = []  # the user's line and the caret under it; not clang's fix-it or notes
    for line in unit[1:]:
        if _HEADER.match(line) or len(snippet) == 2:
            break
        snippet.append(line)
    return [header] + snippet


# HIP's cooperative groups stop a tile wider than the wavefront with a static assertion inside their header, then
# more errors about the half-built class; CUDA (sm_80+, or with block_tile_memory) has tiles of up to 1024 threads.
_WIDE_TILE = re.compile(r"error: static assertion failed.*(?:greater than the wavefront size|size > wavefront size)")
_REQUESTED = re.compile(r"^(?P<where>[^:\s][^:]*:\d+:\d+: )note: in instantiation of .*?"
                        r"(?:thread_block_tile|tiled_partition)<(?P<size>\d+)U?\b.*requested here$")
_HIP_GROUPS_HEADER = "hip_cooperative_groups.h"


def _name_wide_tile(unit: list[str]) -> list[str] | None:
    """HIP's assertion on a tile wider than the wavefront as cassc's one error at the user's line that asks for
    it (the last instantiation note outside HIP's header); None for any other diagnostic."""
    if not _WIDE_TILE.search(unit[0]):
        return None
    requested = [match for line in unit[1:] if (match := _REQUESTED.match(line)) and _HIP_GROUPS_HEADER not in line]
    if not requested:
        return None
    where, size = requested[-1]["where"], requested[-1]["size"]
    return [f"{where}error: a cooperative_groups tile of {size} threads: AMD GPUs have no tiles wider than a wavefront "
            "(32 threads on gfx10/gfx11, 64 on gfx9), where CUDA's tiles reach 1024 threads: cassc cannot build it"]


def present(text: str, arch: str = "gfx1100") -> str:
    """Each diagnostic once, no warning counts, resource remarks folded into ptxas blocks, CUDA names
    without a HIP counterpart named as such."""
    kernels: list[KernelResources] = []
    seen: set[str] = set()
    shown: list[str] = []
    wide_tile_named = False
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
        wide_tile = _name_wide_tile(unit)
        if wide_tile is None and wide_tile_named and _HIP_GROUPS_HEADER in unit[0]:
            continue  # what else HIP's header says about a tile it refused
        wide_tile_named = wide_tile_named or wide_tile is not None
        kept = wide_tile or [line for line in _name_missing_api(unit) if _LOCATION_NOTE not in line]
        block = "\n".join(kept)
        if block in seen:
            continue
        seen.add(block)
        shown += kept
    for kernel in kernels:
        shown += kernel.ptxas_lines(arch)
    return "".join(line + "\n" for line in shown)
