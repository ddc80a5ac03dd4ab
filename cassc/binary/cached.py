"""Translations cached by content: a relink of unchanged nvcc-built objects costs what a host link costs.

The key is everything a translation depends on: the device code of each module (every fatbin entry, in
order) and what extract.py read beside it (kernels, host stubs, registrations), the target, whether the
modules are device-linked, the lifter's own source (so a changed cassc never reuses an older lifter's
code), llvmlite's LLVM, the linker and the device library (ockl) that device printf/malloc link in. Only
complete translations by the lifter are stored: a kernel that failed or came from the model is translated
again, so a configured model, or a fixed lifter, gets asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from cassc import __version__
from cassc.binary.extract import BinaryModule
from cassc.binary.translate import TranslatedKernel, Translation
from cassc.cache import Cache, digest
from cassc.toolchain import find_toolchain

_SOURCES = sorted(Path(__file__).parent.glob("*.py")) + sorted((Path(__file__).parent.parent / "formats").glob("*.py"))
_CODE_OBJECT = "code-object.hsaco"


def _key(modules: list[BinaryModule], offload_arch: str, separate: bool, lld: Path, force_sass: bool) -> str:
    import llvmlite

    stat = lld.resolve().stat()
    parts: list[str | bytes] = ["binary-translation", __version__, llvmlite.__version__, offload_arch, str(separate),
                                f"force-sass={force_sass}",
                                f"{lld.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"]
    ockl = find_toolchain().bitcode_dir / "ockl.bc"  # device printf/assert/malloc link the device library
    if ockl.exists():
        parts.append(f"{ockl.resolve()}:{ockl.stat().st_size}:{ockl.stat().st_mtime_ns}")
    parts += [source.read_bytes() for source in _SOURCES]
    for module in modules:
        parts += [repr(module.kernels), repr(module.linked_registrations)]
        for image in module.images:
            parts += [image.section, image.entry.kind, str(image.entry.arch), image.entry.options,
                      image.entry.payload]
    return digest(*parts)


def cached_translation(cache: Cache, modules: list[BinaryModule], offload_arch: str, separate: bool, lld: Path,
                       work_dir: Path, translate: Callable[[], Translation], force_sass: bool = False) -> Translation:
    """The translation of `modules` from `cache`, or `translate()`'s, stored when it is complete.
    `force_sass` is part of the key: the SASS route's code differs from the PTX route's."""
    key = _key(modules, offload_arch, separate, lld, force_sass)
    origin = " + ".join(m.origin for m in modules)
    entry = cache.lookup(key)
    if entry is not None:
        meta = entry.meta
        kernels = [TranslatedKernel(**{name: tuple(value) if isinstance(value, list) else value
                                       for name, value in kernel.items()})
                   for kernel in meta["kernels"]]  # type: ignore[union-attr]
        code_object = entry.read_bytes(_CODE_OBJECT)
        return Translation(origin, int(meta["ptx_arch"]), code_object, kernels, {},  # type: ignore[arg-type]
                           list(meta["variables"]), route=str(meta["route"]))  # type: ignore[arg-type]
    translation = translate()
    if translation.failures or translation.model_code_objects:
        return translation
    code_object = work_dir / f"cache-{key[:16]}.hsaco"
    code_object.write_bytes(translation.code_object)
    cache.store(key, {_CODE_OBJECT: code_object},
                {"ptx_arch": translation.ptx_arch, "variables": translation.variables, "route": translation.route,
                 "kernels": [asdict(kernel) for kernel in translation.kernels]})
    return translation
