#!/usr/bin/env python3
"""Inputs for running Rodinia's and Parboil's programs: their data sets are not in their git repositories.

Each program gets a RunSpec: the directory it runs in (inside a run tree laid out as the corpus lays itself
out, so the relative paths programs hard-code, "../../data/srad/image.pgm", resolve), its arguments as its
own run script or the Parboil driver passes them, and the files it writes that are its result (printed after
the run by `show`, so that the comparison sees them as output).

  rodinia  the data files come from a public copy of Rodinia 3.1's data directory (github.com/Munksgaard/rodinia,
           RODINIA_DATA_COMMIT; its larger files there are git-annex pointers, never read), or, for the one
           such file a program here needs (b+tree's mil.txt: a count, then one key per line), from a generator of
           its format with a fixed seed; programs whose only input is an annexed video (heartwall, leukocyte)
           are left out (NO_INPUT).
  parboil  every data set is generated here in the format its reader documents (file names and `--` parameters
           as the `parboil run` driver passes them: `BIN -i IN1,IN2 -o OUT -- PARAMS`), small, with a fixed seed.

    python3 benchmarks/corpus_inputs.py rodinia DEST --rodinia-data GIT_DIR   # writes DEST/data/...
    python3 benchmarks/corpus_inputs.py parboil DEST                          # writes DEST/<bench>/input/...
    python3 benchmarks/corpus_inputs.py show FILE...                          # a result file as comparable text
"""

from __future__ import annotations

import argparse
import math
import random
import struct
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

RODINIA_DATA_REPOSITORY = "github.com/Munksgaard/rodinia"
RODINIA_DATA_COMMIT = "74c85fe"
SEED = 20261125
SHOW_VALUES = 256  # values of a large result file printed (first ones and evenly spaced ones) besides sums
SHOW_TEXT_BYTES = 64_000


@dataclass(frozen=True)
class RunSpec:
    directory: str  # where it runs, relative to the run tree (the corpus's own layout)
    args: str  # shell words after the program
    shows: tuple[str, ...] = ()  # result files it writes there


# ------------------------------------------------------------------------------------------------
# Rodinia (yuhc/gpu-rodinia): program directory under cuda/ -> executable name(s) and how its run script runs it

RODINIA: dict[str, dict[str, RunSpec]] = {
    "b+tree": {"b+tree.out": RunSpec("cuda/b+tree", "file ../../data/b+tree/mil.txt command ../../data/b+tree/command.txt",
                                     ("output.txt",))},
    "backprop": {"backprop": RunSpec("cuda/backprop", "65536")},
    "bfs": {"bfs.out": RunSpec("cuda/bfs", "../../data/bfs/graph4096.txt", ("result.txt",))},
    "dwt2d": {"dwt2d": RunSpec("cuda/dwt2d", "192.bmp -d 192x192 -f -5 -l 3")},
    "gaussian": {"gaussian": RunSpec("cuda/gaussian", "-f ../../data/gaussian/matrix16.txt")},
    "hotspot": {"hotspot": RunSpec("cuda/hotspot", "64 2 2 ../../data/hotspot/temp_64 ../../data/hotspot/power_64 "
                                                   "output.out", ("output.out",))},
    "huffman": {"pavle": RunSpec("cuda/huffman", "../../data/huffman/test1024_H2.206587175259.in")},
    "kmeans": {"kmeans": RunSpec("cuda/kmeans", "-o -i ../../data/kmeans/100")},
    "lavaMD": {"lavaMD": RunSpec("cuda/lavaMD", "-boxes1d 10")},
    "lud": {"cuda/lud_cuda": RunSpec("cuda/lud", "-i ../../data/lud/256.dat -v")},
    "myocyte": {"myocyte.out": RunSpec("cuda/myocyte", "100 1 0", ("output.txt",))},
    "nn": {"nn": RunSpec("cuda/nn", "filelist_4 -r 5 -lat 30 -lng 90")},
    "nw": {"needle": RunSpec("cuda/nw", "2048 10")},
    "particlefilter": {"particlefilter_naive": RunSpec("cuda/particlefilter", "-x 128 -y 128 -z 10 -np 1000"),
                       "particlefilter_float": RunSpec("cuda/particlefilter", "-x 128 -y 128 -z 10 -np 1000")},
    "pathfinder": {"pathfinder": RunSpec("cuda/pathfinder", "100000 100 20")},
    "srad/srad_v1": {"srad": RunSpec("cuda/srad/srad_v1", "100 0.5 502 458", ("image_out.pgm",))},
    "srad/srad_v2": {"srad": RunSpec("cuda/srad/srad_v2", "2048 2048 0 127 0 127 0.5 2")},
    "streamcluster": {"sc_gpu": RunSpec("cuda/streamcluster", "10 20 256 65536 65536 1000 none output.txt 1",
                                        ("output.txt",))},
}
NO_INPUT = {"heartwall": "its input is an AVI video, an annexed file in every public copy of Rodinia's data",
            "leukocyte": "its input is an AVI video, an annexed file in every public copy of Rodinia's data"}
# Data files read from the public copy of Rodinia's data directory (each real there, not an annex pointer).
RODINIA_DATA_FILES = (
    "b+tree/command.txt", "bfs/graph4096.txt", "dwt2d/192.bmp", "gaussian/matrix16.txt", "hotspot/temp_64",
    "hotspot/power_64", "huffman/test1024_H2.206587175259.in", "kmeans/100", "lud/256.dat", "myocyte/y.txt",
    "myocyte/params.txt", "nn/cane4_0.db", "nn/cane4_1.db", "nn/cane4_2.db", "nn/cane4_3.db", "srad/image.pgm",
)


def rodinia_btree_keys(path: Path, count: int = 100_000) -> None:
    """mil.txt as b+tree's main.c reads it: the count, then one integer key per line."""
    rng = random.Random(SEED)
    keys = [rng.randrange(0, 2 ** 31 - 1) for _ in range(count)]
    path.write_text(f"{count}\n" + "\n".join(map(str, keys)) + "\n")


def write_rodinia(dest: Path, data_git: Path) -> None:
    data = dest / "data"
    for name in RODINIA_DATA_FILES:
        target = data / name
        target.parent.mkdir(parents=True, exist_ok=True)
        blob = subprocess.run(["git", "--git-dir", str(data_git), "show", f"{RODINIA_DATA_COMMIT}:data/{name}"],
                              check=True, stdout=subprocess.PIPE).stdout
        if blob.startswith(b"../") and b".git/annex/" in blob[:200]:
            raise ValueError(f"{name}: an annex pointer in {RODINIA_DATA_REPOSITORY}, not the data")
        target.write_bytes(blob)
    (data / "b+tree").mkdir(parents=True, exist_ok=True)
    rodinia_btree_keys(data / "b+tree" / "mil.txt")
    # dwt2d's main.cu opens its image under ../../data/dwt2d/ (its run script names the file alone).


# ------------------------------------------------------------------------------------------------
# Parboil (yuhc/gpu-parboil): one data set per benchmark, in the format its reader takes

def parboil_spec(inputs: list[str], params: str = "") -> RunSpec:
    words = ["-i", ",".join(f"input/{name}" for name in inputs), "-o", "run.out"]
    return RunSpec(".", " ".join(words) + (f" -- {params}" if params else ""), ("run.out",))


def graph_text(rng: random.Random, nodes: int, most_edges: int) -> str:
    """A near-regular graph as Rodinia's and Parboil's bfs read it: the node count, `first degree` per node,
    the source node, the edge count, `destination cost` per edge (graphgen.cpp's format)."""
    edges: list[list[int]] = [[] for _ in range(nodes)]
    for node in range(nodes):
        for _ in range(rng.randint(1, most_edges)):
            other = rng.randrange(nodes)
            edges[node].append(other)
            edges[other].append(node)
    lines, first = [str(nodes)], 0
    for node in range(nodes):
        lines.append(f"{first} {len(edges[node])}")
        first += len(edges[node])
    lines += ["0", str(first)]
    lines += [f"{other} {rng.randint(1, 10)}" for node in range(nodes) for other in edges[node]]
    return "\n".join(lines) + "\n"


def floats(values: list[float]) -> bytes:
    return struct.pack(f"<{len(values)}f", *values)


def parboil_bfs(d: Path, rng: random.Random) -> None:
    (d / "graph.txt").write_text(graph_text(rng, 4096, 3))


def parboil_cutcp(d: Path, rng: random.Random) -> None:
    """A PQR file: ATOM records with x y z charge (readatom.c skips the serial, names and residue number)."""
    lines = [f"ATOM  {i + 1:5d}  C   ALA  {i // 10 + 1:4d}    {rng.uniform(0, 24):8.3f}{rng.uniform(0, 24):8.3f}"
             f"{rng.uniform(0, 24):8.3f} {rng.uniform(-1, 1):7.4f} 1.7000" for i in range(2000)]
    (d / "watbox.sl40.pqr").write_text("\n".join(lines) + "\nEND\n")


def parboil_histo(d: Path, rng: random.Random) -> None:
    """img.bin: image width, height, histogram width, height (uint32), then each pixel's bin, concentrated in
    the middle of the histogram as the benchmark describes its input."""
    width, height, histo_width, histo_height = 996, 1040, 4096, 256
    bins = histo_width * histo_height
    pixels = [min(bins - 1, max(0, int(rng.gauss(bins / 2, bins / 16)))) for _ in range(width * height)]
    (d / "img.bin").write_bytes(struct.pack("<4I", width, height, histo_width, histo_height)
                                + struct.pack(f"<{len(pixels)}I", *pixels))


def parboil_lbm(d: Path, rng: random.Random) -> None:
    """The obstacle file: '.' (fluid) or '#' per cell, x fastest, a newline after each row and each plane
    (lbm.cu's loader; main.cc checks the size for the 120x120x150 grid)."""
    size_x, size_y, size_z = 120, 120, 150
    plane = "".join("".join("#" if (x - 60) ** 2 + (y - 60) ** 2 < 100 else "." for x in range(size_x)) + "\n"
                    for y in range(size_y)) + "\n"
    (d / "120_120_150_ldc.of").write_text("".join(plane if 40 <= z < 60 else
                                                  ("." * size_x + "\n") * size_y + "\n" for z in range(size_z)))


def parboil_mri_gridding(d: Path, rng: random.Random) -> None:
    """small.uks (the parameters main.cu's setParameters reads) and small.uks.data (ReconstructionSample:
    real, imag, kX, kY, kZ, sdc as float32)."""
    samples = 20000
    (d / "small.uks").write_text(
        f"aquisition.numsamples={samples}\naquisition.kmax=0.5 0.5 0.5\naquisition.matrixSize=64 64 64\n"
        "reconstruction.matrixSize=64 64 64\ngridding.matrixSize=128 128 128\ngridding.oversampling=2.0\n"
        "kernel.width=4.0\nkernel.useLUT=1\n")
    values = []
    for _ in range(samples):
        values += [rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5),
                   rng.uniform(-0.5, 0.5), 1.0]
    (d / "small.uks.data").write_bytes(floats(values))


def parboil_mri_q(d: Path, rng: random.Random) -> None:
    """numK, numX (int32), then kx, ky, kz (numK), x, y, z (numX), phiR, phiI (numK), float32 (file.cc)."""
    num_k, num_x = 2048, 32768
    body = [rng.uniform(-0.5, 0.5) for _ in range(3 * num_k)] + [rng.uniform(-32, 32) for _ in range(3 * num_x)]
    body += [rng.uniform(-1, 1) for _ in range(2 * num_k)]
    (d / "32_32_32_dataset.bin").write_bytes(struct.pack("<2i", num_k, num_x) + floats(body))


def parboil_sad(d: Path, rng: random.Random) -> None:
    """Two QCIF frames: width, height (16-bit little-endian), then int16 luma samples (image.c); the second
    is the first shifted and noisy, as consecutive video frames are."""
    width, height = 176, 144
    first = [rng.randrange(256) for _ in range(width * height)]
    second = [max(0, min(255, first[(i + 3 * width + 2) % len(first)] + rng.randint(-4, 4))) for i in range(len(first))]
    for name, pixels in (("reference.bin", first), ("frame.bin", second)):
        (d / name).write_bytes(struct.pack("<2H", width, height) + struct.pack(f"<{len(pixels)}h", *pixels))


def matrix_text(rng: random.Random, rows: int, cols: int) -> str:
    return f"{rows} {cols}\n" + "\n".join(f"{rng.uniform(-1, 1):.6f}" for _ in range(rows * cols)) + "\n"


def parboil_sgemm(d: Path, rng: random.Random) -> None:
    """matrix1.txt (A, column-major, `rows cols` first), matrix2.txt (B) and matrix2t.txt (B transposed,
    the one main.cu reads: sgemm('N', 'T'))."""
    (d / "matrix1.txt").write_text(matrix_text(rng, 128, 96))
    (d / "matrix2.txt").write_text(matrix_text(rng, 96, 160))
    (d / "matrix2t.txt").write_text(matrix_text(rng, 160, 96))


def parboil_spmv(d: Path, rng: random.Random) -> None:
    """A symmetric Matrix Market matrix (the reader mirrors it) and the vector, dim float32 (file.cc)."""
    dim = 1024
    entries = {(i, i): rng.uniform(1, 2) for i in range(dim)}
    while len(entries) < 8 * dim:
        i, j = rng.randrange(dim), rng.randrange(dim)
        entries[(max(i, j), min(i, j))] = rng.uniform(-1, 1)
    lines = ["%%MatrixMarket matrix coordinate real symmetric", f"{dim} {dim} {len(entries)}"]
    lines += [f"{i + 1} {j + 1} {v:.6f}" for (i, j), v in sorted(entries.items(), key=lambda e: (e[0][1], e[0][0]))]
    (d / "matrix.mtx").write_text("\n".join(lines) + "\n")
    (d / "vector.bin").write_bytes(floats([rng.uniform(-1, 1) for _ in range(dim)]))


def parboil_stencil(d: Path, rng: random.Random) -> None:
    """nx*ny*nz float32, x fastest (read_data); the grid size comes with the `--` parameters."""
    (d / "64x64x32.bin").write_bytes(floats([rng.uniform(0, 1) for _ in range(64 * 64 * 32)]))


def parboil_tpacf(d: Path, rng: random.Random) -> None:
    """The data points and each random set: `ra dec` in degrees per line (model_io.cc)."""
    for name in ["data.txt"] + [f"random-{i}.txt" for i in range(3)]:
        points = [(rng.uniform(0, 360), math.degrees(math.asin(rng.uniform(-1, 1)))) for _ in range(1000)]
        (d / name).write_text("".join(f"{ra:.6f} {dec:.6f}\n" for ra, dec in points))


PARBOIL: dict[str, tuple[Callable[[Path, random.Random], None], RunSpec]] = {
    "bfs": (parboil_bfs, parboil_spec(["graph.txt"])),
    "cutcp": (parboil_cutcp, parboil_spec(["watbox.sl40.pqr"])),
    "histo": (parboil_histo, parboil_spec(["img.bin"], "20 4")),
    "lbm": (parboil_lbm, parboil_spec(["120_120_150_ldc.of"], "20")),
    "mri-gridding": (parboil_mri_gridding, parboil_spec(["small.uks"], "32")),
    "mri-q": (parboil_mri_q, parboil_spec(["32_32_32_dataset.bin"])),
    "sad": (parboil_sad, parboil_spec(["reference.bin", "frame.bin"])),
    "sgemm": (parboil_sgemm, parboil_spec(["matrix1.txt", "matrix2.txt", "matrix2t.txt"])),
    "spmv": (parboil_spmv, parboil_spec(["matrix.mtx", "vector.bin"])),
    "stencil": (parboil_stencil, parboil_spec(["64x64x32.bin"], "64 64 32 20")),
    "tpacf": (parboil_tpacf, parboil_spec(["data.txt", "random-0.txt", "random-1.txt", "random-2.txt"],
                                          "-n 3 -p 1000")),
}


def write_parboil(dest: Path) -> None:
    for benchmark, (generate, _) in PARBOIL.items():
        directory = dest / benchmark / "input"
        directory.mkdir(parents=True, exist_ok=True)
        generate(directory, random.Random(f"{SEED}-{benchmark}"))


# ------------------------------------------------------------------------------------------------
# a result file as text the comparison reads

def show(path: Path) -> str:
    """A text file as it is (its head and evenly spaced lines when large); a binary file as float32 values:
    their count, sum and sum of magnitudes, and SHOW_VALUES of them (the first and evenly spaced ones)."""
    if not path.is_file():
        return f"{path.name}: not written\n"
    data = path.read_bytes()
    if b"\0" not in data[:4096]:
        text = data.decode(errors="replace")
        if len(text) <= SHOW_TEXT_BYTES:
            return f"{path.name}:\n{text}\n"
        lines = text.splitlines()
        step = max(1, len(lines) // SHOW_VALUES)
        return f"{path.name}: {len(lines)} lines\n" + "\n".join(lines[:SHOW_VALUES // 4] + lines[::step]) + "\n"
    count = len(data) // 4
    values = struct.unpack(f"<{count}f", data[:4 * count])
    finite = [v for v in values if math.isfinite(v)]
    step = max(1, count // SHOW_VALUES)
    picked = list(values[:SHOW_VALUES // 4]) + list(values[::step])
    return (f"{path.name}: {count} float32, {count - len(finite)} not finite, sum {math.fsum(finite):.6g}, "
            f"sum of magnitudes {math.fsum(map(abs, finite)):.6g}\n"
            + "\n".join(" ".join(f"{v:.6g}" for v in picked[i:i + 8]) for i in range(0, len(picked), 8)) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["rodinia", "parboil", "show"])
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--rodinia-data", type=Path, help="a git directory of " + RODINIA_DATA_REPOSITORY)
    args = parser.parse_args()
    if args.what == "rodinia":
        write_rodinia(args.paths[0], args.rodinia_data)
    elif args.what == "parboil":
        write_parboil(args.paths[0])
    else:
        sys.stdout.write("".join(show(p) for p in args.paths))


if __name__ == "__main__":
    main()
