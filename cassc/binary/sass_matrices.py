"""Tensor-core instructions on the SASS route: `HMMA`, `LDSM` and `MOVM`, mapped onto the emission core's meaning
of PTX's `mma.sync`, `ldmatrix` and `movmatrix` (binary/matrices.py), so both routes compute alike.

`HMMA.16816`/`HMMA.1688` is `mma.sync.aligned.m16n8k16`/`m16n8k8.row.col`: the PTX ISA fixes which thread holds
which element of A, B, C and D, and the registers are those fragments in order (A: 4 or 2 registers of two
f16/bf16 each, B: 2 or 1, C and D: 4 f32 or 2 packed f16; C = RZ is zero). `.F32`/`.F16` names the accumulator,
`.BF16` bf16 inputs (f16 without it). `LDSM.16.M88.{1,2,4}` is `ldmatrix.m8n8.x{1,2,4}.b16` from a shared address,
`.MT88` its `.trans`; `MOVM.16.MT88` is `movmatrix.m8n8.trans.b16`. What gfx1100's WMMA does not have (`IMMA`,
tf32, f64, sparse, `HGMMA`) is refused by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassc.binary import matrices
from cassc.binary.sass import Register, SassInstruction

if TYPE_CHECKING:
    from cassc.binary.sass_lift import SassLifter

SHAPES = {"16816": "m16n8k16", "1688": "m16n8k8"}
# (shape, register counts of A and B)
OPERAND_REGISTERS = {"m16n8k16": (4, 2), "m16n8k8": (2, 1)}
LDSM_COUNTS = {"1": 1, "2": 2, "4": 4}


class MatrixOperations:
    """The tensor-core opcodes of `SassLifter` (mixed into it)."""

    def tensor_refusal(self: SassLifter, instruction: SassInstruction) -> None:
        raise self.fail(f"the tensor-core instruction {instruction.opcode}.{'.'.join(instruction.modifiers)} (gfx1100's "
                        "WMMA has f16/bf16 inputs with f32/f16 accumulators: HMMA.16816/1688, LDSM and MOVM of "
                        "16-bit elements are translated) is not translated")

    def op_HMMA(self: SassLifter, instruction: SassInstruction) -> None:
        modifiers = set(instruction.modifiers)
        shape = next((SHAPES[m] for m in instruction.modifiers if m in SHAPES), None)
        accumulator = "f32" if "F32" in modifiers else "f16" if "F16" in modifiers else None
        element = "bf16" if "BF16" in modifiers else "f16"
        if shape is None or accumulator is None or modifiers - {*SHAPES, "F32", "F16", "BF16"} or \
                (element == "bf16" and accumulator == "f16"):
            self.tensor_refusal(instruction)
        d, a, b, c = instruction.operands
        a_count, b_count = OPERAND_REGISTERS[shape]  # type: ignore[index]
        c_count = 4 if accumulator == "f32" else 2
        if not all(isinstance(o, Register) for o in (d, a, b, c)):
            self.tensor_refusal(instruction)
        a_values = [self.register32(a, i) for i in range(a_count)]  # type: ignore[arg-type]
        b_values = [self.register32(b, i) for i in range(b_count)]  # type: ignore[arg-type]
        c_values = [self.register32(c, i) for i in range(c_count)]  # type: ignore[arg-type]
        if accumulator == "f32":
            c_values = [self.value(f"bitcast i32 {v} to float") for v in c_values]
        result = matrices.mma_sync(self, shape, element, accumulator, accumulator, a_values, b_values,  # type: ignore[arg-type]
                                   c_values)
        for index, value in enumerate(result):
            self.write32(d, self.value(f"bitcast float {value} to i32") if accumulator == "f32" else value, index)

    def op_LDSM(self: SassLifter, instruction: SassInstruction) -> None:
        modifiers = instruction.modifiers
        count = next((LDSM_COUNTS[m] for m in modifiers if m in LDSM_COUNTS), 1)
        transpose = "MT88" in modifiers
        if "16" not in modifiers or not ("M88" in modifiers or transpose) or \
                set(modifiers) - {"16", "M88", "MT88", *LDSM_COUNTS}:
            self.tensor_refusal(instruction)
        destination, source = instruction.operands
        pointer, space = self.address(source, "shared", False)
        for index, value in enumerate(matrices.ldmatrix(self, count, transpose, pointer, space)):
            self.write32(destination, value, index)

    def op_MOVM(self: SassLifter, instruction: SassInstruction) -> None:
        if set(instruction.modifiers) != {"16", "MT88"}:
            self.tensor_refusal(instruction)
        destination, source = instruction.operands
        self.write32(destination, matrices.movmatrix(self, self.raw32(source)))

    op_IMMA = op_HGMMA = op_DMMA = tensor_refusal
