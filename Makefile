# SPDX-License-Identifier: GPL-2.0-only
# ablab: `make` builds the agent; `make demo` runs the main job (a full A/B
# campaign on the three emulated boards); `make check` runs every test.

# The build is meson's (meson.build, agent/meson.build and one per agent/ folder:
# the sources, flags, unit tests and install); these targets wrap it, in two
# build directories that are set up on first use:
#   build/rel   ./ablab, build/boardsim, build/validate, build/bench/* (links into it)
#   build/asan  ASan+UBSan at -O1: build/asan/ablab and the unit tests build/asan/test_*
# CFLAGS, CPPFLAGS, LDFLAGS and CC in the environment reach meson when a build
# directory is set up (`make clean` first to change them).  V=1: ninja's commands.
# ninja runs as many jobs as make was given (-jN; none: 1).
REL  := build/rel
ASAN := build/asan
NINJA = ninja $(if $(filter 1,$(V)),-v) -j$(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),1) -C
MESON_SETUP = meson setup --wrap-mode=nodownload
BOARDS  ?= qemu-sam9x75 qemu-arm11 qemu-pi400
UNIT_TESTS := $(patsubst tests/%.c,%,$(wildcard tests/test_*.c))

# Debian packages the project needs (build, kernels, emulated boards, database).
DEB_PKGS := build-essential pkg-config libjson-c-dev libpq-dev libserialport-dev libgpiod-dev \
	    libcurl4-openssl-dev libmicrohttpd-dev \
	    postgresql postgresql-client qemu-system-arm gcc-arm-linux-gnueabi linux-source-6.1 \
	    u-boot-qemu ccache bc bison flex libssl-dev libelf-dev cpio xz-utils kmod \
	    libc6-dev-armel-cross \
	    python3 dpkg-dev ca-certificates chromium systemd \
	    scdoc debhelper fakeroot man-db qemu-system-x86 gpiod \
	    meson ninja-build b4 git clang-format udev jq

# one ninja at a time per build directory (ninja runs the jobs in parallel itself)
.NOTPARALLEL:

.PHONY: all deps test-deps kernels board-kernels demo check unit clean distclean gpiod-v2 man install \
	uninstall format format-check FORCE

all: ablab

# A missing library is named by meson (its "Dependency ... not found"), and how to get it here.
$(REL)/build.ninja:
	$(MESON_SETUP) $(REL) || { echo "meson setup failed (missing packages? run: make deps)" >&2; exit 1; }
$(ASAN)/build.ninja:
	$(MESON_SETUP) $(ASAN) -Db_sanitize=address,undefined -Doptimization=1 -Ddebug=true || \
		{ echo "meson setup failed (missing packages? run: make deps)" >&2; exit 1; }

# ninja decides what is out of date (FORCE: make always asks it); the paths the
# README and the tests use are links into the build directories.
ablab: $(REL)/build.ninja FORCE
	$(NINJA) $(REL) ablab
	@ln -sf $(REL)/ablab $@
build/boardsim build/validate: $(REL)/build.ninja FORCE
	$(NINJA) $(REL) $(@F)
	@ln -sf rel/$(@F) $@
build/bench/%: $(REL)/build.ninja FORCE
	$(NINJA) $(REL) $*
	@mkdir -p $(@D) && ln -sf ../rel/$* $@
$(ASAN)/ablab: $(ASAN)/build.ninja FORCE
	$(NINJA) $(ASAN) ablab
$(ASAN)/test_%: $(ASAN)/build.ninja FORCE
	$(NINJA) $(ASAN) test_$*
man: $(REL)/build.ninja FORCE
	$(NINJA) $(REL) ablab.1

# apt-get install of everything missing; a no-op when all are present.
# apt_ensure(WHAT,PACKAGES)
define apt_ensure
	@missing=$$(for p in $(2); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; \
	done); \
	if [ -z "$$missing" ]; then echo "$(1): all Debian packages present"; \
	else echo "$(1): installing:" $$missing; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef
deps:
	$(call apt_ensure,deps,$(DEB_PKGS))
# What only the tests use: python3-jsonschema (t95 validates the KCIDB export), git-pw (t96);
# LAVA for t70-t76 (jobs/lava/local-server.sh would install it when t70 starts,
# but then dpkg would write the host's /usr under the virtual lab's guest, which runs on it over 9p beside t70: tests/run.sh's
# side lane).  Installed before the suite, so no part runs dpkg; with the
# project's own in one apt-get update and install.
TEST_DEB_PKGS := lava-server lava-dispatcher lavacli tftpd-hpa curl python3-jsonschema git-pw
test-deps:
	$(call apt_ensure,test-deps,$(DEB_PKGS) $(TEST_DEB_PKGS))

# Control and patched kernels, module and initramfs per emulated board,
# cached outside the repo (ABLAB_CACHE, default ~/.cache/ablab).
# Plus the virtual lab's x86_64 guest kernel (tests/vlab/, tests/t86-vlab.sh),
# which only the tests use: `make demo` builds the boards' kernels alone.
kernels: board-kernels
	@bash tests/vlab/build-kernel.sh >/dev/null
board-kernels: deps
	@for b in $(BOARDS); do bash boards/kernel/build.sh $$b || exit 1; done

# The main job: an A/A calibration of the three emulated boards (each
# scenario's noise between boots, for the minimum detectable effect per row;
# the job's own scenarios and repetitions), then one A/B campaign on all three
# at once in a sequential design: rounds of one control and one patched boot
# with 3 batches, a look after each round from 4+4 on, every board stopping
# when its rows are decided, at most 6+6 (the smallest budget in which each of
# the 9 timing rows, at 0.05 / 9 each, can end "different"); prints the report.
# The boards count instructions exactly (boards/README.md, icount_shift).
DEMO_JOB := jobs/dma-from-device.json
demo: deps
	$(MAKE) --no-print-directory -j$(NPROC) ablab
	$(MAKE) --no-print-directory board-kernels
	./ablab calibrate qemu-sam9x75 qemu-arm11 qemu-pi400 --boots 3 --batches 3 \
		--params "$$(jq -r .benchmark.params $(DEMO_JOB))"
	./ablab run $(DEMO_JOB) --budget 6 --first 4 --batches 3 --order abab

# The unit tests alone (tests/t10-unit.sh runs each of them in `make check`)
unit: $(UNIT_TESTS:%=$(ASAN)/%)
	meson test -C $(ASAN) --suite unit --print-errorlogs $(if $(filter 1,$(V)),-v)

# The libgpiod v2 path of agent/backend/power_gpiod.c, compiled (and run) against
# trixie's libgpiod .debs fetched into $(ABLAB_CACHE)/libgpiod-v2, never installed.
gpiod-v2:
	bash tests/gpiod-v2.sh

# FRESH=1: first remove what earlier runs left (tests/fresh.sh), so the run
# meets what a new user meets; FRESH=cold also removes the kernel cache.
.PHONY: fresh-state
fresh-state:
	$(if $(FRESH),FRESH=$(FRESH) bash tests/fresh.sh)
# The builds one compile per CPU, after fresh-state and deps, before the kernels.
# CI=true (.ci/run): a part that skips a check fails the run unless tests/ci-skips.txt
# names it and says why.
NPROC := $(shell nproc 2>/dev/null || echo 1)
check: fresh-state test-deps
	$(MAKE) --no-print-directory -j$(NPROC) ablab build/asan/ablab build/boardsim \
		$(UNIT_TESTS:%=$(ASAN)/%)
	$(MAKE) --no-print-directory kernels gpiod-v2
	bash tests/run.sh

# Only the LAVA part (installs and starts a local lava-server, see
# jobs/lava/local-server.sh); `make check` runs it too.
.PHONY: check-lava
check-lava: deps ablab build/asan/ablab kernels
	TESTS=t70 bash tests/run.sh

# The C sources in the kernel's style (.clang-format, at the 100 columns the code is
# written to; string literals are never broken): `make format` rewrites them in place,
# `make format-check` shows every line that differs and fails (CI, once the tree is formatted).
# kmod/ is kernel code: the kernel's checkpatch.pl --strict is its style check (t15)
FORMAT_FILES = $(wildcard agent/*.c agent/*.h agent/*/*.c agent/*/*.h tests/*.c tests/*.h)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

# Benchmarks of the lab itself (docs/BENCHMARKS.md); not part of `make check`.
BENCH_BINS := build/bench/campaign_bench build/bench/parse_bench
.PHONY: bench
bench: deps ablab build/boardsim $(BENCH_BINS) kernels
	bash tests/bench/run.sh

# The statistics checked by simulation (docs/STATISTICS.md): one seeded table.
.PHONY: validate
# SIM_CAMPAIGNS (default 200) full campaigns per design on the board simulator
# through the real data path, as well (SIM_CAMPAIGNS=0: the model only)
validate: build/validate build/asan/ablab build/boardsim
	build/validate
	@if [ "$${SIM_CAMPAIGNS:-200}" != 0 ]; then part_name=validate-sim bash -c '. tests/lib.sh; . tests/validate-sim.sh'; fi

# Coverage-guided fuzzing (libFuzzer, ASan+UBSan) of the parser, the
# definition-file loaders and serve's request path (URL, query string, headers:
# fuzz_serve) and the mbox/series parser (fuzz_series); FUZZ_SECONDS per harness (default 60), FUZZ_ONLY=fuzz_serve one.
.PHONY: fuzz
fuzz: deps
	bash tests/fuzz/run.sh

# `make install` (DESTDIR, PREFIX, BINDIR, DATADIR, MANDIR, UNITDIR, SYSUSERSDIR,
# TMPFILESDIR): meson install of build/rel, set to these directories first; what is
# installed (the binary, ablab(1), the systemd units, the example boards, recipes,
# module source and jobs in DATADIR/ablab, the docs): meson.build.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
DOCDIR  ?= $(DATADIR)/doc/ablab
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
UNITS   := ablab-nightly.service ablab-nightly.timer

install: $(REL)/build.ninja
	meson configure $(REL) -Dprefix=$(PREFIX) -Dbindir=$(BINDIR) -Ddatadir=$(DATADIR) \
		-Dmandir=$(MANDIR) -Dunitdir=$(UNITDIR) -Dsysusersdir=$(SYSUSERSDIR) \
		-Dtmpfilesdir=$(TMPFILESDIR)
	$(NINJA) $(REL)
	meson install -C $(REL) --no-rebuild $(if $(DESTDIR),--destdir $(DESTDIR))

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ablab $(DESTDIR)$(MANDIR)/man1/ablab.1
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(SYSUSERSDIR)/ablab.conf \
		$(DESTDIR)$(TMPFILESDIR)/ablab.conf
	rm -rf $(DESTDIR)$(DATADIR)/ablab $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build ablab
	$(MAKE) -C kmod clean >/dev/null 2>&1 || true
