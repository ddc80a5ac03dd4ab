#!/usr/bin/env python3
"""A hipcc for the benchmarks: HeCBench's hand-written `*-hip` twins say `CC = hipcc`, and Debian's
hipcc 5.2 is hard-wired to clang-15. This does what hipcc does on the AMD platform, with the toolchain
cassc found (same clang, same device libraries, same gfx target), so the twins are built with exactly
the toolchain cassc uses and the two build rates compare like with like.

hipcc's rules kept here: `.cpp/.cxx/.cc/.C/.cu/.cuh/.hip` inputs are HIP unless `-x` says otherwise,
`.c` is C; `-O3` when no `-O` is given; executables link `-lamdhip64`.
"""

from __future__ import annotations

import os
import sys

from cassc.toolchain import find_toolchain

HIP_SUFFIXES = (".cpp", ".cxx", ".cc", ".C", ".cu", ".cuh", ".hip")
NO_LINK_FLAGS = {"-c", "-E", "-S", "-M", "-MM", "-fsyntax-only"}


def hipcc_command(args: list[str], offload_arch: str) -> list[str]:
    toolchain = find_toolchain()
    command = [str(toolchain.clang)]
    explicit_language = False
    has_hip_input = False
    previous = ""
    for arg in args:
        if arg == "-x" or (arg.startswith("-x") and len(arg) > 2):
            explicit_language = True
        if not arg.startswith("-") and previous not in ("-o", "-x", "-I", "-L", "-include", "-MF", "-MT"):
            if not explicit_language and arg.endswith(HIP_SUFFIXES):
                command += ["-x", "hip"]
                has_hip_input = True
            elif not explicit_language and arg.endswith(".c"):
                command += ["-x", "c"]
        command.append(arg)
        previous = arg
    command += [f"--offload-arch={offload_arch}",
                f"--rocm-device-lib-path={toolchain.device_lib_dir((offload_arch,))}",
                "-Wno-unused-result", "-D__HIP_PLATFORM_AMD__"]
    # hipcc's clang finds the HIP install and pre-includes its runtime header; Debian's clang does not.
    if has_hip_input or "hip" in args:
        command += ["-include", "hip/hip_runtime.h"]
    if not any(a.startswith("-O") for a in args):
        command.append("-O3")
    if toolchain.kind == "rocm":
        command += ["-isystem", str(toolchain.root / "include")]
    if not NO_LINK_FLAGS.intersection(args):
        command += ["-lamdhip64"]
    return command


def main() -> None:
    command = hipcc_command(sys.argv[1:], os.environ.get("CASSC_OFFLOAD_ARCH", "gfx1100"))
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
