"""Finding the CUDA device code in host files: objects, static libraries, shared libraries, executables.

Each ELF file (or `.a` member) that nvcc built has one or more fatbin sections, each with one or more
containers of PTX and cubin entries. A kernel is described by its cubin (`.nv.info` parameter layout,
shared memory, registers) and by the PTX `.entry` of the same name; its host stub is the host function
of the same (mangled) name, which `__cudaRegisterFunction` registers.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from cassc.errors import InputError, ToolchainError
from cassc.formats.archive import ArchiveFormatError, is_archive, read_archive
from cassc.formats.cubin import CubinFormatError, KernelParam, read_cubin
from cassc.formats.cuda_fatbin import FatbinEntry, FatbinFormatError, read_containers
from cassc.formats.host_object import HostObjectError, read_host_object

PTX_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$.]+)", re.MULTILINE)
CUDA_TOOL_DIRS = (Path("/usr/local/cuda/bin"),)


@dataclass(frozen=True)
class DeviceImage:
    section: str  # .nv_fatbin or __nv_relfatbin
    container: int  # index of the container in its section
    entry: FatbinEntry


@dataclass(frozen=True)
class Kernel:
    name: str  # mangled device name
    host_stub: str | None  # the host function registered for it, when this file defines it
    params: tuple[KernelParam, ...]  # from the cubin; empty when only PTX describes the kernel
    param_size: int
    shared_size: int
    registers: int
    sass_archs: tuple[int, ...]  # sm_XX of the cubins that hold it
    ptx_archs: tuple[int, ...]  # compute_XX of the PTX entries that hold it


@dataclass(frozen=True)
class BinaryModule:
    """The device code of one ELF file (or one member of a static library)."""

    origin: str  # "lib.a(k.o)" or "k.o"
    images: tuple[DeviceImage, ...]
    kernels: tuple[Kernel, ...]
    linked_registrations: tuple[str, ...] = ()  # what an -rdc object registers through (host_object.py)

    def ptx_images(self) -> list[DeviceImage]:
        return [i for i in self.images if i.entry.kind == "ptx"]

    def best_ptx(self) -> str | None:
        """The PTX of the highest compute capability the file carries (nvcc embeds one by default)."""
        ptx = sorted(self.ptx_images(), key=lambda i: i.entry.arch)
        return ptx[-1].entry.ptx if ptx else None


# NVVM's PTX says which nvcc wrote it, in a comment ("Cuda compilation tools, release 12.4, V12.4.131") and
# in its ISA version, which each CUDA release raises (PTX ISA 6.3 is CUDA 10.0; 7.x is CUDA 11.x, 8.x 12.x, 9.x 13.x).
_PTX_TOOL_RELEASE = re.compile(r"Cuda compilation tools, release (\d+)\.(\d+)")
_PTX_ISA_VERSION = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)", re.MULTILINE)
_PTX_6_RELEASES = {0: (9, 0), 1: (9, 1), 2: (9, 2), 3: (10, 0), 4: (10, 1), 5: (10, 2)}


def built_by_cuda(module: BinaryModule) -> int:
    """The CUDA version (CUDA_VERSION's numbering: 12040 for 12.4) of the nvcc that built `module`, read
    from its PTX; 0 when it carries none. The runtime lays out CUDA's structs as that version did."""
    ptx = module.best_ptx() or ""
    release = _PTX_TOOL_RELEASE.search(ptx)
    if release:
        major, minor = int(release.group(1)), int(release.group(2))
    elif isa := _PTX_ISA_VERSION.search(ptx):
        isa_major, isa_minor = int(isa.group(1)), int(isa.group(2))
        if isa_major >= 7:
            major, minor = isa_major + 4, isa_minor
        else:
            major, minor = _PTX_6_RELEASES.get(isa_minor, (8, 0)) if isa_major == 6 else (8, 0)
    else:
        return 0
    return major * 1000 + minor * 10


def read_binary(path: Path) -> list[BinaryModule]:
    """Every file in `path` that carries CUDA device code (an archive gives one per member)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror})") from error
    try:
        if is_archive(data):
            modules = [module_of(m.data, f"{path}({m.name})") for m in read_archive(data)
                       if m.data[:4] == b"\x7fELF"]
            return [m for m in modules if m.images]
        if data[:4] != b"\x7fELF":
            raise InputError(f"{path}: neither an ELF file nor a static library")
        module = module_of(data, str(path))
        return [module] if module.images else []
    except (ArchiveFormatError, HostObjectError, FatbinFormatError, CubinFormatError) as error:
        raise InputError(f"{path}: {error}") from error


def linked_binary_kind(path: Path) -> str | None:
    """"shared library" or "executable" when `path` is a linked ELF file whose device code nvcc built
    (its `.nv_fatbin`); None for anything else. Reads only the ELF headers: link lines name system
    libraries of any size."""
    from cassc.formats.elf import ET_DYN, ET_EXEC, PT_INTERP, map_elf_file
    from cassc.formats.host_object import CUDA_FATBIN_SECTIONS

    try:
        elf = map_elf_file(path)
        if elf.type not in (ET_EXEC, ET_DYN):
            return None
        if not any(s.name in CUDA_FATBIN_SECTIONS and s.size > 0 for s in elf.sections):
            return None
        # A position-independent executable is ET_DYN too; it names its program interpreter.
        interpreted = PT_INTERP in elf.segment_types()
        return "executable" if elf.type == ET_EXEC or interpreted else "shared library"
    except (OSError, ValueError):  # ElfFormatError, and mmap's for an empty file
        return None


def refuse_linked_binary(path: Path, kind: str) -> InputError:
    """The one-line refusal for an nvcc-built shared library or executable among a link's inputs."""
    article = "an" if kind[0] in "aeiou" else "a"
    return InputError(f"{path} is {article} {kind} built by nvcc, with device code for NVIDIA GPUs only: cassc "
                      "translates nvcc-built objects and static libraries, not linked binaries; link the objects it "
                      "was built from (or a static library of them, nvcc -lib) with cassc instead")


@dataclass(frozen=True)
class RegisteredFatbin:
    """One fatbin container of a linked binary: what one `__cudaRegisterFatBinary` call registers (one
    translation unit's device code, or a device link's), named by the SHA-256 of its bytes."""

    digest: str
    module: BinaryModule


def registered_fatbins(path: Path) -> list[RegisteredFatbin]:
    """Each fatbin container of an executable or shared library, as its own module: containers are
    separate programs (their kernels may share names), registered and loaded one by one."""
    import hashlib

    data = path.read_bytes()
    try:
        host = read_host_object(data, str(path))
        result = []
        for section, contents in host.cuda_fatbins:
            for index, container in enumerate(read_containers(contents)):
                images = [DeviceImage(section, index, entry) for entry in container.entries]
                origin = f"{path}[{section} #{index}]"
                digest = hashlib.sha256(contents[container.offset:container.offset + container.size]).hexdigest()
                result.append(RegisteredFatbin(digest, BinaryModule(origin, tuple(images),
                                                                    _kernels(images, host.functions))))
        return result
    except (HostObjectError, FatbinFormatError, CubinFormatError) as error:
        raise InputError(f"{path}: {error}") from error


def module_of(data: bytes, origin: str) -> BinaryModule:
    host = read_host_object(data, origin)
    images = [DeviceImage(section, index, entry)
              for section, contents in host.cuda_fatbins
              for index, container in enumerate(read_containers(contents))
              for entry in container.entries]
    return BinaryModule(origin, tuple(images), _kernels(images, host.functions), host.linked_registrations)


def _kernels(images: list[DeviceImage], host_functions: frozenset[str]) -> tuple[Kernel, ...]:
    described: dict[str, Kernel] = {}
    sass: dict[str, list[int]] = {}
    ptx: dict[str, list[int]] = {}
    # Highest arch last, so its cubin's description wins (registers differ by arch, and so does the parameter
    # layout of a kernel with parameters aligned past 16 bytes: `emit.parameter_origin`).
    for image in sorted(images, key=lambda i: i.entry.arch):
        if image.entry.kind == "elf":
            for k in read_cubin(image.entry.payload):
                sass.setdefault(k.name, []).append(image.entry.arch)
                described[k.name] = Kernel(k.name, None, k.params, k.param_size, k.shared_size, k.registers, (), ())
        else:
            for name in PTX_ENTRY.findall(image.entry.ptx):
                ptx.setdefault(name, []).append(image.entry.arch)
    names = list(dict.fromkeys([*described, *ptx]))
    return tuple(
        Kernel(name, name if name in host_functions else None,
               *(_description(described.get(name))),
               tuple(sorted(set(sass.get(name, [])))), tuple(sorted(set(ptx.get(name, [])))))
        for name in names)


def _description(kernel: Kernel | None) -> tuple[tuple[KernelParam, ...], int, int, int]:
    if kernel is None:
        return (), 0, 0, 0
    return kernel.params, kernel.param_size, kernel.shared_size, kernel.registers


def find_cuda_tool(name: str) -> Path:
    """cuobjdump / nvdisasm: on PATH, from PyPI's nvidia-cuda-cuobjdump / -nvdisasm, or a CUDA install."""
    found = shutil.which(name)
    if found:
        return Path(found)
    spec = importlib.util.find_spec("nvidia")
    package_dirs = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    for directory in [*(d / sub / "bin" for d in package_dirs for sub in ("cu13", "cu12", "cuda_cuobjdump",
                                                                          "cuda_nvdisasm")), *CUDA_TOOL_DIRS]:
        if (directory / name).exists():
            return directory / name
    raise ToolchainError(f"{name} not found: pip install nvidia-cuda-{name} (NVIDIA's PyPI package)")


def sass_text(path: Path) -> str:
    """The SASS of every cubin in `path`, as cuobjdump prints it."""
    from cassc.toolchain import run

    return run([str(find_cuda_tool("cuobjdump")), "-sass", str(path)]).stdout
