"""cassc's own subcommands: doctor, setup, env, model, inspect, translate, run."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path
from typing import Callable

import typer

from cassc import __version__, header_libraries, locations, toolchain as tools, toolkit
from cassc.build_check import check_build
from cassc.errors import CasscError, InputError
from cassc.hipify.tables import load_tables
from cassc.invocation import DEFAULT_OFFLOAD_ARCH
from cassc.nvcc_identity import toolkit_root

app = typer.Typer(add_completion=False, help="cassc: build CUDA programs for AMD GPUs.")


def _console():  # type: ignore[no-untyped-def]
    """rich's console: fitted to the terminal; piped (or redirected), plain text that no width cuts or wraps
    (rich would otherwise assume 80 columns and truncate paths and commands)."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console()
    return Console(width=1_000_000, no_color=True, highlight=False, soft_wrap=True)


def _print_table(console, table) -> None:  # type: ignore[no-untyped-def]
    """A table as rich draws it on a terminal; piped, its rows as plain aligned text without box lines."""
    if console.is_terminal:
        console.print(table)
        return
    table.box = None
    table.title_justify = "left"
    with console.capture() as captured:
        console.print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def _offload_archs() -> tuple[str, ...]:
    chosen = os.environ.get("CASSC_OFFLOAD_ARCH", DEFAULT_OFFLOAD_ARCH)
    return tuple(a for a in chosen.split(",") if a)


def _diagnose() -> dict[str, object]:
    report: dict[str, object] = {"cassc": __version__, "package_dir": str(locations.PACKAGE_DIR),
                                 "toolkit": str(toolkit_root()), "data_dir": str(locations.data_dir()),
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
            "hip_version": found.hip_version, "clang_version": found.clang_version,
            "hip_include_dir": str(found.hip_include_dir),
            "hip_lib_dir": str(found.hip_lib_dir), "device_libraries": str(found.bitcode_dir),
            "hipcc": str(found.hipcc) if found.hipcc else None,
        }
        fix = tools.repair_hint(found)
        problems += [f"missing {p}: {fix}" for p in tools.missing_parts(found)]
        try:
            report["device_library_dir"] = str(found.device_lib_dir(_offload_archs()))
        except CasscError as error:
            problems.append(str(error))
        # The libraries CUDA's are mapped onto (packages.tsv), and those the Debian 12 route has always.
        headers = dict([("hipRAND", "hiprand/hiprand.h"), ("hipSPARSE", "hipsparse/hipsparse.h"),
                        ("rocPRIM", "rocprim/rocprim.hpp"), *((p.name, p.probe_header) for p in load_tables().packages)])
        # Where compiles search: the install's include tree, and for the Debian toolchain the
        # hipCUB/rocThrust/rocPRIM headers `cassc setup` installed (searched first).
        library_dirs = {name: next((str(d) for d in found.library_include_dirs if (d / header).exists()), None)
                        for name, header in headers.items()}
        report["libraries"] = {name: directory is not None for name, directory in library_dirs.items()}
        report["library_dirs"] = library_dirs
        if not problems:  # the verdict: a real compile and link, as a build system runs it
            checked = check_build(found, _offload_archs())
            report["build_check"] = {"ok": checked.ok, "detail": checked.detail, "checked_at": checked.checked_at,
                                     "cached": checked.cached}
            if not checked.ok:
                problems.append(checked.detail)
    report["problems"] = problems
    return report


@app.command()
def doctor(json_output: bool = typer.Option(False, "--json", help="Print the report as JSON.")) -> None:
    """Say which AMD toolchain cassc uses, what is missing, and how to fix it."""
    report = _diagnose()
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        from rich.markup import escape
        from rich.table import Table

        console = _console()
        table = Table(title=f"cassc {__version__}", show_header=False)
        table.add_row("installed at", str(report["package_dir"]))
        chain = report["toolchain"]
        if isinstance(chain, dict):
            label = tools.TOOLCHAIN_LABELS[str(chain["kind"])]
            table.add_row("toolchain", f"{label} at {chain['root']} (HIP {chain['hip_version']}, "
                                       f"clang {chain['clang_version']})")
            table.add_row("clang", str(chain["clang"]))
            table.add_row("device libraries", str(report.get("device_library_dir", chain["device_libraries"])))
        table.add_row("targets", ", ".join(report["offload_archs"]))  # type: ignore[arg-type]
        for name, directory in dict(report.get("library_dirs", {})).items():  # type: ignore[arg-type]
            table.add_row(name, f"[green]found[/] in {directory}" if directory
                          else "[yellow]not installed[/]")
        table.add_row("CUDA toolkit stand-in", str(report["toolkit"]))
        table.add_row("cache", f"{report['cache_dir']} ({'on' if report['cache_enabled'] else 'off'})")
        _print_table(console, table)
        for problem in report["problems"]:  # type: ignore[union-attr]
            console.print(f"[red]problem:[/] {escape(problem)}", highlight=False)  # tools' output has [brackets]
        check = report.get("build_check")
        if isinstance(check, dict) and check["ok"]:
            console.print(f"[green]ready[/]: {check['detail']} (checked {check['checked_at']})")
    if report["problems"]:
        raise typer.Exit(1)


@app.command()
def setup() -> None:
    """Prepare cassc's data directory: device libraries for the targets, hipCUB and rocThrust for the
    Debian toolchain, and the stand-in toolkit; then compile and link a CUDA program with them. Every
    step runs; the exit status is nonzero if any failed."""
    failures = 0

    def step(what: str, action: Callable[[], object]) -> None:
        nonlocal failures
        try:
            print(f"{what}: {action()}")
        except (CasscError, OSError) as error:
            failures += 1
            print(f"cassc setup: {what}: {error}", file=sys.stderr)

    try:
        found: tools.Toolchain | None = tools.find_toolchain()
    except CasscError as error:
        failures, found = 1, None
        print(f"cassc setup: {error}", file=sys.stderr)
    if found is not None:
        step("device libraries", lambda: found.device_lib_dir(_offload_archs()))
        if found.kind == "debian":
            step("hipCUB, rocThrust, rocPRIM headers", header_libraries.install)
            tools.find_toolchain.cache_clear()
            found = tools.find_toolchain()
        step("CUDA toolkit stand-in", lambda: toolkit.ensure_toolkit(found))
        checked = check_build(found, _offload_archs())
        if checked.ok:
            print(f"ready: {checked.detail}")
        else:
            failures += 1
            print(f"cassc setup: {checked.detail}", file=sys.stderr)
    if failures:
        raise typer.Exit(1)


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
        # Host-compiler links of -lcudart/-lcuda that name no -L for the toolkit (Makefiles that write
        # -L/usr/local/cuda/lib64, configure's LIBS) find the stand-in's, as they find a CUDA install's there.
        "LIBRARY_PATH": ":".join(filter(None, [str(root / "lib64"), os.environ.get("LIBRARY_PATH")])),
    }
    for name, value in values.items():
        print(f"export {name}={shlex.quote(value)}")


def _translate_binaries(binaries: list[Path], output: str, offload_arch: str):  # type: ignore[no-untyped-def]
    """`cassc translate`'s work, shared with `cassc run`: (results, the directory written)."""
    import tempfile

    from cassc.binary.fallback import configured_fallback
    from cassc.binary.linked import translate_binary
    from cassc.cache import Cache
    from cassc.repair.hook import ModelRepairer

    archs = tuple(a for a in offload_arch.split(",") if a) or _offload_archs()
    directory = Path(output) if output else locations.cache_dir() / "translated"
    found = tools.find_toolchain()
    cache = Cache()
    fallback = configured_fallback(ModelRepairer(cache), found.clang)  # for kernels the lifter refuses
    with tempfile.TemporaryDirectory(prefix="cassc-translate-") as work:
        results = [result for binary in binaries
                   for result in translate_binary(binary, archs, directory, Path(work), found.lld, cache, fallback)]
    return results, directory


@app.command()
def translate(path: str = typer.Argument(..., help="An executable or shared library built by nvcc."),
              output: str = typer.Option("", "-o", "--output",
                                         help="Directory for the translations (default: the cache's translated/)."),
              offload_arch: str = typer.Option("", "--offload-arch",
                                               help="AMD GPU targets, comma-separated (default: CASSC_OFFLOAD_ARCH "
                                                    "or gfx1100)."),
              with_libraries: bool = typer.Option(False, "--with-libraries",
                                                  help="Also the nvcc-built shared libraries it needs.")) -> None:
    """Translate every fatbin of a linked nvcc-built binary ahead of time, keyed by the fatbin's content."""
    from cassc.binary.linked import report, with_nvcc_built_libraries

    binaries = with_nvcc_built_libraries(Path(path)) if with_libraries else [Path(path)]
    results, directory = _translate_binaries(binaries, output, offload_arch)
    raise typer.Exit(report(results, directory))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(context: typer.Context,
        path: str = typer.Argument(..., help="A program with device code nvcc built, or linked to such a library."),
        check_on_nvidia: bool = typer.Option(False, "--check-on-nvidia",
                                             help="Run it on NVIDIA's driver and GPU instead, with each fatbin "
                                                  "replaced by the translation lowered to NVPTX: it prints what "
                                                  "the original prints if the translation is right (static or "
                                                  "shared CUDA runtime).")) -> None:
    """Run an nvcc-built program on the AMD GPU: its fatbins and those of the nvcc-built libraries it needs are
    translated (cached by content), and cassc's libcudart (-cudart shared) and libcuda (which NVIDIA's runtime
    linked in by nvcc's default reaches) are put first on the library path."""
    from cassc.binary.extract import linked_binary_kind
    from cassc.binary.linked import report, with_nvcc_built_libraries

    binaries = [b for b in with_nvcc_built_libraries(Path(path)) if linked_binary_kind(b)]
    if not binaries:
        raise InputError(f"{path}: neither it nor the shared libraries it needs carry device code nvcc built")
    if check_on_nvidia:
        _execute(path, context.args, _nvidia_check_environment(binaries))
    results, directory = _translate_binaries(binaries, "", "")
    if report(results, directory):
        raise typer.Exit(1)
    runtime = toolkit.ensure_toolkit(tools.find_toolchain()) / "lib64" / toolkit.SHARED_RUNTIME_DIR
    environment = dict(os.environ, CASSC_TRANSLATED_DIR=str(directory),
                       LD_LIBRARY_PATH=os.pathsep.join(filter(None, [str(runtime), os.environ.get("LD_LIBRARY_PATH")])))
    _execute(path, context.args, environment)


def _execute(path: str, arguments: list[str], environment: dict[str, str]) -> None:
    program = path if "/" in path else f"./{path}"
    sys.stdout.flush()
    os.execve(program, [program, *arguments], environment)


def _nvidia_check_environment(binaries: list[Path]) -> dict[str, str]:
    """`cassc run --check-on-nvidia`: the NVPTX replacements of every fatbin and the check driver (rebuilt each
    time, in the cache's nvidia-check/), and the environment that puts them between the program and NVIDIA's
    driver (binary/nvidia_check.py)."""
    import tempfile

    from cassc.binary.nvidia_check import build_check_driver, nvidia_driver, nvptx_containers

    directory = locations.cache_dir() / "nvidia-check"
    real = nvidia_driver(directory / "driver")
    with tempfile.TemporaryDirectory(prefix="cassc-check-") as work:
        checked = [c for binary in binaries for c in nvptx_containers(binary, directory / "nvptx", Path(work))]
        driver = build_check_driver(directory / "driver", Path(work)).parent
    for failure in (c.failure for c in checked if c.failure):
        print(f"cassc run: {failure} (its original device code runs)", file=sys.stderr)
    print(f"cassc run: {sum(not c.failure for c in checked)} of {len(checked)} fatbin(s) with kernels replaced by "
          "their translation lowered to NVPTX", file=sys.stderr)
    return dict(os.environ, CASSC_REAL_LIBCUDA=str(real), CASSC_NVPTX_DIR=str(directory / "nvptx"),
                LD_LIBRARY_PATH=os.pathsep.join(filter(None, [str(driver), os.environ.get("LD_LIBRARY_PATH")])))


@app.command()
def inspect(path: str = typer.Argument(..., help="An nvcc-built object, static or shared library, or executable."),
            json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
            sass: bool = typer.Option(False, "--sass", help="Also print the SASS (cuobjdump) and each kernel's "
                                                            "route (PTX or SASS) and what the SASS lifter says of it."),
            ptx: bool = typer.Option(False, "--ptx", help="Also print the PTX the file carries.")) -> None:
    """List the CUDA device code in a file: fatbin entries, kernels, parameter layouts, host stubs."""
    from dataclasses import asdict
    from pathlib import Path

    from cassc.binary.extract import read_binary, sass_text
    from cassc.binary.sass_translate import kernel_routes

    modules = read_binary(Path(path))
    routes = [kernel_routes(m) if sass else {} for m in modules]
    if json_output:
        report = [{"origin": m.origin,
                   "images": [{"section": i.section, "container": i.container, "kind": i.entry.kind,
                               "arch": i.entry.arch, "compression": i.entry.compression,
                               "stored_size": i.entry.stored_size, "size": len(i.entry.payload),
                               "options": i.entry.options} for i in m.images],
                   "kernels": [asdict(k) for k in m.kernels]}
                  for m in modules]
        if ptx:
            for entry, module in zip(report, modules):
                entry["ptx"] = [i.entry.ptx for i in module.ptx_images()]
        if sass:
            for entry, module_routes in zip(report, routes):
                entry["routes"] = {name: {"route": chosen, "sass_lifter": verdict}
                                   for name, (chosen, verdict) in module_routes.items()}
            report.append({"sass": sass_text(Path(path))})
        print(json.dumps(report, indent=2))
        return
    from rich.table import Table

    console = _console()
    if not modules:
        console.print(f"{path}: no CUDA device code")
    for module in modules:
        images = Table(title=f"{module.origin}: device code")
        for column in ("section", "container", "kind", "arch", "compression", "bytes", "ptxas options"):
            images.add_column(column)
        for image in module.images:
            entry = image.entry
            prefix = "sm" if entry.kind == "elf" else "compute"
            images.add_row(image.section, str(image.container), entry.kind.upper(), f"{prefix}_{entry.arch}",
                           entry.compression, f"{entry.stored_size} -> {len(entry.payload)}", entry.options)
        _print_table(console, images)
        kernels = Table(title=f"{module.origin}: kernels")
        for column in ("kernel", "host stub", "params (offset:size)", "param bytes", "shared", "registers",
                       "SASS", "PTX"):
            kernels.add_column(column)
        for kernel in module.kernels:
            kernels.add_row(kernel.name, kernel.host_stub or "-",
                            " ".join(f"{p.offset}:{p.size}" for p in kernel.params), str(kernel.param_size),
                            str(kernel.shared_size), str(kernel.registers),
                            ",".join(f"sm_{a}" for a in kernel.sass_archs),
                            ",".join(f"compute_{a}" for a in kernel.ptx_archs))
        _print_table(console, kernels)
        if sass:
            table = Table(title=f"{module.origin}: routes")
            for column in ("kernel", "route", "SASS lifter"):
                table.add_column(column)
            for name, (chosen, verdict) in routes[modules.index(module)].items():
                table.add_row(name, chosen, verdict)
            _print_table(console, table)
        if ptx:
            for image in module.ptx_images():
                print(image.entry.ptx)
    if sass:
        print(sass_text(Path(path)))


model_app = typer.Typer(add_completion=False, no_args_is_help=True,
                        help="Repair models: local GGUF files run by llama.cpp. cassc never downloads one.")
app.add_typer(model_app, name="model")


@model_app.command("add")
def model_add(path: str = typer.Argument(..., help="A GGUF file."),
              name: str | None = typer.Option(None, "--name", help="Its name in cassc (default: the registry's "
                                              "name for a known file, else the file name)."),
              prompt_format: str | None = typer.Option(None, "--prompt", help="cass-source or instruct "
                                                       "(default: the registry's, else instruct).")) -> None:
    """Add a GGUF model to cassc's data directory (a hard link when possible, else a copy)."""
    from pathlib import Path

    from cassc.repair.registry import add_model

    model = add_model(Path(path), name, prompt_format)
    known = f", known as {model.known_as}" if model.known_as else ""
    print(f"added {model.name}: {model.path} ({model.size} bytes, sha256 {model.sha256}, "
          f"prompt {model.prompt_format}{known})")


@model_app.command("list")
def model_list(json_output: bool = typer.Option(False, "--json", help="Print the list as JSON.")) -> None:
    """List the models added to cassc and the models it knows how to use."""
    from dataclasses import asdict

    from cassc.repair.registry import installed_models, known_models
    from cassc.repair.settings import config_file, load_settings

    installed = installed_models()
    known = known_models()
    selected = load_settings(None).model
    if json_output:
        print(json.dumps({
            "selected": selected,
            "installed": [{**asdict(m), "path": str(m.path)} for m in installed.values()],
            "known": [{**asdict(k), "installed": k.name in installed} for k in known.values()],
        }, indent=2))
        return
    from rich.table import Table

    table = Table(title="cassc repair models")
    for column in ("name", "prompt", "size / where to get it", "status"):
        table.add_column(column)
    for model in installed.values():
        status = "[green]installed[/]" + (" [bold](selected)[/]" if model.name == selected else "")
        table.add_row(model.name, model.prompt_format, f"{model.size / 2**20:.1f} MiB", status)
    for entry in known.values():
        if entry.name not in installed:
            table.add_row(entry.name, entry.prompt_format, entry.download, "not installed")
    _print_table(_console(), table)
    if selected is None:
        print("no model selected: repair is off (--cassc-model NAME, CASSC_MODEL, or [repair] model in "
              f"{config_file()})")


@model_app.command("remove")
def model_remove(name: str) -> None:
    """Remove a model from cassc's data directory."""
    from cassc.repair.registry import remove_model

    model = remove_model(name)
    print(f"removed {model.name} ({model.path})")


@model_app.command("verify")
def model_verify(model: str = typer.Argument(..., help="An installed name, a .gguf file or an http:// server."),
                 json_output: bool = typer.Option(False, "--json", help="Print the result as JSON.")) -> None:
    """Check a model: its file's hash, that llama.cpp loads it, and that it answers a tiny prompt."""
    from cassc.errors import ModelError
    from cassc.repair.backends import backend_for
    from cassc.repair.registry import LocalModel, file_sha256, installed_models, known_models, locate_model
    from cassc.repair.settings import load_settings

    located = locate_model(model)
    report: dict[str, object] = {"model": model}
    if isinstance(located, LocalModel):
        report["path"] = str(located.path)
        digest = file_sha256(located.path)
        report["sha256"] = digest
        recorded = installed_models().get(located.name)
        published = known_models().get(recorded.known_as or "") if recorded else None
        expected = published.sha256 if published and published.sha256 else located.sha256
        if expected and expected != digest:
            raise ModelError(f"{located.path} changed since it was added: sha256 {digest}, expected {expected}")
        report["hash_checked"] = expected is not None
    backend = backend_for(located, load_settings(None))
    generation = backend.generate("Reply with the single word OK.", 8, lambda _: None)
    if generation.tokens == 0:
        raise ModelError(f"{backend.name} loaded but generated nothing")
    report.update(name=backend.name, prompt_format=backend.prompt_format,
                  load_seconds=round(generation.load_seconds, 3),
                  tokens=generation.tokens, seconds=round(generation.seconds, 3),
                  tokens_per_second=round(generation.tokens_per_second, 1), answer=generation.text)
    if json_output:
        print(json.dumps(report, indent=2))
    else:
        checked = "sha256 checked, " if report.get("hash_checked") else ""
        print(f"{backend.name}: {checked}loaded in {generation.load_seconds:.2f} s, answered {generation.tokens} "
              f"tokens at {generation.tokens_per_second:.1f} tokens/s: {generation.text[:60]!r}")


def subcommand_summaries() -> list[tuple[str, str]]:
    """Each subcommand (model's own subcommands too) and the first sentence of its help, for `cassc --help`."""
    summaries: list[tuple[str, str]] = []

    def walk(command, prefix: str) -> None:  # type: ignore[no-untyped-def]  # typer's own click types
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, f"{prefix}{name} ")
        elif prefix:
            summaries.append((prefix.strip(), (command.help or "").split(". ")[0].split("\n\n")[0].replace("\n", " ")))

    walk(typer.main.get_command(app), "")
    return summaries
