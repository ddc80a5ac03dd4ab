"""AMD GPU code objects (ELF, e_machine EM_AMDGPU): which GPU a code object was built for."""

from __future__ import annotations

import io

from elftools.elf.elffile import ELFFile

EM_AMDGPU = 224
EF_AMDGPU_MACH_MASK = 0xFF
# EF_AMDGPU_MACH values from LLVM's ELF.h (the ones cassc users meet).
MACH_NAMES = {
    0x02C: "gfx906", 0x02F: "gfx908", 0x030: "gfx90a", 0x033: "gfx1010", 0x036: "gfx1030",
    0x037: "gfx1031", 0x040: "gfx942", 0x041: "gfx1100", 0x042: "gfx1101", 0x043: "gfx1102",
    0x044: "gfx1103", 0x048: "gfx1150", 0x049: "gfx1151", 0x04C: "gfx1200", 0x04E: "gfx1201",
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
