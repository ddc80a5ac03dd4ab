"""`cassc translate BINARY`: an nvcc-built executable or shared library's device code, translated ahead of time.

A linked binary carries one fatbin container per translation unit (and per device link), each registered
by its own `__cudaRegisterFatBinary` call. Each container is translated on its own, for every target, into
one offload bundle; it is written under the SHA-256 of the container's bytes, with a manifest of its
kernels' CUDA parameter layouts, into a directory (the cache's `translated/` by default). A runtime that
is handed the container at registration hashes it and finds its translation there, whatever binary or
path it came from: a library shared by several programs is translated once, and a replaced binary never
meets a stale translation.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cassc.binary.cached import cached_translation
from cassc.binary.extract import (BinaryModule, RegisteredFatbin, built_by_cuda, linked_binary_kind,
                                  registered_fatbins)
from cassc.binary.fallback import Fallback
from cassc.binary.translate import Translation, is_separate, translate_group
from cassc.cache import Cache
from cassc.errors import CasscError, InputError
from cassc.formats.offload_bundle import HOST_TRIPLE, BundleEntry, device_triple, write_bundle

MANIFEST_SUFFIX = ".json"
KERNELS_SUFFIX = ".kernels"  # the manifest's kernels as the runtime reads them
KERNELS_FORMAT = "cassc-translation 1"
BUNDLE_SUFFIX = ".hipfb"


@dataclass
class TranslatedFatbin:
    digest: str
    origin: str
    kernels: int = 0
    written: list[Path] = field(default_factory=list)
    failure: str | None = None


def translate_binary(path: Path, offload_archs: tuple[str, ...], output_dir: Path, work_dir: Path, lld: Path,
                     cache: Cache, fallback: Fallback | None = None) -> list[TranslatedFatbin]:
    """Translate every fatbin container of `path`; write each one's bundle and manifest into `output_dir`.
    A container that cannot be translated is reported, and the others are still written."""
    kind = linked_binary_kind(path)
    if kind is None:
        raise InputError(f"{path}: not an executable or shared library with device code nvcc built (objects and "
                         "static libraries are translated when cassc links them)")
    output_dir.mkdir(parents=True, exist_ok=True)
    fatbins = registered_fatbins(path)
    relocatable = [f for f in fatbins if is_separate(f.module)]
    claimed: dict[str, str] = {}  # -rdc container -> the device-linked container it was translated under
    results = []
    for fatbin in fatbins:
        if is_separate(fatbin.module):
            continue
        modules, separate = [fatbin.module], False
        if fatbin.module.kernels and not fatbin.module.ptx_images() and relocatable:
            # nvlink's output: linked SASS of the -rdc units, whose PTX the binary keeps in __nv_relfatbin. It is
            # what the program registers; its translation is those units' PTX, device-linked as cassc's link does.
            linked_kernels = {k.name for k in fatbin.module.kernels}
            units = [r for r in relocatable if {k.name for k in r.module.kernels} <= linked_kernels]
            modules, separate = [r.module for r in units], True
            claimed.update({r.digest: fatbin.digest for r in units})
        result = TranslatedFatbin(fatbin.digest, " + ".join(m.origin for m in modules))
        try:
            result.written, result.kernels = _translate_fatbin(fatbin, modules, separate, offload_archs, output_dir,
                                                               work_dir, lld, cache, fallback)
        except CasscError as error:
            result.failure = str(error)
        results.append(result)
    for unit in relocatable:
        if unit.digest not in claimed:
            results.append(TranslatedFatbin(unit.digest, unit.module.origin, len(unit.module.kernels),
                                            failure=f"{unit.module.origin}: relocatable device code (-rdc) that no "
                                                    "device-linked fatbin of the file holds"))
    return results


def needed_libraries(path: Path) -> list[Path]:
    """The shared libraries `path` names (DT_NEEDED), found as the dynamic loader finds them: DT_RPATH (when
    there is no DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, then the system directories; `$ORIGIN` expanded.
    Those not found are left out (the loader would fail on them, not cassc)."""
    from cassc.formats.elf import DT_NEEDED, DT_RPATH, DT_RUNPATH, map_elf_file

    tags = map_elf_file(path).dynamic_entries()
    needed = [str(value) for tag, value in tags if tag == DT_NEEDED]
    rpath = [str(value) for tag, value in tags if tag == DT_RPATH]
    runpath = [str(value) for tag, value in tags if tag == DT_RUNPATH]
    origin = str(path.resolve().parent)
    directories = [d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
                   for entries in ([] if runpath else rpath) + [os.environ.get("LD_LIBRARY_PATH", "")] + runpath
                   for d in entries.split(":") if d]
    directories += SYSTEM_LIBRARY_DIRS
    found = []
    for name in needed:
        candidates = [Path(name)] if "/" in name else [Path(d) / name for d in directories]
        found += [c for c in candidates if c.is_file()][:1]
    return found


SYSTEM_LIBRARY_DIRS = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]


def with_nvcc_built_libraries(path: Path) -> list[Path]:
    """`path` and every nvcc-built shared library it needs, directly or through other libraries."""
    chosen = [path]
    pending = [path]
    while pending:
        for library in needed_libraries(pending.pop()):
            if library.resolve() not in {c.resolve() for c in chosen} and linked_binary_kind(library):
                chosen.append(library)
                pending.append(library)
    return chosen


def _translate_fatbin(fatbin: RegisteredFatbin, modules: list[BinaryModule], separate: bool,
                      offload_archs: tuple[str, ...], output_dir: Path, work_dir: Path, lld: Path, cache: Cache,
                      fallback: Fallback | None) -> tuple[list[Path], int]:
    """Translate `modules` (the container's own, or the -rdc units a device-linked container holds) and write
    them under the container's digest; (the files written, how many kernels)."""
    module = fatbin.module
    origin = " + ".join(m.origin for m in modules)
    if not module.kernels and not module.ptx_images():  # a kernel-less cubin (nvcc's runtime adds one): nothing to run
        manifest = {"fatbin_sha256": fatbin.digest, "origin": origin, "cuda_version": built_by_cuda(module),
                    "ptx_arch": None, "targets": list(offload_archs), "variables": [], "kernels": []}
        nothing: list[Path] = []
        _write(output_dir / f"{fatbin.digest}{MANIFEST_SUFFIX}", (json.dumps(manifest, indent=1) + "\n").encode(),
               nothing)
        _write(output_dir / f"{fatbin.digest}{KERNELS_SUFFIX}", _kernel_lines([]), nothing)
        return nothing, 0
    translations: dict[str, Translation] = {}
    for arch in offload_archs:
        target_dir = work_dir / fatbin.digest[:16] / arch
        target_dir.mkdir(parents=True, exist_ok=True)

        def translate(target_dir: Path = target_dir, arch: str = arch) -> Translation:
            return translate_group(modules, target_dir, lld, arch, separate=separate, fallback=fallback)

        translation = cached_translation(cache, modules, arch, separate, lld, target_dir, translate)
        if translation.failures:
            raise InputError(f"{origin}: {len(translation.failures)} kernel(s) cannot be translated for "
                             f"{arch}:\n  " + "\n  ".join(translation.failures.values()))
        translations[arch] = translation
    first = translations[offload_archs[0]]
    written: list[Path] = []
    bundles: dict[str, str] = {}  # kernel (or "" for the lifter's code object) -> bundle file name
    if first.code_object:
        bundles[""] = _write(output_dir / f"{fatbin.digest}{BUNDLE_SUFFIX}",
                             _bundle({arch: t.code_object for arch, t in translations.items()}), written)
    for kernel in (k for k in first.kernels if k.from_model):
        bundles[kernel.name] = _write(output_dir / f"{fatbin.digest}.{kernel.name}{BUNDLE_SUFFIX}",
                                      _bundle({arch: t.model_code_objects[kernel.name]
                                               for arch, t in translations.items()}), written)
    manifest = {
        "fatbin_sha256": fatbin.digest, "origin": origin, "cuda_version": min(built_by_cuda(m) for m in modules),
        "ptx_arch": first.ptx_arch, "targets": list(offload_archs), "variables": first.variables,
        "kernels": [{"name": k.name, "param_offsets": list(k.param_offsets), "param_sizes": list(k.param_sizes),
                     "param_size": k.param_size, "from_model": k.from_model,
                     "code_object": bundles[k.name if k.from_model else ""]} for k in first.kernels],
    }
    _write(output_dir / f"{fatbin.digest}{MANIFEST_SUFFIX}", (json.dumps(manifest, indent=1) + "\n").encode(), written)
    _write(output_dir / f"{fatbin.digest}{KERNELS_SUFFIX}", _kernel_lines(manifest["kernels"]), written)
    return written, len(first.kernels)


def _kernel_lines(kernels: list[dict]) -> bytes:  # type: ignore[type-arg]
    """What the runtime reads (the shim's register_translation): a line per kernel, tab-separated."""
    lines = [KERNELS_FORMAT] + ["\t".join([k["name"], str(k["param_size"]), ",".join(map(str, k["param_offsets"])),
                                           ",".join(map(str, k["param_sizes"])), k["code_object"]]) for k in kernels]
    return ("\n".join(lines) + "\n").encode()


def _bundle(code_objects: dict[str, bytes]) -> bytes:
    return write_bundle([BundleEntry(HOST_TRIPLE, b""),
                         *(BundleEntry(device_triple(arch), code) for arch, code in code_objects.items())])


def _write(path: Path, data: bytes, written: list[Path]) -> str:
    """Atomically: runtimes of other programs may be reading the directory."""
    staging = path.with_name(f".{path.name}.{os.getpid()}")
    staging.write_bytes(data)
    os.replace(staging, path)
    written.append(path)
    return path.name


def report(results: list[TranslatedFatbin], output_dir: Path) -> int:
    """Print one line per fatbin; 1 when any could not be translated."""
    for result in results:
        if result.failure:
            print(f"cassc translate: {result.failure}", file=sys.stderr)
        else:
            print(f"cassc translate: {result.origin}: {result.kernels} kernel(s) -> "
                  f"{output_dir / (result.digest + MANIFEST_SUFFIX)}", file=sys.stderr)
    if not results:
        print("cassc translate: no fatbin in the file", file=sys.stderr)
    return 1 if any(r.failure for r in results) else 0
