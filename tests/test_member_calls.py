"""member_calls.py: CUDA member functions HIP's classes lack become cassc's free functions."""

from __future__ import annotations

from cassc.hipify.member_calls import rewrite_member_calls


def test_calls_on_plain_receivers_are_rewritten_on_the_same_line() -> None:
    text = ("int a = warp.meta_group_size() + tiles[i].meta_group_rank();\n"
            "int b = p->tile . meta_group_rank( );\n")
    rewritten, count = rewrite_member_calls(text)
    assert count == 3
    assert rewritten == ("int a = __cassc_meta_group_size(warp) + __cassc_meta_group_rank(tiles[i]);\n"
                         "int b = __cassc_meta_group_rank(p->tile);\n")
    assert rewrite_member_calls("int c = tile->meta_group_size();\n")[0] == "int c = __cassc_meta_group_size(*tile);\n"


def test_literals_comments_and_other_members_are_left_alone() -> None:
    text = ('puts("warp.meta_group_size()"); // warp.meta_group_rank()\n'
            "int c = warp.meta_group_sizes() + warp.meta_group_size(1);\n")
    assert rewrite_member_calls(text) == (text, 0)


def test_members_that_take_arguments_keep_them_after_the_object() -> None:
    text = "int a = g.ballot(v > 3) + t->any(p) + bits.any() + g.match_all(v, pred) + g.num_threads();\n"
    rewritten, count = rewrite_member_calls(text)
    assert count == 5
    assert rewritten == ("int a = __cassc_ballot(g, v > 3) + __cassc_any(*t, p) + __cassc_any(bits)"
                         " + __cassc_match_all(g, v, pred) + __cassc_num_threads(g);\n")
