#!/usr/bin/env bash
# Builds (or reuses) a Debian sid root with a current ROCm (HIP 6.4, clang-21) for the tests:
#   .ci/rocm-root.sh [DIR]      DIR defaults to $CASSC_ROCM_ROOT or /var/cache/cassc-ci/sid-rocm
# The root lives outside the checkout and is reused when complete: the stamp file holds the package
# list it was built with, so changing the list below rebuilds it. A fresh machine builds it from
# scratch (debootstrap + ~1.5 GB of packages). Needs root, debootstrap and network to Debian's mirror.
set -euo pipefail
ROOT=${1:-${CASSC_ROCM_ROOT:-/var/cache/cassc-ci/sid-rocm}}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the tests need: the HIP compiler and runtime headers, the device libraries, the math and
# parallel-algorithm libraries cassc maps CUDA's onto (ROCm SMI: NVML's), and Python/make/CMake to run cassc inside.
PACKAGES="hipcc libamdhip64-dev rocm-device-libs-21 libhipblas-dev libhipfft-dev libhipsolver-dev
librocthrust-dev libhipcub-dev libhiprand-dev libhipsparse-dev libhipblaslt-dev librocm-smi-dev
libomp-21-dev python3 python3-venv python3-pip make cmake ninja-build g++ file git"
STAMP="$ROOT/.cassc-root-complete"
want=$(echo $PACKAGES)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
    echo "sid ROCm root: $ROOT (reused)"
    exit 0
fi
[ "$(id -u)" = 0 ] || { echo "rocm-root.sh: building the root needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
start=$(date +%s)
if [ ! -x "$ROOT/usr/bin/apt-get" ]; then
    rm -rf "$ROOT.partial"
    mkdir -p "$(dirname "$ROOT")"
    debootstrap --variant=minbase sid "$ROOT.partial" "$MIRROR"
    rm -rf "$ROOT"
    mv "$ROOT.partial" "$ROOT"
fi
# rocBLAS/hipBLASLt kernel objects (GBs) are only loaded at run time on an AMD GPU; compiling and
# linking need the headers and shared libraries alone.
cat > "$ROOT/etc/dpkg/dpkg.cfg.d/cassc-no-kernel-data" <<'CFG'
path-exclude=/usr/lib/x86_64-linux-gnu/rocblas/*/library/*
path-exclude=/usr/lib/x86_64-linux-gnu/hipblaslt/*/library/*
path-exclude=/usr/share/doc/*
CFG
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
mkdir -p "$ROOT/etc/pip" "$ROOT/root/.config/pip"
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$ROOT/etc/pip.conf"
[ -f "$HOME/.config/pip/pip.conf" ] && cp "$HOME/.config/pip/pip.conf" "$ROOT/root/.config/pip/pip.conf"
# The mirror's sid Release file can be past its Valid-Until date.
APT="apt-get -o Acquire::Check-Valid-Until=false -o APT::Install-Recommends=false -y -qq"
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive $APT update
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive $APT install $PACKAGES
chroot "$ROOT" apt-get clean
echo "$want" > "$STAMP"
echo "sid ROCm root: $ROOT built in $(( $(date +%s) - start )) s, $(du -sh "$ROOT" | cut -f1)"
