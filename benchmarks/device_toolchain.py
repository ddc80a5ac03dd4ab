#!/usr/bin/env python3
"""Pack this machine's Debian AMD toolchain as a ROCm-layout tree for the lent 16-core machine.

The HeCBench build benchmark compiles hundreds of programs; on this 2-core machine a full run takes
over an hour, on the lent machine's 16 cores minutes. That machine has nvcc but no AMD toolchain and
no package registry, so this packs the one cassc uses here into a tarball small enough to travel
(`run`'s 64 MiB limit: about 50 MiB):

  llvm/bin, llvm/lib   clang-19, lld-19, llvm-ar/as/dis and the shared libraries they load
                        (the RUNPATH `$ORIGIN/../lib` finds them), clang's resource headers
  include/              HIP, HSA and the ROCm library headers (hipRAND, rocRAND, hipSPARSE...), and the
                        hipCUB/rocThrust/rocPRIM headers `cassc setup` installed here (they replace
                        Debian 12's rocPRIM 5.3, as they shadow it here)
  amdgcn/bitcode/       the device libraries
  lib/                  link-only stand-ins for libamdhip64 and the ROCm libraries: every dynamic
                        symbol of the real library, same soname, no code. Programs link exactly as
                        against the real ones (there is no AMD GPU there to run them on anyway);
                        librocsparse alone is 1.3 GB.

cassc finds the tree through ROCM_PATH like any ROCm install, so the benchmark measures the same
compiler, headers and device libraries as here; only the host's C++ standard library differs.

    python3 benchmarks/device_toolchain.py .bench-carry/rocm-debian.tar.xz
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from elftools.elf.elffile import ELFFile

LLVM = Path("/usr/lib/llvm-19")
MULTIARCH = Path("/usr/lib/x86_64-linux-gnu")
# What cassc runs, and what clang's HIP driver runs itself (the bundler, for non-rdc objects).
TOOLS = ("clang", "lld", "llvm-ar", "llvm-as", "llvm-dis", "clang-offload-bundler")
TOOL_ALIASES = {"clang++": "clang", "ld.lld": "lld"}
HEADER_DIRS = ("hip", "hsa", "hiprand", "rocrand", "hipsparse", "rocsparse")
STAND_IN_LIBRARIES = ("libamdhip64.so", "libhiprand.so", "librocrand.so", "libhipsparse.so", "librocsparse.so")
# libLLVM links Z3 (the static analyzer's solver) and libxml2 (Windows manifests), which a HIP
# compile never calls: stand-ins keep the tarball under the limit (libxml2 pulls 32 MB of ICU).
STAND_IN_DEPENDENCIES = {"libz3.so.4", "libxml2.so.2"}
ONLY_FOR_STAND_INS = {"libicuuc.so.72", "libicudata.so.72"}
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "libpthread.so.0",
                    "libdl.so.2", "librt.so.1"}


def needed_libraries(binary: Path) -> list[Path]:
    """Every shared library `binary` loads (transitively), except glibc's, as ldd resolves them."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        name, _, rest = line.strip().partition(" => ")
        if rest and name not in SYSTEM_LIBRARIES:
            found.append(Path(rest.split(" (")[0]))
    return found


def exported_symbols(library: Path) -> tuple[str, list[tuple[str, str, int, str]]]:
    """The soname and every defined dynamic symbol (name, FUNC/OBJECT, size, version or "") of an
    ELF library. Versions matter: the dynamic loader rejects a library that lacks a version its
    users were linked against."""
    with library.open("rb") as handle:
        elf = ELFFile(handle)
        dynamic = elf.get_section_by_name(".dynamic")
        soname = next((tag.soname for tag in dynamic.iter_tags() if tag.entry.d_tag == "DT_SONAME"), library.name)
        version_names: dict[int, str] = {}
        definitions = next((s for s in elf.iter_sections() if s["sh_type"] == "SHT_GNU_verdef"), None)
        if definitions is not None:
            for definition, auxiliaries in definitions.iter_versions():
                if not definition["vd_flags"] & 1:  # VER_FLG_BASE names the file, not a version
                    version_names[definition["vd_ndx"]] = next(auxiliaries).name
        versions = next((s for s in elf.iter_sections() if s["sh_type"] == "SHT_GNU_versym"), None)
        symbols = []
        for index, symbol in enumerate(elf.get_section_by_name(".dynsym").iter_symbols()):
            if symbol["st_shndx"] == "SHN_UNDEF" or not symbol.name:
                continue
            version = ""
            if versions is not None:
                number = versions.get_symbol(index)["ndx"]  # VER_NDX_LOCAL/GLOBAL come as names
                version = version_names.get(number, "") if isinstance(number, int) else ""
            kind = symbol["st_info"]["type"]
            if kind in ("STT_FUNC", "STT_GNU_IFUNC"):
                symbols.append((symbol.name, "FUNC", 0, version))
            elif kind in ("STT_OBJECT", "STT_TLS"):
                symbols.append((symbol.name, "OBJECT", max(int(symbol["st_size"]), 1), version))
    return soname, symbols


def write_stand_in(library: Path, output: Path, work: Path) -> None:
    """A library with `library`'s soname and versioned dynamic symbols and no code (an assembler
    file: any symbol name, C++ mangled or not, is a valid label there)."""
    soname, symbols = exported_symbols(library)
    lines = [".text"]
    for name, kind, _, _ in symbols:
        if kind == "FUNC":
            lines += [f'.globl "{name}"', f'.type "{name}", @function', f'"{name}": ret']
    lines.append(".data")
    for name, kind, size, _ in symbols:
        if kind == "OBJECT":
            lines += [f'.globl "{name}"', f'.type "{name}", @object', f'.size "{name}", {size}',
                      f'"{name}": .zero {size}']
    source = work / f"{library.name}.s"
    source.write_text("\n".join(lines) + "\n")
    by_version: dict[str, list[str]] = {}
    for name, _, _, version in symbols:
        if version:
            by_version.setdefault(version, []).append(name)
    script = work / f"{library.name}.map"
    script.write_text("".join(
        version + " { global: " + " ".join(f'"{name}";' for name in names) + " };\n"
        for version, names in by_version.items()))
    subprocess.run([str(LLVM / "bin/clang"), "-shared", "-nostdlib", f"-Wl,-soname,{soname}", "-fuse-ld=lld",
                    *([f"-Wl,--version-script={script}"] if by_version else []),
                    "-o", str(output), str(source)], check=True)


def pack(tarball: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "rocm"
        llvm_bin, llvm_lib = root / "llvm/bin", root / "llvm/lib"
        for folder in (llvm_bin, llvm_lib, root / "include", root / "lib", root / "amdgcn/bitcode"):
            folder.mkdir(parents=True)
        libraries: set[Path] = set()
        for tool in TOOLS:
            shutil.copy2(LLVM / "bin" / tool, llvm_bin / tool)
            libraries.update(needed_libraries(LLVM / "bin" / tool))
        for alias, target in TOOL_ALIASES.items():
            (llvm_bin / alias).symlink_to(target)
        libraries.add(MULTIARCH / "libstdc++.so.6")  # clang-19 needs Debian 12's GLIBCXX
        for library in libraries:
            if library.name in STAND_IN_DEPENDENCIES:
                write_stand_in(library.resolve(), llvm_lib / library.name, Path(scratch))
            elif library.name not in ONLY_FOR_STAND_INS:
                shutil.copy2(library.resolve(), llvm_lib / library.name)
        resource = next((LLVM / "lib/clang").iterdir())
        shutil.copytree(resource / "include", llvm_lib / "clang" / resource.name / "include")
        shutil.copy2(LLVM / "lib/libomp.so.5", llvm_lib / "libomp.so.5")
        (llvm_lib / "libomp.so").symlink_to("libomp.so.5")
        for name in HEADER_DIRS:
            shutil.copytree(Path("/usr/include") / name, root / "include" / name)
        header_libraries = subprocess.run([sys.executable, "-c", "from cassc import header_libraries as h; "
                                           "print(h.installed_include_dir() or '')"],
                                          capture_output=True, text=True, check=True).stdout.strip()
        if not header_libraries:
            raise SystemExit("run `cassc setup` first: it installs the hipCUB and rocThrust headers")
        shutil.copytree(header_libraries, root / "include", dirs_exist_ok=True)
        for bitcode in (MULTIARCH / "amdgcn/bitcode").iterdir():
            shutil.copy2(bitcode, root / "amdgcn/bitcode" / bitcode.name)
        for name in STAND_IN_LIBRARIES:
            write_stand_in((MULTIARCH / name).resolve(), root / "lib" / name, Path(scratch))
        tarball.parent.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_name(tarball.name + ".partial")
        subprocess.run(["tar", "-C", scratch, "-I", "xz -9 -T0", "-cf", str(partial), "rocm"], check=True)
        partial.replace(tarball)
    print(f"{tarball}: {tarball.stat().st_size / 2**20:.1f} MiB", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tarball", type=Path)
    pack(parser.parse_args().tarball)


if __name__ == "__main__":
    main()
