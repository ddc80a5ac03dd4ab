"""member_calls.py: calls of CUDA cooperative-groups members HIP's classes lack reach them through cassc's view."""

from __future__ import annotations

from cassc.hipify.member_calls import rewrite_member_calls


def test_receivers_are_wrapped_on_the_same_line() -> None:
    text = ("int a = warp.meta_group_size() + tiles[i].meta_group_rank();\n"
            "int b = p->tile . meta_group_rank( );\n")
    rewritten, count = rewrite_member_calls(text)
    assert count == 3
    assert rewritten == ("int a = __cassc_members(warp).meta_group_size() + __cassc_members(tiles[i]).meta_group_rank();\n"
                         "int b = __cassc_members(p->tile).meta_group_rank( );\n")
    assert rewrite_member_calls("int c = tile->meta_group_size();\n")[0] == "int c = __cassc_members(*tile).meta_group_size();\n"


def test_literals_comments_and_other_members_are_left_alone() -> None:
    text = ('puts("warp.meta_group_size()"); // warp.meta_group_rank()\n'
            "int c = warp.meta_group_sizes() + anything(1);\n")
    assert rewrite_member_calls(text) == (text, 0)


def test_arguments_stay_where_they_were() -> None:
    text = "int a = g.ballot(v > 3) + this->any(p) + bits.any() + g.match_all(v, pred) + g.num_threads();\n"
    rewritten, count = rewrite_member_calls(text)
    assert count == 5
    assert rewritten == ("int a = __cassc_members(g).ballot(v > 3) + __cassc_members(*this).any(p)"
                         " + __cassc_members(bits).any() + __cassc_members(g).match_all(v, pred)"
                         " + __cassc_members(g).num_threads();\n")


def test_group_shuffles_of_any_trivially_copyable_type_compile(cassc, tmp_path) -> None:
    """CUDA's group shuffles move structs and vectors (CUDA samples' shfl_scan: a uint4); HIP's take
    integers and floating point only."""
    (tmp_path / "k.cu").write_text("""\
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct pair { int key; float value; };
__global__ void k(uint4* data, pair* pairs, float* out) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  uint4 v = tile.shfl_xor(data[threadIdx.x], 1);
  pair p = tile.shfl(pairs[threadIdx.x], 0);
  pair q = tile.shfl_down(p, 2);
  out[threadIdx.x] = tile.shfl_up(p.value, 1) + q.key + v.x;
}
""")
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()
