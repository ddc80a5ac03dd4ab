#!/bin/bash
# The HeCBench build benchmark on the lent 16-core machine (see benchmarks/device_toolchain.py for why).
# Run there from the repository root by `run`, carrying .bench-carry (made here by):
#   python3 benchmarks/device_toolchain.py .bench-carry/rocm-debian.tar.xz
#   .venv/bin/python benchmarks/hecbench_build.py HECBENCH --pack-sources .bench-carry/hecbench-sources.tar.xz
#   pip download (device README) pyelftools platformdirs capstone -d .bench-carry/wheels
#   cp -r ~/.cache/cassc-benchmarks/hecbench .bench-carry/state      # resume from earlier results
# Arguments: the variants (e.g. cassc or cmake) and the seconds this command may take; the state comes
# back under $OUT/state, to be copied into ~/.cache/cassc-benchmarks/hecbench here.
set -euo pipefail
variants=${1:-cassc}
seconds=${2:-540}
work=/tmp/hecbench-build
mkdir -p "$work/hecbench" "$work/bin" "$work/data" "$OUT/state"
tar -C "$work" -xJf .bench-carry/rocm-debian.tar.xz
tar -C "$work/hecbench" -xJf .bench-carry/hecbench-sources.tar.xz
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$work/site" .bench-carry/wheels/*.whl
cp .bench-carry/state/*.json "$OUT/state/" 2>/dev/null || true
printf '#!/bin/sh\nexec python3 -m cassc "$@"\n' > "$work/bin/cassc"
chmod +x "$work/bin/cassc"
export PYTHONPATH="$work/site:$PWD" ROCM_PATH="$work/rocm" CASSC_DATA_DIR="$work/data" PYTHONUNBUFFERED=1
python3 -m compileall -q cassc
# Stop the builds before the command's own limit, so the state written so far comes back.
timeout --signal=INT "$seconds" python3 benchmarks/hecbench_build.py "$work/hecbench" --variants "$variants" \
  --cassc "$work/bin/cassc" --jobs 16 --timeout 300 --state "$OUT/state" --results "$OUT/report.md" \
  2> "$OUT/log.txt" || echo "stopped: $?"
tail -5 "$OUT/log.txt"
