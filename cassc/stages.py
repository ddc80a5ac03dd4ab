"""The pipeline's stages. Each is a function from artifacts to an artifact, with its options explicit.

    hipify_source:   .cu/.cpp (user's tree)      -> HipifiedUnit (mirror tree with #line)
    compile_unit:    HipifiedUnit + flags        -> object (+ dependencies)   [cached by content]
    preprocess_unit / dependencies_of_unit        -> text
    device_link:     -fgpu-rdc objects           -> object holding the linked gfx code (`.incbin`)
    link:            objects + libraries         -> executable or shared library
    archive:         objects                     -> static library

Command lines are built by the `*_flags` functions from the Invocation; every command runs through
`Runner`, which prints it for -v/--dryrun and hands it to toolchain.run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Protocol

from cassc import __version__, toolchain as tools
from cassc.cli import STAGE_OPTION
from cassc.cache import Cache, digest, file_digest, file_stamp
from cassc.depfile import format_depfile, parse_depfile
from cassc.clang_options import diagnostic_flags, in_nvcc_warning_scope, refused_by_xarch, werror_flags
from cassc.diagnostics import present as present_diagnostics, promote_warnings, restore_source_lines
from cassc.errors import CompileError, ToolchainError
from cassc.formats.offload_bundle import HOST_TRIPLE, BundleEntry, device_triple, write_bundle
from cassc.hipify.tables import COMPAT_INCLUDE_DIR, load_tables
from cassc.hipify.tree import SYSTEM_ROOTS, HipifiedUnit, display_path, hipify_unit, original_path
from cassc.invocation import InputFile, InputKind, Invocation
from cassc.nvcc_identity import predefined_macros, toolkit_library_dirs, toolkit_root
from cassc.outputs import write_bytes_atomically
from cassc.toolkit import legacy_api_archive

if TYPE_CHECKING:  # the object readers are imported only by builds that link
    from cassc.formats.host_object import HostObject

DATA_DIR = Path(__file__).parent / "data"
CUDA_COMPAT_HEADER = DATA_DIR / "cuda_compat.h"
DIAGNOSTICS_FILE = "diagnostics.txt"  # a cache entry's record of what its compile printed
HOST_COMPAT_HEADER = DATA_DIR / "host_compat.h"


@dataclass
class Runner:
    """Runs (or, for --dryrun, only shows) the toolchain's commands."""

    toolchain: tools.Toolchain
    verbose: bool = False
    dryrun: bool = False
    work_dir: Path | None = None  # paths in its units' mirrors (<work>/<n>/mirror/) are shown as the user's paths
    device_label: str = "gfx1100"  # the AMD target(s) that -Xptxas -v blocks name
    warnings_as_errors: bool = False  # -Werror all-warnings: warnings in nvcc's scope fail the command

    def show(self, command: list[str]) -> None:
        if self.verbose or self.dryrun:
            print("#$ " + nvcc_join(command), file=sys.stderr)

    def stage(self, name: str, arguments: list[str]) -> bool:
        """Show an in-process stage as the command that runs it on its own (`nvcc --cassc-stage=NAME ...`):
        a replay of the dryrun's lines (sccache replays `nvcc --dryrun --keep`) does the same work. True
        when the caller is to do the work (not --dryrun)."""
        self.show(stage_command(name, arguments))
        return not self.dryrun

    def note(self, message: str) -> None:
        if self.verbose or self.dryrun:
            print(f"cassc: {message}", file=sys.stderr)

    def attempt(self, command: list[str], env: dict[str, str] | None = None) -> Attempt:
        """Run a command and return its outcome, printing nothing but the command (-v/--dryrun). Its
        environment comes first as `NAME=value` lines of their own, as nvcc prints them (tools that replay
        the lines, sccache among them, take such a line for a variable whatever follows it)."""
        for name, value in (env or {}).items():
            self.show([f"{name}={value}"])
        self.show(command)
        if self.dryrun:
            return Attempt(0, "", "")
        result = tools.run(command, check=False, env=env)
        diagnostics = result.stderr
        if self.work_dir is not None:
            diagnostics = re.sub(re.escape(f"{self.work_dir}/") + r"\d+/mirror/", "/", diagnostics)
            diagnostics = restore_source_lines(diagnostics, _line_reader())
        diagnostics = present_diagnostics(diagnostics, self.device_label)
        if not self.warnings_as_errors:
            return Attempt(result.returncode, result.stdout, diagnostics)
        diagnostics, promoted = promote_warnings(diagnostics, in_nvcc_warning_scope)
        return Attempt(result.returncode or int(promoted > 0), result.stdout, diagnostics,
                       promoted=result.returncode == 0 and promoted > 0)

    def replay(self, diagnostics: str, what: str) -> None:
        """Print a cached compile's diagnostics as its compile printed them, under this command's -Werror."""
        promoted = 0
        if self.warnings_as_errors:
            diagnostics, promoted = promote_warnings(diagnostics, in_nvcc_warning_scope)
        Attempt(int(promoted > 0), "", diagnostics).reported(what)

    def run(self, command: list[str], *, what: str, env: dict[str, str] | None = None) -> str:
        """Run a command; its diagnostics go to stderr. Raises CompileError when it fails."""
        return self.attempt(command, env).reported(what)


def nvcc_join(command: list[str]) -> str:
    """A command as nvcc's -v/--dryrun lines print it: shell words, the output after `-o` in double quotes.
    Scripts read nvcc's link line by that spelling (`sed 's#^.*-o "a.out"##'`, SHOC's find_cuda_libs.sh)."""
    words = [shlex.quote(word) for word in command]
    for index in range(1, len(command)):
        if command[index - 1] == "-o" and not re.search(r'["$`\\]', command[index]):
            words[index] = f'"{command[index]}"'
    return " ".join(words)


def _line_reader() -> Callable[[str, int], str | None]:
    """A file's line by its 1-based number (None where the file or line is not there), each file read once."""
    files: dict[str, list[str] | None] = {}

    def line_of(name: str, number: int) -> str | None:
        if name not in files:
            try:
                files[name] = Path(name).read_text(errors="replace").splitlines()
            except (OSError, ValueError):
                files[name] = None
        lines = files[name]
        return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None

    return line_of


def stage_command(name: str, arguments: list[str]) -> list[str]:
    """The stand-in toolkit's nvcc runs this cassc install, from any directory and environment."""
    return [str(toolkit_root() / "bin" / "nvcc"), STAGE_OPTION + name, *arguments]


@dataclass(frozen=True)
class Attempt:
    returncode: int
    stdout: str
    diagnostics: str  # stderr as nvcc would show it (diagnostics.present), mirrored paths as the user's
    promoted: bool = False  # the tool succeeded and -Werror all-warnings failed it: its outputs must not stay

    def reported(self, what: str) -> str:
        """Print the diagnostics; the output when the command succeeded, else CompileError."""
        if self.diagnostics:
            sys.stderr.write(self.diagnostics)
        if self.returncode != 0:
            raise CompileError(f"{what} failed")
        return self.stdout


# ------------------------------------------------------------------------------------------------
# flags


def _language_flags(kind: InputKind, inv: Invocation, toolchain: tools.Toolchain) -> list[str]:
    if kind is InputKind.CUDA:
        flags = ["-x", "hip", *[f"--offload-arch={arch}" for arch in inv.offload_archs]]
        if toolchain.kind == "rocm":
            flags.append(f"--rocm-path={toolchain.root}")
        if toolchain.hip_version != "unknown":
            # clang includes its HIP runtime wrapper (its math, new/delete, printf...) only for the HIP version
            # it finds in a version file; an install without that file (a copied tree, a partial package) would
            # silently compile against HIP's own headers alone. The version is the one of the headers compiled.
            flags.append(f"--hip-version={toolchain.hip_version}")
        flags.append(f"--rocm-device-lib-path={toolchain.device_lib_dir(inv.offload_archs)}")
        flags += ["-include", str(CUDA_COMPAT_HEADER)]
        flags += ["-D" + m for m in unit_macros(kind, inv)]
        flags += ["-fgpu-rdc"] if inv.rdc else []
        flags += ["-Xarch_host", "-g"] if inv.debug else []
        device_opt = "0" if inv.device_debug and inv.device_optimize != "on" else "3"
        flags += ["-Xarch_device", f"-O{device_opt}"]
        if inv.device_debug:
            flags += ["-Xarch_device", "-g"]
        elif inv.line_info:
            flags += ["-Xarch_device", "-gline-tables-only"]
        flags += _math_flags(inv)
        if inv.default_stream == "per-thread":
            flags.append("-fgpu-default-stream=per-thread")
        if inv.resource_usage:
            flags.append("-Rpass-analysis=kernel-resource-usage")
        for option in inv.host_compiler_options:
            # What -Xarch_host refuses (-m32, --target=...) can only be given to both sides, as nvcc's gcc
            # would take it for the host side.
            flags += [option] if refused_by_xarch(option) else ["-Xarch_host", option]
        if inv.max_registers is not None:
            flags += ["-Xarch_device", f"-D__CASSC_MAX_VGPRS__={inv.max_registers}"]
        return flags
    language = "c" if kind is InputKind.C else "c++"
    flags = ["-x", language, "-D__HIP_PLATFORM_AMD__", "-include", str(HOST_COMPAT_HEADER)]
    return flags + ["-D" + m for m in unit_macros(kind, inv)] + list(inv.host_compiler_options)


def unit_macros(kind: InputKind, inv: Invocation) -> list[str]:
    """The macros nvcc defines for a unit (-D): for a C or C++ file, those it gives the host compiler
    (the toolkit version and __CUDA_ARCH_LIST__; __NVCC__ comes from host_compat.h)."""
    options = {"rdc": inv.rdc, "device_debug": inv.device_debug, "relaxed_constexpr": inv.relaxed_constexpr,
               "extended_lambda": inv.extended_lambda, "extensible_whole_program": inv.extensible_whole_program}
    if kind is not InputKind.CUDA:
        options = dict.fromkeys(options, False)
    return predefined_macros(cuda_archs=inv.cuda_archs, cuda_arch=inv.cuda_arch, **options)


def _math_flags(inv: Invocation) -> list[str]:
    """nvcc's --use_fast_math = --ftz=true --prec-div=false --prec-sqrt=false --fmad=true; explicit
    options override it."""
    fast = inv.fast_math
    flush = inv.flush_denormals if inv.flush_denormals is not None else fast
    precise_div = inv.precise_division if inv.precise_division is not None else not fast
    precise_sqrt = inv.precise_sqrt if inv.precise_sqrt is not None else not fast
    flags = ["-fgpu-flush-denormals-to-zero"] if flush else []
    if not (precise_div and precise_sqrt):
        flags.append("-fno-hip-fp32-correctly-rounded-divide-sqrt")
    if inv.fused_multiply_add is False:
        flags.append("-ffp-contract=off")
    return flags


def _common_flags(kind: InputKind, inv: Invocation, toolchain: tools.Toolchain) -> list[str]:
    flags = [f"-O{inv.optimize}"] if inv.optimize else []
    # nvcc's -g is host debug information only (-G is the device's)
    flags += ["-g"] if inv.debug and kind is not InputKind.CUDA else []
    flags += ["-pg"] if inv.profile else []
    # nvcc's -std names a C++ dialect; nvcc leaves it off when it hands a .c file to the host compiler.
    flags += [f"-std={inv.std}"] if inv.std and kind is not InputKind.C else []
    flags += ["-fno-exceptions"] if inv.no_exceptions else []
    flags += ["-w"] if inv.disable_warnings else []
    flags += werror_flags(inv.werror_kinds)[0] + list(inv.warning_flags)
    flags += ["-fno-caret-diagnostics", "-fno-show-column"] if inv.brief_diagnostics else []
    flags += ["-Wno-deprecated-declarations"] if inv.no_deprecated_warnings else []
    if inv.template_depth:
        flags.append(f"-ftemplate-depth={inv.template_depth}")
    if inv.template_backtrace_limit:
        flags.append(f"-ftemplate-backtrace-limit={inv.template_backtrace_limit}")
    if toolchain.kind == "rocm":
        flags += ["-isystem", str(toolchain.root / "include")]
    for directory in toolchain.header_library_dirs:
        flags += ["-isystem", str(directory)]
    flags += ["-D" + d for d in inv.defines]
    flags += ["-U" + u for u in inv.undefines]
    return flags


def unit_flags(kind: InputKind, inv: Invocation, toolchain: tools.Toolchain, unit: HipifiedUnit) -> list[str]:
    """The compiler flags for one hipified source, without the input, output and phase flags."""
    flags = _common_flags(kind, inv, toolchain) + _language_flags(kind, inv, toolchain)
    for directory in unit.include_dirs:
        if not _is_default_include_dir(directory):
            flags.append(f"-I{directory}")
    for directory in unit.system_include_dirs:
        if not _is_default_include_dir(directory):
            flags += ["-isystem", directory]
    for header in unit.pre_includes:
        flags += ["-include", header]
    flags += ["-isystem", str(COMPAT_INCLUDE_DIR)]
    # Debug info names the main file by its path and the directory it was found in: the mirror's, mapped
    # back to the user's. Without debug info nothing in the object names the mirror (the `#line` names
    # are the user's), and the flag stays off the command line: it would make the line differ with the
    # work directory, which sccache hashes (its replay of --dryrun --keep puts that in a fresh directory).
    if records_paths(flags):
        flags.append(f"-ffile-prefix-map={unit.mirror_root}/=/")
    # HIP marks its runtime API [[nodiscard]]; CUDA does not, and CUDA code ignores results freely.
    # Last, so that a -Wall passed through -Xcompiler does not turn it back on.
    flags.append("-Wno-unused-result")
    if toolchain.clang_version.isdigit() and int(toolchain.clang_version) > 19:
        flags.append("-Wno-unused-value")  # where clang 20+ reports a [[nodiscard]] type (hipError_t)
    # nvcc's host compilers take `register` in C++17 code with a warning; clang makes it an error.
    flags += ["-Wno-register"] if kind is not InputKind.C else []
    # nvcc's front end warns of a narrowing initializer list (`int y[] = {0.0}`, #2361-D) in .cu files;
    # clang's default is an error. A .cpp unit is the host compiler's, and g++ rejects it too.
    flags += ["-Wno-error=c++11-narrowing"] if kind is InputKind.CUDA else []
    # nvcc's --diag-* win over -Xcompiler -Wall, so their clang counterparts come last.
    for kind in ("suppress", "warn", "error"):
        flags += diagnostic_flags(kind, getattr(inv, f"diag_{kind}"))[0]
    return flags


def clangd_arguments(source: Path, kind: InputKind, inv: Invocation, toolchain: tools.Toolchain) -> list[str]:
    """The clang command that stands for compiling `source` (the user's file, not the mirror), for
    compile_commands.json: cassc's flags with the user's include directories, and the stand-in toolkit's
    headers, where CUDA's names are HIP's, in place of the mirror's renaming."""
    flags = [str(toolchain.clang), *_common_flags(kind, inv, toolchain), *_language_flags(kind, inv, toolchain)]
    flags += [f"-I{d}" for d in inv.include_dirs if not _is_default_include_dir(d)]
    for directory in inv.system_include_dirs:
        flags += ["-isystem", directory] if not _is_default_include_dir(directory) else []
    for header in inv.pre_includes:
        flags += ["-include", header]
    flags += ["-isystem", str(toolkit_root() / "include"), "-isystem", str(COMPAT_INCLUDE_DIR), "-Wno-unused-result"]
    return flags + ["-c", str(source)]


# gcc (nvcc's host compiler) ignores -I/-isystem naming its own system directories; clang would move
# them ahead of libstdc++'s and break its `#include_next <math.h>`.
DEFAULT_INCLUDE_DIRS = (Path("/usr/include"), Path("/usr/local/include"))


def _is_default_include_dir(directory: str) -> bool:
    return Path(os.path.normpath(directory)) in DEFAULT_INCLUDE_DIRS


# ------------------------------------------------------------------------------------------------
# source stages


def front_end(source: InputFile, inv: Invocation, mirror_root: Path, runner: Runner) -> HipifiedUnit:
    """cassc's front end, hipify, runs in-process; its line is the `hipify` stage command with the unit's
    preprocessor options. Like nvcc's first step (`gcc -E -D__CUDACC__ -D__NVCC__ ...`) it carries -E and
    nvcc's macros, which is how tools that replay nvcc's dryrun (sccache) tell a translation unit's
    preprocessing step, to be run each time, from its compile, to be cached."""
    arguments = ["-E", *(["-x", inv.language] if inv.language else []),
                 *[f"-D{m}" for m in unit_macros(source.kind, inv)], *[f"-D{d}" for d in inv.defines],
                 *[f"-U{u}" for u in inv.undefines], *[f"-I{d}" for d in inv.include_dirs]]
    for directory in inv.system_include_dirs:
        arguments += ["-isystem", directory]
    for header in inv.pre_includes:
        arguments += ["-include", header]
    runner.stage("hipify", [*arguments, str(source.path), "-o", str(mirror_root)])
    return hipify_source(source, inv, runner.toolchain, mirror_root, write=not runner.dryrun)


def hipify_source(source: InputFile, inv: Invocation, toolchain: tools.Toolchain, mirror_root: Path,
                  write: bool = True) -> HipifiedUnit:
    return hipify_unit(
        source.path,
        cuda_unit=source.kind is InputKind.CUDA,
        mirror_root=mirror_root,
        tables=load_tables(),
        include_dirs=inv.include_dirs,
        system_include_dirs=inv.system_include_dirs,
        pre_includes=inv.pre_includes,
        toolchain_roots=(toolchain.root,) if toolchain.kind == "rocm" else (),
        library_include_dirs=toolchain.library_include_dirs,
        write=write,
    )


@dataclass(frozen=True)
class CompiledObject:
    path: Path
    dependencies: tuple[Path, ...]  # the user's files the object was built from (source first)
    cached: bool
    clang_depfile: Path  # clang's -MD file, naming the mirror (the depfile stage reads it)


def compiler_for(kind: InputKind, use_hipcc: bool, toolchain: tools.Toolchain,
                 host_compiler: str | None = None) -> tuple[str, dict[str, str]]:
    """The compiler program and its environment. C and C++ units go to the -ccbin host compiler when
    one is named, as nvcc hands them to it. hipcc must be told the platform: left alone it picks
    NVIDIA whenever an nvcc is on PATH (and cassc may be that nvcc)."""
    if kind is not InputKind.CUDA and host_compiler:
        return host_program(host_compiler, "c" if kind is InputKind.C else "c++"), {}
    if not use_hipcc or kind is not InputKind.CUDA:
        return str(toolchain.clang), {}
    if toolchain.hipcc is None:
        raise ToolchainError("--cassc-use-hipcc needs a ROCm install with bin/hipcc (ROCM_PATH or /opt/rocm); "
                             f"the {toolchain.kind} toolchain at {toolchain.root} has none")
    return str(toolchain.hipcc), {"HIP_PLATFORM": "amd"}


class Repairer(Protocol):
    def compile(self, unit: HipifiedUnit, attempt: Callable[[], Attempt], what: str) -> str:
        """Compile through `attempt`; when it fails, try to repair the unit's mirrored files and
        compile again. Returns the compiler's output or raises CompileError, as Runner.run does."""
        ...


def compile_unit(unit: HipifiedUnit, kind: InputKind, flags: list[str], output: Path, intermediates: Path,
                 runner: Runner,
                 cache: Cache, mode: list[str] | None = None, use_hipcc: bool = False,
                 repairer: Repairer | None = None, keep_intermediates: bool = False,
                 host_compiler: str | None = None) -> CompiledObject:
    """Compile a hipified unit to `output`: the user's output when clang may write it itself (as nvcc's
    host compiler writes its -o), else a path in cassc's work dir. `intermediates` starts the names of
    the unit's other files there (clang's depfile, the dependency list). `mode` replaces `-c` for device-only outputs
    (-cubin/-fatbin/-ptx). With `use_hipcc` the ROCm hipcc runs instead of clang. A `repairer` (model
    repair) gets the failing compile; the object is cached under the unrepaired unit's key, so an
    unchanged source is repaired once. `keep_intermediates` (--keep) always compiles: a hit would keep
    nothing, and the dryrun's lines, which --keep runs execute as listed, compile."""
    mode = mode or ["-c"]
    cwd = Path.cwd()
    compiler, env = compiler_for(kind, use_hipcc, runner.toolchain, host_compiler)
    chosen = [compiler] if compiler != str(runner.toolchain.clang) else []
    key = _compile_key(unit, kind, flags + mode + chosen, runner.toolchain, cwd)
    raw_depfile = _named(intermediates, ".clang.d")
    # clang's default CUID hashes the (temporary) mirror path; a CUID from the key makes objects
    # reproducible while staying unique per translation unit and configuration. It leaves out how the
    # source was spelled (sccache hands cassc an absolute path): a checkout elsewhere gets the same line,
    # and compiler caches hash `__FILE__`'s text, where that spelling shows, with the preprocessed text.
    # clang's driver gives the CUID to HIP sources only: given to the front end as well, it also reaches a
    # compile of the preprocessed unit (`-x hip-cpp-output`, what sccache-dist's build server runs), which
    # would otherwise get none and the same `__hip_cuid_` in every object (-rdc device links fail on it).
    # Joined (`-Xclang=`): sccache refuses `-Xclang <flag>` for a flag it does not know.
    cuid = _cuid_flags(unit, kind, flags + mode + chosen, runner.toolchain, cwd)
    command = [compiler, *flags, *cuid, *mode, str(unit.main), "-o", str(output), *_depfile_flags(mode, output, raw_depfile)]
    hit = None if runner.dryrun or keep_intermediates else cache.lookup(key)
    if hit is not None:
        # The warnings (and -Xptxas -v blocks) of the compile that made the object, as nvcc repeats them;
        # first, since this command's -Werror may fail on them, and then it writes no object.
        if DIAGNOSTICS_FILE in hit.files:
            runner.replay(hit.read_text(DIAGNOSTICS_FILE), f"compiling {display_path(unit.original_of(unit.main), cwd)}")
        write_bytes_atomically(output, hit.read_bytes("output"))
        dependencies = tuple(cwd / p for p in json.loads(hit.read_text("dependencies.json")))
        raw_depfile.write_text(format_depfile([str(output)], [str(p) for p in dependencies], False))
        runner.note(f"cache hit for {display_path(unit.original_of(unit.main), Path.cwd())} ({key[:16]})")
        return CompiledObject(output, dependencies, True, raw_depfile)
    what = f"compiling {display_path(unit.original_of(unit.main), Path.cwd())}"
    attempts: list[Attempt] = []  # the last one made the object: its diagnostics are cached with it

    def attempt() -> Attempt:
        attempts.append(runner.attempt(command, env))
        if attempts[-1].promoted:  # clang wrote the object; a compile that fails leaves none, as nvcc's
            output.unlink(missing_ok=True)
        return attempts[-1]

    if unit.missing_packages:
        # A library the toolchain lacks: where the compile stops at its header, one line naming the library
        # beats clang's errors, and no repair can help. Its #include may sit in a dead #if branch, so any
        # other failure is clang's to report (and the repairer's to try).
        first = attempt()
        missing = next((m for m in unit.missing_packages if f"'{m.included}' file not found" in first.diagnostics), None)
        if first.returncode != 0 and missing is not None:
            raise CompileError(missing.message(tools.package_hint(runner.toolchain, missing.package)))
        if first.returncode == 0 or repairer is None:
            first.reported(what)
        else:
            repairer.compile(unit, attempt, what)
    elif repairer is None:
        attempt().reported(what)
    else:
        repairer.compile(unit, attempt, what)
    if runner.dryrun:
        return CompiledObject(output, (), False, raw_depfile)
    dependencies = _user_dependencies(unit, raw_depfile)
    # Relative below the working directory, like the key: an entry serves a copy of the tree elsewhere.
    dependency_list = _named(intermediates, ".deps.json")
    dependency_list.write_text(json.dumps([display_path(p, cwd) for p in dependencies]))
    mirrored = {f.original for f in unit.files}
    outside = [p for p in dependencies if p not in mirrored]
    system = [p for p in outside if is_system_header(p, runner.toolchain)]
    diagnostics_list = _named(intermediates, ".diagnostics.txt")
    diagnostics_list.write_text(attempts[-1].diagnostics)
    cache.store(key, {"output": output, "dependencies.json": dependency_list, DIAGNOSTICS_FILE: diagnostics_list}, {
        "extra_dependencies": {display_path(p, cwd): file_digest(p) for p in outside if p not in system},
        "system_dependencies": {str(p): file_stamp(p) for p in system},
        "source": str(unit.original_of(unit.main)),
    })
    return CompiledObject(output, dependencies, False, raw_depfile)


def _cuid_flags(unit: HipifiedUnit, kind: InputKind, flags: list[str], toolchain: tools.Toolchain,
                cwd: Path) -> list[str]:
    if kind is not InputKind.CUDA:
        return []
    value = _compile_key(unit, kind, flags, toolchain, cwd, spelling=False)[:16]
    return [f"-cuid={value}", f"-Xclang=-cuid={value}"]


def device_ir_commands(unit: HipifiedUnit, flags: list[str], intermediates: Path, toolchain: tools.Toolchain,
                       offload_archs: tuple[str, ...], use_hipcc: bool = False
                       ) -> list[tuple[Path, list[str], dict[str, str]]]:
    """--keep's device IR, as nvcc keeps its PTX: per GPU target, the device-only compile of the unit
    whole-program `-c` makes, stopped at the optimized LLVM IR (`<intermediates>-<arch>.ll`), with the
    object's CUID, so the IR is the one the object's code was generated from. Each is (output, command,
    environment). A command per target: clang writes one -o per device-only compile."""
    compiler, env = compiler_for(InputKind.CUDA, use_hipcc, toolchain)
    chosen = [compiler] if compiler != str(toolchain.clang) else []
    cuid = _cuid_flags(unit, InputKind.CUDA, flags + ["-c"] + chosen, toolchain, Path.cwd())
    others = [f for f in flags if not f.startswith("--offload-arch=")]
    commands = []
    for arch in offload_archs:
        output = _named(intermediates, f"-{arch}.ll")
        commands.append((output, [compiler, *others, f"--offload-arch={arch}", *cuid, "--cuda-device-only",
                                  "-emit-llvm", "-S", str(unit.main), "-o", str(output)], env))
    return commands


def _depfile_flags(mode: list[str], output: Path, raw_depfile: Path) -> list[str]:
    """The flags that make clang write the compile's dependencies. clang's driver gives -MD to the host
    compile; a device-only compile (-ptx, -cubin, -fatbin) has none, so clang 21 writes nothing there and
    warns that -MF was unused (clang 19 gave it to the device compile): the front end's own flags, which
    every compile of the command takes, say the same."""
    if "--cuda-device-only" not in mode:
        return ["-MD", "-MF", str(raw_depfile)]
    return [f"-Xclang={flag}" for flag in ("-dependency-file", str(raw_depfile), "-MT", str(output), "-sys-header-deps")]


def _named(intermediates: Path, suffix: str) -> Path:
    return intermediates.with_name(intermediates.name + suffix)


def is_system_header(path: Path, toolchain: tools.Toolchain) -> bool:
    """Headers of the system and the toolchain: checked by size and time on a cache hit, not hashed."""
    roots = SYSTEM_ROOTS + ((toolchain.root,) if toolchain.kind == "rocm" else ()) + toolchain.header_library_dirs
    return any(path.is_relative_to(root) for root in roots)


def records_paths(flags: list[str]) -> bool:
    """Whether the object gets debug info (-g..., -Xarch_device -g, -gline-tables-only), which records
    the working directory (DW_AT_comp_dir) and the main file's path."""
    return any(f.startswith("-g") and f != "-g0" for f in flags)



def _compile_key(unit: HipifiedUnit, kind: InputKind, flags: list[str], toolchain: tools.Toolchain,
                 cwd: Path, spelling: bool = True) -> str:
    """The key depends on paths only where the object does, as nvcc's would: files are named as their
    #line names them (relative below the working directory), paths below the working directory in flags
    are relative, and the working directory itself counts only with debug info. The same tree built
    from another path (a second checkout, a CI workspace) therefore hits. Without `spelling` each file's
    `#line` (the name as the command line spelled it) is left out."""
    portable_flags = [f.replace(str(unit.mirror_root), "@MIRROR@").replace(f"{cwd}/", "@CWD@/")
                      for f in flags]
    directory = str(cwd) if records_paths(flags) else ""
    parts: list[str | bytes] = ["compile", __version__, toolchain.identity(), kind.value,
                                CUDA_COMPAT_HEADER.read_bytes(), HOST_COMPAT_HEADER.read_bytes(),
                                "\0".join(portable_flags), directory]
    files = ((display_path(f.original, cwd), f.digest if spelling else f.body_digest) for f in unit.files)
    for name, hipified_digest in sorted(files):
        parts += [name, hipified_digest]
    return digest(*parts)


def _user_dependencies(unit: HipifiedUnit, raw_depfile: Path) -> tuple[Path, ...]:
    try:
        return user_dependencies(unit.mirror_root, raw_depfile)
    except OSError:
        return (unit.original_of(unit.main),)


def user_dependencies(mirror_root: Path, raw_depfile: Path) -> tuple[Path, ...]:
    """clang's dependencies (its -MD file), mapped from the mirror to the user's files; cassc's own files
    dropped. The source comes first."""
    result: dict[Path, None] = {}
    for name in parse_depfile(raw_depfile.read_text()):
        path = original_path(mirror_root, Path(name))
        if not path.is_relative_to(DATA_DIR):
            result[path] = None
    return tuple(result)


def preprocess_unit(unit: HipifiedUnit, flags: list[str], runner: Runner, host_only: bool = True) -> str:
    """The preprocessed text, naming the user's files where clang's line markers name their mirrors:
    the mirror lives in a fresh work directory, and compiler caches (ccache, sccache) hash this text,
    so it must depend on the inputs alone."""
    mode = ["-E", "--cuda-host-only"] if host_only and "-x" in flags and "hip" in flags else ["-E"]
    text = runner.run([str(runner.toolchain.clang), *flags, *mode, str(unit.main)], what="preprocessing")
    return _unmirrored_line_markers(text, unit, Path.cwd())


def _unmirrored_line_markers(text: str, unit: HipifiedUnit, cwd: Path) -> str:
    """Line markers name each mirrored file as its #line does (relative below the working directory,
    as nvcc's host compiler names it), so the text is the same for a copy of the tree elsewhere."""
    for mirrored in unit.files:
        text = text.replace(f'"{mirrored.mirrored}"', f'"{display_path(mirrored.original, cwd)}"')
    return text.replace(f'"{unit.mirror_root}/', '"/')


def dependencies_of_unit(unit: HipifiedUnit, flags: list[str], runner: Runner, intermediates: Path) -> Path:
    """clang's dependency file for the unit (naming the mirror, as the depfile stage reads it)."""
    raw_depfile = _named(intermediates, ".clang.d")
    mode = ["--cuda-host-only"] if "hip" in flags else []
    runner.run([str(runner.toolchain.clang), *flags, *mode, "-M", "-MF", str(raw_depfile), str(unit.main)],
               what="generating dependencies")
    return raw_depfile


# ------------------------------------------------------------------------------------------------
# device link: -fgpu-rdc objects -> one object holding the linked device code


DEVICE_LINK_STUB = """\
# cassc device link: the linked device code, registered by the -fgpu-rdc objects below
  .protected {handle}
  .type {handle},@object
  .section .hip_gpubin_handle,"aw"
  .globl {handle}
  .p2align 3
{handle}:
  .zero 8
{handle_aliases}
  .protected {fatbin}
  .type {fatbin},@object
  .section .hip_fatbin,"a",@progbits
  .globl {fatbin}
  .p2align 12
{fatbin_aliases}
{fatbin}:
  .incbin "{bundle}"
  .section .note.GNU-stack,"",@progbits
"""


# Under -fgpu-rdc clang gives a file-scope static __device__/__constant__ variable that host code uses
# (cudaMemcpyToSymbol) a unique name, `<name>.static.<cuid>`, so the runtime can find it in the linked
# code object. Clang 19 decides this only when it meets the host use: a kernel emitted earlier in the
# file (kernels in a header, main() below) still refers to `<name>`, declared external, and the device
# link fails with an undefined symbol. Such a declaration can only mean this file's own variable (`_ZL`
# is C++'s mangling for internal linkage), so the uses are pointed at the renamed definition.
EXTERNALIZED_STATIC_MARK = b".static."
_EXTERNAL_STATIC = re.compile(r"^@(_ZL[\w.$]+) = external (?:[a-z_]+ )*(?:addrspace\(\d+\) )?global .*$", re.MULTILINE)


def _resolve_externalized_statics(bitcode: Path, runner: Runner) -> None:
    text = runner.run([str(runner.toolchain.llvm_dis), "-o", "-", str(bitcode)], what="reading device bitcode")
    changed = text
    for declaration in _EXTERNAL_STATIC.finditer(text):
        name = declaration.group(1)
        renamed = re.search(rf"^@({re.escape(name)}\.static\.[0-9a-f]+) = ", text, re.MULTILINE)
        if renamed is None:
            continue
        changed = changed.replace(declaration.group(0) + "\n", "")
        changed = re.sub(rf"@{re.escape(name)}(?![\w.$])", f"@{renamed.group(1)}", changed)
    if changed != text:
        source = bitcode.with_suffix(".ll")
        source.write_text(changed)
        runner.run([str(runner.toolchain.llvm_as), "-o", str(bitcode), str(source)], what="writing device bitcode")


def needs_device_link(objects: list[HostObject]) -> bool:
    defined = {name for o in objects for name in o.defined_fatbins}
    return any(name not in defined for o in objects for name in o.undefined_fatbins)


def device_link(objects: list[tuple[str, HostObject]], offload_archs: tuple[str, ...], output: Path,
                work_dir: Path, runner: Runner) -> None:
    """Link the device code of -fgpu-rdc objects into `output`: lld links each target's bitcode into a
    code object, the code objects go into one offload bundle, and an assembler stub `.incbin`s it
    under the `__hip_fatbin_<cuid>` names every object's registration code refers to."""
    # Every -fgpu-rdc object contributes device code; only those that register kernels or variables
    # refer to the fatbin (a file of __device__ functions alone has no registration code).
    rdc = [(name, o) for name, o in objects if o.device_sections]
    cuids = [cuid for _, o in rdc if o.undefined_fatbins for cuid in o.cuids]
    stub = work_dir / "device-link.s"
    if not cuids:
        stub.write_text('  .section .note.GNU-stack,"",@progbits\n')
    else:
        entries = [BundleEntry(HOST_TRIPLE, b"")]
        for arch in offload_archs:
            triple = f"hip-amdgcn-amd-amdhsa--{arch}"
            inputs = []
            for index, (name, o) in enumerate(rdc):
                if triple not in o.device_sections:
                    raise ToolchainError(f"{name} has no device code for {arch}: rebuild it with "
                                         f"--cassc-offload-arch={','.join(offload_archs)}")
                path = work_dir / f"device-{arch}-{index}.bc"
                path.write_bytes(o.device_sections[triple])
                if EXTERNALIZED_STATIC_MARK in o.device_sections[triple]:
                    _resolve_externalized_statics(path, runner)
                inputs.append(str(path))
            code_object = work_dir / f"device-{arch}.hsaco"
            runner.run([str(runner.toolchain.lld), "-m", "elf64_amdgpu", "--no-undefined", "-shared",
                        "-plugin-opt=-amdgpu-internalize-symbols", f"-plugin-opt=mcpu={arch}", "-plugin-opt=O3",
                        "--whole-archive", *inputs, "--no-whole-archive", "-o", str(code_object)],
                       what=f"device link for {arch}")
            entries.append(BundleEntry(device_triple(arch), b"" if runner.dryrun else code_object.read_bytes()))
        bundle = work_dir / "device-link.hipfb"
        bundle.write_bytes(write_bundle(entries))
        first = cuids[0]
        stub.write_text(DEVICE_LINK_STUB.format(
            handle=f"__hip_gpubin_handle_{first}",
            fatbin=f"__hip_fatbin_{first}",
            handle_aliases="\n".join(f"  .globl __hip_gpubin_handle_{c}\n  .set __hip_gpubin_handle_{c},"
                                     f"__hip_gpubin_handle_{first}" for c in cuids[1:]),
            fatbin_aliases="\n".join(f"  .globl __hip_fatbin_{c}\n  .set __hip_fatbin_{c},__hip_fatbin_{first}"
                                     for c in cuids[1:]),
            bundle=bundle,
        ))
    runner.run([str(runner.toolchain.clang), "-c", "-x", "assembler", str(stub), "-o", str(output)],
               what="assembling the device link object")


# ------------------------------------------------------------------------------------------------
# link and archive


def link_flags(inv: Invocation, toolchain: tools.Toolchain) -> list[str]:
    """Libraries and options of a host link: the user's, then the HIP runtime. CUDA library names
    (-lcudart, -lcurand...) become their HIP counterparts."""
    renames = load_tables().link_libraries
    flags = ["-shared"] if inv.shared else []
    flags += ["-g"] if inv.debug else []
    flags += ["-pg"] if inv.profile else []
    flags += list(inv.host_compiler_options)
    flags += [f"-L{d}" for d in inv.library_dirs]
    flags += list(toolkit_library_dirs())
    toolkit_lib64 = toolkit_root() / "lib64"
    for library in inv.libraries:
        hip = renames.get(library, library)
        if hip == "amdhip64":
            continue
        # The stand-in toolkit's lib<cuda>.so is that HIP library where it is installed, else the library
        # that holds its API (hipRTC in HIP 5.2's libamdhip64) or a link that stops with what is missing.
        installed = toolchain.find_library(hip) is not None
        # The stand-in's own library where cassc adds to the HIP library's API (cuBLAS's legacy part).
        carries_legacy = (toolkit_lib64 / legacy_api_archive(library)).exists()
        stand_in = carries_legacy or not installed and (toolkit_lib64 / f"lib{library}.so").exists()
        # The stand-in's by its path: a -L directory of the user's, before the toolkit's, may be NVIDIA's lib64.
        flags.append(str(toolkit_lib64 / f"lib{library}.so") if stand_in else f"-l{hip}")
    for option in inv.host_linker_options:
        flags += ["-Xlinker", option]
    flags += [f"-L{toolchain.hip_lib_dir}", "-lamdhip64"]
    if toolchain.kind == "rocm":
        flags.append(f"-Wl,-rpath,{toolchain.hip_lib_dir}")
    if toolchain.openmp_runtime:
        # Host code was compiled by clang: -fopenmp there means libomp, whatever links (g++ -fopenmp
        # brings libgomp, which lacks __kmpc_*). As needed: a program without OpenMP does not depend on it.
        flags += ["-Wl,--push-state,--as-needed", str(toolchain.openmp_runtime), "-Wl,--pop-state"]
        if toolchain.kind == "rocm":
            flags.append(f"-Wl,-rpath,{toolchain.openmp_runtime.parent}")
    flags.append("-Wno-unused-command-line-argument")
    return flags




def host_linker(inv: Invocation, toolchain: tools.Toolchain) -> str:
    """The program that links: the -ccbin host compiler when given (its C++ driver: a link needs the
    C++ runtime), else the HIP clang. Device code is already linked, so any host linker will do."""
    return host_program(inv.host_compiler, "c++") if inv.host_compiler else str(toolchain.clang)


_DRIVER_NAMES = {"c++": {"gcc": "g++", "clang": "clang++", "cc": "c++"},
                 "c": {"g++": "gcc", "clang++": "clang", "c++": "cc"}}


def host_program(host_compiler: str, language: str) -> str:
    """The -ccbin compiler's driver for `language` ("c" or "c++"): -ccbin names a directory (its
    gcc/g++), or either driver of a pair (gcc-12 -> g++-12 for C++)."""
    chosen = Path(host_compiler)
    if chosen.is_dir():
        chosen = chosen / ("g++" if language == "c++" else "gcc")
    stem, dash, version = chosen.name.partition("-")
    if stem in _DRIVER_NAMES[language]:
        chosen = chosen.with_name(_DRIVER_NAMES[language][stem] + dash + version)
    found = shutil.which(str(chosen))
    if found is None:
        raise ToolchainError(f"host compiler '{host_compiler}' (-ccbin) not found: no {chosen}")
    return found


def link(objects: list[Path], inv: Invocation, output: Path, runner: Runner, trailing: list[Path] | None = None) -> None:
    """`trailing`: inputs that go after the user's libraries (what their members may call)."""
    linker = host_linker(inv, runner.toolchain)
    flags = link_flags(inv, runner.toolchain)
    if Path(linker) != runner.toolchain.clang:
        flags.remove("-Wno-unused-command-line-argument")
    runner.run([linker, *[str(o) for o in objects], *flags, *[str(t) for t in trailing or []], "-o", str(output)],
               what="linking")


def archive(objects: list[Path], inv: Invocation, output: Path, runner: Runner) -> None:
    archiver = inv.archiver or str(runner.toolchain.archiver)
    runner.run([archiver, "qc", *inv.archiver_options, str(output), *[str(o) for o in objects]],
               what="creating the static library")
