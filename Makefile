# allocbench - what does an allocation really cost?
#
#   make            build ./allocbench
#   make run        build, then measure with the defaults and print the table
#   make check      build and run every test; the last line is "N passed, M failed"
#                   (TEST_JOBS tests at once, default the CPUs; TEST_SET=variants
#                   all but those tagged "# check: once", host only those
#                   tagged "# check: host": tests/run.sh)
#   make bench      the speed targets, printed as ratios (not tests)
#   make gate       the CI regression gate: pool, pool-locked and arena in fill,
#                   churn and random against data/baseline*.json
#   make baseline   measure the gate's baselines anew on this machine
#   make gate-rates the CI recipe's false alarms, catches and time, and
#                   history's steps, measured under load, RUNS times each
#                   (default 20; PARTS=abcd the cases; not a test)
#   make install    PREFIX=/usr/local DESTDIR= (binary, recording library,
#                   32-bit measuring program, man page, completion)
#   make V=1        print every compiler command in full (default: "CC src/model/run.o")
#   make fuzz       build the libFuzzer targets with clang and run each for
#                   FUZZ_SECONDS (default 600: ten minutes each, one after the
#                   other); new crashes go to tests/fuzz/crashes/
#
# DEVELOPER=1 turns warnings into errors; SANITIZE=address,undefined builds
# with sanitizers. PAPI and cJSON are found with pkg-config. PAPI=0 builds
# without PAPI (for platforms without it): counters then report "not built
# with PAPI". CHILD32=0 leaves out the 32-bit measuring program (below), which
# is built by default where $(CC) -m32 can link a program.

.DEFAULT_GOAL := all

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# The 32-bit measuring program: ../libexec/allocbench/ from BINDIR (src/model/abi.h).
LIBEXECDIR ?= $(PREFIX)/libexec/allocbench
MANDIR ?= $(PREFIX)/share/man/man1
# The recording library (`allocbench record`), private to allocbench: the
# binary finds it beside itself, in ../lib/allocbench, in its build folder,
# then here.
LIBDIR ?= $(PREFIX)/lib/allocbench
# The man pages: allocbench(1), the overview, and one per command.
MANPAGES = $(wildcard man/*.1)
# Where bash-completion loads a command's completion from on first use.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
CC ?= cc
PKG_CONFIG ?= pkg-config

WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla \
	   -Wformat=2 -Wwrite-strings -Wcast-align -Wpointer-arith -Wundef \
	   -Wredundant-decls
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -Isrc $(WARNINGS) $(CFLAGS)
ALL_LDFLAGS = -pthread -Wl,--as-needed $(LDFLAGS)
ifeq ($(DEVELOPER),1)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -DALLOCBENCH_SANITIZE_LIST=$(SANITIZE)
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

# Version 3 traces' blocks (src/trace/trace_v3*.c): libzstd.
DEPS_PKGS = libcjson libzstd
DEPS_DEBIAN = libcjson-dev libzstd-dev pkg-config
# Hardware and software counters (src/platform/counters_*.c): PAPI with its shared libsde,
# which exports the program's own events (the static libsde does not activate
# PAPI's sde component). The PAPI binding and its no-PAPI twin are separate
# files: the build leaves out the ones not in use.
PAPI ?= 1
ifeq ($(PAPI),1)
DEPS_PKGS += papi
DEPS_DEBIAN += libpapi-dev
PAPI_DEFINE = -DALLOCBENCH_PAPI=1
PAPI_UNUSED = src/platform/counters_nopapi.c
else
PAPI_DEFINE = -DALLOCBENCH_PAPI=0
PAPI_UNUSED = src/platform/counters_papi.c src/platform/counters_explain.c
endif
ALL_CFLAGS += $(PAPI_DEFINE)

# One build folder per variant (compiler, PAPI, sanitizers), so that a
# sanitizer build never overwrites the plain objects: build/default for the
# ordinary one; BUILD=DIR chooses another. Everything a build makes goes
# there: objects with their header dependencies (-MMD -MP: touching a
# header rebuilds only the objects that include it), the binary, the unit
# tests, the test tools and the fuzz replays. `make` (all) copies the
# variant's binary to ./allocbench; make check tests the variant's own.
# Quiet by default, as git and Linux build: one short line per step
# ("   CC src/model/run.o"); V=1 prints the whole commands.
ifeq ($(V),1)
QUIET_CC =
QUIET_LINK =
QUIET_AR =
QUIET_GEN =
else
QUIET_CC = @echo '   CC $(@:$(B)/%=%)';
QUIET_LINK = @echo '   LINK $(@:$(B)/%=%)';
QUIET_AR = @echo '   AR $(@:$(B)/%=%)';
QUIET_GEN = @echo '   GEN $(@:$(B)/%=%)';
endif

comma := ,
empty :=
space := $(empty) $(empty)
VARIANT := $(subst $(space),-,$(strip \
	$(filter-out cc gcc,$(notdir $(CC))) \
	$(if $(filter 0,$(PAPI)),nopapi) \
	$(if $(SANITIZE),san-$(subst $(comma),-,$(SANITIZE)))))
BUILD ?= build/$(or $(VARIANT),default)
B := $(BUILD)

# pkg-config runs once per build folder: $(B)/config.mk keeps what it said
# (and is not written when a package is missing, with a message saying
# which). Goals that build nothing themselves do not read it.
NOCONFIG_GOALS = deps run check bench gate gate-rates baseline fuzz clean uninstall
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(B)/config.mk
# Objects are rebuilt when the flags change (DEVELOPER, CFLAGS, LDFLAGS).
BUILD_FLAGS = $(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) $(ALL_LDFLAGS)
$(shell mkdir -p $(B) && { echo '$(BUILD_FLAGS)' | cmp -s - $(B)/build-flags || echo '$(BUILD_FLAGS)' >$(B)/build-flags; })
endif
# PAPI is not linked: src/platform/counters_papi.c loads it (dlopen, in libc since
# glibc 2.34) only where something is counted (src/platform/papi_binding.h).
LIBS = $(CJSON_LIBS) $(ZSTD_LIBS) -lm
TOOL_LIBS = $(CJSON_LIBS) -lm

$(B)/config.mk: Makefile
	@mkdir -p $(@D)
	@$(PKG_CONFIG) --exists $(DEPS_PKGS) 2>/dev/null || \
		{ echo "allocbench: missing build dependencies; run 'make deps' or: apt-get install $(DEPS_DEBIAN)" >&2; exit 1; }
	@{ echo "DEPS_CFLAGS = $$($(PKG_CONFIG) --cflags $(DEPS_PKGS))"; \
	   echo "CJSON_LIBS = $$($(PKG_CONFIG) --libs libcjson)"; \
	   echo "ZSTD_LIBS = $$($(PKG_CONFIG) --libs libzstd)"; \
	 } >$@.tmp && mv $@.tmp $@

# src/platform/heap_interpose.c defines malloc and friends for the whole program
# (src/platform/heap.h): the allocbench binary only, never a sanitizer build (the
# sanitizer's runtime must own malloc), never the tests' or fuzzers' programs.
# The recording library's sources (its rule below): never in the binary.
# The layers (README.md, Architecture): one folder each.
LAYERS = cmd model measure platform report trace
RECORD_SRC = $(wildcard src/trace/recorder*.c)
SRC = $(filter-out src/platform/heap_interpose.c src/measure/child_main.c $(RECORD_SRC) $(PAPI_UNUSED),\
	$(foreach l,$(LAYERS),$(wildcard src/$(l)/*.c)))
OBJ = $(SRC:%.c=$(B)/%.o)
# Everything but main: an archive, so that a unit test links only the
# objects it uses.
LIB_OBJ = $(filter-out $(B)/src/cmd/main.o,$(OBJ))
LIB = $(B)/liballocbench.a
ifeq ($(SANITIZE),)
BIN_OBJ = $(OBJ) $(B)/src/platform/heap_interpose.o
BIN_LDFLAGS = -Wl,--dynamic-list=src/platform/heap_interpose.sym
else
BIN_OBJ = $(OBJ)
endif
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:%.c=$(B)/%)
# The tests' helpers: read a JSON value, write a doctored copy, write damaged
# copies, check a schema; make, seal and break traces; a real program's peak;
# a multi-threaded program that frees in other threads; one that maps its
# memory itself; one that makes its threads in waves; one that mallocs far
# more than it touches; one that glibc's arenas bloat.
TOOLS = $(B)/tests/tools/jsonq $(B)/tests/tools/jsonset $(B)/tests/tools/schemacheck \
	$(B)/tests/tools/jsonmutate $(B)/tests/tools/tracetool $(B)/tests/tools/tracegen \
	$(B)/tests/tools/peakanon $(B)/tests/tools/mtqueue $(B)/tests/tools/mapspin \
	$(B)/tests/tools/waves $(B)/tests/tools/sparse $(B)/tests/tools/keep $(B)/tests/tools/arenas

# The fuzz targets (tests/fuzz/fuzz_*.c), one per parser of outside input.
# make check replays their committed corpus and crash inputs through
# tests/fuzz/replay.c, built with the ordinary compiler.
FUZZ_TARGETS = parse counters results trace
FUZZ_REPLAY = $(FUZZ_TARGETS:%=$(B)/tests/fuzz/replay_%)

# The measuring programs (src/measure/child_main.c, src/model/abi.h): the
# measuring process's sources (src/measure/, and the platform and trace
# modules they use), without what only the parent loads (cJSON, libm): each
# measurement executes one afresh, and each library costs its set-up.
# allocbench-child64 is linked from the binary's own objects, into
# $(B)/allocbench-child64, beside the binary (which measures its 64-bit rows
# itself where it is copied alone).
CHILD_SRC = $(wildcard src/measure/*.c) \
	$(filter-out src/platform/build_info.c src/platform/output.c,$(wildcard src/platform/*.c)) \
	src/trace/replay_plan.c
CHILD64_BIN = $(B)/allocbench-child64
CHILD64_OBJ = $(patsubst %.c,$(B)/%.o,$(filter-out $(PAPI_UNUSED) \
	$(if $(SANITIZE),src/platform/heap_interpose.c),$(CHILD_SRC)))

# allocbench-child32, the program of run --abi 32: the same sources built with
# -m32 into $(B)/allocbench-child32. No PAPI (Debian has no i386 PAPI to
# link with: its counters report "not built with PAPI"); no trace reader
# (the parent maps it the plan it made, src/trace/replay_plan.c). Never with sanitizers: their 32-bit runtimes are another set of
# packages, and the same sources are checked by the 64-bit sanitizer build.
# Built only where $(CC) -m32 links a program (gcc-multilib and
# libc6-dev-i386 on Debian); CHILD32=0 leaves it out, CHILD32=1 requires it.
CHILD32 ?= auto
CHILD32_DEBIAN = gcc-multilib libc6-dev-i386
CHILD32_SRC = $(filter-out src/platform/counters_papi.c src/platform/counters_explain.c,$(CHILD_SRC))
CHILD32_OBJ = $(CHILD32_SRC:%.c=$(B)/m32/%.o)
CHILD32_CFLAGS = -m32 -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread -Isrc $(WARNINGS) $(CFLAGS) \
	-DALLOCBENCH_PAPI=0 $(if $(filter 1,$(DEVELOPER)),-Werror)
CHILD32_LDFLAGS = -m32 -pthread -Wl,--as-needed -Wl,--dynamic-list=src/platform/heap_interpose.sym $(LDFLAGS)
ifeq ($(CHILD32),auto)
CHILD32_CAN := $(shell printf 'int main(void){return 0;}\n' | \
	$(CC) -m32 -x c -o /dev/null - >/dev/null 2>&1 && echo 1)
else ifeq ($(CHILD32),1)
CHILD32_CAN := 1
endif
ifeq ($(CHILD32_CAN),1)
CHILD32_BIN = $(B)/allocbench-child32
endif

# The recording library (see its rule below).
RECORD_LIB = $(B)/liballocbench-record.so

.PHONY: all deps run readme-sample check bench gate gate-rates baseline install uninstall clean fuzz
all: allocbench $(RECORD_LIB)

# Installs the Debian packages the build needs when pkg-config cannot find
# them (as root), or says exactly which to install.
deps:
	@$(PKG_CONFIG) --exists $(DEPS_PKGS) 2>/dev/null || sh tests/install-deps.sh $(DEPS_DEBIAN)
ifeq ($(CHILD32)$(CHILD32_CAN)$(shell uname -m),autox86_64)
	@sh tests/install-deps.sh --optional "the 32-bit measuring program (run --abi 32)" $(CHILD32_DEBIAN)
endif

# A copy of the variant just built, whichever was built before it.
.PHONY: allocbench
allocbench: $(B)/allocbench $(CHILD64_BIN) $(CHILD32_BIN)
	@cmp -s $< $@ || { echo "cp $< $@"; cp $< $@; }
	@cmp -s $(CHILD64_BIN) allocbench-child64 || \
		{ echo "cp $(CHILD64_BIN) allocbench-child64"; cp $(CHILD64_BIN) allocbench-child64; }
ifeq ($(CHILD32_CAN),1)
	@cmp -s $(CHILD32_BIN) allocbench-child32 || \
		{ echo "cp $(CHILD32_BIN) allocbench-child32"; cp $(CHILD32_BIN) allocbench-child32; }
else
	@rm -f allocbench-child32
	@echo "allocbench: no 32-bit measuring program (run --abi 32): $(CC) -m32 cannot link; apt-get install gcc-multilib libc6-dev-i386" >&2
endif

$(CHILD64_BIN): $(CHILD64_OBJ) src/platform/heap_interpose.sym $(B)/build-flags
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(CHILD64_OBJ) $(ZSTD_LIBS)

$(B)/allocbench-child32: $(CHILD32_OBJ) src/platform/heap_interpose.sym $(B)/build-flags
	$(QUIET_LINK)$(CC) $(CHILD32_LDFLAGS) -o $@ $(CHILD32_OBJ)

$(B)/m32/src/%.o: src/%.c $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(CHILD32_CFLAGS) -MMD -MP -c -o $@ $<

-include $(CHILD32_OBJ:.o=.d)

$(B)/allocbench: $(BIN_OBJ) src/platform/heap_interpose.sym $(B)/build-flags
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) $(BIN_LDFLAGS) -o $@ $(BIN_OBJ) $(LIBS)

# The recording library, preloaded into the program `allocbench record`
# runs: never built with sanitizers (it is the program's malloc), only the
# names it interposes exported. The binary looks for it in its build folder
# and in LIBDIR (src/trace/record.h).
RECORD_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -fPIC -fvisibility=hidden -Isrc $(WARNINGS) $(CFLAGS) \
	$(if $(filter 1,$(DEVELOPER)),-Werror)
$(RECORD_LIB): $(RECORD_SRC) src/trace/recorder.h src/trace/record.h src/trace/trace_format.h $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(RECORD_CFLAGS) -shared $(LDFLAGS) -o $@ $(RECORD_SRC) -ldl

$(B)/src/cmd/record_find.o: ALL_CFLAGS += -DALLOCBENCH_BUILDDIR='"$(CURDIR)/$(B)"' -DALLOCBENCH_LIBDIR='"$(LIBDIR)"'

# The tests' own preloads and programs for record (tests/record/).
RECORD_TEST = $(B)/tests/record/libcount.so $(B)/tests/record/threads $(B)/tests/record/tracehead \
	$(B)/tests/record/peakhold
$(B)/tests/record/libcount.so: tests/record/count.c $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(RECORD_CFLAGS) -shared -o $@ $<
$(B)/tests/record/threads: tests/record/threads.c $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARNINGS) $(CFLAGS) -o $@ $<
$(B)/tests/record/peakhold: tests/record/peakhold.c $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE $(WARNINGS) $(CFLAGS) -o $@ $<
$(B)/tests/record/tracehead: tests/record/tracehead.c src/trace/trace_format.h $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE -Isrc $(WARNINGS) $(CFLAGS) -o $@ $<

# A preload that changes a file under the program reading it (tests/cli/t1403).
FILESHIM = $(B)/tests/tools/libfileshim.so
$(FILESHIM): tests/tools/fileshim.c $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=c11 -fPIC $(WARNINGS) $(CFLAGS) $(if $(filter 1,$(DEVELOPER)),-Werror) \
		-shared $(LDFLAGS) -o $@ $< -ldl

# The reference of the exactness test (tests/cli/t0017-exact.sh): a plain
# fill with the project's pool and arena, never under a sanitizer (its
# malloc must be the one allocbench measures); 32-bit too where the 32-bit
# measuring program is built.
EXACT_SRC = tests/exact/plain.c src/measure/pool.c src/measure/arena.c src/platform/probe.c src/platform/util.c
EXACT_TEST = $(B)/tests/exact/plain $(if $(CHILD32_BIN),$(B)/tests/exact/plain32)
$(B)/tests/exact/plain: $(EXACT_SRC) $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=c11 -D_GNU_SOURCE -Isrc $(WARNINGS) $(CFLAGS) -o $@ $(EXACT_SRC)
$(B)/tests/exact/plain32: $(EXACT_SRC) $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -m32 -std=c11 -D_GNU_SOURCE -Isrc $(WARNINGS) $(CFLAGS) -o $@ $(EXACT_SRC)

# The measured allocator's first calls from threads, in a program built as
# the binary is (src/platform/heap_interpose.c): never under a sanitizer.
ifeq ($(SANITIZE),)
HEAP_TEST = $(B)/tests/heap/threads
endif
$(B)/tests/heap/threads: tests/heap/threads.c src/platform/heap.c src/platform/heap.h src/platform/heap_interpose.c \
		src/platform/heap_interpose.sym $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -Wl,--dynamic-list=src/platform/heap_interpose.sym \
		-o $@ tests/heap/threads.c src/platform/heap.c src/platform/heap_interpose.c -ldl

$(B)/src/%.o: src/%.c $(B)/build-flags $(B)/config.mk
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -MMD -MP -c -o $@ $<

# The build's own command line, for the reports (src/platform/build_info.c): a header
# written from build-flags, so that it changes when the flags do.
$(B)/build_flags.h: $(B)/build-flags
	$(QUIET_GEN)sed 's/  */ /g; s/ $$//; s/[\\"]/\\&/g; s/.*/#define ALLOCBENCH_BUILD_FLAGS "&"/' $< >$@.tmp && mv $@.tmp $@
$(B)/src/platform/build_info.o: $(B)/build_flags.h
$(B)/src/platform/build_info.o: ALL_CFLAGS += -I$(B)

-include $(BIN_OBJ:.o=.d)
# The measuring program's objects not in the binary (its main): their headers too.
-include $(patsubst %.o,%.d,$(filter-out $(BIN_OBJ),$(CHILD64_OBJ)))

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(QUIET_AR)$(AR) rcs $@ $(LIB_OBJ)

$(B)/tests/unit/test_%: tests/unit/test_%.c tests/unit/check.h $(LIB) $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LIBS)

$(B)/tests/tools/%: tests/tools/%.c tests/tools/tool_json.h $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(TOOL_LIBS)

$(B)/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB) $(B)/build-flags
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(DEPS_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ tests/fuzz/replay.c $< $(LIB) $(LIBS)

# all, not allocbench alone: the recording library too, so that the next
# allocbench record finds it.
run: deps
	@$(MAKE) --no-print-directory all
	./allocbench

# The README's sample output is what ./allocbench prints with the defaults,
# pasted between its two marker comments (tests/cli/t0972-readme-sample.sh
# checks that it has the shape of a fresh run's output).
README_SAMPLE_BEGIN = <!-- readme-sample: begin (make readme-sample writes this block) -->
README_SAMPLE_END = <!-- readme-sample: end -->
readme-sample: deps
	@$(MAKE) --no-print-directory all
	./allocbench -q >$(B)/readme-sample.txt
	awk -v sample=$(B)/readme-sample.txt -v b='$(README_SAMPLE_BEGIN)' -v e='$(README_SAMPLE_END)' \
		'$$0 == b { print; print "```"; while ((getline l <sample) > 0) print l; print "```"; skip = 1; found++; next } \
		 $$0 == e { skip = 0; print; next } !skip { print } \
		 END { if (found != 1 || skip) { print "readme-sample: the README lacks its two markers" >"/dev/stderr"; exit 1 } }' \
		README.md >README.md.tmp
	mv README.md.tmp README.md

# Under the sanitizers, LeakSanitizer must not report what libsde keeps
# (tests/lsan.supp); the measuring children inherit the setting.
ifneq ($(SANITIZE),)
CHECK_ENV = LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0$${LSAN_OPTIONS:+:$$LSAN_OPTIONS}"
endif

# The tests run the variant's own binary and tools ($(B)), named to them by
# ABBUILD (tests/cli/lib.sh).
check: deps
	@$(MAKE) --no-print-directory $(B)/allocbench $(CHILD64_BIN) $(CHILD32_BIN) $(RECORD_LIB) $(RECORD_TEST) $(FILESHIM) $(HEAP_TEST) $(EXACT_TEST) $(UNIT_BIN) $(TOOLS) $(FUZZ_REPLAY)
	@$(if $(CHILD32_BIN),:,rm -f $(B)/allocbench-child32)
	@$(CHECK_ENV) ABBUILD=$(CURDIR)/$(B) sh tests/run.sh $(UNIT_BIN)

bench: deps
	@$(MAKE) --no-print-directory allocbench $(RECORD_LIB) $(B)/tests/tools/jsonq $(B)/tests/tools/tracegen \
		$(B)/tests/tools/mtqueue $(B)/tests/tools/sparse $(B)/tests/tools/waves
	@ABBUILD=$(CURDIR)/$(B) sh tests/bench.sh

# Exit 1 when the overhead of pool or arena regressed against the committed
# baseline; BASELINE=FILE compares with another file.
gate: deps
	@$(MAKE) --no-print-directory allocbench
	@sh tests/gate.sh $(BASELINE)

# The rates of the GitHub Actions job of allocbench-compare(1), measured
# under the load of a busy process (tests/gate-rates.sh): RUNS=N runs of
# each case (default 20), PARTS=abcd the cases (default all; d: history on
# series of 30 reports). A benchmark, not a test: a miss is printed.
gate-rates: deps
	@$(MAKE) --no-print-directory allocbench $(B)/tests/tools/jsonq
	@JSONQ=$(B)/tests/tools/jsonq sh tests/gate-rates.sh $(or $(RUNS),20) $(PARTS)

baseline: deps
	@$(MAKE) --no-print-directory allocbench
	sh tests/gate.sh --record

install: allocbench $(RECORD_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPLETIONDIR) $(DESTDIR)$(LIBDIR)
	install -m 755 allocbench $(DESTDIR)$(BINDIR)/allocbench
	install -d $(DESTDIR)$(LIBEXECDIR)
	install -m 755 allocbench-child64 $(DESTDIR)$(LIBEXECDIR)/allocbench-child64
	if [ -f allocbench-child32 ]; then \
		install -m 755 allocbench-child32 $(DESTDIR)$(LIBEXECDIR)/allocbench-child32; fi
	install -m 644 $(RECORD_LIB) $(DESTDIR)$(LIBDIR)/liballocbench-record.so
	install -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/
	install -m 644 completion/allocbench.bash $(DESTDIR)$(COMPLETIONDIR)/allocbench

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/allocbench $(addprefix $(DESTDIR)$(MANDIR)/,$(notdir $(MANPAGES))) \
		$(DESTDIR)$(COMPLETIONDIR)/allocbench $(DESTDIR)$(LIBEXECDIR)/allocbench-child32 $(DESTDIR)$(LIBEXECDIR)/allocbench-child64 \
		$(DESTDIR)$(LIBDIR)/liballocbench-record.so
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	-rmdir $(DESTDIR)$(LIBDIR) 2>/dev/null

# make fuzz: libFuzzer with AddressSanitizer and UndefinedBehaviorSanitizer.
# Objects go to build/fuzz/ (never mixed with the ordinary ones). Each target
# starts from tests/fuzz/corpus/TARGET and the inputs that once crashed;
# what it learns stays in build/fuzz/corpus/TARGET; a crash is written to
# tests/fuzz/crashes/TARGET/ (commit it with its fix) and fails make fuzz.
FUZZ_CC ?= $(shell command -v clang-14 || command -v clang)
FUZZ_SECONDS ?= 600
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE -pthread -Isrc -g -O1 -fno-omit-frame-pointer $(PAPI_DEFINE) $(DEPS_CFLAGS)
FUZZ_OBJ = $(patsubst src/%.c,build/fuzz/%.o,$(filter-out src/cmd/main.c,$(SRC)))

.SECONDARY: $(FUZZ_OBJ)
build/fuzz/%.o: src/%.c $(B)/config.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c -o $@ $<

-include $(FUZZ_OBJ:.o=.d)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz: deps
	@test -n "$(FUZZ_CC)" || { echo "make fuzz needs clang (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	@failed=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus/$$t tests/fuzz/crashes/$$t; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		LSAN_OPTIONS="suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0" \
		build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -close_fd_mask=2 \
			-print_final_stats=1 -artifact_prefix=tests/fuzz/crashes/$$t/ \
			build/fuzz/corpus/$$t tests/fuzz/corpus/$$t tests/fuzz/crashes/$$t \
			>build/fuzz/$$t.log 2>&1 || { failed=1; echo "fuzz $$t: FAILED (build/fuzz/$$t.log)"; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+ *DONE' build/fuzz/$$t.log | sed "s/^/fuzz $$t: /"; \
	done; exit $$failed

clean:
	rm -rf build allocbench allocbench-child32 allocbench-child64
