"""AMD GPU code objects (ELF, e_machine EM_AMDGPU): which GPU a code object was built for."""

from __future__ import annotations

import io

from elftools.elf.elffile import ELFFile

EM_AMDGPU = 224
EF_AMDGPU_MACH_MASK = 0xFF
# EF_AMDGPU_MACH values from LLVM's include/llvm/BinaryFormat/ELF.h (the targets cassc users meet).
MACH_NAMES = {
    0x02F: "gfx906", 0x030: "gfx908", 0x033: "gfx1010", 0x034: "gfx1011", 0x035: "gfx1012",
    0x036: "gfx1030", 0x037: "gfx1031", 0x038: "gfx1032", 0x039: "gfx1033", 0x03D: "gfx1035",
    0x03E: "gfx1034", 0x03F: "gfx90a", 0x041: "gfx1100", 0x042: "gfx1013", 0x043: "gfx1150",
    0x044: "gfx1103", 0x045: "gfx1036", 0x046: "gfx1101", 0x047: "gfx1102", 0x048: "gfx1200",
    0x04A: "gfx1151", 0x04C: "gfx942", 0x04E: "gfx1201", 0x055: "gfx1152",
}


def code_object_target(data: bytes) -> str:
    """"gfx1100" for a gfx1100 code object; raises ValueError for anything that is not one."""
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    elf = ELFFile(io.BytesIO(data))
    if elf["e_machine"] not in ("EM_AMDGPU", EM_AMDGPU):
        raise ValueError(f"not an AMD GPU code object (e_machine {elf['e_machine']})")
    mach = elf["e_flags"] & EF_AMDGPU_MACH_MASK
    return MACH_NAMES.get(mach, f"amdgpu-mach-0x{mach:03x}")
