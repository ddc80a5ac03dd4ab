"""The `template` keyword nvcc lets code leave out before a member template of a template-id."""

from __future__ import annotations

from pathlib import Path

from cassc.hipify.dependent_templates import add_template_keywords
from conftest import write

# HeCBench's attentionMultiHeadKVCache (FlashInfer's vec_dtypes.cuh) calls a member template of a dependent type.
VEC_CAST = """\
template <typename tgt, typename src> struct vec_cast {
  template <unsigned N> __device__ static void cast(tgt* dst, const src* s) { for (unsigned i = 0; i < N; i++) dst[i] = s[i]; }
};
template <typename src_t, typename tgt_t, unsigned N>
__device__ void cast_from(tgt_t* dst, const src_t* s) {
  vec_cast<tgt_t, src_t>::cast<N>(dst, s);  /* vec_cast<A, B>::cast<N>(x) stays in a comment */
}
__global__ void k(float* d, const int* s) { cast_from<int, float, 4>(d, s); }
"""


def test_member_template_calls_of_template_ids_get_the_keyword_and_nothing_else_does() -> None:
    cases = {
        "vec_cast<T, U>::cast<N>(d, s);": "vec_cast<T, U>::template cast<N>(d, s);",
        "A<B<C>>::f<3>(x);": "A<B<C>>::template f<3>(x);",
        "A<B>::template f<1>(x);": "A<B>::template f<1>(x);",
        "p->x::y<2>(z);": "p->x::y<2>(z);",
        "std::vector<int>::size_type n = 3;": "std::vector<int>::size_type n = 3;",
        "x = A<B>::v<N>;": "x = A<B>::v<N>;",
        'puts("A<B>::f<1>(x)");': 'puts("A<B>::f<1>(x)");',
    }
    for before, after in cases.items():
        assert add_template_keywords(before)[0] == after


def test_a_call_without_the_keyword_compiles(cassc, tmp_path: Path) -> None:
    write(tmp_path / "k.cu", VEC_CAST)
    cassc("-c", "k.cu", "-o", "k.o")
    assert (tmp_path / "k.o").is_file()
