# SPDX-License-Identifier: BSD-2-Clause
# mrcgen: one non-recursive Makefile. `make`, `make test`, `make deps`, `make install`.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
PKGS    := liburing yaml-0.1 libpcap zlib jansson libisal

# Debian packages: build libraries, then what the tests and plots use.
DEPS_BUILD := build-essential pkg-config liburing-dev libyaml-dev libpcap-dev zlib1g-dev \
	libjansson-dev libisal-dev
DEPS_TEST  := tcl tcllib tshark iproute2 gnuplot-nox default-jre-headless \
	libhdrhistogram-java clang libclang-rt-14-dev

CFLAGS  ?= -O2 -g
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

SRCS := mrcgen.c $(wildcard mrc/*.c) $(wildcard conf/*.c) $(wildcard pcap/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/%.o)

all: mrcgen

mrcgen: $(OBJS)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(XCFLAGS) -MMD -MP -c -o $@ $<

-include $(OBJS:.o=.d)

# Installs the Debian packages that are missing, and says which.
deps:
	@missing=$$(for p in $(DEPS_BUILD) $(DEPS_TEST); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

# TESTFLAGS go to the Tcl runner, e.g. TESTFLAGS="--only 'help*' --verbose".
test: deps
	$(MAKE) mrcgen
	./mrcgen selftest
	tclsh harness/run.tcl --mrcgen ./mrcgen $(TESTFLAGS)

# Simulator performance figures (wall time; never part of `make test`).
bench: mrcgen
	./mrcgen bench

install: mrcgen
	install -D -m 0755 mrcgen $(DESTDIR)$(PREFIX)/bin/mrcgen
	$(if $(wildcard pcap/mrc.lua),install -D -m 0644 pcap/mrc.lua \
		$(DESTDIR)$(PREFIX)/share/mrcgen/mrc.lua)

# libFuzzer harnesses (clang): `make fuzz` runs each for FUZZ_SECONDS. Seeds are generated
# into harness/fuzz/corpus/<target>/ when absent; new inputs go to build/fuzz/corpus/.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -g -O1 -std=gnu11 -iquote . -D_GNU_SOURCE -Wall -Wextra
FUZZ_WIRE    := mrc/wire.c mrc/st.c

build/fuzz/fuzz_wire: harness/fuzz/fuzz_wire.c $(FUZZ_WIRE) mrc/wire.h mrc/bytes.h
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ harness/fuzz/fuzz_wire.c $(FUZZ_WIRE)

build/fuzz/gen_corpus_wire: harness/fuzz/gen_corpus_wire.c $(FUZZ_WIRE) mrc/wire.h
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ harness/fuzz/gen_corpus_wire.c $(FUZZ_WIRE)

harness/fuzz/corpus/wire: | build/fuzz/gen_corpus_wire
	@mkdir -p $@
	build/fuzz/gen_corpus_wire $@

fuzz: build/fuzz/fuzz_wire harness/fuzz/corpus/wire
	@mkdir -p build/fuzz/corpus/wire build/fuzz/crash
	build/fuzz/fuzz_wire -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
		-artifact_prefix=build/fuzz/crash/ build/fuzz/corpus/wire harness/fuzz/corpus/wire

clean:
	rm -rf build mrcgen harness/out

.PHONY: all deps test bench install clean fuzz
