"""Whether this cassc can build CUDA programs: `cassc doctor`'s verdict and `cassc setup`'s last step.

Files that exist say little (a broken header, a clang that does not run, a toolkit that cannot be built),
so the check does what a build system does: the stand-in toolkit's `bin/nvcc` compiles and links a
small CUDA program in a temporary directory, and the executable must carry a code object for every
target. Without the object cache, so it really compiles; a success is remembered in the cache directory
per toolkit tree (whose key covers this install, its Python, the toolchain and the tables) and targets.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from cassc import __version__, locations, toolkit
from cassc.cache import digest
from cassc.errors import CasscError
from cassc.outputs import write_bytes_atomically
from cassc.toolchain import Toolchain, run

PROGRAM = """\
#include <cstdio>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
int main() {
  float* x = nullptr;
  if (cudaMalloc(&x, 256 * sizeof(float)) != cudaSuccess) return 1;
  scale<<<1, 256>>>(x, 2.0f, 256);
  cudaDeviceSynchronize();
  cudaFree(x);
  std::printf("ok\\n");
  return 0;
}
"""


@dataclass(frozen=True)
class BuildCheck:
    ok: bool
    detail: str  # what was built, or why it failed (the tools' own messages)
    checked_at: str  # UTC, when the check that gave this verdict ran
    cached: bool


def check_build(toolchain: Toolchain, offload_archs: tuple[str, ...]) -> BuildCheck:
    """Build the program for `offload_archs` with this install's toolkit; a remembered success if any."""
    now = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        root = toolkit.ensure_toolkit(toolchain)
    except CasscError as error:
        return BuildCheck(False, f"building the stand-in CUDA toolkit failed: {error}", now, False)
    record = (locations.cache_dir() / "build-checks"
              / f"{digest('build-check', __version__, str(root.resolve()), *offload_archs)[:24]}.json")
    if locations.cache_enabled():
        try:
            remembered = json.loads(record.read_text())
            return BuildCheck(True, remembered["detail"], remembered["checked_at"], True)
        except (OSError, ValueError, KeyError):
            pass
    with tempfile.TemporaryDirectory(prefix="cassc-check-") as work:
        (Path(work) / "check.cu").write_text(PROGRAM)
        # The user's NVCC_*_FLAGS and repair model are theirs, not this install's: left out.
        env = {"CASSC_CACHE": "0", "CASSC_OFFLOAD_ARCH": ",".join(offload_archs), "CASSC_MODEL": "",
               "CASSC_CONFIG_DIR": work, "NVCC_PREPEND_FLAGS": "", "NVCC_APPEND_FLAGS": ""}
        command = [str(root / "bin" / "nvcc"), "-O2", "check.cu", "-o", "check"]
        result = run(command, cwd=Path(work), env=env, check=False)
        if result.returncode != 0:
            output = (result.stderr.strip() or result.stdout.strip() or f"exit status {result.returncode}")
            return BuildCheck(False, f"`nvcc -O2 check.cu -o check` with {root / 'bin' / 'nvcc'} failed:\n{output}",
                              now, False)
        targets = sorted(set(_code_object_targets(Path(work) / "check")))
    if targets != sorted(offload_archs):
        return BuildCheck(False, f"the check program's executable carries code for {', '.join(targets) or 'no GPU'}, "
                          f"not {', '.join(offload_archs)}", now, False)
    detail = f"compiled and linked a CUDA program for {', '.join(offload_archs)} with {root / 'bin' / 'nvcc'}"
    if locations.cache_enabled():
        record.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomically(record, json.dumps({"detail": detail, "checked_at": now}).encode())
    return BuildCheck(True, detail, now, False)


def _code_object_targets(executable: Path) -> list[str]:
    from cassc.formats.code_object import code_object_target
    from cassc.formats.host_object import read_host_object

    return [code_object_target(entry.payload)
            for entry in read_host_object(executable.read_bytes()).bundle_entries() if entry.payload]
