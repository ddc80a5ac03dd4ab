"""Which nvcc-built inputs a link takes, as the linkers would: every object, and only the static library
members the link pulls in.

A host linker takes an archive member when it defines a symbol that is still undefined; the archives are
scanned again until nothing more is taken (as if grouped: a member that only a later member needs is
taken too, where `ld` would need the archive named twice; a link `ld` accepts takes the same members).
nvcc's device link (nvlink) adds the `-rdc` members whose device code defines a device function or
variable that taken `-rdc` device code declares `.extern`. A member nothing needs is not translated: a
kernel the lifter refuses there, or NVIDIA's own libcudadevrt.a on the line, costs nothing.
"""

from __future__ import annotations

import re

from cassc.binary.extract import BinaryModule
from cassc.binary.translate import is_separate
from cassc.errors import InputError
from cassc.formats.host_object import HostObject

# PTX module-scope declarations: `.extern .func (.param .b32 r) name(` or `.visible .global .align 4 .b32 name[4];`
_PTX_FUNCTION = re.compile(r"^\s*(\.extern|\.visible|\.weak)\s+\.func\s+(?:\([^)]*\)\s*)?([\w$.]+)", re.MULTILINE)
_PTX_VARIABLE = re.compile(
    r"^\s*(\.extern|\.visible|\.weak)\s+\.(?:global|const)\b[^;=]*?([\w$.]+)\s*(?:\[[^\]]*\]\s*)*[;=]", re.MULTILINE)


# A kernel launch in device code (dynamic parallelism) calls the device runtime's launch ABI, which NVIDIA's
# libcudadevrt.a implements: cudaGetParameterBuffer[V2] / cudaLaunchDevice[V2], __cudaCDP2* since CUDA 12.
_DEVICE_LAUNCH_API = re.compile(r"(?:__cudaCDP2|cuda)(?:GetParameterBuffer|LaunchDevice)(?:V2)?")


def refuse_device_side_launches(modules: list[BinaryModule]) -> None:
    """Dynamic parallelism has no translation: say so by name, before NVIDIA's device runtime is lifted."""
    for module in modules:
        calls = sorted(name for name in _device_symbols(module)[1] if _DEVICE_LAUNCH_API.fullmatch(name))
        if calls:
            raise InputError(f"{module.origin} launches kernels from device code (dynamic parallelism: "
                             f"{', '.join(calls)}), which cassc does not translate")


def taken_by_host_link(hosts: list[tuple[str, HostObject]], members: set[str]) -> set[str]:
    """The names in `hosts` the link takes: every object, and each archive member (`members`) that defines a
    symbol something taken leaves undefined."""
    taken = {name for name, _ in hosts if name not in members}
    defined = set().union(*(host.defined_globals for name, host in hosts if name in taken))
    undefined = set().union(*(host.undefined_globals for name, host in hosts if name in taken)) - defined
    pending = [(name, host) for name, host in hosts if name in members]
    while True:
        pulled = [(name, host) for name, host in pending if host.defined_globals & undefined]
        if not pulled:
            return taken
        for name, host in pulled:
            taken.add(name)
            defined |= host.defined_globals
            undefined = (undefined | host.undefined_globals) - defined
        pending = [(name, host) for name, host in pending if name not in taken]


def _device_symbols(module: BinaryModule) -> tuple[set[str], set[str]]:
    """(defined, declared extern) device functions and variables of a module's PTX."""
    ptx = module.best_ptx() or ""
    defined: set[str] = set()
    needed: set[str] = set()
    for pattern in (_PTX_FUNCTION, _PTX_VARIABLE):
        for linkage, name in pattern.findall(ptx):
            (needed if linkage == ".extern" else defined).add(name)
    return defined, needed - defined


def taken_modules(modules: list[BinaryModule], taken: set[str]) -> list[BinaryModule]:
    """The modules the link takes: those of taken inputs, and the `-rdc` members whose device code taken
    `-rdc` device code needs (nvlink's rule), in their original order."""
    chosen = {m.origin for m in modules if m.origin in taken}
    separate = [m for m in modules if is_separate(m)]
    symbols = {m.origin: _device_symbols(m) for m in separate}
    while True:
        needed = set().union(*(symbols[m.origin][1] for m in separate if m.origin in chosen))
        provided = {m.origin for m in separate if m.origin not in chosen and symbols[m.origin][0] & needed}
        if not provided:
            return [m for m in modules if m.origin in chosen]
        chosen |= provided
