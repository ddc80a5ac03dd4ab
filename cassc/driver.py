"""Invocation -> one job per input -> stages -> outputs, for each nvcc compilation phase.

Every output is written through outputs.atomic_output (atomically, or in place for a device or FIFO);
intermediate files live in a private work directory that is removed at the end (kept with --keep). Inputs
are only ever read.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from cassc import compdb, nvcc_identity, stages, toolkit
from cassc.cache import Cache
from cassc.depfile import format_depfile
from cassc.errors import InputError, OutputError, UsageError
from cassc.hipify.tree import display_path
from cassc.invocation import SOURCE_KINDS, InputFile, InputKind, Invocation, parse_invocation
from cassc.outputs import atomic_output, check_writable, is_plain_file_output, is_replaceable
from cassc.repair.hook import ModelRepairer
from cassc.toolchain import Toolchain, find_toolchain, run

if TYPE_CHECKING:
    from cassc.binary.fallback import Fallback
    from cassc.binary.extract import BinaryModule
    from cassc.formats.host_object import HostObject


@dataclass
class Context:
    inv: Invocation
    toolchain: Toolchain
    work_dir: Path
    runner: stages.Runner
    cache: Cache
    repairer: stages.Repairer

    def intermediates(self, index: int, source: InputFile) -> Path:
        """The name the intermediates of the command's `index`th input start with, in that unit's directory,
        which holds its mirror too: in a replay of the dryrun it exists once the front end has run."""
        return self.work_dir / str(index) / source.path.stem

    def mirror_root(self, index: int) -> Path:
        return self.work_dir / str(index) / "mirror"

    def hipify(self, index: int, source: InputFile) -> stages.HipifiedUnit:
        return stages.front_end(source, self.inv, self.mirror_root(index), self.runner)

    def compile_source(self, index: int, source: InputFile, mode: list[str] | None = None,
                       suffix: str = ".o", output: Path | None = None) -> stages.CompiledObject:
        """Compile one source; into `output` when clang may write it itself (a file, or a name not yet
        taken: clang replaces it atomically, as cassc would), else into the work dir."""
        unit = self.hipify(index, source)
        flags = stages.unit_flags(source.kind, self.inv, self.toolchain, unit)
        if self.inv.compile_commands is not None and not self.runner.dryrun:
            arguments = stages.clangd_arguments(source.path.absolute(), source.kind, self.inv, self.toolchain)
            compdb.record(self.inv.compile_commands, compdb.entry(Path.cwd(), source.path.absolute(), arguments))
        intermediates = self.intermediates(index, source)
        target = (output if output is not None and is_plain_file_output(output)
                  else intermediates.with_name(intermediates.name + suffix))
        compiled = stages.compile_unit(unit, source.kind, flags, target, intermediates, self.runner, self.cache,
                                       mode, use_hipcc=self.inv.use_hipcc, repairer=self.repairer,
                                       keep_intermediates=self.inv.keep, host_compiler=self.inv.host_compiler)
        if self.inv.keep and source.kind is InputKind.CUDA and mode is None:
            if not self.inv.rdc:  # an -rdc object carries its device IR (device_code_stage keeps it)
                for ir, command, env in stages.device_ir_commands(unit, flags, intermediates, self.toolchain,
                                                                  self.inv.offload_archs, self.inv.use_hipcc):
                    request = {"command": command, "env": env, "output": str(ir)}
                    if self.runner.stage("device-ir", [json.dumps(request, sort_keys=True)]):
                        device_ir_stage(request)
            if self.runner.stage("device-code", [str(compiled.path), str(intermediates)]):
                device_code_stage(compiled.path, intermediates, self.toolchain)
        return compiled


def execute(inv: Invocation) -> int:
    if inv.info:
        return _print_info(inv)
    toolchain = find_toolchain()
    toolkit.ensure_toolkit(toolchain)  # CMake's probe (-v) requires the tree it names to exist
    if inv.verbose or inv.dryrun:
        for line in nvcc_identity.verbose_variables(inv.cuda_archs):
            print(f"#$ {line}", file=sys.stderr)
        for note in inv.dropped:
            print(f"cassc: ignoring {note}", file=sys.stderr)
        if inv.host_compiler:
            print(f"cassc: host compiler '{inv.host_compiler}' compiles C/C++ inputs and links; CUDA code is "
                  "compiled by the HIP clang", file=sys.stderr)
    if inv.clean_targets:
        return _clean_targets(inv)
    _validate_inputs(inv)
    work_dir = _work_dir(inv)
    runner = stages.Runner(toolchain, inv.verbose, inv.dryrun, work_dir=work_dir,
                           device_label=",".join(inv.offload_archs),
                           warnings_as_errors="all-warnings" in inv.werror_kinds)
    cache = Cache(enabled=None if not inv.dryrun else False)
    context = Context(inv, toolchain, work_dir, runner, cache, ModelRepairer(cache, inv.model, verbose=inv.verbose))
    try:
        return PHASES[inv.phase](context)
    finally:
        if not inv.keep:
            shutil.rmtree(work_dir, ignore_errors=True)


def execute_stage(name: str, arguments: list[str]) -> int:
    """Run one in-process stage on its own, as its -v/--dryrun line names it (`nvcc --cassc-stage=NAME ...`)."""
    if name == "hipify":
        inv = parse_invocation(arguments, env={})  # the line holds every option the unit was built with
        sources = inv.sources()
        if len(sources) != 1 or inv.output is None:
            raise UsageError("--cassc-stage=hipify takes one source and -o <mirror directory>")
        stages.hipify_source(sources[0], inv, find_toolchain(), inv.output)
    elif name == "depfile" and len(arguments) == 1:
        depfile_stage(json.loads(arguments[0]), find_toolchain())
    elif name == "install" and len(arguments) == 2:
        install_stage(Path(arguments[0]), Path(arguments[1]))
    elif name == "device-ir" and len(arguments) == 1:
        device_ir_stage(json.loads(arguments[0]))
    elif name == "device-code" and len(arguments) == 2:
        device_code_stage(Path(arguments[0]), Path(arguments[1]), find_toolchain())
    else:
        raise UsageError(f"--cassc-stage={name}: not a stage, or not its arguments "
                         "(hipify, depfile, install, device-ir, device-code)")
    return 0


def _work_dir(inv: Invocation) -> Path:
    """Where intermediates go. Under --keep a directory named after the output in the keep directory, as
    nvcc names its kept files after the input: the same command lists the same paths (--dryrun --keep,
    which sccache replays), and builds into one keep directory do not meet. --dryrun creates nothing."""
    if not inv.keep:
        return Path(tempfile.mkdtemp(prefix="cassc-"))
    sources = inv.sources()
    named = inv.output or (sources[0].path if sources else Path("a.out"))
    work_dir = Path(inv.keep_dir or ".") / f"{named.name}.cassc"
    if not inv.dryrun:
        work_dir.mkdir(parents=True, exist_ok=True)
    return work_dir


def _clean_targets(inv: Invocation) -> int:
    """nvcc -clean-targets: delete the files this command line would produce, build nothing."""
    sources = [i for i in inv.inputs if i.kind in SOURCE_KINDS]
    default_names = {"link": "a.out", "run": "a.out", "lib": "a.a", "device-link": "a_dlink.o"}
    planned: list[Path] = []
    if inv.phase in default_names:
        planned.append(inv.output or Path(default_names[inv.phase]))
    elif inv.phase in ("compile", *DEVICE_ONLY_MODES):
        suffix = DEVICE_ONLY_MODES[inv.phase][1] if inv.phase in DEVICE_ONLY_MODES else ".o"
        outputs = [inv.output] if inv.output else [_default_output(s.path, suffix, inv) for s in sources]
        planned += [o for o in outputs if o is not None]
        if inv.depfile_with_compile:
            planned += [Path(inv.depfile)] if inv.depfile else [o.with_suffix(".d") for o in outputs if o]
    elif inv.output:
        planned.append(inv.output)
    inputs = {i.path.resolve() for i in inv.inputs if i.path.exists()}
    for path in planned:
        if is_replaceable(path) and path.resolve() not in inputs:  # never /dev/null or a FIFO
            if inv.verbose or inv.dryrun:
                print(f"#$ rm {path}", file=sys.stderr)
            if not inv.dryrun:
                path.unlink()
    return 0


def _print_info(inv: Invocation) -> int:
    if inv.info == "version":
        try:
            hip_version = find_toolchain().hip_version
        except Exception:  # --version must answer even without a toolchain (CMake probes it first)
            hip_version = "(not found)"
        print(nvcc_identity.version_banner(inv.offload_archs, hip_version))
    elif inv.info == "help":
        from cassc.commands import subcommand_summaries

        print(nvcc_identity.help_text(subcommand_summaries()), end="")
    elif inv.info == "list-gpu-arch":
        print(nvcc_identity.list_gpu_arch())
    else:
        print(nvcc_identity.list_gpu_code())
    return 0


def _validate_inputs(inv: Invocation) -> None:
    if not inv.inputs:
        raise UsageError("No input files specified; use option --help for more information")
    for item in inv.inputs:
        if item.kind is InputKind.UNKNOWN:
            _refuse_nvcc_built_binaries([item.path])
            raise UsageError(f"Don't know what to do with '{item.path}'")
        if inv.dryrun and not item.path.exists():
            continue  # nvcc's --dryrun lists a missing input's steps (scripts probe it with a made-up name)
        if not item.path.is_file():
            what = "is a directory" if item.path.is_dir() else "does not exist"
            raise InputError(f"cannot read input file '{item.path}': it {what}")
        if item.kind is InputKind.DEVICE_CODE:
            raise InputError(f"'{item.path}': PTX, cubin and fatbin inputs need cassc's binary path, "
                             "which does not handle them yet")
    outputs = [p for p in (inv.output, Path(inv.depfile) if inv.depfile else None) if p is not None]
    for output in outputs:
        for item in inv.inputs:
            if output.exists() and item.path.exists() and output.resolve() == item.path.resolve():
                raise OutputError(f"output '{output}' is also an input; cassc never overwrites its inputs")


def _default_output(source: Path, suffix: str, inv: Invocation) -> Path:
    name = Path(source.stem + suffix)
    return inv.output_directory / name if inv.output_directory else name


def _single_output_check(inv: Invocation, sources: list[InputFile]) -> None:
    if inv.output is not None and len(sources) > 1:
        raise UsageError("A single input file is required for a non-link phase when an outputfile is specified")


def _sources_only(inv: Invocation, phase_name: str) -> list[InputFile]:
    for item in inv.inputs:
        if item.kind not in SOURCE_KINDS:
            raise UsageError(f"'{item.path}' is not a source file; {phase_name} takes .cu, .c and .cpp files")
    return list(inv.inputs)


def _install(runner: stages.Runner, built: Path, output: Path) -> None:
    """The `install` stage, where the output is not clang's to write (a link, a device): copied atomically,
    written through links and into devices as nvcc writes them."""
    if built != output and runner.stage("install", [str(built), str(output)]):
        install_stage(built, output)


def install_stage(built: Path, output: Path) -> None:
    with atomic_output(output) as temporary:
        shutil.copyfile(built, temporary)


# ------------------------------------------------------------------------------------------------
# phases


def compile_phase(ctx: Context) -> int:
    sources = _sources_only(ctx.inv, "-c")
    _single_output_check(ctx.inv, sources)
    for index, source in enumerate(sources):
        output = ctx.inv.output or _default_output(source.path, ".o", ctx.inv)
        check_writable(output)
        compiled = ctx.compile_source(index, source, output=output)
        _install(ctx.runner, compiled.path, output)
        _write_depfile_with_compile(ctx, index, source, compiled.clang_depfile, output)
    return 0


def _write_depfile_with_compile(ctx: Context, index: int, source: InputFile, clang_depfile: Path, output: Path) -> None:
    """-MD/-MMD: the depfile nvcc writes beside the output of -c, -ptx, -cubin and -fatbin alike."""
    if ctx.inv.depfile_with_compile:
        _write_depfile(ctx, source, clang_depfile, ctx.mirror_root(index), output,
                       nonsystem=ctx.inv.depfile_with_compile == "nonsystem",
                       depfile=Path(ctx.inv.depfile) if ctx.inv.depfile else output.with_suffix(".d"))


def device_ir_stage(request: dict[str, Any]) -> None:
    """--keep's device IR (`stages.device_ir_commands`). Its clang command runs inside this stage, where
    nvcc's cicc line stands on its own: a clang line carrying nvcc's macros is one sccache, which replays
    `--dryrun --keep` for every compile, would run and cache as the unit's compile; a stage line carries
    none, and sccache leaves it out, as it leaves out the other --keep-only stages. Its warnings are the
    compile's, printed once already."""
    run(request["command"], env=request["env"])


def device_code_stage(built: Path, intermediates: Path, toolchain: Toolchain) -> None:
    """Each GPU target's code object (`<intermediates>-<arch>.hsaco`) and its gfx assembly (`.s`); an -rdc
    object carries device bitcode instead, linked at the device link (`.bc`)."""
    from cassc.formats.host_object import read_host_object

    host = read_host_object(built.read_bytes(), str(built))
    for triple, bitcode in host.device_sections.items():
        Path(f"{intermediates}-{triple.rsplit('-', 1)[-1]}.bc").write_bytes(bitcode)
    for entry in host.bundle_entries():
        if not entry.payload:
            continue
        arch = entry.triple.rsplit("-", 1)[-1]
        code_object = Path(f"{intermediates}-{arch}.hsaco")
        code_object.write_bytes(entry.payload)
        assembly = run([str(toolchain.llvm_objdump), "-d", f"--mcpu={arch}", str(code_object)]).stdout
        Path(f"{intermediates}-{arch}.s").write_text(assembly)


def _write_depfile(ctx: Context, source: InputFile, clang_depfile: Path, mirror_root: Path, output: Path | None,
                   nonsystem: bool, depfile: Path | None) -> None:
    """The `depfile` stage: the user's depfile from clang's, which names the mirror."""
    request = {"source": str(source.path), "clang_depfile": str(clang_depfile), "mirror": str(mirror_root),
               "nonsystem": nonsystem, "phony": ctx.inv.depfile_phony_targets,
               "targets": list(ctx.inv.depfile_targets) or [str(output or _default_output(source.path, ".o", ctx.inv))],
               "depfile": str(depfile) if depfile else None}
    if ctx.runner.stage("depfile", [json.dumps(request, sort_keys=True)]):
        depfile_stage(request, ctx.toolchain)


def depfile_stage(request: dict[str, Any], toolchain: Toolchain) -> None:
    cwd = Path.cwd()
    prerequisites = [request["source"]]
    for path in stages.user_dependencies(Path(request["mirror"]), Path(request["clang_depfile"]))[1:]:
        if request["nonsystem"] and stages.is_system_header(path, toolchain):
            continue
        prerequisites.append(display_path(path, cwd))
    text = format_depfile(request["targets"], prerequisites, request["phony"])
    if request["depfile"] is None:
        sys.stdout.write(text)
        return
    with atomic_output(Path(request["depfile"])) as temporary:
        temporary.write_text(text)


def dependencies_phase(ctx: Context) -> int:
    sources = _sources_only(ctx.inv, "-M")
    for index, source in enumerate(sources):
        unit = ctx.hipify(index, source)
        flags = stages.unit_flags(source.kind, ctx.inv, ctx.toolchain, unit)
        clang_depfile = stages.dependencies_of_unit(unit, flags, ctx.runner, ctx.intermediates(index, source))
        depfile = Path(ctx.inv.depfile) if ctx.inv.depfile else ctx.inv.output
        _write_depfile(ctx, source, clang_depfile, ctx.mirror_root(index), None, nonsystem=ctx.inv.phase == "nonsystem-dependencies",
                       depfile=depfile)
    return 0


def preprocess_phase(ctx: Context) -> int:
    sources = _sources_only(ctx.inv, "-E")
    _single_output_check(ctx.inv, sources)
    for index, source in enumerate(sources):
        unit = ctx.hipify(index, source)
        flags = stages.unit_flags(source.kind, ctx.inv, ctx.toolchain, unit)
        text = stages.preprocess_unit(unit, flags, ctx.runner)
        output = ctx.inv.output or (_default_output(source.path, ".cu.cpp.ii", ctx.inv)
                                    if ctx.inv.phase == "cuda" else None)
        if ctx.runner.dryrun:
            continue
        if output is None:
            sys.stdout.write(text)
        else:
            with atomic_output(output) as temporary:
                temporary.write_text(text)
    return 0


# -cubin: the gfx code object; -fatbin: the offload bundle; -ptx: AMD GPU assembly (there is no PTX).
DEVICE_ONLY_MODES = {
    "cubin": (["--cuda-device-only", "-c", "--no-gpu-bundle-output"], ".cubin"),
    "fatbin": (["--cuda-device-only", "-c", "--gpu-bundle-output"], ".fatbin"),
    "ptx": (["--cuda-device-only", "-S", "--no-gpu-bundle-output"], ".ptx"),
}


def device_only_phase(ctx: Context) -> int:
    sources = _sources_only(ctx.inv, f"-{ctx.inv.phase}")
    _single_output_check(ctx.inv, sources)
    mode, suffix = DEVICE_ONLY_MODES[ctx.inv.phase]
    if ctx.inv.phase != "fatbin" and len(ctx.inv.offload_archs) > 1:
        raise UsageError(f"-{ctx.inv.phase} produces code for one GPU; give a single --cassc-offload-arch")
    for index, source in enumerate(sources):
        if source.kind is not InputKind.CUDA:
            raise UsageError(f"'{source.path}' has no device code; -{ctx.inv.phase} takes .cu files")
        output = ctx.inv.output or _default_output(source.path, suffix, ctx.inv)
        check_writable(output)
        compiled = ctx.compile_source(index, source, mode=mode, suffix=suffix, output=output)
        _install(ctx.runner, compiled.path, output)
        _write_depfile_with_compile(ctx, index, source, compiled.clang_depfile, output)
    return 0


def _objects_for_link(ctx: Context) -> list[Path]:
    """Compile the sources; return every object and library input in command-line order."""
    objects: list[Path] = []
    for index, item in enumerate(ctx.inv.inputs):
        if item.kind in SOURCE_KINDS:
            objects.append(ctx.compile_source(index, item).path)
        else:
            objects.append(item.path)
    return objects


def _host_objects(paths: list[Path]) -> list[tuple[str, HostObject]]:
    from cassc.formats.archive import ArchiveFormatError, is_archive, read_archive
    from cassc.formats.host_object import HostObjectError, read_host_object

    result = []
    for path in paths:
        if path.suffix == ".so" or ".so." in path.name:
            continue
        data = path.read_bytes()
        if not is_archive(data) and data[:4] != b"\x7fELF":
            continue  # a linker script (the stand-in toolkit's lib<CUDA library>_static.a): it names libraries only
        try:
            if is_archive(data):
                for member in read_archive(data):
                    if member.data[:4] == b"\x7fELF":
                        result.append((f"{path}({member.name})", read_host_object(member.data, member.name)))
            else:
                result.append((str(path), read_host_object(data, str(path))))
        except (ArchiveFormatError, HostObjectError) as error:
            raise InputError(f"{path}: {error}") from error
    return result


def _device_link_object(ctx: Context, objects: list[Path]) -> tuple[list[Path], list[Path]]:
    """What the link needs besides the objects: the device link of -fgpu-rdc objects, and for
    nvcc-built objects their translated device code; and, after the user's libraries (whose members
    may call it), the runtime shim with the CUDA runtime API as jumps to HIP (linked statically, so the
    program needs nothing of cassc at run time)."""
    if ctx.runner.dryrun:
        return [], []
    hosts = _host_objects([*objects, *_static_libraries(ctx.inv)])
    extra: list[Path] = []
    trailing: list[Path] = []
    if any(host.has_cuda_device_code for _, host in hosts):
        from cassc.binary.extract import read_binary
        from cassc.binary.members import refuse_device_side_launches, taken_by_host_link, taken_modules
        from cassc.binary.splice import translate_and_splice

        modules = [module for path in _nvcc_built_inputs([*objects, *_static_libraries(ctx.inv)], hosts)
                   for module in read_binary(path)]
        archives = [str(path) for path in dict.fromkeys([*objects, *_static_libraries(ctx.inv)]) if _is_archive(path)]
        taken = taken_by_host_link(hosts, {name for name, _ in hosts
                                           if any(name.startswith(f"{archive}(") for archive in archives)})
        taken_hosts = [(name, host) for name, host in hosts if name in taken]
        _refuse_nvidia_device_link_objects(taken_hosts)
        modules = [m for m in taken_modules(modules, taken) if not _device_linked_by(m, taken_hosts)]
        refuse_device_side_launches(modules)
        if modules:
            extra.append(translate_and_splice(modules, ctx.inv.offload_archs, ctx.work_dir, ctx.runner,
                                              _model_fallback(ctx), ctx.cache, ctx.inv.force_sass))
    if extra or _calls_cuda_runtime(hosts):
        # Host code compiled against NVIDIA's headers (by g++ too: SHOC's GEMM.cpp, with no device code of its
        # own) calls the CUDA runtime by its names, which the shim defines.
        trailing.append(nvcc_identity.toolkit_root() / "lib64" / toolkit.SHIM_RUNTIME)
    if ctx.inv.no_device_link or not stages.needs_device_link([h for _, h in hosts]):
        return extra, trailing
    output = ctx.work_dir / "device-link.o"
    stages.device_link(hosts, ctx.inv.offload_archs, output, ctx.work_dir, ctx.runner)
    return [output, *extra], trailing


def _calls_cuda_runtime(hosts: list[tuple[str, HostObject]]) -> bool:
    """Whether host code needs a CUDA runtime function (cuda*) that no input defines."""
    defined = set().union(*(host.defined_globals for _, host in hosts))
    return any(name.startswith("cuda") and name not in defined for _, host in hosts for name in host.undefined_globals)


def _refuse_nvidia_device_link_objects(hosts: list[tuple[str, HostObject]]) -> None:
    """nvcc's -dlink output holds the -rdc program's device code linked into SASS, and defines the
    registrations cassc's device link would: the two cannot both be in one program."""
    from cassc.formats.host_object import LINKED_REGISTRATION_PREFIX

    for name, host in hosts:
        if host.has_cuda_device_code and any(symbol.startswith(LINKED_REGISTRATION_PREFIX)
                                             for symbol in host.defined_globals):
            raise InputError(f"{name} is nvcc's device-link object (nvcc -dlink), linked NVIDIA code: leave it out "
                             "(cassc device-links the -rdc objects itself) or make it with cassc -dlink")


def _device_linked_by(module: BinaryModule, hosts: list[tuple[str, HostObject]]) -> bool:
    """An -rdc module whose registrations another input (cassc -dlink's object) defines: translated there."""
    if not module.linked_registrations:
        return False
    provided = set().union(*(host.defined_globals for _, host in hosts if not host.has_cuda_device_code))
    return set(module.linked_registrations) <= provided


def _is_archive(path: Path) -> bool:
    from cassc.formats.archive import is_archive

    with path.open("rb") as handle:
        return is_archive(handle.read(8))


def _model_fallback(ctx: Context) -> Fallback | None:
    """The configured repair model, for kernels the binary path's lifter cannot translate."""
    if not isinstance(ctx.repairer, ModelRepairer):
        return None
    from cassc.binary.fallback import configured_fallback

    return configured_fallback(ctx.repairer, ctx.toolchain.clang)


def _nvcc_built_inputs(objects: list[Path], hosts: list[tuple[str, HostObject]]) -> list[Path]:
    """The inputs (objects, static libraries) that hold device code nvcc built."""
    built = {name for name, host in hosts if host.has_cuda_device_code}
    return [path for path in dict.fromkeys(objects)
            if any(name == str(path) or name.startswith(f"{path}(") for name in built)]


def _static_libraries(inv: Invocation) -> list[Path]:
    """The `-lNAME` libraries that resolve to a static library in the `-L` directories (the linker
    takes lib<NAME>.so first, as here)."""
    found = []
    for name in inv.libraries:
        for directory in inv.library_dirs:
            if (Path(directory) / f"lib{name}.so").exists():
                break
            archive = Path(directory) / f"lib{name}.a"
            if archive.exists():
                found.append(archive)
                break
    return found


def _refuse_nvcc_built_binaries(paths: list[Path]) -> None:
    """An nvcc-built shared library or executable would link, and run without its device code: stop."""
    from cassc.binary.extract import linked_binary_kind, refuse_linked_binary

    for path in paths:
        kind = linked_binary_kind(path)
        if kind:
            raise refuse_linked_binary(path, kind)


def _shared_libraries(inv: Invocation) -> list[Path]:
    """The shared libraries the link takes: inputs, and `-lNAME` found as lib<NAME>.so in a `-L` directory. A CUDA
    library (-lcublas, -lcufft...) is not among them: cassc links its ROCm counterpart, whatever NVIDIA's own
    lib<NAME>.so a `-L` directory (the toolkit's lib64 that built the objects) holds."""
    from cassc.hipify.tables import load_tables

    cuda_libraries = load_tables().link_libraries
    named = [item.path for item in inv.inputs if item.kind is InputKind.SHARED_LIBRARY]
    for name in (n for n in inv.libraries if n not in cuda_libraries):
        for directory in inv.library_dirs:
            if (Path(directory) / f"lib{name}.so").exists():
                named.append(Path(directory) / f"lib{name}.so")
                break
            if (Path(directory) / f"lib{name}.a").exists():
                break
    return named


def link_phase(ctx: Context) -> int:
    output = ctx.inv.output or Path("a.out")
    check_writable(output)
    _refuse_nvcc_built_binaries(_shared_libraries(ctx.inv))
    objects = _objects_for_link(ctx)
    extra, trailing = _device_link_object(ctx, objects)
    objects += extra
    if ctx.runner.dryrun:
        stages.link(objects, ctx.inv, output, ctx.runner)
        return 0
    with atomic_output(output) as temporary:
        stages.link(objects, ctx.inv, temporary, ctx.runner, trailing)
    if ctx.inv.phase == "run":
        program = str(output if output.is_absolute() or "/" in str(output) else Path(".") / output)
        ctx.runner.show([program, *ctx.inv.run_args])
        return run([program if "/" in program else f"./{program}", *ctx.inv.run_args],
                   check=False, capture=False).returncode
    return 0


def lib_phase(ctx: Context) -> int:
    output = ctx.inv.output or Path("a.a")
    check_writable(output)
    objects = _objects_for_link(ctx)
    for item in ctx.inv.inputs:
        if item.kind in (InputKind.ARCHIVE, InputKind.SHARED_LIBRARY):
            raise UsageError(f"'{item.path}': -lib collects objects and sources, not libraries")
    if ctx.runner.dryrun:
        stages.archive(objects, ctx.inv, output, ctx.runner)
        return 0
    with atomic_output(output) as temporary:
        stages.archive(objects, ctx.inv, temporary, ctx.runner)
    return 0


def device_link_phase(ctx: Context) -> int:
    output = ctx.inv.output or Path("a_dlink.o")
    check_writable(output)
    objects = _objects_for_link(ctx)
    if ctx.runner.dryrun:
        return 0
    hosts = _host_objects(objects)
    if any(host.has_cuda_device_code for _, host in hosts):
        return _device_link_nvcc_objects(ctx, objects, hosts, output)
    with atomic_output(output) as temporary:
        stages.device_link(hosts, ctx.inv.offload_archs, temporary, ctx.work_dir, ctx.runner)
    return 0


def _device_link_nvcc_objects(ctx: Context, objects: list[Path], hosts: list[tuple[str, HostObject]],
                              output: Path) -> int:
    """nvcc -dlink's counterpart for nvcc-built -rdc objects: one relocatable object holding their device code
    translated and linked, the `__cudaRegisterLinkedBinary_*` functions they register through, and the shim
    runtime, so that a host link of the objects and this one (by cassc, or by g++ with -lcudart) runs them."""
    from cassc.binary.extract import read_binary
    from cassc.binary.members import refuse_device_side_launches
    from cassc.binary.splice import translate_and_splice
    from cassc.binary.translate import is_separate

    if any(host.device_sections for _, host in hosts):
        raise UsageError("-dlink of nvcc-built and cassc-built -rdc objects together: device-link each set alone")
    _refuse_nvidia_device_link_objects(hosts)
    modules = [module for path in _nvcc_built_inputs(objects, hosts) for module in read_binary(path)]
    separate = [module for module in modules if is_separate(module)]
    refuse_device_side_launches(separate)
    if not separate:
        raise InputError(f"{', '.join(m.origin for m in modules)}: no relocatable device code (-rdc) to device-link; "
                         "link the objects directly (cassc translates whole-program objects at the link)")
    spliced = translate_and_splice(separate, ctx.inv.offload_archs, ctx.work_dir, ctx.runner, _model_fallback(ctx),
                                   ctx.cache)
    shim = nvcc_identity.toolkit_root() / "lib64" / toolkit.SHIM_RUNTIME
    with atomic_output(output) as temporary:
        ctx.runner.run([str(ctx.toolchain.clang), "-r", "-nostdlib", str(spliced), "-Wl,--whole-archive", str(shim),
                        "-Wl,--no-whole-archive", "-o", str(temporary)], what="device link")
    return 0


def unsupported_phase(ctx: Context) -> int:
    raise UsageError(f"-{ctx.inv.phase} has no AMD equivalent")


PHASES: dict[str, Callable[[Context], int]] = {
    "compile": compile_phase,
    "link": link_phase,
    "run": link_phase,
    "lib": lib_phase,
    "device-link": device_link_phase,
    "preprocess": preprocess_phase,
    "cuda": preprocess_phase,
    "dependencies": dependencies_phase,
    "nonsystem-dependencies": dependencies_phase,
    "cubin": device_only_phase,
    "fatbin": device_only_phase,
    "ptx": device_only_phase,
    "optix-ir": unsupported_phase,
    "ltoir": unsupported_phase,  # NVVM's link-time IR: clang's -fgpu-rdc bitcode plays its part inside objects
}
