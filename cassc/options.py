"""The nvcc command line, as one declarative table.

Each row is one nvcc option: its long and short names, what kind of value it takes, and what it does
to the Invocation (`effect` + `field`). The parser in invocation.py knows nothing about any particular
option; adding an option is adding a row. Rows with `Effect.DROP` are options that mean nothing on an
AMD GPU: accepted, recorded, and reported by `-v`.

Spellings nvcc accepts for every row: `-short`, `--long`, `-long`, `--short`, `=value` or a separate
value, and for `attached=True` rows the value glued on (`-Ifoo`, `-O3`, `-lm`). LIST values are split at
commas not escaped as `\\,`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Enum):
    FLAG = "flag"  # no value
    VALUE = "value"  # one value; the last one wins
    LIST = "list"  # comma-separated values, repeatable, accumulated
    BOOL = "bool"  # true/false value


class Effect(enum.Enum):
    PHASE = "phase"  # selects the compilation phase (`value` names it)
    SET = "set"  # stores the value (or `value` for flags) into `field`
    APPEND = "append"  # appends the value(s) to the list in `field`
    DROP = "drop"  # meaningless on AMD: accepted and reported by -v
    OPTIONS_FILE = "options-file"  # expanded by the tokenizer before parsing
    INFO = "info"  # prints something and exits (--version, --help, --list-gpu-arch)


@dataclass(frozen=True)
class Option:
    long: str
    short: str | None
    kind: Kind
    effect: Effect
    field: str | None = None
    value: object = None  # constant stored by FLAG rows; phase name for PHASE rows
    choices: tuple[str, ...] | None = None
    attached: bool = False  # value may be glued to the short name: -Ifoo
    words: bool = False  # each list element is a command-line fragment, split like a shell does
    implies: tuple[tuple[str, object], ...] = ()  # further fields this option sets
    note: str = ""  # what it means on AMD (shown by -v for dropped options)


F, V, L, B = Kind.FLAG, Kind.VALUE, Kind.LIST, Kind.BOOL
PHASE, SET, APPEND, DROP = Effect.PHASE, Effect.SET, Effect.APPEND, Effect.DROP


def _phase(long: str, short: str | None, phase: str) -> Option:
    return Option(long, short, F, PHASE, "phase", phase)


def _drop(long: str, short: str | None, kind: Kind, note: str) -> Option:
    return Option(long, short, kind, DROP, note=note)


NVCC_OPTIONS: tuple[Option, ...] = (
    # --- 11.1 compilation phase -------------------------------------------------------------------
    _phase("cuda", "cuda", "cuda"),
    _phase("cubin", "cubin", "cubin"),
    _phase("fatbin", "fatbin", "fatbin"),
    _phase("ptx", "ptx", "ptx"),
    _phase("optix-ir", "optix-ir", "optix-ir"),
    _phase("ltoir", "ltoir", "ltoir"),
    _phase("preprocess", "E", "preprocess"),
    _phase("generate-dependencies", "M", "dependencies"),
    _phase("generate-nonsystem-dependencies", "MM", "nonsystem-dependencies"),
    Option("generate-dependencies-with-compile", "MD", F, SET, "depfile_with_compile", "all"),
    Option("generate-nonsystem-dependencies-with-compile", "MMD", F, SET, "depfile_with_compile", "nonsystem"),
    Option("dependency-output", "MF", V, SET, "depfile"),
    Option("generate-dependency-targets", "MP", F, SET, "depfile_phony_targets", True),
    Option("dependency-target-name", "MT", V, APPEND, "depfile_targets"),
    _phase("compile", "c", "compile"),
    Option("device-c", "dc", F, PHASE, "phase", "compile", implies=(("rdc", True),)),
    Option("device-w", "dw", F, PHASE, "phase", "compile", implies=(("rdc", False),)),
    _phase("device-link", "dlink", "device-link"),
    _phase("link", "link", "link"),
    _phase("lib", "lib", "lib"),
    _phase("run", "run", "run"),
    Option("run-args", "run-args", L, APPEND, "run_args"),
    # --- 11.2 files and paths ---------------------------------------------------------------------
    Option("output-file", "o", V, SET, "output"),
    Option("pre-include", "include", L, APPEND, "pre_includes"),
    _drop("objdir-as-tempdir", "objtemp", F, "temporary files always go to cassc's own directory"),
    Option("library", "l", L, APPEND, "libraries", attached=True),
    Option("define-macro", "D", L, APPEND, "defines", attached=True),
    Option("undefine-macro", "U", L, APPEND, "undefines", attached=True),
    Option("include-path", "I", L, APPEND, "include_dirs", attached=True),
    Option("system-include", "isystem", L, APPEND, "system_include_dirs"),
    Option("library-path", "L", L, APPEND, "library_dirs", attached=True),
    Option("output-directory", "odir", V, SET, "output_directory"),
    Option("compiler-bindir", "ccbin", V, SET, "host_compiler",
           note="links, and compiles C/C++ units, with it (or $NVCC_CCBIN); CUDA code is compiled by the HIP clang"),
    _drop("allow-unsupported-compiler", "allow-unsupported-compiler", F, "no host compiler version check"),
    Option("archiver-binary", "arbin", V, SET, "archiver"),
    Option("cudart", "cudart", V, SET, "cudart", choices=("none", "shared", "static")),
    Option("cudadevrt", "cudadevrt", V, DROP, choices=("none", "static"),
           note="the HIP runtime has no separate device runtime library"),
    _drop("libdevice-directory", "ldir", V, "AMD device libraries come from the toolchain"),
    _drop("target-directory", "target-dir", V, "no CUDA toolkit layout on AMD"),
    _drop("use-local-env", "use-local-env", F, "Windows only"),
    _drop("force-cl-env-setup", "force-cl-env-setup", F, "Windows only"),
    _drop("input-drive-prefix", "idp", V, "Windows only"),
    _drop("dependency-drive-prefix", "ddp", V, "Windows only"),
    _drop("drive-prefix", "dp", V, "Windows only"),
    # --- 11.3 compiler and linker behaviour -------------------------------------------------------
    Option("profile", "pg", F, SET, "profile", True),
    Option("debug", "g", F, SET, "debug", True),
    Option("device-debug", "G", F, SET, "device_debug", True),
    Option("generate-line-info", "lineinfo", F, SET, "line_info", True),
    _drop("optimization-info", "opt-info", L, "no nvcc optimization remarks on AMD"),
    Option("optimize", "O", V, SET, "optimize", attached=True),
    _drop("Ofast-compile", "Ofc", V, "clang has no fast-compile levels: device code is compiled at -O3 "
          "(-G: -O0)"),
    Option("dopt", "dopt", V, SET, "device_optimize", choices=("on", "off")),
    _drop("dlink-time-opt", "dlto", F, "device link-time optimization is always on for -rdc"),
    _drop("lto", "lto", F, "device link-time optimization is always on for -rdc"),
    _drop("gen-opt-lto", "gen-opt-lto", F, "clang optimizes the device code before its link-time step already"),
    Option("ftemplate-backtrace-limit", "ftemplate-backtrace-limit", V, SET, "template_backtrace_limit"),
    Option("ftemplate-depth", "ftemplate-depth", V, SET, "template_depth"),
    Option("no-exceptions", "noeh", F, SET, "no_exceptions", True),
    Option("shared", "shared", F, SET, "shared", True),
    Option("x", "x", V, SET, "language", choices=("c", "c++", "cu", "none")),
    Option("std", "std", V, SET, "std"),
    _drop("no-host-device-initializer-list", "nohdinitlist", F, "clang's HIP has no such restriction"),
    _drop("no-host-device-move-forward", "nohdmoveforward", F, "clang's HIP has no such restriction"),
    Option("expt-relaxed-constexpr", "expt-relaxed-constexpr", F, SET, "relaxed_constexpr", True),
    Option("extended-lambda", "extended-lambda", F, SET, "extended_lambda", True),
    Option("expt-extended-lambda", "expt-extended-lambda", F, SET, "extended_lambda", True),
    Option("machine", "m", V, SET, "machine", choices=("64",), attached=True),
    Option("m64", "m64", F, SET, "machine", "64"),
    _drop("relocatable-link", "r", F, "not supported on AMD"),
    _drop("host-relocatable-link", None, F, "nvcc's deprecated spelling of --relocatable-link: not supported on AMD"),
    # --- 11.4 pass-through to phases --------------------------------------------------------------
    Option("compiler-options", "Xcompiler", L, APPEND, "host_compiler_options", words=True),
    Option("linker-options", "Xlinker", L, APPEND, "host_linker_options", words=True),
    Option("archive-options", "Xarchive", L, APPEND, "archiver_options", words=True),
    Option("ptxas-options", "Xptxas", L, APPEND, "ptxas_options", words=True, note="-v reports kernel resources"),
    _drop("nvlink-options", "Xnvlink", L, "there is no nvlink on AMD"),
    _drop("cudafe-options", "Xcudafe", L, "EDG front-end options have no clang meaning"),
    _drop("fatbinary-options", "Xfatbin", L, "the offload bundle has no such options"),
    _drop("static-global-template-stub", "static-global-template-stub", B,
          "clang's HIP host stubs of kernel templates are per translation unit already"),
    _drop("device-entity-has-hidden-visibility", "device-entity-has-hidden-visibility", B,
          "HIP registers kernels and device variables per code object; their host symbols keep clang's visibility"),
    Option("forward-unknown-to-host-compiler", "forward-unknown-to-host-compiler", F, SET,
           "forward_unknown_to_compiler", True),
    Option("forward-unknown-to-host-linker", "forward-unknown-to-host-linker", F, SET,
           "forward_unknown_to_linker", True),
    Option("forward-unknown-opts", "forward-unknown-opts", F, SET, "forward_unknown_to_compiler", True),
    # --- 11.5 driver guidance ---------------------------------------------------------------------
    _drop("dont-use-profile", "noprof", F, "cassc reads no nvcc.profile"),
    Option("dryrun", "dryrun", F, SET, "dryrun", True),
    Option("verbose", "v", F, SET, "verbose", True),
    _drop("threads", "t", V, "clang compiles the one AMD target in one job"),
    _drop("split-compile", "split-compile", V, "clang compiles the one AMD target in one job"),
    _drop("split-compile-extended", "split-compile-extended", V, "clang compiles in one job"),
    Option("keep", "keep", F, SET, "keep", True),
    Option("save-temps", "save-temps", F, SET, "keep", True),
    Option("keep-dir", "keep-dir", V, SET, "keep_dir"),
    Option("clean-targets", "clean", F, SET, "clean_targets", True),
    _drop("time", "time", V, "no phase timing file"),
    _drop("no-align-double", "no-align-double", F, "32-bit hosts only"),
    Option("no-device-link", "nodlink", F, SET, "no_device_link", True),
    Option("help", "h", F, Effect.INFO, value="help"),
    Option("version", "V", F, Effect.INFO, value="version"),
    Option("options-file", "optf", L, Effect.OPTIONS_FILE),
    # --- 11.6 GPU code generation -----------------------------------------------------------------
    Option("gpu-architecture", "arch", V, APPEND, "arch_specs", note="every CUDA arch maps to the AMD target"),
    Option("gpu-code", "code", L, APPEND, "code_specs", note="every CUDA arch maps to the AMD target"),
    Option("generate-code", "gencode", V, APPEND, "gencode_specs", note="every CUDA arch maps to the AMD target"),
    Option("relocatable-device-code", "rdc", B, SET, "rdc"),
    _drop("entries", "e", L, "every kernel is kept"),
    Option("maxrregcount", "maxrregcount", V, SET, "max_registers",
           note="caps each kernel's VGPRs (clang's amdgpu_num_vgpr attribute on every __global__)"),
    Option("use_fast_math", "use_fast_math", F, SET, "fast_math", True),
    Option("ftz", "ftz", B, SET, "flush_denormals"),
    Option("prec-div", "prec-div", B, SET, "precise_division"),
    Option("prec-sqrt", "prec-sqrt", B, SET, "precise_sqrt"),
    Option("fmad", "fmad", B, SET, "fused_multiply_add"),
    _drop("extra-device-vectorization", "extra-device-vectorization", F, "clang vectorizes as it sees fit"),
    Option("default-stream", "default-stream", V, SET, "default_stream", choices=("legacy", "null", "per-thread")),
    Option("list-gpu-arch", "arch-ls", F, Effect.INFO, value="list-gpu-arch"),
    Option("list-gpu-code", "code-ls", F, Effect.INFO, value="list-gpu-code"),
    # --- 11.7 generic tool options ----------------------------------------------------------------
    Option("disable-warnings", "w", F, SET, "disable_warnings", True),
    _drop("keep-device-functions", "keep-device-functions", F, "device functions are kept by -rdc"),
    _drop("source-in-ptx", "src-in-ptx", F, "there is no PTX on AMD"),
    _drop("restrict", "restrict", F, "no global restrict assumption"),
    Option("Wreorder", "Wreorder", F, APPEND, "warning_flags", "-Wreorder", note="clang's -Wreorder: the same warning"),
    _drop("Wdefault-stream-launch", "Wdefault-stream-launch", F, "nvcc-only warning"),
    _drop("Wmissing-launch-bounds", "Wmissing-launch-bounds", F, "nvcc-only warning"),
    _drop("Wext-lambda-captures-this", "Wext-lambda-captures-this", F, "nvcc-only warning"),
    _drop("Wno-deprecated-gpu-targets", "Wno-deprecated-gpu-targets", F, "no deprecated GPU targets on AMD"),
    Option("Wno-deprecated-declarations", "Wno-deprecated-declarations", F, SET, "no_deprecated_warnings", True),
    Option("Werror", "Werror", L, APPEND, "werror_kinds",
           choices=("all-warnings", "cross-execution-space-call", "reorder", "deprecated-declarations",
                    "default-stream-launch", "missing-launch-bounds", "ext-lambda-captures-this")),
    Option("resource-usage", "res-usage", F, SET, "resource_usage", True),
    Option("extensible-whole-program", "ewp", F, SET, "extensible_whole_program", True),
    _drop("no-compress", "no-compress", F, "offload bundles are not compressed"),
    _drop("compress-mode", "compress-mode", V, "offload bundles are not compressed"),
    _drop("qpp-config", "qpp-config", V, "QNX only"),
    _drop("compile-as-tools-patch", "astoolspatch", F, "no CUDA tools to patch"),
    _drop("version-ident", "dQ", B, "no version ident section"),
    _drop("display-error-number", "err-no", F, "clang diagnostics have no EDG numbers"),
    _drop("no-display-error-number", "no-err-no", F, "clang diagnostics have no EDG numbers"),
    Option("diag-error", "diag-error", L, APPEND, "diag_error",
           note="nvcc warning numbers/names -> -Werror=<clang warning> (data/nvcc_diagnostics.tsv)"),
    Option("diag-suppress", "diag-suppress", L, APPEND, "diag_suppress",
           note="nvcc warning numbers/names -> -Wno-<clang warning> (data/nvcc_diagnostics.tsv)"),
    Option("diag-warn", "diag-warn", L, APPEND, "diag_warn",
           note="nvcc warning numbers/names -> -W<clang warning> (data/nvcc_diagnostics.tsv)"),
    Option("host-linker-script", "hls", V, DROP, choices=("use-lcs", "gen-lcs"), note="no host linker script"),
    _drop("augment-host-linker-script", "aug-hls", F, "no host linker script"),
    Option("brief-diagnostics", "brief-diag", B, SET, "brief_diagnostics",
           note="true: diagnostics without the source line and column (clang's -fno-caret-diagnostics "
                "-fno-show-column)"),
    _drop("jump-table-density", "jtd", V, "clang chooses jump tables itself"),
    _drop("relocatable-ptx", "reloc-ptx", F, "there is no PTX on AMD"),
    _drop("device-stack-protector", "device-stack-protector", B, "clang has no stack protector for AMD GPUs"),
    _drop("frandom-seed", "frandom-seed", V, "cassc's generated names are deterministic already (the unit's CUID "
          "comes from its cache key)"),
    _drop("sanitize", "sanitize", V, "compute-sanitizer's tools (memcheck, racecheck...) do not exist on AMD"),
    _drop("jobserver", "jobserver", F, "each unit is one clang job: nothing to share with make's jobserver"),
    _drop("minimal", "minimal", F, "no minimal header mode"),
    _drop("device-int128", "device-int128", F, "clang supports __int128 on AMD already"),
    _drop("fdevice-syntax-only", "fdevice-syntax-only", F, "no separate device syntax check"),
    _drop("fdevice-time-trace", "fdevice-time-trace", V, "no device time trace"),
    # --- cassc's own options (never reach nvcc-only scripts) --------------------------------------
    Option("cassc-offload-arch", "cassc-offload-arch", L, APPEND, "offload_archs",
           note="AMD targets to build for (default gfx1100, or $CASSC_OFFLOAD_ARCH)"),
    Option("cassc-use-hipcc", "cassc-use-hipcc", F, SET, "use_hipcc", True,
           note="compile through the ROCm install's hipcc (or $CASSC_USE_HIPCC=1)"),
    Option("cassc-sass", "cassc-sass", F, SET, "force_sass", True,
           note="translate nvcc-built objects' device code from their SASS even where they carry PTX "
                "(or $CASSC_SASS=1)"),
    Option("cassc-target", "cassc-target", V, SET, "target", choices=("amd", "nvidia"),
           note="amd: build for the AMD GPU (default); nvidia: compile the translated program with NVIDIA's nvcc "
                "through the hip-to-cuda header set, to check the translation on an NVIDIA GPU"),
    Option("cassc-model", "cassc-model", V, SET, "model",
           note="repair model: an installed name (`cassc model list`), a .gguf file or an http:// model server "
                "(or $CASSC_MODEL, or [repair] model in config.toml)"),
)


# cassc's own rows start so; `--cassc-target=nvidia` removes them before handing the words to nvcc.
CASSC_OPTION_PREFIX = "cassc-"


def build_lookup(table: tuple[Option, ...]) -> dict[str, Option]:
    """Every spelling's name (without dashes) -> its row. Two rows may not claim one name."""
    lookup: dict[str, Option] = {}
    for option in table:
        for name in {option.long, option.short} - {None}:
            assert name is not None
            if name in lookup and lookup[name] is not option:
                raise AssertionError(f"option name '{name}' claimed twice in the option table")
            lookup[name] = option
    return lookup


OPTIONS_BY_NAME: dict[str, Option] = build_lookup(NVCC_OPTIONS)
ATTACHED_PREFIXES: tuple[tuple[str, Option], ...] = tuple(
    sorted(((o.short, o) for o in NVCC_OPTIONS if o.attached and o.short), key=lambda p: -len(p[0]))
)
