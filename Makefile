# SPDX-License-Identifier: GPL-2.0-only
# ablab: `make` builds the agent; `make demo` runs the main job (a full A/B
# campaign on the three emulated boards); `make check` runs every test.

CC      ?= cc
PKGS_C  := json-c libpq libserialport libgpiod libcurl libcrypto libmicrohttpd
# libgpiod: v1 (bookworm) or v2 (trixie, Pi OS) API, chosen at build time
# Recursive (=), so pkg-config runs when a recipe needs it: after `make deps`
# has installed the packages on a fresh machine.
GPIOD_V2 = $(shell pkg-config --atleast-version=2.0 libgpiod 2>/dev/null && echo 1)
# CFLAGS is the user's (make CFLAGS=-O0 keeps every flag below); the flags the
# code needs are in ABLAB_CFLAGS and always come first.
CFLAGS  ?= -O2 -g
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
ABLAB_CFLAGS = -std=c11 -D_GNU_SOURCE -Iagent -Wall -Wextra -Werror -Wno-missing-field-initializers \
	   -Wshadow -Wformat=2 -Wno-format-nonliteral \
	   $(shell pkg-config --cflags $(PKGS_C) 2>/dev/null) $(if $(GPIOD_V2),-DHAVE_GPIOD_V2=1)
ALL_CFLAGS = $(ABLAB_CFLAGS) $(CFLAGS)
LDLIBS  += -pthread $(shell pkg-config --libs $(PKGS_C) 2>/dev/null) -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRCS    := $(wildcard agent/*.c agent/*/*.c)
LIBSRCS := $(filter-out agent/main.c,$(SRCS))
OBJS    := $(SRCS:agent/%.c=build/obj/%.o)
SANOBJS := $(SRCS:agent/%.c=build/asan/%.o)
HDRS    := $(wildcard agent/*.h agent/*/*.h)
TESTS   := $(patsubst tests/%.c,build/asan/%,$(wildcard tests/test_*.c))

BOARDS  ?= qemu-sam9x75 qemu-arm11 qemu-pi400

# Debian packages the project needs (build, kernels, emulated boards, database).
DEB_PKGS := build-essential pkg-config libjson-c-dev libpq-dev libserialport-dev libgpiod-dev \
	    libcurl4-openssl-dev libmicrohttpd-dev \
	    postgresql postgresql-client qemu-system-arm gcc-arm-linux-gnueabi linux-source-6.1 \
	    u-boot-qemu ccache bc bison flex libssl-dev libelf-dev cpio xz-utils kmod \
	    libc6-dev-armel-cross \
	    python3 dpkg-dev ca-certificates chromium systemd \
	    scdoc debhelper fakeroot man-db qemu-system-x86 gpiod \
	    meson ninja-build b4 git clang-format udev jq

.PHONY: all deps test-deps kernels board-kernels demo check unit clean distclean gpiod-v2 man install \
	uninstall format format-check

all: ablab

build/obj/%.o: agent/%.c $(HDRS) | build/obj build/.pkgs-ok
	@$(if $(Q),echo '  CC     ' $<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<
build/asan/%.o: agent/%.c $(HDRS) | build/asan build/.pkgs-ok
	@$(if $(Q),echo '  CC-SAN ' $<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -c -o $@ $<
build/obj build/asan:
	mkdir -p $@
# A missing library is named (and how to get it), not hidden by empty flags.
build/.pkgs-ok: | build/obj
	@pkg-config --exists --print-errors $(PKGS_C) || \
		{ echo "missing development packages for: $(PKGS_C); run: make deps" >&2; exit 1; }
	@touch $@

ablab: $(OBJS)
	@$(if $(Q),echo '  LD     ' $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
build/asan/ablab: $(SANOBJS)
	@$(if $(Q),echo '  LD-SAN ' $@)
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -o $@ $^ $(LDLIBS)
# The simulated board of the fault tests (tests/boardsim.md); no agent code.
build/boardsim: tests/boardsim.c agent/stats/splitmix64.h | build/obj
	@$(if $(Q),echo '  CC     ' $@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< -lm
build/asan/test_%: tests/test_%.c $(LIBSRCS:agent/%.c=build/asan/%.o)
	@$(if $(Q),echo '  LD-SAN ' $@)
	$(Q)$(CC) $(ALL_CFLAGS) -O1 $(SAN) -Iagent -o $@ $(filter-out tests/validate.c,$^) $(LDLIBS)

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

unit: $(TESTS)
	@for t in $(TESTS); do $$t || exit 1; done

# The libgpiod v2 path of agent/backend/power_gpiod.c, compiled (and run) against
# trixie's libgpiod .debs fetched into $(ABLAB_CACHE)/libgpiod-v2, never installed.
gpiod-v2:
	bash tests/gpiod-v2.sh

# FRESH=1: first remove what earlier runs left (tests/fresh.sh), so the run
# meets what a new user meets; FRESH=cold also removes the kernel cache.
.PHONY: fresh-state
fresh-state:
	$(if $(FRESH),FRESH=$(FRESH) bash tests/fresh.sh)
# The builds one compile per CPU (a fresh clone's ~190 compiles: 39 s with -j2 against
# 70 s one at a time on 2 cores), after fresh-state and deps, before the kernels.
NPROC := $(shell nproc 2>/dev/null || echo 1)
check: fresh-state test-deps
	$(MAKE) --no-print-directory -j$(NPROC) ablab build/asan/ablab $(TESTS) build/boardsim
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
build/bench/%: tests/bench/%.c $(LIBSRCS:agent/%.c=build/obj/%.o)
	@mkdir -p build/bench
	$(Q)$(CC) $(ALL_CFLAGS) -Iagent -o $@ $^ $(LDLIBS)
.PHONY: bench
bench: deps ablab build/boardsim $(BENCH_BINS) kernels
	bash tests/bench/run.sh

# The statistics checked by simulation (docs/STATISTICS.md): one seeded table.
.PHONY: validate
STATS_OBJS := $(patsubst agent/%.c,build/obj/%.o,$(wildcard agent/stats/*.c))
# test_validate (the quick seeded table `make check` runs) includes tests/validate.c
build/asan/test_validate: tests/validate.c
build/validate: tests/validate.c $(STATS_OBJS)
	@$(if $(Q),echo '  LD     ' $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Iagent -o $@ $^ -lm
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

# `make install` (DESTDIR, PREFIX): the binary, ablab(1), the systemd units
# (ExecStart= pointing at the installed binary) and, in $(DATADIR)/ablab in the
# repository's layout (so ABLAB_BOARDS=$(DATADIR)/ablab/boards works, kernel
# recipes included), the example boards, recipes, module source and jobs.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
DOCDIR  ?= $(DATADIR)/doc/ablab
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SHARE_FILES := $(wildcard boards/*.json boards/README.md boards/kernel/*) \
	       kmod/Kbuild kmod/Makefile kmod/README.md kmod/dmabench.c \
	       $(wildcard jobs/*.json jobs/README.md jobs/*/patches/*.patch)
UNITS   := ablab-nightly.service ablab-nightly.timer

man: build/ablab.1
build/ablab.1: docs/ablab.1.scd | build/obj
	scdoc <$< >$@

install: ablab build/ablab.1
	install -D -m 755 ablab $(DESTDIR)$(BINDIR)/ablab
	install -D -m 644 build/ablab.1 $(DESTDIR)$(MANDIR)/man1/ablab.1
	for f in $(SHARE_FILES); do \
		m=644; [ -x $$f ] && m=755; \
		install -D -m $$m $$f $(DESTDIR)$(DATADIR)/ablab/$$f || exit 1; \
	done
	for u in $(UNITS); do \
		sed -e 's|^ExecStart=/srv/ablab/ablab |ExecStart=$(BINDIR)/ablab |' \
		    -e 's|^ExecStopPost=-/srv/ablab/ablab |ExecStopPost=-$(BINDIR)/ablab |' \
		    -e 's|^Documentation=.*|Documentation=man:ablab(1) file://$(DOCDIR)/systemd/README.md|' \
		    -e 's|^WorkingDirectory=/srv/ablab$$|WorkingDirectory=%S/ablab|' \
		    -e 's|every job in /srv/ablab/jobs|every job in $(SYSCONFDIR)/ablab/jobs|' \
		    -e 's|ABLAB_JOBS=/srv/ablab/jobs ABLAB_BOARDS=/srv/ablab/boards|ABLAB_JOBS=$(SYSCONFDIR)/ablab/jobs ABLAB_BOARDS=$(SYSCONFDIR)/ablab/boards|' \
		    jobs/systemd/$$u >build/$$u && \
		install -D -m 644 build/$$u $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -D -m 644 jobs/systemd/ablab.sysusers $(DESTDIR)$(SYSUSERSDIR)/ablab.conf
	install -D -m 644 jobs/systemd/ablab.tmpfiles $(DESTDIR)$(TMPFILESDIR)/ablab.conf
	install -D -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 644 docs/DESIGN.md $(DESTDIR)$(DOCDIR)/DESIGN.md
	install -D -m 644 jobs/systemd/README.md $(DESTDIR)$(DOCDIR)/systemd/README.md

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ablab $(DESTDIR)$(MANDIR)/man1/ablab.1
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) $(DESTDIR)$(SYSUSERSDIR)/ablab.conf \
		$(DESTDIR)$(TMPFILESDIR)/ablab.conf
	rm -rf $(DESTDIR)$(DATADIR)/ablab $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build ablab
	$(MAKE) -C kmod clean >/dev/null 2>&1 || true
