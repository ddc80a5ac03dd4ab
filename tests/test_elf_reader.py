"""cassc/formats/elf.py reads the sections and symbols that pyelftools reads, from what nvcc, clang and the
system's linker write; and a damaged file is an ElfFormatError, never another exception."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection
from elftools.elf.sections import SymbolTableSection

from cassc.formats.elf import SHT_DYNSYM, SHT_REL, SHT_RELA, SHT_SYMTAB, ElfFile, ElfFormatError

NVCC = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
SOURCE = "__global__ void k(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }\n" \
         "int main() { k<<<1, 1>>>(nullptr, 0); return 0; }\n"


def pyelftools_view(path: Path) -> tuple[list[tuple], list[tuple]]:
    with path.open("rb") as handle:
        elf = ELFFile(handle)
        sections = [(s.name, s["sh_offset"], s["sh_size"], s["sh_addr"], s["sh_link"]) for s in elf.iter_sections()]
        symbols = [(s.name, s["st_value"], s["st_size"], s["st_info"]["type"], s["st_info"]["bind"],
                    s["st_shndx"] if isinstance(s["st_shndx"], int) else 0 if s["st_shndx"] == "SHN_UNDEF" else -1)
                   for table in elf.iter_sections() if isinstance(table, SymbolTableSection)
                   for s in table.iter_symbols()]
    return sections, symbols


TYPES = {0: "STT_NOTYPE", 1: "STT_OBJECT", 2: "STT_FUNC", 3: "STT_SECTION", 4: "STT_FILE", 5: "STT_COMMON",
         6: "STT_TLS", 10: "STT_LOOS"}
BINDS = {0: "STB_LOCAL", 1: "STB_GLOBAL", 2: "STB_WEAK", 10: "STB_LOOS"}


def cassc_view(path: Path) -> tuple[list[tuple], list[tuple]]:
    elf = ElfFile(path.read_bytes())
    sections = [(s.name, s.offset, s.size, s.addr, s.link) for s in elf.sections]
    symbols = [(s.name, s.value, s.size, TYPES.get(s.type, s.type), BINDS.get(s.bind, s.bind),
                s.shndx if s.shndx < 0xFF00 else -1)
               for table in elf.sections if table.type in (SHT_SYMTAB, SHT_DYNSYM) for s in elf.symbols(table)]
    return sections, symbols


@pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")
def test_sections_and_symbols_of_an_nvcc_object_and_its_cubin(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(SOURCE)
    subprocess.run([NVCC, "-arch=sm_80", "-c", "k.cu", "-o", "k.o"], cwd=tmp_path, check=True)
    subprocess.run([NVCC, "-arch=sm_80", "-cubin", "k.cu", "-o", "k.cubin"], cwd=tmp_path, check=True)
    for name in ("k.o", "k.cubin"):
        assert cassc_view(tmp_path / name) == pyelftools_view(tmp_path / name), name
    assert any(s[0] == "_Z1kPfi" for s in cassc_view(tmp_path / "k.cubin")[1])


@pytest.mark.skipif(not Path(NVCC).exists(), reason="NVIDIA's nvcc is not installed")
@pytest.mark.parametrize("arch", [80, 90])
def test_relocations_of_relocatable_cubins_and_host_objects(tmp_path: Path, arch: int) -> None:
    """REL (sm_80's cubins) and RELA (sm_90's; x86-64 objects) records, as pyelftools reads them."""
    (tmp_path / "r.cu").write_text("__constant__ float c[4];\n__device__ int d;\nextern __device__ float f(float);\n"
                                   "__global__ void k(float *x) { x[threadIdx.x] = f(x[0]) + c[threadIdx.x & 3] + d; }\n")
    subprocess.run([NVCC, f"-arch=sm_{arch}", "-dc", "r.cu", "-o", "r.o"], cwd=tmp_path, check=True)
    subprocess.run([NVCC, f"-arch=sm_{arch}", "-dc", "-cubin", "r.cu", "-o", "r.cubin"], cwd=tmp_path, check=True)
    for name in ("r.o", "r.cubin"):
        with (tmp_path / name).open("rb") as handle:
            reference = [[(r["r_offset"], r["r_info_sym"], r["r_info_type"], r["r_addend"] if t.is_RELA() else None)
                          for r in t.iter_relocations()]
                         for t in ELFFile(handle).iter_sections() if isinstance(t, RelocationSection)]
        elf = ElfFile((tmp_path / name).read_bytes())
        ours = [[(r.offset, r.symbol, r.type, r.addend) for r in elf.relocations(t)]
                for t in elf.sections if t.type in (SHT_REL, SHT_RELA)]
        assert ours == reference and any(ours), name


def test_sections_and_symbols_of_a_shared_library() -> None:
    libc = next(p for p in (Path("/lib/x86_64-linux-gnu/libc.so.6"), Path("/usr/lib64/libc.so.6"),
                            Path("/lib64/libc.so.6")) if p.exists())
    sections, symbols = cassc_view(libc)
    assert (sections, symbols) == pyelftools_view(libc)
    assert any(s[0] == "malloc" for s in symbols)  # from .dynsym


def test_program_headers_and_dynamic_entries_of_a_shared_library_and_an_executable() -> None:
    from elftools.elf.dynamic import DynamicSection

    from cassc.formats.elf import map_elf_file

    for path in (Path("/bin/true"), Path("/lib/x86_64-linux-gnu/libc.so.6")):
        with path.open("rb") as handle:
            elf = ELFFile(handle)
            segments = [segment["p_type"] for segment in elf.iter_segments()]
            dynamic = next(s for s in elf.iter_sections() if isinstance(s, DynamicSection))
            needed = [tag.needed for tag in dynamic.iter_tags() if tag.entry.d_tag == "DT_NEEDED"]
        mapped = map_elf_file(path)
        assert [("PT_INTERP" if t == 3 else t) for t in mapped.segment_types()].count("PT_INTERP") == \
            segments.count("PT_INTERP"), path
        assert len(mapped.segment_types()) == len(segments), path
        assert [v for t, v in mapped.dynamic_entries() if t == 1] == needed, path
    assert any(v == "libc.so.6" for t, v in map_elf_file(Path("/bin/true")).dynamic_entries() if t == 1)


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:40], "the ELF header at 0x0 run past the end of the file"),
    (lambda d: d[:0x28] + struct.pack("<Q", 1 << 63) + d[0x30:], "section headers at 0x8000000000000000"),
    (lambda d: d[:0x3A] + struct.pack("<H", 32) + d[0x3C:], "section headers of 32 bytes"),
    (lambda d: d[:4] + b"\x03" + d[5:], "unknown ELF class 3"),
])
def test_a_damaged_header_is_an_elf_format_error(tmp_path: Path, damage, message: str) -> None:  # type: ignore[no-untyped-def]
    data = Path("/bin/true").read_bytes()
    ElfFile(data)
    with pytest.raises(ElfFormatError, match=message):
        ElfFile(damage(data))
