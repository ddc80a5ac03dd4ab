"""What cassc tells build systems about itself, in the shapes they parse from nvcc.

CMake matches `nvcc: [^\\n]+ Cuda compiler driver` and `V(\\d+\\.\\d+\\.\\d+)` in `--version`, reads the
`#$ NAME=value` lines of `-v` (TOP, NVVMIR_LIBRARY_DIR, INCLUDES, LIBRARIES, PATH), takes the first
`#$` command containing the LIBRARIES string as the link line, and collects `-arch compute_NN`.
Other scripts read the banner's fourth line (`Cuda compilation tools, release X.Y, VX.Y.Z`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cassc import __version__, locations

CUDA_VERSION_DEFAULT = "12.9.999"  # the patch number 999 marks "not NVIDIA's", as SCALE does


@dataclass(frozen=True)
class CudaVersion:
    major: int
    minor: int
    build: int

    @classmethod
    def current(cls) -> "CudaVersion":
        text = os.environ.get("CASSC_CUDA_VERSION", CUDA_VERSION_DEFAULT)
        parts = [int(p) for p in text.split(".")] + [0, 0]
        return cls(parts[0], parts[1], parts[2] if len(text.split(".")) > 2 else 0)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.build}"


def version_banner(offload_archs: tuple[str, ...], hip_version: str) -> str:
    version = CudaVersion.current()
    return "\n".join([
        # CMake 3.25 matches this line exactly (`nvcc: NVIDIA \(R\) Cuda compiler driver`); the next says who we are.
        "nvcc: NVIDIA (R) Cuda compiler driver",
        f"cassc {__version__}, not NVIDIA's nvcc: builds CUDA for {', '.join(offload_archs)} with clang and HIP {hip_version}",
        "Built on Fri_Nov_20_00:00:00_UTC_2026",
        f"Cuda compilation tools, release {version.major}.{version.minor}, V{version}",
        f"Build cassc_{__version__}/{'+'.join(offload_archs)}",
    ])


def toolkit_root() -> Path:
    """This install's stand-in CUDA toolkit (toolkit.py builds it) in cassc's data dir: a link per install,
    so `$CUDA_PATH/bin/nvcc` is the cassc that printed CUDA_PATH."""
    return locations.data_dir() / "installs" / locations.install_id() / "toolkit"


def toolkit_library_dirs() -> tuple[str, str]:
    root = toolkit_root()
    return (f"-L{root / 'lib64' / 'stubs'}", f"-L{root / 'lib64'}")


def verbose_variables(cuda_archs: tuple[int, ...]) -> list[str]:
    """The `#$ NAME=value` block nvcc prints first under -v and --dryrun."""
    root = toolkit_root()
    bin_dir = root / "bin"
    archs = cuda_archs or (52,)
    return [
        "_NVVM_BRANCH_=nvvm",
        "_SPACE_=",
        "_CUDART_=cudart",
        f"_HERE_={bin_dir}",
        f"_THERE_={bin_dir}",
        "_TARGET_SIZE_=",
        "_TARGET_DIR_=",
        f"TOP={bin_dir}/..",
        f"NVVMIR_LIBRARY_DIR={bin_dir}/../nvvm/libdevice",
        f"PATH={bin_dir}:{os.environ.get('PATH', '')}",
        f"INCLUDES=\"-I{root / 'include'}\"",
        "SYSTEM_INCLUDES=",
        f"LIBRARIES=  {' '.join(toolkit_library_dirs())}",
        "CUDAFE_FLAGS=",
        "PTXAS_FLAGS=",
        "CASSC_CUDA_ARCHS=" + " ".join(f"-arch compute_{a}" for a in archs),
    ]


def predefined_macros(*, cuda_archs: tuple[int, ...], cuda_arch: int, rdc: bool, device_debug: bool,
                      relaxed_constexpr: bool, extended_lambda: bool, extensible_whole_program: bool,
                      ) -> list[str]:
    """nvcc's identification macros as -D options. __NVCC__, __CUDACC__ and __CUDA_ARCH__ are defined
    by cuda_compat.h instead, after the HIP headers have seen the AMD platform."""
    version = CudaVersion.current()
    archs = cuda_archs or (cuda_arch,)
    macros = [
        f"__CUDACC_VER_MAJOR__={version.major}",
        f"__CUDACC_VER_MINOR__={version.minor}",
        f"__CUDACC_VER_BUILD__={version.build}",
        f"__CUDA_API_VER_MAJOR__={version.major}",
        f"__CUDA_API_VER_MINOR__={version.minor}",
        "__NVCC_DIAG_PRAGMA_SUPPORT__=1",
        "__CUDACC_DEVICE_ATOMIC_BUILTINS__=1",
        f"__CUDA_ARCH_LIST__={','.join(str(a * 10) for a in archs)}",
        f"__CASSC_CUDA_ARCH__={cuda_arch * 10}",
        "__CASSC__=1",
    ]
    flags = {"__CUDACC_RDC__": rdc, "__CUDACC_DEBUG__": device_debug,
             "__CUDACC_RELAXED_CONSTEXPR__": relaxed_constexpr,
             "__CUDACC_EXTENDED_LAMBDA__": extended_lambda, "__CUDACC_EWP__": extensible_whole_program}
    macros += [f"{name}=1" for name, on in flags.items() if on]
    return macros


GPU_ARCHS = (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)


def list_gpu_arch() -> str:
    return "\n".join(f"compute_{a}" for a in GPU_ARCHS)


def list_gpu_code() -> str:
    return "\n".join(f"sm_{a}" for a in GPU_ARCHS)


# Every environment variable cassc reads (the runtime of `cassc run` included), with what it does.
ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("NVCC_PREPEND_FLAGS", "options read before the command line's (as nvcc)"),
    ("NVCC_APPEND_FLAGS", "options read after the command line's (as nvcc)"),
    ("NVCC_CCBIN", "the host compiler where -ccbin is not given (as nvcc)"),
    ("CASSC_OFFLOAD_ARCH", "AMD targets, comma-separated (default gfx1100); --cassc-offload-arch wins"),
    ("CASSC_ROCM_PATH", "the ROCm install to use (then ROCM_PATH, /opt/rocm, newest /opt/rocm-X.Y, /usr)"),
    ("CASSC_USE_HIPCC", "1: compile through the ROCm install's hipcc (--cassc-use-hipcc)"),
    ("CASSC_SASS", "1: translate nvcc-built objects from their SASS even where they carry PTX (--cassc-sass)"),
    ("CASSC_MODEL", "the repair model (--cassc-model; else [repair] model in config.toml)"),
    ("CASSC_CACHE", "0: no compile cache"),
    ("CASSC_CACHE_DIR", "the compile cache's directory (may be shared by a team)"),
    ("CASSC_DATA_DIR", "cassc's data directory (toolkit, device libraries, models)"),
    ("CASSC_CONFIG_DIR", "the directory of config.toml"),
    ("CASSC_COMPILE_COMMANDS", "a compile_commands.json to add a clangd-ready entry to for each source compiled"),
    ("CASSC_CUDA_VERSION", "the CUDA version cassc reports as nvcc (default 12.9.999)"),
    ("CASSC_NVCC", "NVIDIA's nvcc for --cassc-target=nvidia (else $CUDA_HOME/bin/nvcc, /usr/local/cuda/bin/nvcc)"),
    ("CASSC_DEBIAN_MIRROR", "the Debian mirror `cassc setup` fetches hipCUB/rocThrust headers from"),
    ("CASSC_TRANSLATED_DIR", "where `cassc run`'s runtime finds translations (default: the cache's translated/)"),
    ("CASSC_RUNTIME_VERBOSE", "set: the runtime of `cassc run` says which translation it registers"),
    ("CASSC_REAL_LIBCUDA", "NVIDIA's libcuda.so.1, for the check driver of `cassc run --check-on-nvidia`"),
    ("CASSC_NVPTX_DIR", "where the check driver finds each fatbin's NVPTX replacement (<digest>.fatbin)"),
    ("CASSC_CHECK_LOG", "file: the check driver logs the fatbins it replaced and the driver entries asked for"),
    ("CASSC_CHECK_TRACE", "set: the check driver also logs each private export table entry the runtime calls"),
    ("CASSC_DRIVER_LOG", "file: cassc's libcuda logs each name asked for and its answer, each export table, each fatbin"),
    ("CASSC_DRIVER_REAL_TABLES", "GUIDs, comma-separated: cassc's libcuda over NVIDIA's driver hands these export tables"
                                 " to NVIDIA's own (a check of cassc's tables one at a time)"),
)


def help_text(subcommands: list[tuple[str, str]]) -> str:
    """`cassc --help`: nvcc's usage, cassc's own options from the option table, the subcommands (name,
    summary), the environment."""
    from cassc.options import CASSC_OPTION_PREFIX, NVCC_OPTIONS

    own = [o for o in NVCC_OPTIONS if o.long.startswith(CASSC_OPTION_PREFIX)]
    lines = ["Usage  : cassc [options] <inputfile>   (an nvcc-compatible driver that builds for AMD GPUs)",
             "         cassc <subcommand> [--help]",
             "",
             f"cassc takes nvcc's options ({len(NVCC_OPTIONS) - len(own)} of them: see `nvcc --help`). Every "
             "-arch/-code/-gencode value maps to the AMD target; an option with no AMD meaning is accepted and "
             "`-v` says why it is ignored.",
             "",
             "Options of cassc's own:"]
    for option in own:
        value = "" if option.kind.value == "flag" else "=" + ("|".join(option.choices) if option.choices else "VALUE")
        lines.append(f"  --{option.long}{value}")
        lines.append(f"        {option.note}")
    lines += ["", "Subcommands:"]
    width = max(len(name) for name, _ in subcommands)
    lines += [f"  cassc {name.ljust(width)}  {summary}" for name, summary in subcommands]
    lines += ["", "Environment:"]
    width = max(len(name) for name, _ in ENVIRONMENT)
    lines += [f"  {name.ljust(width)}  {meaning}" for name, meaning in ENVIRONMENT]
    return "\n".join(lines) + "\n"
