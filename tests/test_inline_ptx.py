"""Inline PTX rewritten to HIP builtins (tables/inline-ptx.tsv), and left alone when unknown."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cassc.hipify.inline_ptx import rewrite_inline_ptx
from conftest import write


def test_known_templates_become_builtins_and_lines_stay() -> None:
    source = """\
asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(start), "r"(len));
asm("mov.u32 %0, %%laneid;" : "=r"(lane));
asm volatile ("prmt.b32 %0,%1,%2,%3;"
              : "=r"(out)
              : "r"(x), "r"(y), "r"(sel));
asm("trap;");
asm("cvt.rni.s32.f32 %0, %1;" : "=r"(i) : "f"(f));
"""
    text, rewritten = rewrite_inline_ptx(source)
    assert rewritten == 4
    lines = text.splitlines()
    assert lines[0] == "((d) = __bitextract_u32((a), (start), (len)));"
    assert lines[1] == "((lane) = __lane_id());"
    assert lines[2:5] == ["((out) = __byte_perm((x), (y), (sel)))", "", ";"]  # the statement's newlines kept
    assert lines[5] == "(__builtin_trap());"
    assert lines[6].startswith('asm("cvt.rni')  # no rule: clang reports it
    assert text.count("\n") == source.count("\n")


def test_cp_async_copies_at_once_and_an_empty_output_list_is_read() -> None:
    source = """\
asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], %2, %3;\\n" ::"r"(smem), "l"(gmem), "n"(16), "r"(bytes));
asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\\n" : : "r"(smem), "l"(gmem));
asm volatile("cp.async.commit_group;\\n" ::);
asm volatile("cp.async.wait_group %0;\\n" ::"n"(N));
asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, %0, 0;\\n @p cp.async.ca.shared.global [%1], [%2], 4;\\n}\\n" ::"r"(ok), "r"(smem), "l"(gmem));
"""
    text, rewritten = rewrite_inline_ptx(source)
    assert rewritten == 5
    assert text.splitlines() == ["(__cassc_cp_async((smem), (gmem), (16), (bytes)));",
                                 "(__cassc_cp_async((smem), (gmem), 8, 8));", "((void)0);", "((void)0);",
                                 "(((ok)) ? __cassc_cp_async((smem), (gmem), 4, 4) : (void)0);"]


def test_cp_async_builds_as_plain_copies_to_shared_memory(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", """\
#include <cstdint>
__global__ void k(const float4* in, float4* out) {
  __shared__ float4 tile[64];
  uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(&tile[threadIdx.x]));
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\\n" ::"r"(s), "l"(in + threadIdx.x), "n"(16));
  asm volatile("cp.async.wait_all;\\n" ::);
  __syncthreads();
  out[threadIdx.x] = tile[63 - threadIdx.x];
}
""")
    cassc("-ptx", "k.cu", "-o", "k.s")
    assert "ds_store_b128" in (tmp_path / "k.s").read_text()


def test_asm_in_comments_and_strings_is_left_alone() -> None:
    source = '// asm("trap;");\nconst char* s = "asm(\\"trap;\\")";\n/* asm("trap;"); */\n'
    assert rewrite_inline_ptx(source) == (source, 0)


def test_rewritten_ptx_compiles_and_lop3_follows_its_truth_table(cassc, tmp_path: Path) -> None:
    write(tmp_path / "main.cu", """\
#include <cstdio>
__global__ void k(unsigned* out, unsigned a, unsigned b, unsigned c) {
  unsigned d, l;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(4u), "r"(8u));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l) : "r"(a), "r"(b), "r"(c));
  out[0] = d; out[1] = l;
}
int main() {
  unsigned a = 0x12345678u, b = 0x9abcdef0u, c = 0x0f0f0f0fu;
  printf("%d %d %d\\n", __cassc_lop3(a, b, c, 0x96) == (a ^ b ^ c),
         __cassc_lop3(a, b, c, 0xE8) == ((a & b) | (a & c) | (b & c)), __cassc_lop3(a, b, c, 0xF0) == a);
}
""")
    cassc("main.cu", "-o", "app")
    assert subprocess.run([str(tmp_path / "app")], capture_output=True, text=True).stdout == "1 1 1\n"
    cassc("-ptx", "main.cu", "-o", "main.s")
    assert "bfe_u32" in (tmp_path / "main.s").read_text()
