"""cassc's own subcommands: doctor, setup, env."""

from __future__ import annotations

import json
import os
import shlex
import sys

import typer

from cassc import __version__, locations, toolchain as tools, toolkit
from cassc.errors import CasscError
from cassc.invocation import DEFAULT_OFFLOAD_ARCH

app = typer.Typer(add_completion=False, help="cassc: build CUDA programs for AMD GPUs.")


def _offload_archs() -> tuple[str, ...]:
    chosen = os.environ.get("CASSC_OFFLOAD_ARCH", DEFAULT_OFFLOAD_ARCH)
    return tuple(a for a in chosen.split(",") if a)


def _diagnose() -> dict[str, object]:
    report: dict[str, object] = {"cassc": __version__, "data_dir": str(locations.data_dir()),
                                 "cache_dir": str(locations.cache_dir()), "cache_enabled": locations.cache_enabled(),
                                 "offload_archs": list(_offload_archs())}
    problems: list[str] = []
    try:
        found = tools.find_toolchain()
    except CasscError as error:
        report["toolchain"] = None
        problems.append(str(error))
    else:
        report["toolchain"] = {
            "kind": found.kind, "root": str(found.root), "clang": str(found.clang), "lld": str(found.lld),
            "hip_version": found.hip_version, "hip_include_dir": str(found.hip_include_dir),
            "hip_lib_dir": str(found.hip_lib_dir), "device_libraries": str(found.bitcode_dir),
            "hipcc": str(found.hipcc) if found.hipcc else None,
        }
        fix = (tools.DEBIAN_INSTALL_HINT if found.kind == "debian"
               else f"repair the ROCm install at {found.root} or point ROCM_PATH at a complete one")
        problems += [f"missing {p}: {fix}" for p in tools.missing_parts(found)]
        try:
            report["device_library_dir"] = str(found.device_lib_dir(_offload_archs()))
        except CasscError as error:
            problems.append(str(error))
        libraries = {name: (found.hip_include_dir.parent / header).exists()
                     for name, header in (("hipRAND", "hiprand/hiprand.h"), ("hipSPARSE", "hipsparse/hipsparse.h"),
                                          ("rocPRIM", "rocprim/rocprim.hpp"), ("hipCUB", "hipcub/hipcub.hpp"),
                                          ("rocThrust", "thrust/system/hip/config.h"), ("hipBLAS", "hipblas/hipblas.h"),
                                          ("hipFFT", "hipfft/hipfft.h"))}
        report["libraries"] = libraries
    report["problems"] = problems
    return report


@app.command()
def doctor(json_output: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Say which AMD toolchain cassc uses, what is missing, and how to fix it."""
    report = _diagnose()
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        from rich.console import Console
        from rich.table import Table

        console = Console()
        table = Table(title=f"cassc {__version__}", show_header=False)
        chain = report["toolchain"]
        if isinstance(chain, dict):
            label = "ROCm install" if chain["kind"] == "rocm" else "Debian packages"
            table.add_row("toolchain", f"{label} at {chain['root']} (HIP {chain['hip_version']})")
            table.add_row("clang", str(chain["clang"]))
            table.add_row("device libraries", str(report.get("device_library_dir", chain["device_libraries"])))
        table.add_row("targets", ", ".join(report["offload_archs"]))  # type: ignore[arg-type]
        for name, present in dict(report.get("libraries", {})).items():  # type: ignore[arg-type]
            table.add_row(name, "[green]found[/]" if present else "[yellow]not installed (needs ROCm >= 6)[/]")
        table.add_row("cache", f"{report['cache_dir']} ({'on' if report['cache_enabled'] else 'off'})")
        console.print(table)
        for problem in report["problems"]:  # type: ignore[union-attr]
            console.print(f"[red]problem:[/] {problem}")
        if not report["problems"]:
            console.print("[green]ready[/]: cassc can build CUDA programs for " + ", ".join(report["offload_archs"]))  # type: ignore[arg-type]
    if report["problems"]:
        raise typer.Exit(1)


@app.command()
def setup() -> None:
    """Prepare cassc's data directory: device libraries for the targets and the stand-in toolkit."""
    try:
        found = tools.find_toolchain()
        device_libs = found.device_lib_dir(_offload_archs())
        root = toolkit.ensure_toolkit(found)
    except CasscError as error:
        print(f"cassc setup: {error}", file=sys.stderr)
        raise typer.Exit(1)
    print(f"device libraries: {device_libs}")
    print(f"CUDA toolkit stand-in: {root}")


@app.command()
def env() -> None:
    """Print shell lines that make cassc's stand-in CUDA toolkit the one found first: eval "$(cassc env)".
    CMake users may also pass -DCMAKE_TOOLCHAIN_FILE=$CUDA_PATH/cmake/cassc-toolchain.cmake."""
    try:
        root = toolkit.ensure_toolkit(tools.find_toolchain())
    except CasscError as error:
        print(f"cassc env: {error}", file=sys.stderr)
        raise typer.Exit(1)
    values = {
        "PATH": f"{root / 'bin'}:{os.environ.get('PATH', '')}",
        "CUDA_HOME": str(root), "CUDA_PATH": str(root), "CUDA_ROOT": str(root),
        "CUDACXX": str(root / "bin" / "nvcc"), "CUDAARCHS": "80", "HIP_PLATFORM": "amd",
    }
    for name, value in values.items():
        print(f"export {name}={shlex.quote(value)}")
