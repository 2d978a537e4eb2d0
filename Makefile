# Convenience entry points; meson/ninja do the building. Run as root on a fresh
# Debian 12 machine, each target first installs the Debian packages it needs.
PYTHON ?= /usr/bin/python3
BUILD ?= build
MPI ?= openmpi
PREFIX ?= /usr/local
MESON_OPTIONS ?=

DEBIAN_PACKAGES = python3-jinja2 python3-clang-16 libclang-16-dev meson ninja-build \
	pkg-config gcc gfortran libopenmpi-dev openmpi-bin mpich libmpich-dev \
	libcoarrays-openmpi-dev libopen-trace-format2-dev otf2-tools python3-otf2 python3-pytest python3-pytest-xdist \
	g++ binutils zlib1g-dev libsqlite3-dev libfftw3-dev libjsoncpp-dev gcc-12-plugin-dev \
	libxml2-dev liblzma-dev libicu-dev qtbase5-dev ltrace cmake autoconf automake libdw-dev libunwind-dev libpapi-dev \
	chromium clang libomp-dev cp2k gromacs

.PHONY: all deps build build-both viewer cube-tools scorep-reference side-by-side check bench demo regenerate \
	install dist clean

# $(call with_progress,LOG,COMMAND): runs COMMAND with its output in LOG and prints
# the elapsed time every 10 s meanwhile (a silent minute looks like a hang); on
# failure it shows the end of LOG. Used for apt-get and npm, whose own output is
# long or, without a terminal, nothing until they end.
with_progress = { ( n=0; while sleep 10 >/dev/null 2>&1; do n=$$((n + 10)); printf ' %ss' $$n; done ) & \
	ticker=$$!; ( $(2) ) >$(1) 2>&1; status=$$?; kill $$ticker 2>/dev/null; \
	if [ $$status = 0 ]; then echo " done"; else echo " failed; the end of $(1):" >&2; tail -n 20 $(1) >&2; fi; \
	[ $$status = 0 ]; }
APT_LOG = $${TMPDIR:-/tmp}/scorep-wrapgen-apt-get.log

all: build viewer

deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	        echo "== installing missing Debian packages:" $$missing; \
	        printf '%s' "== apt-get update and install (a few minutes on a fresh machine; log: $(APT_LOG)):"; \
	        $(call with_progress,$(APT_LOG),DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing) \
	            || { echo "apt-get install failed for:" $$missing >&2; exit 1; }; \
	    else \
	        echo "missing Debian packages (run as root, or: sudo apt-get install $$missing)" >&2; exit 1; \
	    fi; \
	else echo "== Debian packages: all present"; fi

$(BUILD)/build.ninja: | deps
	@echo "== configuring $(BUILD)/ with meson (MPI: $(MPI))"
	meson setup $(BUILD) -Dmpi=$(MPI) -Dprefix=$(PREFIX) -Dpython=$(PYTHON) $(MESON_OPTIONS)

# The second MPI library: tests run every adapter against both.
$(BUILD)-mpich/build.ninja: | deps
	@echo "== configuring $(BUILD)-mpich/ with meson (MPI: mpich, for the tests)"
	meson setup $(BUILD)-mpich -Dmpi=mpich -Dpython=$(PYTHON) $(MESON_OPTIONS)

build: deps $(BUILD)/build.ninja
	@echo "== building"
	ninja -C $(BUILD)

# scorep-view's speedscope (npm package, pinned) in $(BUILD)/speedscope; Node.js
# and npm from Debian if the machine has no npm (a Node.js installed otherwise
# is kept). meson install copies its release files into the installation.
SPEEDSCOPE_VERSION = 1.25.0
SPEEDSCOPE_PACKAGE = $(BUILD)/speedscope/node_modules/speedscope/package.json

viewer: deps | $(BUILD)/build.ninja
	@command -v npm >/dev/null 2>&1 || { \
	    if [ "$$(id -u)" = 0 ]; then \
	        printf '%s' "== installing Debian packages nodejs npm for the viewer (about a minute; log: $(APT_LOG)):"; \
	        $(call with_progress,$(APT_LOG),DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm) \
	            || { echo "apt-get install failed for: nodejs npm" >&2; exit 1; }; \
	    else echo "npm missing (run as root, or: sudo apt-get install nodejs npm)" >&2; exit 1; fi; }
	@if grep -qs '"version": "$(SPEEDSCOPE_VERSION)"' $(SPEEDSCOPE_PACKAGE); then \
	    echo "== speedscope $(SPEEDSCOPE_VERSION): present in $(BUILD)/speedscope"; \
	else \
	    echo "== installing speedscope $(SPEEDSCOPE_VERSION), the web viewer scorep-view serves, into $(BUILD)/speedscope"; \
	    printf '%s' "   npm downloads it from the npm registry (about a minute; log: $(BUILD)/speedscope/npm-install.log):"; \
	    mkdir -p $(BUILD)/speedscope && $(call with_progress,$(BUILD)/speedscope/npm-install.log,npm install \
	        --prefix $(BUILD)/speedscope --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
	        speedscope@$(SPEEDSCOPE_VERSION)); \
	fi

build-both: build $(BUILD)-mpich/build.ninja
	@echo "== building $(BUILD)-mpich/ (the adapters against MPICH, for the tests)"
	ninja -C $(BUILD)-mpich

# CubeLib's own command-line tools (cube_dump, cube_info, cube_sanity, ...), built
# once per build folder from the public Score-P release kept beside the checkout
# in ../shared/reference (not part of the project): the tests' oracle for every
# profile.cubex they write. A checkout without it skips this, and those checks.
REFERENCE ?= $(or $(SCOREP_WRAPGEN_REFERENCE),$(CURDIR)/../shared/reference)
CUBE_TOOLS = $(BUILD)/cube-tools

cube-tools:
	@if [ -x $(CUBE_TOOLS)/bin/cube_dump ]; then \
	    echo "== CubeLib tools: present in $(CUBE_TOOLS)"; \
	elif [ -f $(REFERENCE)/scorep-8.4/build.sh ]; then \
	    printf '%s' "== building CubeLib's tools from $(REFERENCE)/scorep-8.4 into $(CUBE_TOOLS) (a few minutes, once; log: $(BUILD)/cube-tools.log):"; \
	    mkdir -p $(BUILD); \
	    $(call with_progress,$(BUILD)/cube-tools.log,bash $(REFERENCE)/scorep-8.4/build.sh --cube-only $(abspath $(CUBE_TOOLS))); \
	else \
	    echo "== CubeLib tools: no $(REFERENCE)/scorep-8.4/build.sh (the reference tree is not beside this checkout);" \
	         "the tests check profile.cubex files with the project's own reader only"; \
	fi

# All of Score-P 8.4 and Scalasca 2.6 from the same reference tree, once per build
# folder, for the side-by-side comparison (bench/scorep_side_by_side; the tests
# of tests/cube/test_side_by_side_with_scorep.py use it where it is built). Not
# part of make check: the full build takes 15 minutes or more on 2 cores.
SCOREP_REFERENCE = $(BUILD)/scorep-reference
SCOREP_REFERENCE_PACKAGES = binutils-dev libiberty-dev libunwind-dev libclang-14-dev gcc-12-plugin-dev zlib1g-dev

scorep-reference: deps
	@if [ ! -f $(REFERENCE)/scorep-8.4/build.sh ] || [ ! -f $(REFERENCE)/scalasca-2.6/build.sh ]; then \
	    echo "no $(REFERENCE)/scorep-8.4/build.sh or $(REFERENCE)/scalasca-2.6/build.sh: the Score-P release" \
	         "is not beside this checkout (set SCOREP_WRAPGEN_REFERENCE to its folder)" >&2; exit 1; fi
	@missing=$$(for p in $(SCOREP_REFERENCE_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    [ "$$(id -u)" = 0 ] || { echo "Score-P's build needs: $$missing (sudo apt-get install $$missing)" >&2; exit 1; }; \
	    printf '%s' "== installing Score-P's build dependencies: $$missing (log: $(APT_LOG)):"; \
	    $(call with_progress,$(APT_LOG),DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing); \
	fi
	@if [ -x $(SCOREP_REFERENCE)/scorep/bin/scorep ]; then echo "== Score-P 8.4: present in $(SCOREP_REFERENCE)/scorep"; \
	else printf '%s' "== building all of Score-P 8.4 into $(SCOREP_REFERENCE)/scorep (15 minutes or more, once; log: $(BUILD)/scorep-reference.log):"; \
	    mkdir -p $(SCOREP_REFERENCE); \
	    $(call with_progress,$(BUILD)/scorep-reference.log,bash $(REFERENCE)/scorep-8.4/build.sh $(abspath $(SCOREP_REFERENCE))/scorep); fi
	@if [ -x $(SCOREP_REFERENCE)/scalasca/bin/scout.mpi ]; then echo "== Scalasca 2.6: present in $(SCOREP_REFERENCE)/scalasca"; \
	else printf '%s' "== building Scalasca 2.6 into $(SCOREP_REFERENCE)/scalasca (a few minutes, once; log: $(BUILD)/scalasca-reference.log):"; \
	    $(call with_progress,$(BUILD)/scalasca-reference.log,bash $(REFERENCE)/scalasca-2.6/build.sh $(abspath $(SCOREP_REFERENCE))/scalasca); fi

side-by-side: build scorep-reference
	$(PYTHON) bench/scorep_side_by_side --build $(BUILD) --scorep $(SCOREP_REFERENCE)/scorep \
	    --scalasca $(SCOREP_REFERENCE)/scalasca

check: build-both viewer cube-tools
	@echo "== running all tests, most on 2 workers, then those that measure time alone (about 23 minutes on 2 idle cores, 32 to 37 on a busy machine)"
	$(PYTHON) tests/run_all.py $(BUILD)

demo: build
	PYTHON=$(PYTHON) examples/run-demo.sh $(BUILD)

bench: build
	@echo "== benchmarks (figures go to docs/PERFORMANCE.md)"
	$(PYTHON) bench/runtime_overhead $(BUILD)
	$(PYTHON) bench/cube_write $(BUILD)
	$(PYTHON) bench/mpi_overhead $(BUILD)
	$(PYTHON) bench/compiler_overhead $(BUILD)
	$(PYTHON) bench/generator_speed
	$(PYTHON) bench/memory_heavy $(BUILD)

regenerate: deps
	@echo "== regenerating generated/ from specs/, tasks/, templates/"
	$(PYTHON) -m generator regenerate

install: build viewer
	@echo "== installing into $(PREFIX)"
	meson configure $(BUILD) -Dprefix=$(PREFIX) >/dev/null
	meson install -C $(BUILD)

# $(BUILD)/meson-dist/scorep-wrapgen-<version>.tar.gz: the committed tree (git
# HEAD; uncommitted changes are not in it), generated/ included, so that it
# builds without the generator's Python dependencies (Jinja2, libclang).
dist: build
	@echo "== making a release tarball with the generated sources"
	meson dist -C $(BUILD) --no-tests --allow-dirty --formats gztar
	@ls $(BUILD)/meson-dist/*.tar.gz

clean:
	rm -rf $(BUILD) $(BUILD)-mpich
