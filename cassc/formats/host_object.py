"""What HIP puts into host ELF objects and executables, read with formats/elf.py.

- `-fgpu-rdc` objects carry device bitcode in `__CLANG_OFFLOAD_BUNDLE__<triple>` sections and refer to
  `__hip_fatbin_<cuid>` / `__hip_gpubin_handle_<cuid>`, which a device link must define.
- Linked (or whole-program) device code lives in `.hip_fatbin` as offload bundles.
- nvcc's device code lives in `.nv_fatbin` (whole-program) or `__nv_relfatbin` (-rdc) as CUDA fatbin
  containers (formats/cuda_fatbin.py); the host stub of each kernel is a function named like the
  kernel's mangled device name.
"""

from __future__ import annotations

from dataclasses import dataclass

from cassc.formats.elf import SHT_DYNSYM, SHT_NOBITS, SHT_SYMTAB, STB_GLOBAL, STB_WEAK, STT_FUNC, ElfFile, ElfFormatError
from cassc.formats.offload_bundle import BundleEntry, read_bundles

OFFLOAD_SECTION_PREFIX = "__CLANG_OFFLOAD_BUNDLE__"
HIP_FATBIN_SECTION = ".hip_fatbin"
CUDA_FATBIN_SECTIONS = (".nv_fatbin", "__nv_relfatbin")  # device code nvcc put there
FATBIN_SYMBOL_PREFIX = "__hip_fatbin_"
CUID_SYMBOL_PREFIX = "__hip_cuid_"
LINKED_REGISTRATION_PREFIX = "__cudaRegisterLinkedBinary_"


class HostObjectError(ValueError):
    pass


@dataclass(frozen=True)
class HostObject:
    device_sections: dict[str, bytes]  # offload triple -> device code (bitcode for -fgpu-rdc)
    cuids: tuple[str, ...]  # compilation-unit ids of -fgpu-rdc translation units
    undefined_fatbins: tuple[str, ...]  # `__hip_fatbin_<cuid>` this object needs from a device link
    defined_fatbins: tuple[str, ...]
    hip_fatbin: bytes  # contents of .hip_fatbin ("" if none)
    cuda_fatbins: tuple[tuple[str, bytes], ...]  # (section name, contents) of nvcc's fatbin sections
    functions: frozenset[str]  # names of the functions this file defines (host stubs among them)
    # -rdc objects register through `__cudaRegisterLinkedBinary_<module id>`, which nvcc's device link defines
    linked_registrations: tuple[str, ...] = ()
    # global and weak symbols it defines and global ones it needs: what decides whether a link takes an archive member
    defined_globals: frozenset[str] = frozenset()
    undefined_globals: frozenset[str] = frozenset()

    @property
    def has_cuda_device_code(self) -> bool:
        """Built by NVIDIA's nvcc: its device code is for NVIDIA GPUs."""
        return bool(self.cuda_fatbins)

    def bundle_entries(self) -> list[BundleEntry]:
        return read_bundles(self.hip_fatbin) if self.hip_fatbin else []


def read_host_object(data: bytes, name: str = "<object>") -> HostObject:
    try:
        elf = ElfFile(data)
        device_sections: dict[str, bytes] = {}
        hip_fatbin = b""
        cuda_fatbins: list[tuple[str, bytes]] = []
        functions: set[str] = set()
        linked: list[str] = []
        cuids: list[str] = []
        undefined: list[str] = []
        defined: list[str] = []
        defined_globals: set[str] = set()
        undefined_globals: set[str] = set()
        for section in elf.sections:
            if section.name.startswith(OFFLOAD_SECTION_PREFIX):
                triple = section.name[len(OFFLOAD_SECTION_PREFIX):]
                if not triple.startswith("host-"):
                    device_sections[triple] = elf.section_data(section)
            elif section.name in CUDA_FATBIN_SECTIONS and section.size > 0 and section.type != SHT_NOBITS:
                cuda_fatbins.append((section.name, elf.section_data(section)))
            elif section.name == HIP_FATBIN_SECTION and section.type != SHT_NOBITS:
                hip_fatbin = elf.section_data(section)
            elif section.type in (SHT_SYMTAB, SHT_DYNSYM):
                for symbol in elf.symbols(section):
                    if symbol.type == STT_FUNC and symbol.defined:
                        functions.add(symbol.name)
                    # A weak reference pulls in no archive member; a weak definition satisfies references.
                    if symbol.name and not symbol.defined and symbol.bind == STB_GLOBAL:
                        undefined_globals.add(symbol.name)
                    elif symbol.name and symbol.defined and symbol.bind in (STB_GLOBAL, STB_WEAK):
                        defined_globals.add(symbol.name)
                    if symbol.name.startswith(LINKED_REGISTRATION_PREFIX) and not symbol.defined:
                        linked.append(symbol.name)
                    if symbol.name.startswith(CUID_SYMBOL_PREFIX):
                        cuids.append(symbol.name[len(CUID_SYMBOL_PREFIX):])
                    elif symbol.name.startswith(FATBIN_SYMBOL_PREFIX) and symbol.name != "__hip_fatbin_wrapper":
                        (defined if symbol.defined else undefined).append(symbol.name)
    except ElfFormatError as error:
        raise HostObjectError(f"{name}: not a readable ELF object ({error})") from error
    return HostObject(device_sections, tuple(dict.fromkeys(cuids)), tuple(dict.fromkeys(undefined)),
                      tuple(dict.fromkeys(defined)), hip_fatbin, tuple(cuda_fatbins), frozenset(functions),
                      tuple(dict.fromkeys(linked)), frozenset(defined_globals), frozenset(undefined_globals))
