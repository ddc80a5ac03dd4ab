"""AMD GPU code objects (ELF, e_machine EM_AMDGPU): which GPU a code object was built for, and what
its kernel descriptors say (LDS, scratch, kernarg size, registers)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cassc.formats.elf import SHN_LORESERVE, SHT_DYNSYM, SHT_SYMTAB, ElfFile, ElfFormatError

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


class CodeObjectError(ValueError):
    """Not a readable AMD GPU code object (a model's answer, say, assembled into something else)."""


def code_object_target(data: bytes) -> str:
    """"gfx1100" for a gfx1100 code object; raises CodeObjectError for anything that is not one."""
    if data[:4] != b"\x7fELF":
        raise CodeObjectError("not an ELF file")
    try:
        elf = ElfFile(data)
    except ElfFormatError as error:
        raise CodeObjectError(f"malformed ELF file ({error})") from error
    if elf.machine != EM_AMDGPU:
        raise CodeObjectError(f"not an AMD GPU code object (e_machine {elf.machine})")
    mach = elf.flags & EF_AMDGPU_MACH_MASK
    return MACH_NAMES.get(mach, f"amdgpu-mach-0x{mach:03x}")


# The 64-byte kernel descriptor `<kernel>.kd` (llvm/Support/AMDHSAKernelDescriptor.h).
# group_segment_fixed_size (static LDS bytes), private_segment_fixed_size (scratch bytes per work-item),
# kernarg_size, 4 reserved, kernel_code_entry_byte_offset, 20 reserved, compute_pgm_rsrc3, compute_pgm_rsrc1,
# compute_pgm_rsrc2, kernel_code_properties, kernarg_preload, 4 reserved
KERNEL_DESCRIPTOR = struct.Struct("<III4xq20xIIIHH4x")
WAVEFRONT_SIZE32 = 1 << 10


GFX1100_LDS_BYTES = 65536  # shared memory (LDS) of one workgroup
# Code object v5's hidden kernel arguments (block counts, group sizes, hostcall and heap pointers...): LLVM gives a
# kernel that reads any of them 256 bytes after its explicit arguments.
HIDDEN_ARGUMENT_BYTES = 256


@dataclass(frozen=True)
class KernelDescriptor:
    name: str
    lds_size: int
    scratch_size: int
    kernarg_size: int
    vgprs: int  # allocated VGPRs (granulated)
    sgprs: int

    @property
    def symbol(self) -> str:
        return f"{self.name}.kd"

    def mismatch_with_cuda(self, param_size: int) -> str | None:
        """Why this kernel cannot stand for a CUDA kernel taking `param_size` bytes of parameters, or None.
        The code object rounds its kernarg segment up to 4 bytes; the parameters' offsets are CUDA's. A kernel
        that calls the device library (printf's hostcall buffer, the device heap) also has code object v5's
        hidden arguments after them, from the next 8 bytes: HIP's runtime fills those itself."""
        with_hidden = -(-param_size // 8) * 8 + HIDDEN_ARGUMENT_BYTES
        if not param_size <= self.kernarg_size <= -(-param_size // 4) * 4 and self.kernarg_size != with_hidden:
            return f"takes {self.kernarg_size} bytes of kernel arguments on gfx1100 but {param_size} on CUDA"
        if self.lds_size > GFX1100_LDS_BYTES:
            return f"needs {self.lds_size} bytes of shared memory; a gfx1100 workgroup has {GFX1100_LDS_BYTES}"
        return None




def kernel_descriptors(data: bytes) -> dict[str, KernelDescriptor]:
    """The kernels of a linked code object, from their `.kd` symbols."""
    try:
        return _kernel_descriptors(ElfFile(data))
    except ElfFormatError as error:
        raise CodeObjectError(f"malformed code object ({error})") from error


def _kernel_descriptors(elf: ElfFile) -> dict[str, KernelDescriptor]:
    symbols = elf.section(".symtab") or elf.section(".dynsym")
    if symbols is None or symbols.type not in (SHT_SYMTAB, SHT_DYNSYM):
        raise CodeObjectError("code object has no symbol table")
    found = {}
    for symbol in elf.symbols(symbols):
        if not symbol.name.endswith(".kd") or symbol.size != KERNEL_DESCRIPTOR.size:
            continue
        if not symbol.defined or symbol.shndx >= SHN_LORESERVE:
            continue  # undefined or absolute: no descriptor in this code object
        if symbol.shndx >= len(elf.sections):
            raise CodeObjectError(f"kernel descriptor {symbol.name} is in section {symbol.shndx}, which does not exist")
        section = elf.sections[symbol.shndx]
        start = symbol.value - section.addr
        contents = elf.section_data(section)
        if not 0 <= start <= len(contents) - KERNEL_DESCRIPTOR.size:
            raise CodeObjectError(f"kernel descriptor {symbol.name} at {symbol.value:#x} lies outside its section "
                                  f"{section.name or symbol.shndx}")
        (lds_size, scratch_size, kernarg_size, _, _, rsrc1, _, properties,
         _) = KERNEL_DESCRIPTOR.unpack_from(contents, start)
        wave32 = bool(properties & WAVEFRONT_SIZE32)
        vgpr_granule = 8 if wave32 else 4  # gfx10+: 8 VGPRs per block in wave32 mode, 4 in wave64
        name = symbol.name[:-3]
        found[name] = KernelDescriptor(name, lds_size, scratch_size, kernarg_size, ((rsrc1 & 0x3F) + 1) * vgpr_granule,
                                       ((rsrc1 >> 6) & 0xF) * 8)
    return found
