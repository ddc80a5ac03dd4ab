"""Texture instructions on the SASS route: `TEX`, `TLD`, `TLD4`, `TXD` and `TXQ` of texture objects, mapped onto
the emission core's meaning of PTX's `tex`/`tld4`/`txq` (binary/images.py), so both routes sample alike.

A texture object on sm_75-sm_90 is bindless: the instruction names the constant bank word holding the handle
(`..., 0x0, 0x58, 2D`: bank 0, word 0x58, the kernel parameter at byte 0x160) or a uniform register a `ULDC` loaded
from such a word (`..., UR4, 0x0, 2D`). The hardware reads 32 bits of it; CUDA's handle is the 64-bit kernel
parameter, so the translation reads the whole parameter (HIP's handle is an address). A handle computed otherwise
(arithmetic) is refused.

The sources are consecutive registers from Ra and Rb, in the order [layer] + coordinates + [lod], the layer an
integer (ptxas clamps it to 16 bits), the rest f32 (TLD: s32 coordinates). With `.SCR` (the form whose handle is
a constant bank word) Ra holds the first half of that list, rounded up, and Rb the rest; otherwise Ra holds the
layer and coordinates and Rb the lod. A `.B` form (sm_75-sm_89: a handle the kernel loaded from memory) names no
bank word: its handle is the first register of Rb's block, before what Rb holds otherwise, and counts as one
more source in `.SCR`'s halving; `TXQ.B`'s is Ra. Such a handle is the low word ptxas loaded (the hardware reads
no more); the translation traces the register back to that load, or to a kernel parameter, and reads the high
word beside it where the load is lifted. On sm_90 the handle is a uniform register (`R2UR` of the loaded word),
traced the same way. TXD's Ra holds the coordinates and Rb the gradients, d/dx and d/dy
interleaved per coordinate. The results go, for each channel the write mask enables (x, y, z, w; all four
without one), to Rd, Rd + 1, Rd2, Rd2 + 1 in turn.

ptxas samples a 1D texture as a 2D one at y = 0 (`tex1D` is `TEX ... 2D`); a 2D sample therefore tests the
image descriptor's type and samples a 1D image in 1D (a gather has no 1D form).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from cassc.binary import images

from cassc.binary.sass import Address, Constant, Immediate, Register, SassInstruction, Unparsed

if TYPE_CHECKING:
    from cassc.binary.sass_lift import SassLifter

# SASS dimension -> PTX geometry (binary/images.py)
DIMENSIONS = {"1D": "1d", "2D": "2d", "3D": "3d", "CUBE": "cube", "ARRAY_1D": "a1d", "ARRAY_2D": "a2d",
              "ARRAY_CUBE": "acube"}
LOD_MODES = ("LZ", "LL")  # level zero, explicit level; none: the implicit level (0 in a compute kernel)
KNOWN_MODIFIERS = {"SCR", "NODEP", "NDV", *LOD_MODES}
GATHER_CHANNELS = {"R": "r", "G": "g", "B": "b", "A": "a"}
# TXQ TEX_HEADER_DIMENSION's channels, as binary/images.py's queries
DIMENSION_QUERIES = ("width", "height", "depth", "num_mipmap_levels")
IMAGE_OPCODES = ("TEX", "TLD", "TLD4", "TXD", "TXQ")  # their dimension operand is a word the parser keeps as text
SQ_RSRC_IMG_1D = 8  # gfx10+ image descriptor TYPE (dword 3, bits 28-31) of a 1D image
SURFACE_DIMENSIONS = {"1D": "1d", "2D": "2d", "3D": "3d", "1D_ARRAY": "a1d", "2D_ARRAY": "a2d"}
ACCESS_BYTES = {"U8": 1, "S8": 1, "U16": 2, "S16": 2, "64": 8, "128": 16}  # none: 32 bits
BOUNDARIES = {"TRAP": "trap", "IGN": "zero"}  # none: clamp
SURFACE_ORDERING = {"STRONG", "WEAK", "CTA", "SM", "GPU", "SYS"}  # a relaxed access at that scope: as any other


class ImageOperations:
    """The texture opcodes of `SassLifter` (mixed into it)."""

    def image_handle(self: SassLifter, operands: tuple[object, ...]) -> str:
        """The 64-bit texture object named by the operands before the dimension: (bank, word), (URn, 0), or a
        register (the `.B` forms). A register is traced back (`handle_source`) to the parameter or the memory
        it was loaded from: the hardware reads 32 bits of the handle, so ptxas loads only its low word, and the
        high word is read beside it where the load is lifted (`load_to`: `handle_loads`)."""
        if len(operands) == 2 and all(isinstance(o, Immediate) for o in operands) and \
                operands[0].integer() == 0:  # type: ignore[union-attr]
            return self.constant(Constant(0, 4 * operands[1].integer()), 8)  # type: ignore[union-attr]
        register = operands[0] if len(operands) == 1 or (isinstance(operands[1], Immediate)
                                                         and operands[1].integer() == 0) else None
        if isinstance(register, Register) and register.index is not None and self.current is not None:
            source = self.handle_source(register, self.instruction_index(self.current))
            if source is not None and source[0] == "parameter":
                return self.constant(Constant(0, source[1]), 8)
            if source is not None and source[1] in self.handle_loads:
                high = self.value(f"load i32, {self.alloca_ptr()} {self.handle_slot(source[1])}")
                return self.join_words(self.int32(register), high)
        raise self.fail("a texture handle that is neither a kernel parameter nor loaded from memory")

    def join_words(self: SassLifter, low: str, high: str) -> str:
        """The 64-bit handle of two words; on NVPTX through memory (a volatile load), as NVPTX takes a texture
        handle from a load or a parameter only."""
        wide_high = self.value(f"shl i64 {self.value(f'zext i32 {high} to i64')}, 32")
        joined = self.value(f"or i64 {wide_high}, {self.value(f'zext i32 {low} to i64')}")
        if self.target.name != "nvptx":
            return joined
        slot = self.slot(f"joined.{self.fresh().lstrip('%')}", "i64")
        self.emit(f"store i64 {joined}, {self.alloca_ptr()} {slot}")
        return self.value(f"load volatile i64, {self.alloca_ptr()} {slot}, align 8")

    def instruction_index(self: SassLifter, instruction: SassInstruction) -> int:
        return next(i for i, one in enumerate(self.kernel.instructions) if one.address == instruction.address)

    def handle_slot(self: SassLifter, load_address: int) -> str:
        """The stack slot holding the high word of the handle the load at `load_address` read the low word of."""
        name = f"handle.{load_address:x}"
        if name not in self.handle_slots:
            self.handle_slots[name] = self.slot(name, "i32")
        return self.handle_slots[name]

    def handle_source(self: SassLifter, register: Register, before: int,
                      planning: bool = False) -> tuple[str, int] | None:
        """Where the value of `register` (R or UR) at instruction `before` came from: ("parameter", its constant
        bank 0 offset) or ("memory", the index of the load that read it), through copies (MOV, IMAD.MOV,
        R2UR...); the nearest earlier write in code order. None: computed otherwise. `planning`: record the load
        in `handle_loads` (before lifting; `plan_handle_loads`)."""
        code = self.kernel.instructions
        for at in range(before - 1, -1, -1):
            instruction = code[at]
            destination = instruction.operands[0] if instruction.operands else None
            if not isinstance(destination, Register) or destination.kind != register.kind or \
                    destination.index is None or register.index is None:
                continue
            width = 2 if instruction.has("64") else 4 if instruction.has("128") else 1
            if not destination.index <= register.index < destination.index + width:
                continue
            part = register.index - destination.index
            sources = instruction.operands[1:]
            copied = sources[-1] if instruction.opcode in ("MOV", "UMOV", "R2UR", "S2R") or (
                instruction.opcode == "IMAD" and instruction.has("MOV")) else None
            if instruction.opcode in ("ULDC", "LDC", "MOV", "UMOV", "IMAD") and isinstance(copied or sources[0], Constant):
                constant = copied or sources[0]
                if constant.bank == 0 and constant.register is None:  # type: ignore[union-attr]
                    return "parameter", constant.offset + 4 * part  # type: ignore[union-attr]
                return None
            if instruction.opcode in ("LDG", "LDL", "LDS", "LD") and isinstance(sources[0], Address):
                if planning:
                    self.handle_loads[code[at].address] = 4 * part
                return "memory", code[at].address
            if isinstance(copied, Register) and instruction.opcode != "S2R" and copied.index is not None:
                return self.handle_source(replace(copied, suffixes=()), at, planning)
            return None
        return None

    def plan_handle_loads(self: SassLifter) -> None:
        """Before lifting: the loads whose low word an image instruction later takes as its handle, so that
        `load_to` also reads the high word (`handle_loads`: load address -> the low word's byte offset)."""
        for index, instruction in enumerate(self.kernel.instructions):
            if instruction.opcode not in IMAGE_OPCODES + ("SULD", "SUST"):
                continue
            for register in self.handle_registers(instruction):
                self.handle_source(register, index, planning=True)

    def handle_registers(self: SassLifter, instruction: SassInstruction) -> list[Register]:
        """The register an image instruction takes its handle from (none: a constant bank word)."""
        operands = instruction.operands
        if instruction.opcode in ("SULD", "SUST"):  # SULD d, [coordinates], handle; SUST [coordinates], s, handle
            candidates = list(operands[2:3])
        elif instruction.has("B"):
            at = next((i for i, o in enumerate(operands) if isinstance(o, Unparsed)), len(operands))
            registers = [o for o in operands[:at] if isinstance(o, Register)]
            candidates = list(registers[2:3] if instruction.opcode == "TXQ" else registers[3:4])
        else:
            candidates = [o for o in operands if isinstance(o, Register) and o.kind == "UR"][:1]
        return [o for o in candidates if isinstance(o, Register) and o.kind in ("R", "UR") and o.index is not None]

    def image_form(self: SassLifter, instruction: SassInstruction) -> tuple[list[Register], str, str, int]:
        """(the registers before the handle, the handle, the PTX geometry, the write mask). A `.B` form's handle is
        the first register of the Rb block, what Rb holds otherwise following it."""
        unknown = [m for m in instruction.modifiers if m not in KNOWN_MODIFIERS and m not in GATHER_CHANNELS]
        if unknown:
            raise self.fail(f"{instruction.opcode} with .{'.'.join(unknown)} (not translated)")
        operands = instruction.operands
        at = next(i for i, o in enumerate(operands) if isinstance(o, Unparsed))
        dimension = operands[at].text  # type: ignore[union-attr]
        if dimension not in DIMENSIONS:
            raise self.fail(f"{instruction.opcode} of a {dimension} texture (not translated)")
        mask = operands[at + 1].integer() if at + 1 < len(operands) else 0xF  # type: ignore[union-attr]
        if instruction.has("B"):
            *registers, rb = [o for o in operands[:at] if isinstance(o, Register)]
            assert rb.index is not None
            return [*registers, replace(rb, index=rb.index + 1)], self.image_handle((rb,)), DIMENSIONS[dimension], mask
        registers = [o for o in operands[:at - 2] if isinstance(o, Register)]
        return registers, self.image_handle(operands[at - 2:at]), DIMENSIONS[dimension], mask

    def source_list(self: SassLifter, instruction: SassInstruction, ra: Register, rb: Register | None,
                    count: int, first_half: int) -> list[str]:
        """`count` consecutive source values (i32): `first_half` of them from Ra, the rest from Rb."""
        values = [self.register32(ra, i) for i in range(first_half)]
        if count > first_half:
            if rb is None or rb.index is None:
                raise self.fail(f"{instruction.opcode} without the Rb its sources need")
            values += [self.register32(rb, i) for i in range(count - first_half)]
        return values

    def write_channels(self: SassLifter, destinations: list[Register], channels: list[str], mask: int) -> None:
        """The enabled channels (i32) to Rd, Rd + 1, Rd2, Rd2 + 1 in turn (Rd2 the first destination operand)."""
        rd2, rd = destinations
        places = [(rd, 0), (rd, 1), (rd2, 0), (rd2, 1)]
        for (register, offset), channel in zip(places, [c for i, c in enumerate(channels) if mask >> i & 1]):
            self.write32(register, channel, offset)

    def sample(self: SassLifter, instruction: SassInstruction, integer: bool, gather: str | None = None) -> None:
        registers, handle, geometry_name, mask = self.image_form(instruction)
        geometry = images.GEOMETRIES[geometry_name]
        lod_mode = next((m for m in instruction.modifiers if m in LOD_MODES), None)
        if integer and lod_mode != "LZ":
            raise self.fail("TLD of a level other than 0 (not translated)")
        destinations, sources = registers[:2], registers[2:]
        ra, rb = sources[0], sources[1] if len(sources) > 1 else None
        layered = 1 if geometry.layered else 0
        count = layered + geometry.dimensions + (1 if lod_mode == "LL" else 0)
        # .SCR splits the list in half, a `.B` form's handle counting as one more source (the first of Rb's)
        first = (count + 1 + instruction.has("B")) // 2 if instruction.has("SCR") else layered + geometry.dimensions
        values = self.source_list(instruction, ra, rb, count, first)
        layer = values[0] if layered else None
        coordinates = values[layered:layered + geometry.dimensions]
        if not integer:
            coordinates = [self.value(f"bitcast i32 {v} to float") for v in coordinates]
        lod = None if integer or gather is not None else \
            self.value(f"bitcast i32 {values[-1]} to float") if lod_mode == "LL" else "0.0" if lod_mode == "LZ" else None
        coordinate_type = "s32" if integer else "f32"

        def channels_of(name: str, where: list[str]) -> list[str]:
            sampled = images.texture(self, name, handle, images.Coordinates(tuple(where), layer), coordinate_type,
                                     "f32", lod=lod, gather=gather)
            return [self.value(f"bitcast float {c} to i32") for c in sampled]

        if geometry_name == "2d" and gather is None and self.target.name != "nvptx":
            channels = self.one_or_two_dimensional(handle, lambda: channels_of("1d", coordinates[:1]),
                                                   lambda: channels_of("2d", coordinates))
        else:
            channels = channels_of(geometry_name, coordinates)
        self.write_channels(destinations, channels, mask)

    def one_or_two_dimensional(self: SassLifter, handle: str, one: object, two: object) -> list[str]:
        """Channels (i32) sampled by `one()` where the handle's image is 1D, else by `two()`."""
        descriptor = self.value(f"inttoptr i64 {handle} to ptr addrspace({images.IMAGE_SPACE})")
        word = self.value(f"getelementptr inbounds i8, ptr addrspace({images.IMAGE_SPACE}) {descriptor}, i64 12")
        kind = self.value(f"lshr i32 {self.value(f'load i32, ptr addrspace({images.IMAGE_SPACE}) {word}, align 4')}, 28")
        is_1d = self.value(f"icmp eq i32 {kind}, {SQ_RSRC_IMG_1D}")
        slots = [self.slot(f"t.{self.fresh().lstrip('%')}", "i32") for _ in range(4)]
        for condition, sampler in ((is_1d, one), (self.value(f"xor i1 {is_1d}, true"), two)):
            def body(sampler: object = sampler) -> None:
                for slot, channel in zip(slots, sampler()):  # type: ignore[operator]
                    self.emit(f"store i32 {channel}, {self.alloca_ptr()} {slot}")
            self.guarded(condition, body)
        return [self.value(f"load i32, {self.alloca_ptr()} {slot}") for slot in slots]

    def op_TEX(self: SassLifter, instruction: SassInstruction) -> None:
        self.sample(instruction, integer=False)

    def op_TLD(self: SassLifter, instruction: SassInstruction) -> None:
        self.sample(instruction, integer=True)

    def op_TLD4(self: SassLifter, instruction: SassInstruction) -> None:
        channel = next((GATHER_CHANNELS[m] for m in instruction.modifiers if m in GATHER_CHANNELS), "r")
        self.sample(instruction, integer=False, gather=channel)

    def op_TXD(self: SassLifter, instruction: SassInstruction) -> None:
        registers, handle, geometry_name, mask = self.image_form(instruction)
        geometry = images.GEOMETRIES[geometry_name]
        if geometry.layered or len(registers) != 4:
            raise self.fail("TXD of a layered texture (not translated)")
        n = geometry.dimensions
        floats = [self.value(f"bitcast i32 {v} to float")
                  for v in self.source_list(instruction, registers[2], registers[3], 3 * n, n)]
        coordinates, derivatives = floats[:n], floats[n:]
        gradients = ([derivatives[2 * i] for i in range(n)], [derivatives[2 * i + 1] for i in range(n)])
        sampled = images.texture(self, geometry_name, handle, images.Coordinates(tuple(coordinates), None), "f32",
                                 "f32", gradients=gradients)
        self.write_channels(registers[:2], [self.value(f"bitcast float {c} to i32") for c in sampled], mask)

    def op_TXQ(self: SassLifter, instruction: SassInstruction) -> None:
        operands = instruction.operands
        at = next(i for i, o in enumerate(operands) if isinstance(o, Unparsed))
        if operands[at].text != "TEX_HEADER_DIMENSION":  # type: ignore[union-attr]
            raise self.fail(f"TXQ {operands[at].text} (not translated)")  # type: ignore[union-attr]
        if instruction.has("B"):  # TXQ.B d2, d, Ra: the handle in Ra
            handle = self.image_handle((operands[2],))
            mask = operands[at + 1].integer() if at + 1 < len(operands) else 0xF  # type: ignore[union-attr]
        else:
            handle = self.image_handle(operands[at + 1:at + 3])
            mask = operands[at + 3].integer() if at + 3 < len(operands) else 0xF  # type: ignore[union-attr]
        channels = [(images.query(self, False, attribute, handle) or "0") if mask >> index & 1 else "0"
                    for index, attribute in enumerate(DIMENSION_QUERIES)]
        self.write_channels([o for o in operands[:2] if isinstance(o, Register)], channels, mask)

    # -- surfaces: SULD.D.BA / SUST.D.BA (raw data, x in bytes), as binary/images.py's raw accesses --------------
    def surface_form(self: SassLifter, instruction: SassInstruction, address: object) -> tuple[str, images.Coordinates,
                                                                                               int, str]:
        """(the PTX geometry, the coordinates, the access's bytes, PTX's boundary mode) of a SULD/SUST."""
        modifiers = set(instruction.modifiers)
        dimension = next((m for m in instruction.modifiers if m in SURFACE_DIMENSIONS), None)
        unknown = modifiers - {"D", "BA", *SURFACE_DIMENSIONS, *ACCESS_BYTES, *BOUNDARIES, *SURFACE_ORDERING}
        if dimension is None or not {"D", "BA"} <= modifiers or unknown:
            raise self.fail(f"{instruction.opcode}.{'.'.join(instruction.modifiers)} (formatted or unaddressed "
                            "surface accesses are not translated)")
        if not isinstance(address, Address) or address.base is None or address.offset or address.uniform is not None:
            raise self.fail(f"{instruction.opcode} coordinates that are not a register")
        geometry = images.GEOMETRIES[SURFACE_DIMENSIONS[dimension]]
        values = [self.register32(address.base, i) for i in range(geometry.dimensions + geometry.layered)]
        coordinates = images.Coordinates(tuple(values[:geometry.dimensions]),
                                         values[-1] if geometry.layered else None)
        size = next((ACCESS_BYTES[m] for m in instruction.modifiers if m in ACCESS_BYTES), 4)
        boundary = next((BOUNDARIES[m] for m in instruction.modifiers if m in BOUNDARIES), "clamp")
        return SURFACE_DIMENSIONS[dimension], coordinates, size, boundary

    def op_SULD(self: SassLifter, instruction: SassInstruction) -> None:
        destination, address, *handle = instruction.operands
        geometry_name, coordinates, size, boundary = self.surface_form(instruction, address)
        dwords = images.surface_load_raw(self, geometry_name, self.image_handle(tuple(handle)), coordinates, size,
                                         boundary)
        if instruction.has("S8", "S16"):
            bits = 8 * size
            dwords = [self.value(f"sext i{bits} {self.value(f'trunc i32 {dwords[0]} to i{bits}')} to i32")]
        for index, dword in enumerate(dwords):
            self.write32(destination, dword, index)

    def op_SUST(self: SassLifter, instruction: SassInstruction) -> None:
        address, source, *handle = instruction.operands
        geometry_name, coordinates, size, boundary = self.surface_form(instruction, address)
        if not isinstance(source, Register):
            raise self.fail("SUST of something that is not a register")
        dwords = [self.register32(source, i) for i in range(max(1, size // 4))]
        images.surface_store_raw(self, geometry_name, self.image_handle(tuple(handle)), coordinates, dwords, size,
                                 boundary)
