#!/bin/bash
# Sourced on the lent GPU machine: makes NVIDIA's math libraries from its Python packages (nvidia-cublas,
# -cufft, -cusolver, -curand, -cusparse; headers and libraries under site-packages/nvidia/) visible to
# nvcc, as a CUDA toolkit's own would be: CPATH for their headers, LIBRARY_PATH for `-lcublas` (the
# packages ship only versioned files, so unversioned links are made in $1), LD_LIBRARY_PATH to run.
# Only the math libraries' folders: others (a CUDA 12 runtime for torch) must not shadow nvcc's headers.
# Where CUDA 12 (nvidia/cublas...) and CUDA 13 (nvidia/cu13) packages are both installed, 13's win.
#   . benchmarks/device_nvidia_libraries.sh /tmp/nvidia-links
links=${1:?usage: . device_nvidia_libraries.sh LINK_DIR}
mkdir -p "$links"
for root in $(python3 -c 'import nvidia; print(" ".join(nvidia.__path__))' 2>/dev/null); do
    for package in $(ls -d "$root"/*/ | sort -r); do
        for header in cublas_v2 cufft cusolverDn curand cusparse; do
            if [ -f "${package}include/$header.h" ]; then
                CPATH="${package}include${CPATH:+:$CPATH}"
                break
            fi
        done
        for library in "$package"lib/lib{cublas,cufft,cusolver,curand,cusparse,nvJitLink}*.so.*; do
            [ -f "$library" ] || continue
            ln -sf "$library" "$links/$(basename "$library" | sed 's/\.so\..*/.so/')"
            case ":${LD_LIBRARY_PATH:-}:" in *":${package}lib:"*) ;; *)
                LD_LIBRARY_PATH="${package}lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac
        done
    done
done
export CPATH LD_LIBRARY_PATH LIBRARY_PATH="$links${LIBRARY_PATH:+:$LIBRARY_PATH}"
echo "nvidia libraries: CPATH=$CPATH LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >&2
