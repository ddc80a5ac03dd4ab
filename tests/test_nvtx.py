"""NVTX (NVIDIA's Tools Extension): header-only in NVTX 3, and in cassc its API as NVIDIA's behaves without a
profiler attached. Every function NVIDIA's headers declare is read from the CUDA toolkit's own nvtx3 headers."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import write

NVTX_INCLUDE = Path("/usr/local/cuda/include/nvtx3")
NVTX_HEADERS = ("nvToolsExt.h", "nvToolsExtSync.h", "nvToolsExtCuda.h", "nvToolsExtCudaRt.h")


def declared_functions() -> list[str]:
    names: list[str] = []
    for header in NVTX_HEADERS:
        names += re.findall(r"^NVTX_DECLSPEC\s+[\w\s*]+?\b(nvtx\w+)\s*\(", (NVTX_INCLUDE / header).read_text(),
                            re.MULTILINE)
    return names


@pytest.mark.skipif(not NVTX_INCLUDE.is_dir(), reason="no CUDA toolkit with NVTX 3 headers here")
def test_every_nvtx_function_nvidias_headers_declare_is_declared(cassc, tmp_path: Path) -> None:
    names = declared_functions()
    assert len(names) > 40
    includes = "".join(f"#include <nvtx3/{h}>\n" for h in NVTX_HEADERS)
    # and each call taking a string by its name without the A/W suffix (NVIDIA's macros)
    names += [n.removesuffix("A") for n in names if n.endswith("A") and n.removesuffix("A") + "W" in names]
    write(tmp_path / "names.cu", includes + "void *all[] = {" + ", ".join(f"(void *)&{n}" for n in names) + "};\n")
    cassc("-c", "names.cu", "-o", "names.o")


def test_an_nvtx_program_builds_links_and_runs_as_without_a_profiler(cassc, tmp_path: Path) -> None:
    write(tmp_path / "ranges.cu", """\
#include <cstdio>
#include <nvToolsExt.h>
#include <nvToolsExtCudaRt.h>
int main() {
  nvtxEventAttributes_t attributes = {0};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.colorType = NVTX_COLOR_ARGB;
  attributes.color = 0xff00ff00;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "step";
  int level = nvtxRangePushEx(&attributes);
  nvtxMarkA("mark");
  nvtxRangeId_t id = nvtxRangeStartA("range");
  nvtxRangeEnd(id);
  cudaStream_t stream = 0;
  nvtxNameCudaStreamA(stream, "default");
  std::printf("%d %d %d\\n", level, nvtxRangePop(), (int)sizeof(attributes));
}
""")
    cassc("ranges.cu", "-lnvToolsExt", "-o", "ranges")
    result = subprocess.run([str(tmp_path / "ranges")], capture_output=True, text=True, check=True)
    assert result.stdout == "-2 -2 48\n"
