"""The AMD toolchain cassc drives, and the one place where cassc starts other programs.

Three layouts are found, in this order unless one is chosen explicitly (CASSC_ROCM_PATH, then
ROCM_PATH: either names a root of any layout, and a root that holds no toolchain is an error):
- AMD's ROCm layout (HIP_PATH/.., /opt/rocm, the newest /opt/rocm-X.Y): its own clang in lib/llvm/bin
  (llvm/bin before ROCm 6), device libraries in amdgcn/bitcode or in its clang's resource directory.
- A distribution's layout (/usr, HIP >= 6: Debian 13+, Ubuntu 24.04+, Fedora): HIP in /usr/include/hip
  and a versioned clang. Which clang is the packages' own answer: `hipconfig --hipclangpath` (the clang
  hipcc was built to drive), else the clang whose resource directory holds the AMD device libraries.
- Debian 12's legacy route (/usr with HIP 5.x): clang-19, lld-19, llvm-19, HIP 5.2, rocm-device-libs.
  Debian's device libraries lack the gfx11 ISA files; `device_lib_dir` derives them (a one-constant
  module) into cassc's data directory, never into system folders. Debian 12 also lacks hipCUB and
  rocThrust: `cassc setup` installs their headers into the data directory (`header_libraries.py`) and
  the toolchain names them.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Mapping, Sequence

from cassc import header_libraries, locations
from cassc.errors import ToolchainError
from cassc.hipify.tables import LibraryPackage

DEBIAN_PACKAGES = (
    "clang-19 lld-19 llvm-19 libamdhip64-dev rocm-device-libs hipcc libomp-19-dev "
    "libhiprand-dev librocrand-dev librocprim-dev libhipsparse-dev librocsparse-dev"
)
DEBIAN_INSTALL_HINT = f"run `make setup`, or: apt-get install {DEBIAN_PACKAGES}"
TOOLCHAIN_LABELS = {"rocm": "ROCm install", "distro": "distribution's ROCm packages",
                    "debian": "Debian 12 packages"}


@dataclass(frozen=True)
class Toolchain:
    kind: str  # "rocm" (AMD's layout), "distro" (/usr, HIP >= 6) or "debian" (Debian 12's legacy route)
    root: Path  # ROCm root, or /usr
    clang: Path  # the C++ driver; also compiles C (-x c) and assembles
    lld: Path
    archiver: Path
    llvm_dis: Path
    llvm_as: Path
    llvm_objdump: Path
    hip_include_dir: Path
    hip_lib_dir: Path
    bitcode_dir: Path  # the installed device libraries
    hipcc: Path | None
    hip_version: str
    clang_version: str  # the name of clang's resource directory: its major version
    # Searched before everything but the user's own directories (cassc's hipCUB/rocThrust for Debian).
    header_library_dirs: tuple[Path, ...] = ()

    @property
    def library_include_dirs(self) -> tuple[Path, ...]:
        """Where the ROCm libraries' headers live (hiprand/, hipsparse/, rocprim/...)."""
        return (*self.header_library_dirs, self.hip_include_dir.parent)

    def find_library(self, name: str) -> Path | None:
        """lib<name>.so (or .a) where a link with this toolchain finds `-l<name>`: HIP's library directory
        (given to every link with -L), else the linker's own search path, where a distribution's packages
        put libraries outside HIP's directory (Debian 12's ROCm SMI is /usr/lib/librocm_smi64.so)."""
        for directory in (self.hip_lib_dir, *linker_search_dirs(self.clang)):
            for suffix in (".so", ".a"):
                if (directory / f"lib{name}{suffix}").exists():
                    return directory / f"lib{name}{suffix}"
        return None

    @property
    def openmp_runtime(self) -> Path | None:
        """The OpenMP runtime of this clang (libomp, beside its lib/): host code compiled with -fopenmp
        calls its `__kmpc_*` entry points, which GCC's libgomp lacks."""
        library = self.clang.resolve().parent.parent / "lib" / "libomp.so"
        return library if library.exists() else None

    def identity(self) -> str:
        """Changes whenever a different compiler or HIP would produce different objects."""
        parts = [self.kind, str(self.clang.resolve()), self.hip_version, *map(str, self.header_library_dirs)]
        for path in (self.clang.resolve(), self.hip_include_dir / "hip_version.h"):
            stat = path.stat()
            parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]

    def device_lib_dir(self, offload_archs: tuple[str, ...]) -> Path:
        """A directory holding every device library clang needs for `offload_archs`."""
        isa_files = [f"oclc_isa_version_{isa_number(arch)}.bc" for arch in offload_archs]
        if all((self.bitcode_dir / name).exists() for name in isa_files):
            return self.bitcode_dir
        key = hashlib.sha256(str(self.bitcode_dir.resolve()).encode()).hexdigest()[:16]
        target = locations.data_dir() / "device-libs" / f"{key}-{'-'.join(sorted(offload_archs))}"
        if not all((target / name).exists() for name in isa_files):
            self._derive_device_libs(offload_archs, target)
        return target

    def _derive_device_libs(self, offload_archs: tuple[str, ...], target: Path) -> None:
        templates = sorted(self.bitcode_dir.glob("oclc_isa_version_*.bc"))
        if not templates:
            raise ToolchainError(f"no device libraries in {self.bitcode_dir}: {DEBIAN_INSTALL_HINT}")
        template = templates[-1]
        old_value = isa_constant(template.name.removeprefix("oclc_isa_version_").removesuffix(".bc"))
        template_text = run([str(self.llvm_dis), "-o", "-", str(template)]).stdout
        pattern = rf"constant i32 {old_value}\b"
        if not re.search(pattern, template_text):
            raise ToolchainError(f"unexpected contents in {template}: no `{pattern}`")
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        try:
            for library in self.bitcode_dir.glob("*.bc"):
                (staging / library.name).symlink_to(library.resolve())
            for arch in offload_archs:
                number = isa_number(arch)
                if (staging / f"oclc_isa_version_{number}.bc").exists():
                    continue
                derived_ll = staging / f"isa-{number}.ll"
                derived_ll.write_text(re.sub(pattern, f"constant i32 {isa_constant(number)}", template_text))
                run([str(self.llvm_as), "-o", str(staging / f"oclc_isa_version_{number}.bc"), str(derived_ll)])
                derived_ll.unlink()
            try:
                staging.rename(target)
            except OSError:
                if not target.exists():  # lost a race to another cassc process: theirs is as good
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)


def isa_number(offload_arch: str) -> str:
    """gfx1100 -> "1100", gfx90a -> "90a": the suffix of the device library's ISA file."""
    match = re.fullmatch(r"gfx([0-9]+[0-9a-f]{2})", offload_arch)
    if not match:
        raise ToolchainError(f"'{offload_arch}' is not an AMD GPU target name (e.g. gfx1100)")
    return match.group(1)


def isa_constant(number: str) -> int:
    """"1100" -> 11000, "1030" -> 10300, "90a" -> 9010: major*1000 + minor*100 + stepping."""
    return int(number[:-2]) * 1000 + int(number[-2], 16) * 100 + int(number[-1], 16)


EXPLICIT_ROOT_VARIABLES = ("CASSC_ROCM_PATH", "ROCM_PATH")


def _explicit_root(env: Mapping[str, str]) -> tuple[str, Path] | None:
    return next(((name, Path(env[name])) for name in EXPLICIT_ROOT_VARIABLES if env.get(name)), None)


def _candidate_roots(env: Mapping[str, str]) -> list[Path]:
    """Where to look when nothing is chosen explicitly: ROCm installs first, newest versioned one last."""
    candidates = [Path(env["HIP_PATH"]).parent] if env.get("HIP_PATH") else []
    candidates.append(Path("/opt/rocm"))
    candidates += sorted(Path("/opt").glob("rocm-*"), key=lambda p: _version_key(p.name.removeprefix("rocm-")),
                         reverse=True)
    candidates.append(Path("/usr"))
    return candidates


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", text))


def toolchain_at(root: Path) -> Toolchain | None:
    """The toolchain installed under `root` in any of the three layouts, or None."""
    hip_include = root / "include/hip"
    if not (hip_include / "hip_runtime.h").exists():
        return None
    hip_version = _hip_version(hip_include)
    rocm_clang = next((p for p in (root / "lib/llvm/bin/clang++", root / "llvm/bin/clang++") if p.exists()), None)
    if rocm_clang is not None:
        return _toolchain("rocm", root, rocm_clang.parent, hip_include, root / "lib", hip_version)
    hip_lib = next((d for d in (root / "lib/x86_64-linux-gnu", root / "lib64", root / "lib")
                    if (d / "libamdhip64.so").exists()), root / "lib")
    if _version_key(hip_version)[:1] < (6,):
        return _debian_legacy(root, hip_include, hip_lib, hip_version)
    llvm_bin = _distro_clang_dir(root)
    if llvm_bin is None:
        return None
    return _toolchain("distro", root, llvm_bin, hip_include, hip_lib, hip_version)


@cache
def linker_search_dirs(clang: Path) -> tuple[Path, ...]:
    """The directories clang's link searches for `-l` libraries (`-print-search-dirs`). Every cassc run asks
    (the stand-in toolkit's key names the libraries found there), so clang's answer is kept in the data
    directory, per clang binary."""
    resolved = clang.resolve()
    stat = resolved.stat()
    identity = hashlib.sha256(f"{resolved}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    record = locations.data_dir() / "toolchains" / f"{identity}.search-dirs"
    try:
        line = record.read_text()
    except OSError:
        listing = run([str(clang), "-print-search-dirs"]).stdout
        line = next((entry for entry in listing.splitlines() if entry.startswith("libraries: =")), "libraries: =")
        record.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=record.parent, delete=False) as temporary:
            temporary.write(line)
        os.replace(temporary.name, record)
    found = (Path(os.path.realpath(d)) for d in line.removeprefix("libraries: =").split(os.pathsep) if d)
    return tuple(dict.fromkeys(d for d in found if d.is_dir()))


def _toolchain(kind: str, root: Path, llvm_bin: Path, hip_include: Path, hip_lib: Path, hip_version: str,
               bitcode: Path | None = None, header_library_dirs: tuple[Path, ...] = ()) -> Toolchain:
    clang = llvm_bin / "clang++"
    resource_dirs = _resource_dirs(clang)
    if bitcode is None:
        bitcode_dirs = [root / "amdgcn/bitcode", *(d / sub for d in resource_dirs
                                                   for sub in ("amdgcn/bitcode", "lib/amdgcn/bitcode"))]
        bitcode = next((d for d in bitcode_dirs if (d / "ocml.bc").exists()), bitcode_dirs[0])
    hipcc = root / "bin/hipcc"
    return Toolchain(
        kind=kind,
        root=root,
        clang=clang,
        lld=llvm_bin / "ld.lld",
        archiver=llvm_bin / "llvm-ar",
        llvm_dis=llvm_bin / "llvm-dis",
        llvm_as=llvm_bin / "llvm-as",
        llvm_objdump=llvm_bin / "llvm-objdump",
        hip_include_dir=hip_include,
        hip_lib_dir=hip_lib,
        bitcode_dir=bitcode,
        hipcc=hipcc if hipcc.exists() and kind != "debian" else None,
        hip_version=hip_version,
        clang_version=resource_dirs[0].name if resource_dirs else "unknown",
        header_library_dirs=header_library_dirs,
    )


def _resource_dirs(clang: Path) -> list[Path]:
    """clang's resource directories (lib/clang/<version> beside its bin/), newest first."""
    found = (clang.resolve().parent.parent / "lib/clang").glob("*")
    return sorted((d for d in found if d.is_dir()), key=lambda d: _version_key(d.name), reverse=True)


def _distro_clang_dir(root: Path) -> Path | None:
    """The bin/ directory of the clang a distribution's HIP goes with, from the packages' own metadata:
    hipconfig names the clang hipcc drives; without hipcc, the clang whose resource directory holds the
    AMD device libraries (rocm-device-libs installs into the clang it was built for)."""
    hipconfig = root / "bin/hipconfig"
    if hipconfig.exists():
        answer = run([str(hipconfig), "--hipclangpath"], env={"HIP_PLATFORM": "amd"}, check=False)
        named = Path(answer.stdout.strip())
        if answer.returncode == 0 and (named / "clang++").exists():
            return named
    llvm_dirs = sorted({root / "lib" / p.relative_to(root / "lib").parts[0]
                        for p in root.glob("lib/llvm-*/lib/clang/*/*amdgcn/bitcode/ocml.bc")},
                       key=lambda d: _version_key(d.name), reverse=True)
    return llvm_dirs[0] / "bin" if llvm_dirs else None


def _debian_legacy(root: Path, hip_include: Path, hip_lib: Path, hip_version: str) -> Toolchain | None:
    """Debian 12: HIP 5.2 goes with clang-15, whose device libraries lack gfx11; cassc drives clang-19
    with derived ISA files instead, and Debian's hipcc 5.2 flips to NVIDIA when an nvcc is on PATH."""
    llvm_bin = root / "lib/llvm-19/bin"
    if not (llvm_bin / "clang++").exists():
        return None
    overlays = [hip5_overlay(hip_include), header_libraries.installed_include_dir()]
    return _toolchain("debian", root, llvm_bin, hip_include, hip_lib, hip_version,
                      bitcode=hip_lib / "amdgcn/bitcode", header_library_dirs=tuple(d for d in overlays if d))


# Patches of HIP 5's headers, each a fix of one declaration, found by a pattern that only HIP 5's header matches.
@dataclass(frozen=True)
class HeaderPatch:
    path: str  # under HIP's include/hip
    pattern: re.Pattern[str]
    replacement: str


HIP5_PATCHES = (
    # HIP 5's __half2 has `unsigned short x, y` where CUDA's (and HIP 6's) are __half: `float f = h2.x` then
    # compiles and reads the raw bits. The members of __half2's anonymous struct, as HIP 5.2 declares them.
    HeaderPatch("amd_detail/amd_hip_fp16.h",
                re.compile(r"(struct __half2 \{\s*public:\s*union \{(?:(?!\};).)*?struct \{\s*)"
                           r"unsigned short x;(\s*)unsigned short y;", re.DOTALL), r"\1__half x;\2__half y;"),
    # HIP 5's cooperative groups define masked_bit_count in the header without `inline`: two units of one
    # -fgpu-rdc program that include <cooperative_groups.h> stop the device link on a duplicate symbol.
    HeaderPatch("amd_detail/hip_cooperative_groups_helper.h",
                re.compile(r"^__device__ unsigned int masked_bit_count\(", re.MULTILINE),
                "__device__ inline unsigned int masked_bit_count("),
)
QUOTED_INCLUDE = re.compile(r'^(\s*#\s*include\s*)"([^"]+)"', re.MULTILINE)


def hip5_overlay(hip_include: Path) -> Path | None:
    """An include directory, searched before HIP's, holding each header of HIP5_PATCHES that HIP's own matches,
    patched (the only change; its quoted includes point back at HIP's directory). None where no header needs
    a patch. Kept in the data dir, keyed by the patched contents."""
    patched: dict[str, str] = {}
    for patch in HIP5_PATCHES:
        header = hip_include / patch.path
        try:
            text = header.read_text()
        except OSError:
            continue
        if not patch.pattern.search(text):
            continue
        text = patch.pattern.sub(patch.replacement, text, count=1)
        patched[patch.path] = QUOTED_INCLUDE.sub(lambda m: f'{m.group(1)}"{header.parent / m.group(2)}"'
                                                 if (header.parent / m.group(2)).is_file() else m.group(0), text)
    if not patched:
        return None
    key = hashlib.sha256("".join(f"{path}\0{text}" for path, text in sorted(patched.items())).encode()).hexdigest()[:16]
    root = locations.data_dir() / "hip-overlays" / key
    for path, text in patched.items():
        target = root / "hip" / path
        if not target.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            staging = target.with_name(f".{target.name}.{os.getpid()}")
            staging.write_text(text)
            staging.replace(target)
    return root


def _hip_version(hip_include: Path) -> str:
    try:
        text = (hip_include / "hip_version.h").read_text()
    except OSError:
        return "unknown"
    fields = dict(re.findall(r"#define HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", text))
    return ".".join(fields.get(k, "0") for k in ("MAJOR", "MINOR", "PATCH"))


@cache
def find_toolchain() -> Toolchain:
    """The toolchain cassc will use, or a ToolchainError that says how to install one."""
    explicit = _explicit_root(os.environ)
    if explicit:
        name, root = explicit
        found = toolchain_at(root)
        if found is None:
            raise ToolchainError(f"{name}={root} holds no HIP toolchain (include/hip/hip_runtime.h and a clang: "
                                 "lib/llvm/bin/clang++, or the clang named by bin/hipconfig); unset it or "
                                 "point it at a ROCm install")
        return found
    for root in _candidate_roots(os.environ):
        found = toolchain_at(root)
        if found:
            return found
    raise ToolchainError(
        "no AMD toolchain found: no ROCm install (ROCM_PATH, /opt/rocm, /opt/rocm-X.Y) and no HIP with its "
        f"clang in /usr; {DEBIAN_INSTALL_HINT}"
    )


def repair_hint(toolchain: Toolchain) -> str:
    """What to do about a part `missing_parts` names, for this toolchain's kind."""
    if toolchain.kind == "debian":
        return DEBIAN_INSTALL_HINT
    if toolchain.kind == "distro":
        return (f"install the distribution's HIP packages for clang-{toolchain.clang_version} (Debian/Ubuntu: "
                f"hipcc libamdhip64-dev rocm-device-libs-{toolchain.clang_version})")
    return f"repair the ROCm install at {toolchain.root} or point ROCM_PATH at a complete one"


def package_hint(toolchain: Toolchain, package: LibraryPackage) -> str:
    """How to install a ROCm library this toolchain lacks, in its own distribution's terms."""
    if toolchain.kind == "distro" and (toolchain.root.parent / "etc/debian_version").exists():
        return f"apt-get install {package.debian_package}"
    if toolchain.kind == "distro":
        return f"install the distribution's {package.name} development package"
    if toolchain.kind == "rocm":
        return (f"install {package.name} into the ROCm at {toolchain.root} (AMD's {package.name.lower()}-dev "
                f"package), or point ROCM_PATH at a ROCm install that has it")
    return f"install ROCm >= 6 with {package.name}, or point ROCM_PATH at a ROCm install that has it"


def missing_parts(toolchain: Toolchain) -> list[str]:
    """Files the toolchain should have but does not (for `cassc doctor`)."""
    required = [toolchain.clang, toolchain.lld, toolchain.archiver, toolchain.hip_include_dir / "hip_runtime.h",
                toolchain.hip_lib_dir / "libamdhip64.so", toolchain.bitcode_dir / "ocml.bc"]
    return [str(p) for p in required if not p.exists()]


def run(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    capture: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run a tool. With check=True a failure raises ToolchainError carrying the tool's own output."""
    full_env = None if not env else {**os.environ, **env}
    try:
        result = subprocess.run(
            list(command), cwd=cwd, env=full_env, text=True, errors="replace",
            stdout=subprocess.PIPE if capture else None, stderr=subprocess.PIPE if capture else None,
        )
    except FileNotFoundError as error:
        raise ToolchainError(f"cannot run {command[0]}: {error.strerror}; {DEBIAN_INSTALL_HINT}") from error
    if check and result.returncode != 0:
        raise ToolchainError(f"{Path(command[0]).name} failed (exit {result.returncode}):\n{result.stderr}")
    return result
