# SPDX-License-Identifier: BSD-2-Clause
# mrcgen: one non-recursive Makefile. `make`, `make test`, `make deps`, `make install`.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
PKGS    := liburing yaml-0.1 libpcap zlib jansson libisal pmix libxdp libbpf ompi-c

# Debian packages: build libraries (libxdp and libbpf for the xdp dataplane, clang for its
# XDP program), then what the tests and plots use.
DEPS_BUILD := build-essential pkg-config liburing-dev libyaml-dev libpcap-dev zlib1g-dev \
	libjansson-dev libisal-dev libpmix-dev libxdp-dev libbpf-dev clang libopenmpi-dev
DEPS_TEST  := tcl tcllib tshark iproute2 gnuplot-nox default-jre-headless \
	libhdrhistogram-java libclang-rt-14-dev python3-jsonschema nftables openmpi-bin

CFLAGS  ?= -O3 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
XCFLAGS := -std=gnu11 $(WARN) -iquote . -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
ifeq ($(WERROR),1)
XCFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
XCFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SANITIZE)
BUILD   := build/san
else
BUILD   := build/rel
endif
ifeq ($(V),1)
Q :=
else
Q := @
endif

# Production sources, and the unit tests: each module X.c may have X_test.c beside it, which
# #includes X.c (to reach its static helpers) and registers its suites with the st
# framework (mrc/base/st.h). mrcgen-test links the test files, st and every production
# object but mrcgen.c's and those of the tested modules, which their tests carry.
ALL_SRCS  := $(wildcard mrc/*/*.c) $(wildcard conf/*.c) $(wildcard pcap/*.c)
TEST_SRCS := $(filter %_test.c,$(ALL_SRCS))
ST_SRCS   := mrc/base/st.c mrc/base/st_main.c
LIB_SRCS  := $(filter-out $(TEST_SRCS) $(ST_SRCS),$(ALL_SRCS))
SRCS      := mrcgen.c $(LIB_SRCS)
OBJS      := $(SRCS:%.c=$(BUILD)/%.o)
TEST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(TEST_SRCS) $(ST_SRCS) \
	$(filter-out $(TEST_SRCS:_test.c=.c),$(LIB_SRCS)))

all: mrcgen mrcgen-test

mrcgen: $(OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

mrcgen-test: $(TEST_OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(TEST_OBJS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) -MMD -MP -c -o $@ $<

-include $(OBJS:.o=.d) $(TEST_OBJS:.o=.d)

# The xdp dataplane's XDP program (mrc/wire/bpf/, outside the mrc/*/*.c wildcard): clang
# -target bpf, with BTF (-g) for libbpf; the asm/ headers live under the host's multiarch
# include directory. mrc/wire/xskprog.c links the object into mrcgen (.incbin).
BPF_CC     ?= clang
BPF_CFLAGS := -O2 -g -Wall -target bpf -iquote . \
	-I/usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)
$(BUILD)/mrc/wire/bpf/mrc_xdp.o: mrc/wire/bpf/mrc_xdp.c mrc/wire/xdpcls.h
	@mkdir -p $(dir $@)
	@echo "  BPF     $<"
	$(Q)$(BPF_CC) $(BPF_CFLAGS) -c -o $@ $<
$(BUILD)/mrc/wire/xskprog.o: $(BUILD)/mrc/wire/bpf/mrc_xdp.o
$(BUILD)/mrc/wire/xskprog.o: XCFLAGS += -DMRC_XDP_OBJ='"$(BUILD)/mrc/wire/bpf/mrc_xdp.o"'

# Installs the Debian packages that are missing, says which, and waits for apt's lock when
# another apt holds it (harness/deps.sh).
deps:
	@sh harness/deps.sh $(DEPS_BUILD) $(DEPS_TEST)

# TESTFLAGS go to the Tcl runner, e.g. TESTFLAGS="--only 'help*' --verbose".
test: deps
	$(MAKE) mrcgen mrcgen-test
	./mrcgen-test
	tclsh harness/run.tcl --mrcgen ./mrcgen $(TESTFLAGS)

# Mutation testing, by hand (never part of `make test`): each mutant of
# harness/mutate/mutants.txt (a deliberate bug in a key rule) applied to a copy of the tree
# under build/mutate/, rebuilt from a copy of build/rel, and the tests run; prints "killed"
# or "SURVIVED" per mutant and fails when one survives or the list no longer matches the
# code. MUTANTS="id ..." runs only those.
mutate: mrcgen mrcgen-test
	tclsh harness/mutate/run.tcl $(MUTANTS)

# Performance figures (wall time; never part of `make test`): the simulator's scenarios;
# with HTSIM=/path/to/htsim_uec, mrcgen and that htsim side by side on the same three loads
# (harness/htsim/compare.sh, BENCH_RUNS runs each; it prints the speed and memory ratios of
# this run); then the wire driver against a raw-socket baseline on the netns fabric (root
# only; says so and skips otherwise).
HTSIM      ?=
BENCH_RUNS ?= 3
bench: mrcgen
	./mrcgen bench
ifneq ($(HTSIM),)
	bash harness/htsim/compare.sh --htsim '$(HTSIM)' --mrcgen ./mrcgen --runs $(BENCH_RUNS)
else
	@echo "# mrcgen against htsim: build htsim_uec as the top of harness/htsim/compare.tcl says, then make bench HTSIM=/path/to/htsim_uec"
endif
	tclsh harness/bench/wire.tcl --mrcgen ./mrcgen
	./mrcgen bench wire-xdp

# Precision and recall of `mrcgen sweep`'s suspects over random single- and double-fault
# scenarios on the quickstart fabric (harness/bench/sweep-pr.tcl, SWEEP_RUNS scenarios of
# each; by hand, never part of `make test`; docs/sweep.md "How well it localises").
SWEEP_RUNS ?= 100
sweep-pr: mrcgen
	tclsh harness/bench/sweep-pr.tcl --mrcgen ./mrcgen --runs $(SWEEP_RUNS)

# The main job on the embedded default driver (the simulated fabric).
quickstart: deps
	$(MAKE) -j$$(nproc) mrcgen
	./mrcgen run conf/examples/quickstart.yaml

install: mrcgen
	install -D -m 0755 mrcgen $(DESTDIR)$(PREFIX)/bin/mrcgen
	$(if $(wildcard pcap/mrc.lua),install -D -m 0644 pcap/mrc.lua \
		$(DESTDIR)$(PREFIX)/share/mrcgen/mrc.lua)

# libFuzzer harnesses (clang), one per parser: harness/fuzz/fuzz_T.c, seeded by
# harness/fuzz/gen_corpus_T.c into harness/fuzz/corpus/T/ when absent; new inputs go to
# build/fuzz/corpus/T/, crashes to build/fuzz/crash/. `make fuzz` builds and runs every
# target for FUZZ_SECONDS each, by hand, starting from the committed regress/T inputs (the
# reproducers of bugs found, replayed first) and the seeds; CI runs fuzz-check (below).
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -g -O1 -std=gnu11 -iquote . -D_GNU_SOURCE -Wall -Wextra \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS := wire conf hist srv6 rdv ep wrtt
# code under test per target
FUZZ_SRC_wire := mrc/engine/wire.c
FUZZ_SRC_conf := $(filter-out %_test.c,$(wildcard conf/*.c))
FUZZ_SRC_hist := mrc/base/hist.c
FUZZ_SRC_srv6 := mrc/engine/srv6.c mrc/engine/wire.c mrc/base/err.c
FUZZ_SRC_rdv  := mrc/wire/rvproto.c mrc/job/rankres.c mrc/base/hist.c
# fuzz_ep.c #includes qp.c (the QP's live PSNs), so the engine's other modules only
FUZZ_SRC_ep   := mrc/engine/ep.c mrc/engine/ev.c mrc/engine/nscc.c mrc/engine/dcqcn.c \
	mrc/engine/wire.c \
	mrc/base/rng.c mrc/base/err.c
FUZZ_SRC_wrtt := mrc/wire/wrtt.c mrc/engine/srv6.c mrc/engine/wire.c mrc/base/err.c
# every header, for the rebuild
FUZZ_HDR = $(wildcard mrc/*/*.h conf/*.h pcap/*.h)
$(FUZZ_TARGETS:%=build/fuzz/fuzz_%) $(FUZZ_TARGETS:%=build/fuzz/gen_corpus_%): \
	$(wildcard harness/fuzz/*.h)
build/fuzz/fuzz_ep build/fuzz/gen_corpus_ep: mrc/engine/qp.c
build/fuzz/gen_corpus_ep: harness/fuzz/fuzz_ep.c
# extra arguments of the corpus generators
FUZZ_GEN_conf := $(wildcard conf/examples/*.yaml)

.SECONDEXPANSION:
build/fuzz/fuzz_%: harness/fuzz/fuzz_%.c $$(FUZZ_SRC_$$*) $$(FUZZ_HDR)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< \
		$(FUZZ_SRC_$*) $(LDLIBS)

build/fuzz/gen_corpus_%: harness/fuzz/gen_corpus_%.c $$(FUZZ_SRC_$$*)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRC_$*) $(LDLIBS)

harness/fuzz/corpus/%: | build/fuzz/gen_corpus_%
	@mkdir -p $@
	build/fuzz/gen_corpus_$* $@ $(FUZZ_GEN_$*)

fuzz-%: build/fuzz/fuzz_% | harness/fuzz/corpus/%
	@mkdir -p build/fuzz/corpus/$* build/fuzz/crash
	build/fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
		-artifact_prefix=build/fuzz/crash/$*- build/fuzz/corpus/$* \
		$(wildcard harness/fuzz/regress/$*) harness/fuzz/corpus/$*

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

# The CI form, reproducible: every seed input and every committed input of
# harness/fuzz/regress/T/ (reproducers of the bugs found, and the coverage `make fuzz` has
# reached, kept by `make fuzz-save`) run once. No exploration: libFuzzer's is not
# repeatable even from a fixed seed, and CI's verdict on a commit must be its author's.
fuzz-check-%: build/fuzz/fuzz_% | harness/fuzz/corpus/%
	@mkdir -p build/fuzz/crash
	build/fuzz/fuzz_$* -runs=0 -timeout=10 -artifact_prefix=build/fuzz/crash/$*- \
		harness/fuzz/corpus/$* $(wildcard harness/fuzz/regress/$*)

# Adds what `make fuzz` found (build/fuzz/corpus/T) to harness/fuzz/regress/T: only the
# inputs that reach coverage the committed ones do not (libFuzzer's -merge).
fuzz-save-%: build/fuzz/fuzz_%
	@mkdir -p harness/fuzz/regress/$* build/fuzz/corpus/$*
	build/fuzz/fuzz_$* -merge=1 harness/fuzz/regress/$* build/fuzz/corpus/$*

fuzz-save: $(FUZZ_TARGETS:%=fuzz-save-%)
fuzz-check: $(FUZZ_TARGETS:%=fuzz-check-%)

# generated seed corpora and generators are kept, never removed as intermediates
.PRECIOUS: harness/fuzz/corpus/% build/fuzz/gen_corpus_% build/fuzz/fuzz_%

clean:
	rm -rf build mrcgen mrcgen-test harness/out

.PHONY: all deps test bench install clean fuzz fuzz-check fuzz-save quickstart mutate sweep-pr
