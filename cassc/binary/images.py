"""Texture and surface objects in the emission core: what `tex`, `tld4`, `txq`, `suld`, `sust` and `suq` mean on
both targets.

A CUDA texture or surface object is a 64-bit handle the runtime made. On AMDGPU the shim's
`cudaCreateTextureObject`/`cudaCreateSurfaceObject` are HIP's (CUDA's descriptor structs are HIP's with fields
appended), so the handle is HIP's: the address of the image resource descriptor (HIP's image object, 12 dwords)
followed by the sampler descriptor (`HIP_SAMPLER_OBJECT_OFFSET_DWORD`). An instruction becomes the device
library's image function HIP clang's `tex2D`, `surf2Dread`... call (`__ockl_image_sample_2D(image, sampler,
coordinates)` and its kin), so addressing, filtering, normalised coordinates and the read mode are the
sampler's and the image format's, as the runtime set them from CUDA's texture descriptor. On NVPTX each is the
NVVM intrinsic of the same instruction.

Surfaces: PTX addresses x in bytes; the image functions take pixels, so x is divided by the access size
(an access must match the surface format's element size, or the PTX ISA leaves it undefined). The image load
returns a channel per dword, converted from the format: 8- and 32-bit accesses take the dword's bits, 16-bit
ones the half-precision load (`loadh`, whose d16 data are a half format's bits and a 16-bit integer format's
value).
"""

from __future__ import annotations

from dataclasses import dataclass

from cassc.binary.emit import Emitter, quote


@dataclass(frozen=True)
class Geometry:
    """A PTX texture/surface geometry: the device library's suffix, how many coordinates it has (apart from a
    layer), whether a layer index comes first among PTX's coordinates, and how many coordinates PTX writes."""
    suffix: str
    dimensions: int
    layered: bool
    operands: int
    nvvm: str


GEOMETRIES = {
    "1d": Geometry("1D", 1, False, 1, "1d"), "2d": Geometry("2D", 2, False, 2, "2d"),
    "3d": Geometry("3D", 3, False, 4, "3d"), "a1d": Geometry("1Da", 1, True, 2, "1d.array"),
    "a2d": Geometry("2Da", 2, True, 4, "2d.array"), "cube": Geometry("CM", 3, False, 4, "cube"),
    "acube": Geometry("CMa", 3, True, 4, "cube.array"),
}
IMAGE_SPACE = 4  # HIP reads its image and sampler objects through constant-space pointers
SAMPLER_OFFSET = 48  # bytes: HIP_SAMPLER_OBJECT_OFFSET_DWORD (12) dwords after the image object
QUERIES = {"width": "width_2D", "height": "height_2D", "depth": "depth_3D", "array_size": "array_size_2Da",
           "num_mipmap_levels": "num_mip_levels_2D"}


@dataclass(frozen=True)
class Coordinates:
    """A texture or surface access's coordinates as LLVM values: `values` (x, y, z as the geometry has them; f32
    `float` or s32 `i32`) and the s32 layer of a layered geometry."""
    values: tuple[str, ...]
    layer: str | None


def vector(e: Emitter, element: str, values: list[str]) -> str:
    """An LLVM vector of `values` (of type `element`), built element by element."""
    built = "poison"
    for index, value in enumerate(values):
        built = e.value(f"insertelement <{len(values)} x {element}> {built}, {element} {value}, i32 {index}")
    return built


def _elements(e: Emitter, vector: str, count: int, element: str) -> list[str]:
    return [e.value(f"extractelement <{count} x {element}> {vector}, i32 {index}") for index in range(count)]


# NVVM's annotation that makes an NVPTX global a PTX `.texref`/`.surfref`.
REFERENCE_ANNOTATIONS = {"texref": "texture", "surfref": "surface"}


def reference_handle(e: Emitter, name: str) -> str:
    """The object bound to a texture or surface reference: on AMDGPU the reference is a device global the
    shim's cudaBindTexture... writes the handle of the object it made into (`__cudaRegisterTexture` told it
    the global's name), read here; on NVPTX the reference itself, as PTX names it (NVVM's handle of an
    annotated global, which the back end prints as the reference's name)."""
    if e.target.name == "nvptx":
        return _call(e, "i64", "llvm.nvvm.texsurf.handle.internal.p1", [("ptr addrspace(1)", f"@{quote(name)}")])
    return e.value(f"load i64, ptr addrspace(1) @{quote(name)}, align 8")


def _descriptors(e: Emitter, handle: str) -> tuple[str, str]:
    """(image, sampler) descriptor pointers of a HIP texture object's handle."""
    image = e.value(f"inttoptr i64 {handle} to ptr addrspace({IMAGE_SPACE})")
    sampler = e.value(f"getelementptr inbounds i8, ptr addrspace({IMAGE_SPACE}) {image}, i64 {SAMPLER_OFFSET}")
    return image, sampler


def _library_coordinates(e: Emitter, coordinates: Coordinates, element: str) -> tuple[str, str]:
    """The device library's coordinate operand (type, value): a scalar in 1D, else a vector of 2 or 4 with
    the layer after the coordinates (as HIP's `tex2DLayered` builds it) and zeros after that."""
    values = list(coordinates.values)
    if coordinates.layer is not None:
        values.append(coordinates.layer if element == "i32" else e.value(f"sitofp i32 {coordinates.layer} to float"))
    if len(values) == 1:
        return element, values[0]
    zero = "0" if element == "i32" else "0.0"
    values += [zero] * ((2 if len(values) <= 2 else 4) - len(values))
    return f"<{len(values)} x {element}>", vector(e, element, values)


def _call(e: Emitter, result: str, name: str, arguments: list[tuple[str, str]]) -> str:
    declared = e.declare(name, f"declare {result} @{name}({', '.join(t for t, _ in arguments)})")
    call = f"call {result} {declared}({', '.join(f'{t} {v}' for t, v in arguments)})"
    if result == "void":
        e.emit(call)
        return ""
    return e.value(call)


def _nvvm_coordinates(coordinates: Coordinates, element: str) -> list[tuple[str, str]]:
    layer = [("i32", coordinates.layer)] if coordinates.layer is not None else []
    return layer + [(element, value) for value in coordinates.values]


def texture(e: Emitter, geometry_name: str, handle: str, coordinates: Coordinates, coordinate_type: str,
            result_type: str, lod: str | None = None, gradients: tuple[list[str], list[str]] | None = None,
            gather: str | None = None) -> list[str]:
    """tex / tld4: the four channels (`float` for an f32 result, else `i32`) of a texture object's sample at
    `coordinates`; s32 coordinates fetch a texel without a sampler (`tex1Dfetch` on linear memory in 1D).
    `lod`: an explicit level (`tex.level`); `gradients`: (d/dx, d/dy) (`tex.grad`); `gather`: the channel
    `tld4` gathers from the four texels (r, g, b, a)."""
    geometry = GEOMETRIES[geometry_name]
    element = "float" if coordinate_type == "f32" else "i32"
    if e.target.name == "nvptx":
        channel = {"f32": "f32", "s32": "s32", "u32": "u32"}[result_type]
        llvm = "float" if result_type == "f32" else "i32"
        arguments = [("i64", handle), *_nvvm_coordinates(coordinates, element)]
        if gather is not None:
            name = f"llvm.nvvm.tld4.unified.{gather}.{geometry.nvvm}.v4{channel}.{coordinate_type}"
        else:
            mode = ".level" if lod is not None else ".grad" if gradients is not None else ""
            name = f"llvm.nvvm.tex.unified.{geometry.nvvm}{mode}.v4{channel}.{coordinate_type}"
            if lod is not None:
                arguments.append(("float", lod))
            if gradients is not None:
                arguments += [("float", v) for v in (*gradients[0], *gradients[1])]
        result = f"{{{llvm}, {llvm}, {llvm}, {llvm}}}"
        channels = _call(e, result, name, arguments)
        return [e.value(f"extractvalue {result} {channels}, {index}") for index in range(4)]
    image, sampler = _descriptors(e, handle)
    if coordinate_type == "s32":
        suffix = "1Db" if geometry_name == "1d" else geometry.suffix
        texel = _library_coordinates(e, coordinates, "i32")
        sampled = _call(e, "<4 x float>", f"__ockl_image_load_{suffix}", [("ptr addrspace(4)", image), texel])
    else:
        where = _library_coordinates(e, coordinates, "float")
        arguments = [("ptr addrspace(4)", image), ("ptr addrspace(4)", sampler), where]
        if gather is not None:
            name = f"__ockl_image_gather4{gather}_{geometry.suffix}"
        elif lod is not None:
            name = f"__ockl_image_sample_lod_{geometry.suffix}"
            arguments.append(("float", lod))
        elif gradients is not None:
            name = f"__ockl_image_sample_grad_{geometry.suffix}"
            for derivative in gradients:
                if len(derivative) == 1:
                    arguments.append(("float", derivative[0]))
                else:
                    padded = derivative + ["0.0"] * (4 - len(derivative) if len(derivative) > 2 else 0)
                    arguments.append((f"<{len(padded)} x float>", vector(e, "float", padded)))
        else:
            name = f"__ockl_image_sample_{geometry.suffix}"
        sampled = _call(e, "<4 x float>", name, arguments)
    channels = _elements(e, sampled, 4, "float")
    if result_type == "f32":
        return channels
    # An integer format's channels are the dwords' bits (HIP's mapFrom reinterprets them likewise).
    return [e.value(f"bitcast float {channel} to i32") for channel in channels]


def _pixel_coordinates(e: Emitter, geometry: Geometry, image: str, coordinates: Coordinates, access_bytes: int,
                       clamp: bool) -> tuple[str, str]:
    """A surface access's coordinates in pixels (x was bytes), clamped to the image with `.clamp`."""
    values = list(coordinates.values)
    values[0] = e.value(f"sdiv i32 {values[0]}, {access_bytes}")
    if clamp:
        extents = ["width", "height", "depth"][:len(values)]
        for index, extent in enumerate(extents):
            size = _call(e, "i32", f"__ockl_image_{extent}_{geometry.suffix}", [("ptr addrspace(4)", image)])
            last = e.value(f"sub i32 {size}, 1")
            low = e.value(f"select i1 {e.value(f'icmp slt i32 {values[index]}, 0')}, i32 0, i32 {values[index]}")
            values[index] = e.value(f"select i1 {e.value(f'icmp sgt i32 {low}, {last}')}, i32 {last}, i32 {low}")
    return _library_coordinates(e, Coordinates(tuple(values), coordinates.layer), "i32")


def _nvvm_surface_type(bits: int, count: int) -> tuple[str, str]:
    """(intrinsic type suffix, LLVM type of one element) of an NVVM suld/sust: 8-bit elements travel as i16."""
    suffix = f"i{bits}" if count == 1 else f"v{count}i{bits}"
    return suffix, "i16" if bits == 8 else f"i{bits}"


def surface_load(e: Emitter, geometry_name: str, handle: str, coordinates: Coordinates, bits: int, count: int,
                 boundary: str) -> list[str]:
    """suld.b: `count` elements of `bits` each (LLVM `i{bits}`) from a surface object at x (bytes), y, z."""
    geometry = GEOMETRIES[geometry_name]
    if e.target.name == "nvptx":
        suffix, element = _nvvm_surface_type(bits, count)
        result = element if count == 1 else "{" + ", ".join([element] * count) + "}"
        loaded = _call(e, result, f"llvm.nvvm.suld.{geometry.nvvm}.{suffix}.{boundary}",
                       [("i64", handle), *_nvvm_coordinates(coordinates, "i32")])
        values = [loaded] if count == 1 else [e.value(f"extractvalue {result} {loaded}, {i}") for i in range(count)]
        return [e.value(f"trunc i16 {v} to i8") for v in values] if bits == 8 else values
    image, _ = _descriptors(e, handle)
    where = _pixel_coordinates(e, geometry, image, coordinates, bits // 8 * count, boundary == "clamp")
    if bits == 16:
        halves = _call(e, "<4 x half>", f"__ockl_image_loadh_{geometry.suffix}", [("ptr addrspace(4)", image), where])
        return [e.value(f"bitcast half {h} to i16") for h in _elements(e, halves, 4, "half")[:count]]
    loaded = _call(e, "<4 x float>", f"__ockl_image_load_{geometry.suffix}", [("ptr addrspace(4)", image), where])
    dwords = [e.value(f"bitcast float {c} to i32") for c in _elements(e, loaded, 4, "float")]
    if bits == 64:  # a 64-bit element is two 32-bit channels (CUDA's int2/uint2/double surfaces)
        wide = [e.value(f"zext i32 {d} to i64") for d in dwords]
        return [e.value(f"or i64 {wide[2 * i]}, {e.value(f'shl i64 {wide[2 * i + 1]}, 32')}") for i in range(count)]
    return dwords[:count] if bits == 32 else [e.value(f"trunc i32 {d} to i{bits}") for d in dwords[:count]]


def surface_store(e: Emitter, geometry_name: str, handle: str, coordinates: Coordinates, bits: int,
                  values: list[str], boundary: str) -> None:
    """sust.b: the elements `values` (LLVM `i{bits}`) into a surface object at x (bytes), y, z."""
    geometry = GEOMETRIES[geometry_name]
    count = len(values)
    if e.target.name == "nvptx":
        suffix, element = _nvvm_surface_type(bits, count)
        passed = [e.value(f"zext i8 {v} to i16") for v in values] if bits == 8 else values
        _call(e, "void", f"llvm.nvvm.sust.b.{geometry.nvvm}.{suffix}.{boundary}",
              [("i64", handle), *_nvvm_coordinates(coordinates, "i32"), *((element, v) for v in passed)])
        return
    image, _ = _descriptors(e, handle)
    where = _pixel_coordinates(e, geometry, image, coordinates, bits // 8 * count, boundary == "clamp")
    if bits == 16:
        halves = [e.value(f"bitcast i16 {v} to half") for v in values] + ["0.0"] * (4 - count)
        _call(e, "void", f"__ockl_image_storeh_{geometry.suffix}",
              [("ptr addrspace(4)", image), where, ("<4 x half>", vector(e, "half", halves))])
        return
    dwords: list[str] = []
    for value in values:
        if bits == 64:
            high = e.value(f"lshr i64 {value}, 32")
            dwords += [e.value(f"trunc i64 {value} to i32"), e.value(f"trunc i64 {high} to i32")]
        else:
            dwords.append(value if bits == 32 else e.value(f"zext i{bits} {value} to i32"))
    channels = [e.value(f"bitcast i32 {d} to float") for d in dwords] + ["0.0"] * (4 - len(dwords))
    _call(e, "void", f"__ockl_image_store_{geometry.suffix}",
          [("ptr addrspace(4)", image), where, ("<4 x float>", vector(e, "float", channels))])


def query(e: Emitter, surface: bool, attribute: str, handle: str) -> str | None:
    """txq / suq of an extent (width, height, depth, array size, mipmap levels) as i32; None for an attribute
    the image descriptor does not answer in CUDA's terms (formats, sampler state)."""
    if e.target.name == "nvptx":
        name = f"llvm.nvvm.{'suq' if surface else 'txq'}.{attribute.replace('_', '.')}"
        return _call(e, "i32", name, [("i64", handle)])
    function = QUERIES.get(attribute)
    if function is None:
        return None
    image, _ = _descriptors(e, handle)
    return _call(e, "i32", f"__ockl_image_{function}", [("ptr addrspace(4)", image)])


# A raw surface access (SASS's SULD.D/SUST.D: so many bytes of an element, whatever its format) is the typed access
# of the element's channels: on AMDGPU the image object's channel order (HIP's image object, dword 9: OpenCL's
# CL_R, CL_RG, CL_RGBA... as HIP's runtime set it from CUDA's channel descriptor) says how many, at run time.
CHANNEL_ORDER_DWORD = 9
CHANNELS_BY_ORDER = {0x10B2: 2, 0x10B3: 2, 0x10BB: 2, 0x10B5: 4, 0x10B6: 4, 0x10B7: 4}  # RG, RA, RGx; RGBA, BGRA,
# ARGB; every other order has one channel
RAW_ELEMENTS = {1: ((1, 8),), 2: ((1, 16), (2, 8)), 4: ((1, 32), (2, 16), (4, 8)), 8: ((2, 32), (4, 16)),
                16: ((2, 64), (4, 32))}  # access bytes -> (channels, bits per channel) it can be


def _channel_count(e: Emitter, handle: str) -> str:
    image, _ = _descriptors(e, handle)
    word = e.value(f"getelementptr inbounds i32, ptr addrspace({IMAGE_SPACE}) {image}, i64 {CHANNEL_ORDER_DWORD}")
    order = e.value(f"load i32, ptr addrspace({IMAGE_SPACE}) {word}, align 4")
    count = "1"
    for value, channels in CHANNELS_BY_ORDER.items():
        count = e.value(f"select i1 {e.value(f'icmp eq i32 {order}, {value}')}, i32 {channels}, i32 {count}")
    return count


def _dwords(e: Emitter, elements: list[str], bits: int) -> list[str]:
    """Elements (i{bits}) packed little-endian into dwords (one i32 holding a sub-dword total)."""
    total_bits = bits * len(elements)
    wide = f"i{max(32, total_bits)}"
    packed = "0"
    for index, element in enumerate(elements):
        widened = e.value(f"zext i{bits} {element} to {wide}") if f"i{bits}" != wide else element
        packed = e.value(f"or {wide} {packed}, {e.value(f'shl {wide} {widened}, {bits * index}') if index else widened}")
    if wide == "i32":
        return [packed]
    return [e.value(f"trunc {wide} {e.value(f'lshr {wide} {packed}, {32 * i}') if i else packed} to i32")
            for i in range(total_bits // 32)]


def _elements_of(e: Emitter, dwords: list[str], bits: int, count: int) -> list[str]:
    """The inverse of `_dwords`: `count` elements of i{bits} from the dwords."""
    wide = f"i{max(32, 32 * len(dwords))}"
    packed = dwords[0] if wide == "i32" else "0"
    if wide != "i32":
        for index, dword in enumerate(dwords):
            widened = e.value(f"zext i32 {dword} to {wide}")
            packed = e.value(f"or {wide} {packed}, {e.value(f'shl {wide} {widened}, {32 * index}') if index else widened}")
    return [e.value(f"trunc {wide} {e.value(f'lshr {wide} {packed}, {bits * i}') if i else packed} to i{bits}")
            if f"i{bits}" != wide else packed for i in range(count)]


def surface_load_raw(e: Emitter, geometry_name: str, handle: str, coordinates: Coordinates, access_bytes: int,
                     boundary: str) -> list[str]:
    """SULD.D: the `access_bytes` of the element at x (bytes), y, z as dwords (i32; 1 or 2 bytes in the low bits):
    the element's channels loaded as `surface_load` loads them (on NVPTX one access of that size)."""
    if e.target.name == "nvptx":  # suld.b of the access's size: the element's bits, whatever its format
        bits, count = (8 * access_bytes, 1) if access_bytes < 4 else (32, access_bytes // 4)
        return _dwords(e, surface_load(e, geometry_name, handle, coordinates, bits, count, boundary), bits)
    channels = _channel_count(e, handle)
    slots = [e.slot(f"raw.{e.fresh().lstrip('%')}", "i32") for _ in range(max(1, access_bytes // 4))]
    for count, bits in RAW_ELEMENTS[access_bytes]:
        def load(count: int = count, bits: int = bits) -> None:
            dwords = _dwords(e, surface_load(e, geometry_name, handle, coordinates, bits, count, boundary), bits)
            for slot, dword in zip(slots, dwords):
                e.emit(f"store i32 {dword}, {e.alloca_ptr()} {slot}")
        e.guarded(e.value(f"icmp eq i32 {channels}, {count}"), load)
    return [e.value(f"load i32, {e.alloca_ptr()} {slot}") for slot in slots]


def surface_store_raw(e: Emitter, geometry_name: str, handle: str, coordinates: Coordinates, dwords: list[str],
                      access_bytes: int, boundary: str) -> None:
    """SUST.D: `access_bytes` (from the dwords, i32) into the element at x (bytes), y, z, channel by channel."""
    if e.target.name == "nvptx":
        if access_bytes < 4:
            bits = 8 * access_bytes
            surface_store(e, geometry_name, handle, coordinates, bits,
                          [e.value(f"trunc i32 {dwords[0]} to i{bits}")], boundary)
        else:
            surface_store(e, geometry_name, handle, coordinates, 32, dwords, boundary)
        return
    channels = _channel_count(e, handle)
    for count, bits in RAW_ELEMENTS[access_bytes]:
        def store(count: int = count, bits: int = bits) -> None:
            surface_store(e, geometry_name, handle, coordinates, bits, _elements_of(e, dwords, bits, count), boundary)
        e.guarded(e.value(f"icmp eq i32 {channels}, {count}"), store)
