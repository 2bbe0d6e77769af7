# allocbench - what does an allocation really cost?
#
#   make            build ./allocbench
#   make run        build, then measure with the defaults and print the table
#   make check      build and run every test; the last line is "N passed, M failed"
#   make bench      the speed targets, printed as ratios (not tests)
#   make gate       the CI regression gate: pool, pool-locked and arena in fill,
#                   churn and random against data/baseline*.json
#   make baseline   measure the gate's baselines anew on this machine
#   make install    PREFIX=/usr/local DESTDIR= (binary and man page)
#   make fuzz       build the libFuzzer targets with clang and run each for
#                   FUZZ_SECONDS (default 60); new crashes go to tests/fuzz/crashes/
#
# DEVELOPER=1 turns warnings into errors; SANITIZE=address,undefined builds
# with sanitizers. PAPI and cJSON are found with pkg-config. PAPI=0 builds
# without PAPI (for platforms without it): counters then report "not built
# with PAPI".

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man/man1
CC ?= cc
PKG_CONFIG ?= pkg-config

WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	   -Wformat=2 -Wwrite-strings -Wcast-align -Wpointer-arith -Wundef
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread $(WARNINGS) $(CFLAGS)
ALL_LDFLAGS = -pthread $(LDFLAGS)
ifeq ($(DEVELOPER),1)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -DALLOCBENCH_SANITIZE_LIST=$(SANITIZE)
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

DEPS_PKGS = libcjson
DEPS_DEBIAN = libcjson-dev pkg-config
# Hardware and software counters (src/counters_*.c): PAPI with its shared libsde,
# which exports the program's own events (the static libsde does not activate
# PAPI's sde component). The PAPI binding and its no-PAPI twin are separate
# files: the build leaves out the ones not in use.
PAPI ?= 1
ifeq ($(PAPI),1)
DEPS_PKGS += papi
DEPS_DEBIAN += libpapi-dev
PAPI_LIBS = -lsde
PAPI_DEFINE = -DALLOCBENCH_PAPI=1
PAPI_UNUSED = src/counters_nopapi.c
else
PAPI_DEFINE = -DALLOCBENCH_PAPI=0
PAPI_UNUSED = src/counters_papi.c src/counters_explain.c
endif
ALL_CFLAGS += $(PAPI_DEFINE)
DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs $(DEPS_PKGS) 2>/dev/null)
LIBS = $(DEPS_LIBS) $(PAPI_LIBS) -lm

# Objects are rebuilt when the flags change (DEVELOPER, SANITIZE, CFLAGS).
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) $(ALL_LDFLAGS) $(LIBS)
$(shell echo '$(BUILD_FLAGS)' | cmp -s - .build-flags || echo '$(BUILD_FLAGS)' >.build-flags)

# src/heap_interpose.c defines malloc and friends for the whole program
# (src/heap.h): the allocbench binary only, never a sanitizer build (the
# sanitizer's runtime must own malloc), never the tests' or fuzzers' programs.
SRC = $(filter-out src/heap_interpose.c $(PAPI_UNUSED),$(wildcard src/*.c))
OBJ = $(SRC:.c=.o)
LIB_OBJ = $(filter-out src/main.o,$(OBJ))
ifeq ($(SANITIZE),)
BIN_OBJ = $(OBJ) src/heap_interpose.o
BIN_LDFLAGS = -Wl,--dynamic-list=src/heap_interpose.sym
else
BIN_OBJ = $(OBJ)
endif
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:.c=)
# The tests' helpers: read a JSON value, write a doctored copy, check a schema.
TOOLS = tests/tools/jsonq tests/tools/jsonset tests/tools/schemacheck

# The fuzz targets (tests/fuzz/fuzz_*.c), one per parser of outside input.
# make check replays their committed corpus and crash inputs through
# tests/fuzz/replay.c, built with the ordinary compiler.
FUZZ_TARGETS = parse counters results
FUZZ_REPLAY = $(FUZZ_TARGETS:%=tests/fuzz/replay_%)

.PHONY: all deps run check bench gate baseline install uninstall clean fuzz
all: allocbench

# Installs the Debian packages the build needs when pkg-config cannot find
# them (as root), or says exactly which to install.
deps:
	@$(PKG_CONFIG) --exists $(DEPS_PKGS) 2>/dev/null || sh tests/install-deps.sh $(DEPS_DEBIAN)

allocbench: $(BIN_OBJ) src/heap_interpose.sym .build-flags
	$(CC) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(BIN_OBJ) $(LIBS)

src/%.o: src/%.c $(wildcard src/*.h) Makefile .build-flags
	@$(PKG_CONFIG) --exists $(DEPS_PKGS) 2>/dev/null || \
		{ echo "allocbench: missing build dependencies; run 'make deps' or: apt-get install $(DEPS_DEBIAN)" >&2; exit 1; }
	$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -c -o $@ $<

tests/unit/test_%: tests/unit/test_%.c tests/unit/check.h $(LIB_OBJ) .build-flags
	$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(LIB_OBJ) $(LIBS)

run: deps
	@$(MAKE) --no-print-directory allocbench
	./allocbench

# Under the sanitizers, LeakSanitizer must not report what libsde keeps
# (tests/lsan.supp); the measuring children inherit the setting.
ifneq ($(SANITIZE),)
CHECK_ENV = LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}"
endif

check: deps
	@$(MAKE) --no-print-directory allocbench $(UNIT_BIN) $(TOOLS) $(FUZZ_REPLAY)
	@$(CHECK_ENV) sh tests/run.sh $(UNIT_BIN)

bench: deps
	@$(MAKE) --no-print-directory allocbench
	@$(MAKE) --no-print-directory tests/tools/jsonq
	@sh tests/bench.sh

# Exit 1 when the overhead of pool or arena regressed against the committed
# baseline; BASELINE=FILE compares with another file.
gate: deps
	@$(MAKE) --no-print-directory allocbench
	@sh tests/gate.sh $(BASELINE)

baseline: deps
	@$(MAKE) --no-print-directory allocbench
	sh tests/gate.sh --record

install: allocbench
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)
	install -m 755 allocbench $(DESTDIR)$(BINDIR)/allocbench
	install -m 644 man/allocbench.1 $(DESTDIR)$(MANDIR)/allocbench.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/allocbench $(DESTDIR)$(MANDIR)/allocbench.1

tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB_OBJ) .build-flags
	$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ tests/fuzz/replay.c $< $(LIB_OBJ) $(LIBS)

# make fuzz: libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer.
# Objects go to build-fuzz/ (never mixed with the ordinary ones). Each target
# starts from tests/fuzz/corpus/TARGET and the inputs that once crashed;
# what it learns stays in build-fuzz/corpus/TARGET; a crash is written to
# tests/fuzz/crashes/TARGET/ (commit it with its fix) and fails make fuzz.
FUZZ_CC ?= $(shell command -v clang-14 || command -v clang)
FUZZ_SECONDS ?= 60
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -g -O1 -fno-omit-frame-pointer $(PAPI_DEFINE) $(DEPS_CFLAGS)
FUZZ_OBJ = $(patsubst src/%.c,build-fuzz/%.o,$(filter-out src/main.c,$(SRC)))

.SECONDARY: $(FUZZ_OBJ)
build-fuzz/%.o: src/%.c $(wildcard src/*.h) Makefile
	@mkdir -p build-fuzz
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz: deps
	@test -n "$(FUZZ_CC)" || { echo "make fuzz needs clang (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
	@failed=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p build-fuzz/corpus/$$t tests/fuzz/crashes/$$t; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0" \
		build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
			-print_final_stats=1 -artifact_prefix=tests/fuzz/crashes/$$t/ \
			build-fuzz/corpus/$$t tests/fuzz/corpus/$$t tests/fuzz/crashes/$$t \
			>build-fuzz/$$t.log 2>&1 || { failed=1; echo "fuzz $$t: FAILED (build-fuzz/$$t.log)"; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' build-fuzz/$$t.log | sed "s/^/fuzz $$t: /"; \
	done; exit $$failed

clean:
	rm -f allocbench $(OBJ) src/heap_interpose.o $(UNIT_BIN) $(TOOLS) $(FUZZ_REPLAY) .build-flags
	rm -rf build-fuzz

tests/tools/%: tests/tools/%.c tests/tools/tool_json.h .build-flags
	$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIBS)
