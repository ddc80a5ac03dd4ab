"""The AMD toolchain cassc drives, and the one place where cassc starts other programs.

Discovery prefers a ROCm install (ROCM_PATH, HIP_PATH/.., /opt/rocm): it has its own clang, device
libraries for every target and the ROCm libraries (rocThrust, hipCUB, hipBLAS...). Otherwise cassc
uses Debian's packages (clang-19, lld-19, llvm-19, libamdhip64-dev, rocm-device-libs). Debian's device
libraries lack the gfx11 ISA files; `device_lib_dir` derives them (a one-constant module) into cassc's
data directory, never into system folders. Debian 12 also lacks hipCUB and rocThrust: `cassc setup`
installs their headers into the data directory (`header_libraries.py`) and the toolchain names them.
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

DEBIAN_PACKAGES = (
    "clang-19 lld-19 llvm-19 libamdhip64-dev rocm-device-libs hipcc libomp-19-dev "
    "libhiprand-dev librocrand-dev librocprim-dev libhipsparse-dev librocsparse-dev"
)
DEBIAN_INSTALL_HINT = f"run `make setup`, or: apt-get install {DEBIAN_PACKAGES}"


@dataclass(frozen=True)
class Toolchain:
    kind: str  # "rocm" or "debian"
    root: Path  # ROCm root, or /usr for Debian
    clang: Path  # the C++ driver; also compiles C (-x c) and assembles
    lld: Path
    archiver: Path
    llvm_dis: Path
    llvm_as: Path
    hip_include_dir: Path
    hip_lib_dir: Path
    bitcode_dir: Path  # the installed device libraries
    hipcc: Path | None
    hip_version: str
    # Searched before everything but the user's own directories (cassc's hipCUB/rocThrust for Debian).
    header_library_dirs: tuple[Path, ...] = ()

    @property
    def library_include_dirs(self) -> tuple[Path, ...]:
        """Where the ROCm libraries' headers live (hiprand/, hipsparse/, rocprim/...)."""
        return (*self.header_library_dirs, self.hip_include_dir.parent)

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


def _rocm_candidates(env: Mapping[str, str]) -> list[Path]:
    candidates = []
    if env.get("ROCM_PATH"):
        candidates.append(Path(env["ROCM_PATH"]))
    if env.get("HIP_PATH"):
        candidates.append(Path(env["HIP_PATH"]).parent)
    candidates.append(Path("/opt/rocm"))
    return candidates


def _find_rocm(root: Path) -> Toolchain | None:
    clang = next((p for p in (root / "llvm/bin/clang++", root / "lib/llvm/bin/clang++") if p.exists()), None)
    hip_include = root / "include/hip"
    if clang is None or not (hip_include / "hip_runtime.h").exists():
        return None
    llvm_bin = clang.parent
    bitcode_dirs = [root / "amdgcn/bitcode", *sorted(root.glob("lib/llvm/lib/clang/*/lib/amdgcn/bitcode"))]
    bitcode = next((d for d in bitcode_dirs if d.is_dir()), bitcode_dirs[0])
    hipcc = root / "bin/hipcc"
    return Toolchain(
        kind="rocm",
        root=root,
        clang=clang,
        lld=llvm_bin / "ld.lld",
        archiver=llvm_bin / "llvm-ar",
        llvm_dis=llvm_bin / "llvm-dis",
        llvm_as=llvm_bin / "llvm-as",
        hip_include_dir=hip_include,
        hip_lib_dir=root / "lib",
        bitcode_dir=bitcode,
        hipcc=hipcc if hipcc.exists() else None,
        hip_version=_hip_version(hip_include),
    )


def _find_debian() -> Toolchain | None:
    llvm_bin = Path("/usr/lib/llvm-19/bin")
    hip_include = Path("/usr/include/hip")
    if not (llvm_bin / "clang++").exists() or not (hip_include / "hip_runtime.h").exists():
        return None
    return Toolchain(
        kind="debian",
        root=Path("/usr"),
        clang=llvm_bin / "clang++",
        lld=llvm_bin / "ld.lld",
        archiver=llvm_bin / "llvm-ar",
        llvm_dis=llvm_bin / "llvm-dis",
        llvm_as=llvm_bin / "llvm-as",
        hip_include_dir=hip_include,
        hip_lib_dir=Path("/usr/lib/x86_64-linux-gnu"),
        bitcode_dir=Path("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"),
        hipcc=None,  # Debian's hipcc 5.2 flips to NVIDIA when an nvcc is on PATH; cassc calls clang directly
        hip_version=_hip_version(hip_include),
        header_library_dirs=tuple(d for d in [header_libraries.installed_include_dir()] if d),
    )


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
    for root in _rocm_candidates(os.environ):
        found = _find_rocm(root)
        if found:
            return found
    found = _find_debian()
    if found:
        return found
    raise ToolchainError(
        "no AMD toolchain found: neither a ROCm install (ROCM_PATH or /opt/rocm) nor Debian's "
        f"clang-19 with HIP headers; {DEBIAN_INSTALL_HINT}"
    )


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
