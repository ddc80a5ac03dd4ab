"""Warp matrix operations in the emission core: `wmma.load`, `wmma.mma`, `wmma.store` (CUDA's `nvcuda::wmma`) on
gfx1100's WMMA, NVVM's intrinsics of the same instructions on NVPTX.

A wmma fragment's distribution over a warp's registers is unspecified in CUDA (the PTX ISA: "the mapping of
matrix elements to threads is unspecified"); only `wmma.load`, `wmma.mma` and `wmma.store` (and element-wise
code, which is the same whatever the mapping) may rely on it. So on AMDGPU a fragment holds what gfx1100's
`v_wmma_f32_16x16x16_{f16,bf16}` reads and writes, for lane l, r = l % 16, h = l / 16 (AMD's RDNA3 WMMA layout,
wave32):

  matrix_a  row r of A: f16, 8 registers = all 16 k (both half-waves hold the row, as WMMA reads it);
            bf16, 4 registers = k in [8h, 8h + 8) (the instruction then takes the other half from lane l ^ 16);
  matrix_b  column r of B, likewise;
  accumulator  element j (of 8) = C[2j + h][r]: 8 f32 registers, or 4 registers of two f16 each.

`wmma.mma` with f16 accumulators accumulates in f32 and rounds once to f16 (NVIDIA leaves the accumulation's
internal precision to the implementation). Shapes other than m16n16k16, and element types gfx1100's WMMA lacks
(tf32, f64, integer and sub-byte), are refused by name by the front end.
"""

from __future__ import annotations

from cassc.binary.emit import Emitter
from cassc.binary.images import vector

SHAPE = "m16n16k16"
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4}
FRAGMENT_REGISTERS = {("a", "f16"): 8, ("b", "f16"): 8, ("a", "bf16"): 4, ("b", "bf16"): 4, ("c", "f32"): 8,
                      ("c", "f16"): 4, ("d", "f32"): 8, ("d", "f16"): 4}


def register_type(fragment: str, element: str) -> str:
    """The LLVM type of one of a fragment's registers (f32 accumulators are floats, the rest packed pairs)."""
    return "float" if element == "f32" else "i32"


def _lanes(e: Emitter) -> tuple[str, str]:
    lane = e.lane_id()
    return e.value(f"and i32 {lane}, 15"), e.value(f"lshr i32 {lane}, 4")


def _coordinates(e: Emitter, fragment: str, element: str, index: int, r: str, h: str) -> tuple[str, str]:
    """(row, column) in its matrix of a fragment's element `index` (of 16 or 8) in this lane."""
    if fragment in ("a", "b"):
        k = str(index) if element == "f16" else e.value(f"add i32 {e.value(f'shl i32 {h}, 3')}, {index}")
        return (r, k) if fragment == "a" else (k, r)
    return e.value(f"add i32 {2 * index}, {h}"), r


def _element_pointer(e: Emitter, pointer: str, space: int, element: str, layout: str, stride: str, row: str,
                     column: str) -> str:
    major, minor = (row, column) if layout == "row" else (column, row)
    offset = e.value(f"add i32 {e.value(f'mul i32 {major}, {stride}')}, {minor}")
    wide = e.value(f"sext i32 {offset} to i64")
    llvm = "half" if element == "f16" else "bfloat" if element == "bf16" else "float"
    return e.value(f"getelementptr inbounds {llvm}, {e.ptr(space)} {pointer}, i64 {wide}")


def _nvvm_types(fragment: str, element: str) -> tuple[str, int]:
    count = FRAGMENT_REGISTERS[(fragment, element)]
    return ("float" if element == "f32" else "<2 x half>" if element == "f16" else "i32"), count


def load(e: Emitter, fragment: str, layout: str, element: str, pointer: str, space: int, stride: str) -> list[str]:
    """wmma.load.{a,b,c}: the fragment's registers (`register_type`) from memory at `pointer` (`stride`
    elements between rows, or columns with the col layout)."""
    if e.target.name == "nvptx":
        llvm, count = _nvvm_types(fragment, element)
        name = f"llvm.nvvm.wmma.{SHAPE}.load.{fragment}.{layout}.stride.{element}.p{space}"
        result = "{" + ", ".join([llvm] * count) + "}"
        e.declare(name, f"declare {result} @{name}({e.ptr(space)}, i32)")
        loaded = e.value(f"call {result} @{name}({e.ptr(space)} {pointer}, i32 {stride})")
        values = [e.value(f"extractvalue {result} {loaded}, {i}") for i in range(count)]
        return [e.value(f"bitcast <2 x half> {v} to i32") for v in values] if llvm == "<2 x half>" else values
    r, h = _lanes(e)
    count = FRAGMENT_REGISTERS[(fragment, element)]
    elements = count if element == "f32" else 2 * count
    values = []
    for index in range(elements):
        row, column = _coordinates(e, fragment, element, index, r, h)
        address = _element_pointer(e, pointer, space, element, layout, stride, row, column)
        llvm = "float" if element == "f32" else "i16"
        values.append(e.value(f"load {llvm}, {e.ptr(space)} {address}, align {ELEMENT_BYTES[element]}"))
    return values if element == "f32" else [_pack(e, values[2 * i], values[2 * i + 1]) for i in range(count)]


def store(e: Emitter, layout: str, element: str, pointer: str, space: int, stride: str, registers: list[str]) -> None:
    """wmma.store.d: an accumulator fragment's registers into memory."""
    if e.target.name == "nvptx":
        llvm, count = _nvvm_types("d", element)
        name = f"llvm.nvvm.wmma.{SHAPE}.store.d.{layout}.stride.{element}.p{space}"
        e.declare(name, f"declare void @{name}({e.ptr(space)}, {', '.join([llvm] * count)}, i32)")
        values = registers if llvm == "float" else [e.value(f"bitcast i32 {v} to <2 x half>") for v in registers]
        e.emit(f"call void @{name}({e.ptr(space)} {pointer}, {', '.join(f'{llvm} {v}' for v in values)}, "
               f"i32 {stride})")
        return
    r, h = _lanes(e)
    values = registers if element == "f32" else [half for value in registers for half in _unpack(e, value)]
    for index, value in enumerate(values):
        row, column = _coordinates(e, "d", element, index, r, h)
        address = _element_pointer(e, pointer, space, element, layout, stride, row, column)
        llvm = "float" if element == "f32" else "i16"
        e.emit(f"store {llvm} {value}, {e.ptr(space)} {address}, align {ELEMENT_BYTES[element]}")


def _pack(e: Emitter, low: str, high: str) -> str:
    wide_low, wide_high = e.value(f"zext i16 {low} to i32"), e.value(f"zext i16 {high} to i32")
    return e.value(f"or i32 {wide_low}, {e.value(f'shl i32 {wide_high}, 16')}")


def _unpack(e: Emitter, value: str) -> list[str]:
    return [e.value(f"trunc i32 {value} to i16"), e.value(f"trunc i32 {e.value(f'lshr i32 {value}, 16')} to i16")]


def _operand(e: Emitter, element: str, registers: list[str], h: str) -> str:
    """An A or B fragment as WMMA's <16 x i16> operand: f16 registers hold the whole row or column; bf16 ones
    half of it, the other half in lane l ^ 16."""
    halves = [half for value in registers for half in _unpack(e, value)]
    if element == "bf16":
        e.declare("llvm.amdgcn.ds.bpermute", "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)")
        partner = e.value(f"shl i32 {e.value(f'xor i32 {e.lane_id()}, 16')}, 2")
        theirs = [half for value in registers for half in _unpack(
            e, e.value(f"call i32 @llvm.amdgcn.ds.bpermute(i32 {partner}, i32 {value})"))]
        low = e.value(f"icmp eq i32 {h}, 0")
        halves = [e.value(f"select i1 {low}, i16 {mine}, i16 {other}") for mine, other in zip(halves, theirs)] + \
                 [e.value(f"select i1 {low}, i16 {other}, i16 {mine}") for mine, other in zip(halves, theirs)]
    return vector(e, "i16", halves)


def multiply_accumulate(e: Emitter, layouts: tuple[str, str], element: str, d_type: str, c_type: str,
                        a: list[str], b: list[str], c: list[str], satfinite: bool = False) -> list[str]:
    """wmma.mma: D = A x B + C for the m16n16k16 fragments (`element` f16 or bf16 inputs; accumulators of
    `c_type`, result of `d_type`, each f32 or f16)."""
    if e.target.name == "nvptx":
        a_llvm, a_count = _nvvm_types("a", element)
        c_llvm, c_count = _nvvm_types("c", c_type)
        d_llvm, d_count = _nvvm_types("d", d_type)
        types = "bf16" if element == "bf16" else f"{d_type}.{c_type}"
        name = f"llvm.nvvm.wmma.{SHAPE}.mma.{layouts[0]}.{layouts[1]}.{types}{'.satfinite' if satfinite else ''}"
        result = "{" + ", ".join([d_llvm] * d_count) + "}"
        e.declare(name, f"declare {result} @{name}({', '.join([a_llvm] * (2 * a_count) + [c_llvm] * c_count)})")

        def cast(values: list[str], llvm: str) -> list[str]:
            return values if llvm != "<2 x half>" else [e.value(f"bitcast i32 {v} to <2 x half>") for v in values]
        arguments = [f"{a_llvm} {v}" for v in cast(a, a_llvm) + cast(b, a_llvm)] + \
                    [f"{c_llvm} {v}" for v in cast(c, c_llvm)]
        done = e.value(f"call {result} @{name}({', '.join(arguments)})")
        values = [e.value(f"extractvalue {result} {done}, {i}") for i in range(d_count)]
        return [e.value(f"bitcast <2 x half> {v} to i32") for v in values] if d_llvm == "<2 x half>" else values
    if satfinite:
        raise e.fail("wmma.mma's .satfinite is not translated")
    _, h = _lanes(e)
    a_vector, b_vector = _operand(e, element, a, h), _operand(e, element, b, h)
    if c_type == "f32":
        accumulators = c
    else:
        accumulators = [e.value(f"fpext half {e.value(f'bitcast i16 {half} to half')} to float")
                        for value in c for half in _unpack(e, value)]
    kind = "f16" if element == "f16" else "bf16"
    operand = "<16 x half>" if kind == "f16" else "<16 x i16>"
    if kind == "f16":
        a_vector, b_vector = (e.value(f"bitcast <16 x i16> {v} to <16 x half>") for v in (a_vector, b_vector))
    name = f"llvm.amdgcn.wmma.f32.16x16x16.{kind}"
    e.declare(name, f"declare <8 x float> @{name}({operand}, {operand}, <8 x float>)")
    product = e.value(f"call <8 x float> @{name}({operand} {a_vector}, {operand} {b_vector}, "
                      f"<8 x float> {vector(e, 'float', accumulators)})")
    results = [e.value(f"extractelement <8 x float> {product}, i32 {i}") for i in range(8)]
    if d_type == "f32":
        return results
    halves = [e.value(f"bitcast half {e.value(f'fptrunc float {v} to half')} to i16") for v in results]
    return [_pack(e, halves[2 * i], halves[2 * i + 1]) for i in range(4)]


# -- mma.sync and ldmatrix: NVIDIA's per-thread fragment layouts, exchanged between lanes around WMMA ----------
# The PTX ISA's layouts for mma.m16n8k16 / m16n8k8 with 16-bit inputs (g = lane / 4, t = lane % 4):
#   A (16 x K, row): register i holds rows g (i even) / g + 8 (i odd), columns 2t, 2t + 1 (+ 8 for i >= 2);
#   B (K x 8, col): register i holds rows 2t, 2t + 1 (+ 8 for i = 1), column g;
#   C/D (16 x 8 f32): c0, c1 = row g, columns 2t, 2t + 1; c2, c3 = row g + 8 (f16: packed pairs, c0c1 and c2c3).
# gfx1100's WMMA (16 x 16 x 16) reads A's row and B's column l % 16 in lane l and writes D's element j of lane l at
# row 2j + l / 16, column l % 16; each operand is gathered from the lanes holding it (ds_bpermute), the absent
# columns (n >= 8) and depth (k >= 8 in m16n8k8) are zeros.
MMA_SHAPES = {"m16n8k16": 16, "m16n8k8": 8}  # -> K


def _from_lane(e: Emitter, value: str, lane: str) -> str:
    """`value` (i32) as lane `lane` holds it."""
    e.declare("llvm.amdgcn.ds.bpermute", "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)")
    return e.value(f"call i32 @llvm.amdgcn.ds.bpermute(i32 {e.value(f'shl i32 {lane}, 2')}, i32 {value})")


def _select(e: Emitter, condition: str, yes: str, no: str, llvm: str = "i32") -> str:
    return e.value(f"select i1 {condition}, {llvm} {yes}, {llvm} {no}")


def _widen(e: Emitter, bits: str) -> str:
    """An f16's bits (i16) as an f32 value."""
    return e.value(f"fpext half {e.value(f'bitcast i16 {bits} to half')} to float")


def _narrow(e: Emitter, value: str) -> str:
    """An f32 value rounded to f16, its bits (i16)."""
    return e.value(f"bitcast half {e.value(f'fptrunc float {value} to half')} to i16")


def mma_sync(e: Emitter, shape: str, element: str, d_type: str, c_type: str, a: list[str], b: list[str],
             c: list[str]) -> list[str]:
    """mma.sync.aligned.{shape}.row.col with f16/bf16 inputs and f32/f16 accumulators: D's registers."""
    depth = MMA_SHAPES[shape]
    if e.target.name == "nvptx":
        half_inputs = element == "f16"
        a_llvm = "<2 x half>" if half_inputs else "i32"
        c_llvm = "float" if c_type == "f32" else "<2 x half>"
        d_llvm = "float" if d_type == "f32" else "<2 x half>"
        types = f"{d_type}.{c_type}" if half_inputs else "bf16"
        name = f"llvm.nvvm.mma.{shape}.row.col.{types}"
        d_count = 4 if d_type == "f32" else 2
        result = "{" + ", ".join([d_llvm] * d_count) + "}"
        e.declare(name, f"declare {result} @{name}({', '.join([a_llvm] * (len(a) + len(b)) + [c_llvm] * len(c))})")

        def cast(values: list[str], llvm: str) -> list[str]:
            return values if llvm != "<2 x half>" else [e.value(f"bitcast i32 {v} to <2 x half>") for v in values]
        arguments = [f"{a_llvm} {v}" for v in cast(a + b, a_llvm)] + [f"{c_llvm} {v}" for v in cast(c, c_llvm)]
        done = e.value(f"call {result} @{name}({', '.join(arguments)})")
        values = [e.value(f"extractvalue {result} {done}, {i}") for i in range(d_count)]
        return values if d_llvm == "float" else [e.value(f"bitcast <2 x half> {v} to i32") for v in values]
    lane = e.lane_id()
    r, h = e.value(f"and i32 {lane}, 15"), e.value(f"lshr i32 {lane}, 4")
    low_rows = e.value(f"icmp ult i32 {r}, 8")  # this lane's A row is g's (not g + 8's); its B/C column exists
    r8 = e.value(f"and i32 {r}, 7")
    # A: the pair of k = 2p, 2p + 1 of row r comes from lane 4 (r % 8) + p % 4, register (r >= 8) + 2 (p >= 4).
    a_pairs = []
    for p in range(8):
        if 2 * p >= depth:
            a_pairs.append("0")
            continue
        source = e.value(f"add i32 {e.value(f'shl i32 {r8}, 2')}, {p % 4}")
        base = 2 if p >= 4 else 0
        a_pairs.append(_select(e, low_rows, _from_lane(e, a[base], source), _from_lane(e, a[base + 1], source)))
    # B: the pair of k = 2p, 2p + 1 of column r (< 8) comes from lane 4r + p % 4, register p / 4.
    b_pairs = []
    for p in range(8):
        if 2 * p >= depth:
            b_pairs.append("0")
            continue
        source = e.value(f"add i32 {e.value(f'shl i32 {r8}, 2')}, {p % 4}")
        b_pairs.append(_select(e, low_rows, _from_lane(e, b[p // 4], source), "0"))
    # C: element j of lane l is row 2j + h, column r (< 8): lane 4 ((2j + h) % 8) + r / 2, register
    # 2 (j >= 4) + r % 2.
    if c_type == "f32":
        accumulators = [e.value(f"bitcast float {v} to i32") for v in c]
    else:  # c0c1, c2c3: each half as an f32, the accumulation's type
        accumulators = [e.value(f"bitcast float {_widen(e, h16)} to i32") for value in c for h16 in _unpack(e, value)]
    odd = e.value(f"icmp ne i32 {e.value(f'and i32 {r}, 1')}, 0")
    c_elements = []
    for j in range(8):
        row8 = e.value(f"and i32 {e.value(f'add i32 {2 * j}, {h}')}, 7")
        source = e.value(f"add i32 {e.value(f'shl i32 {row8}, 2')}, {e.value(f'lshr i32 {r8}, 1')}")
        base = 2 if j >= 4 else 0
        value = _select(e, odd, _from_lane(e, accumulators[base + 1], source), _from_lane(e, accumulators[base], source))
        c_elements.append(e.value(f"bitcast i32 {_select(e, low_rows, value, '0')} to float"))
    kind = "f16" if element == "f16" else "bf16"
    operand = "<16 x half>" if kind == "f16" else "<16 x i16>"

    def operand_vector(pairs: list[str]) -> str:
        packed = e.value(f"bitcast <8 x i32> {vector(e, 'i32', pairs)} to <16 x i16>")
        return e.value(f"bitcast <16 x i16> {packed} to <16 x half>") if kind == "f16" else packed

    name = f"llvm.amdgcn.wmma.f32.16x16x16.{kind}"
    e.declare(name, f"declare <8 x float> @{name}({operand}, {operand}, <8 x float>)")
    product = e.value(f"call <8 x float> @{name}({operand} {operand_vector(a_pairs)}, {operand} "
                      f"{operand_vector(b_pairs)}, <8 x float> {vector(e, 'float', c_elements)})")
    results = [e.value(f"bitcast float {e.value(f'extractelement <8 x float> {product}, i32 {j}')} to i32")
               for j in range(8)]
    # D: d_i is row g (+ 8 for i >= 2), column 2t + i % 2: WMMA's lane column + 16 (row % 2), element row / 2.
    g, t = e.value(f"lshr i32 {lane}, 2"), e.value(f"and i32 {lane}, 3")
    half_g = e.value(f"lshr i32 {g}, 1")
    odd_g = e.value(f"and i32 {g}, 1")
    sources = [e.value(f"add i32 {e.value(f'shl i32 {t}, 1')}, {e.value(f'shl i32 {odd_g}, 4')}")]
    sources.append(e.value(f"add i32 {sources[0]}, 1"))
    d = []
    for i in range(4):
        first = 4 if i >= 2 else 0
        candidates = [_from_lane(e, results[first + k], sources[i % 2]) for k in range(4)]
        value = candidates[3]
        for k in (2, 1, 0):
            value = _select(e, e.value(f"icmp eq i32 {half_g}, {k}"), candidates[k], value)
        d.append(value)
    if d_type == "f32":
        return [e.value(f"bitcast i32 {v} to float") for v in d]
    halves = [_narrow(e, e.value(f"bitcast i32 {v} to float")) for v in d]
    return [_pack(e, halves[0], halves[1]), _pack(e, halves[2], halves[3])]


def ldmatrix(e: Emitter, count: int, transpose: bool, address: str, space: int) -> list[str]:
    """ldmatrix.sync.aligned.m8n8.x{count}{.trans}.shared.b16: `count` 8x8 matrices of 16-bit elements whose
    rows' addresses (`address`, a pointer into `space`) lanes 8i..8i+7 give for matrix i; register i of lane l
    holds row l / 4 of matrix i, columns 2 (l % 4) and 2 (l % 4) + 1 (transposed: rows 2 (l % 4) and
    2 (l % 4) + 1 of column l / 4)."""
    if e.target.name == "nvptx":
        name = f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{count}{'.trans' if transpose else ''}.b16" + \
               (f".p{space}" if space != 3 else "")
        result = "i32" if count == 1 else "{" + ", ".join(["i32"] * count) + "}"
        e.declare(name, f"declare {result} @{name}({e.ptr(space)})")
        loaded = e.value(f"call {result} @{name}({e.ptr(space)} {address})")
        return [loaded] if count == 1 else [e.value(f"extractvalue {result} {loaded}, {i}") for i in range(count)]
    lane = e.lane_id()
    integer = "i32" if space == 3 else "i64"
    as_integer = e.value(f"ptrtoint {e.ptr(space)} {address} to {integer}")
    quarter, pair = e.value(f"lshr i32 {lane}, 2"), e.value(f"and i32 {lane}, 3")

    def row_address(row_lane: str) -> str:
        """The address lane `row_lane` gives, here."""
        if integer == "i32":
            return _from_lane(e, as_integer, row_lane)
        low = _from_lane(e, e.value(f"trunc i64 {as_integer} to i32"), row_lane)
        high = _from_lane(e, e.value(f"trunc i64 {e.value(f'lshr i64 {as_integer}, 32')} to i32"), row_lane)
        wide_high = e.value(f"zext i32 {high} to i64")
        return e.value(f"or i64 {e.value(f'zext i32 {low} to i64')}, {e.value(f'shl i64 {wide_high}, 32')}")

    def load(base: str, offset: str, llvm: str) -> str:
        moved = e.value(f"add {integer} {base}, {offset}")
        pointer = e.value(f"inttoptr {integer} {moved} to {e.ptr(space)}")
        return e.value(f"load {llvm}, {e.ptr(space)} {pointer}, align {2 if llvm == 'i16' else 4}")

    registers = []
    for matrix in range(count):
        if not transpose:
            row = row_address(e.value(f"add i32 {quarter}, {8 * matrix}"))
            offset = e.value(f"zext i32 {e.value(f'shl i32 {pair}, 2')} to {integer}") if integer == "i64" \
                else e.value(f"shl i32 {pair}, 2")
            registers.append(load(row, offset, "i32"))
            continue
        column = e.value(f"shl i32 {quarter}, 1")
        column = e.value(f"zext i32 {column} to i64") if integer == "i64" else column
        first = e.value(f"add i32 {e.value(f'shl i32 {pair}, 1')}, {8 * matrix}")
        low = load(row_address(first), column, "i16")
        high = load(row_address(e.value(f"add i32 {first}, 1")), column, "i16")
        registers.append(_pack(e, low, high))
    return registers


def movmatrix(e: Emitter, value: str) -> str:
    """movmatrix.sync.aligned.m8n8.trans.b16: the warp's 8x8 matrix of 16-bit elements transposed. Lane l holds
    row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 (the low half first), before and after; its new elements are
    the old ones at row 2 (l % 4) + k, column l / 4, which lane 4 (2 (l % 4) + k) + l / 8 holds in half
    (l / 4) % 2."""
    lane = e.lane_id()
    column = e.value(f"lshr i32 {lane}, 2")
    shift = e.value(f"shl i32 {e.value(f'and i32 {column}, 1')}, 4")
    pair_column = e.value(f"shl i32 {e.value(f'and i32 {lane}, 3')}, 1")
    source_column = e.value(f"lshr i32 {lane}, 3")
    halves = []
    for k in range(2):
        row = e.value(f"add i32 {pair_column}, {k}")
        source = e.value(f"add i32 {e.value(f'shl i32 {row}, 2')}, {source_column}")
        moved, _ = e.shuffle("idx", value, source, "31", lambda: "-1")
        halves.append(e.value(f"and i32 {e.value(f'lshr i32 {moved}, {shift}')}, 65535"))
    return e.value(f"or i32 {halves[0]}, {e.value(f'shl i32 {halves[1]}, 16')}")
