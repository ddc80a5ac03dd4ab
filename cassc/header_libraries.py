"""hipCUB and rocThrust for the Debian 12 toolchain: header-only ROCm libraries Debian 12 lacks.

CUB and Thrust are everywhere in CUDA code, and their ROCm ports are pure headers over rocPRIM. Debian
12 ships rocPRIM 5.3 but neither port; Debian 13 ships all three at 5.7.1 as architecture-independent
packages, whose headers compile with Debian 12's HIP 5.2 and clang-19. `cassc setup` fetches those
three packages (pinned by SHA-256, so a mirror cannot change what is installed), unpacks their
`usr/include` into cassc's data directory — never into system folders — and the Debian toolchain puts
that directory first on the include path (its rocPRIM 5.7 shadows the system's 5.3). A ROCm install
brings its own and never uses these.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from cassc import locations
from cassc.errors import ToolchainError
from cassc.formats.archive import ArchiveFormatError, read_archive

MIRROR = "http://deb.debian.org/debian"


@dataclass(frozen=True)
class HeaderPackage:
    name: str
    pool_path: str  # below the mirror's root
    sha256: str


PACKAGES = (
    HeaderPackage("librocprim-dev", "pool/main/r/rocprim/librocprim-dev_5.7.1-2_all.deb",
                  "ac6157956c9bb07146ebbdb68e0e5552696877caa78a630c0bc7d384926cf0ec"),
    HeaderPackage("libhipcub-dev", "pool/main/h/hipcub/libhipcub-dev_5.7.1-3_all.deb",
                  "acfa310b47946ba6e3fbd16195689310d93e779336458dfd5f8c590aaaf45ef2"),
    HeaderPackage("librocthrust-dev", "pool/main/r/rocthrust/librocthrust-dev_5.7.1-3_all.deb",
                  "7dc463d3e68981c99cd6e94d9c5fef26b1b2237d05d23542b7cdf791e45fe32c"),
)
# Named by the packages' digests: a different set is a different directory, and objects compiled
# against one are never served from the cache for another (the directory is part of the toolchain's
# identity).
INSTALL_KEY = hashlib.sha256("".join(p.sha256 for p in PACKAGES).encode()).hexdigest()[:12]


def include_dir() -> Path:
    return locations.data_dir() / "header-libraries" / INSTALL_KEY / "include"


def installed_include_dir() -> Path | None:
    directory = include_dir()
    return directory if (directory / "hipcub" / "hipcub.hpp").is_file() else None


def install(mirror: str | None = None) -> Path:
    """Fetch, check and unpack the packages; the directory appears in one rename, complete or not at all."""
    target = include_dir()
    if installed_include_dir():
        return target
    mirror = (mirror or os.environ.get("CASSC_DEBIAN_MIRROR") or MIRROR).rstrip("/")
    target.parent.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent.parent))
    try:
        for package in PACKAGES:
            _unpack_headers(_fetch(package, mirror), package, staging / "include")
        try:
            staging.rename(target.parent)
        except OSError:
            if not installed_include_dir():  # else another cassc installed the same set meanwhile
                raise ToolchainError(f"could not install the hipCUB/rocThrust headers into {target.parent}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _fetch(package: HeaderPackage, mirror: str) -> bytes:
    url = f"{mirror}/{package.pool_path}"
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise ToolchainError(f"could not download {package.name} from {url}: {error}; set CASSC_DEBIAN_MIRROR "
                             "to a reachable Debian mirror, or use a ROCm install (ROCM_PATH)") from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != package.sha256:
        raise ToolchainError(f"{url} has SHA-256 {digest}, not the pinned {package.sha256}; not installed")
    return data


def _unpack_headers(deb: bytes, package: HeaderPackage, destination: Path) -> None:
    """A .deb is an ar archive holding data.tar.*; its ./usr/include/ tree goes to `destination`."""
    try:
        member = next(m for m in read_archive(deb) if m.name.startswith("data.tar"))
    except (ArchiveFormatError, StopIteration) as error:
        raise ToolchainError(f"{package.name}: not a Debian package with a data archive") from error
    with tarfile.open(fileobj=io.BytesIO(member.data)) as data:
        for entry in data.getmembers():
            relative = entry.name.removeprefix("./")
            if relative.startswith("usr/include/") and (entry.isfile() or entry.isdir()):
                entry.name = relative.removeprefix("usr/include/")
                data.extract(entry, destination, filter="data")
