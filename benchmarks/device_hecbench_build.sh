#!/bin/bash
# The HeCBench build benchmark on the lent 16-core machine (see benchmarks/device_toolchain.py for why).
# Run there by `run`, carrying the folder $CARRY (default .bench-carry; made here by):
#   python3 benchmarks/device_toolchain.py $CARRY/rocm-debian.tar.xz                    # this machine's
#   python3 benchmarks/device_toolchain.py --root /var/cache/cassc-ci/sid-rocm $CARRY/rocm-sid.tar.xz
#   .venv/bin/python benchmarks/hecbench_build.py HECBENCH --pack-sources $CARRY/hecbench-sources.tar.xz
#   pip download (device README) pyelftools platformdirs capstone -d $CARRY/wheels
#   cp -r ~/.cache/cassc-benchmarks/hecbench $CARRY/state      # resume from earlier results
# Arguments: the variants (e.g. cassc or cmake), the seconds this command may take, and the toolchain
# tarball's name in $CARRY (default rocm-debian). cassc and the benchmark scripts are the ones beside this
# script. The state comes back under $OUT/state, to be copied into that toolchain's --state here.
# Where the state has no nvcc reference for a benchmark cassc failed (and for those NVCC_ALSO, a regex,
# names), the CUDA original is built with nvcc too: that decides whether a failure is in reach.
set -euo pipefail
variants=${1:-cassc}
seconds=${2:-540}
toolchain=${3:-rocm-debian}
carry=${CARRY:-.bench-carry}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=/tmp/hecbench-build  # device_toolchain.py's --prefix default names this folder's rocm/
started=$SECONDS
mkdir -p "$work/hecbench" "$work/bin" "$work/data" "$OUT/state"
tar -C "$work" -xJf "$carry/$toolchain.tar.xz"
tar -C "$work/hecbench" -xJf "$carry/hecbench-sources.tar.xz"
# Into the user site, or the virtual environment when python3 is one (its user site is invisible): the
# stand-in toolkit's nvcc (Makefiles that call nvcc by name) runs Python with -E, which ignores PYTHONPATH.
site=--user
python3 -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)' && site=
python3 -m pip install -q $site --break-system-packages --no-index --no-deps --no-compile --no-cache-dir \
  "$carry"/wheels/*.whl
cp "$carry"/state/*.json "$OUT/state/" 2>/dev/null || true
# -P: cassc from $repo, never from the directory a command runs in (this checkout's own cassc/ is here).
printf '#!/bin/sh\nexec python3 -P -m cassc "$@"\n' > "$work/bin/cassc"
chmod +x "$work/bin/cassc"
export PYTHONPATH="$repo" ROCM_PATH="$work/rocm" CASSC_DATA_DIR="$work/data" PYTHONUNBUFFERED=1
python3 -m compileall -q "$repo/cassc"
build() {  # build SECONDS VARIANTS [ARGS...]: stopped before the command's own limit, so the state comes back
    local limit=$1 chosen=$2
    shift 2
    timeout --signal=INT "$limit" python3 "$repo/benchmarks/hecbench_build.py" "$work/hecbench" --variants "$chosen" \
      --cassc "$work/bin/cassc" --jobs 16 --timeout 300 --state "$OUT/state" --results "$OUT/report.md" "$@" \
      2>> "$OUT/log.txt" || echo "stopped: $?"
}
build $(( seconds - 90 )) "$variants"
failed=$(python3 -c '
import json, re, sys
state = sys.argv[1]
cassc = json.load(open(f"{state}/cassc.json"))
try:
    nvcc = json.load(open(f"{state}/nvcc.json"))
except OSError:
    nvcc = {}
also = re.compile(sys.argv[2]) if sys.argv[2] else None
names = [n for n, e in cassc.items() if (not e["build"]["ok"] or also and also.fullmatch(n)) and n not in nvcc]
print("|".join(sorted(names)))' "$OUT/state" "${NVCC_ALSO:-}")
left=$(( seconds - (SECONDS - started) - 15 ))
if [ -n "$failed" ] && [ "$left" -gt 20 ]; then
    build "$left" nvcc --only "^($failed)\$"
fi
tail -5 "$OUT/log.txt"
