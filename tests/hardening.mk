# tests of the hardening part (issue 9): fuzz targets, faults, hostile names
#
# Fuzz targets (tests/fuzz/fuzz_NAME.c, libFuzzer) are built with clang,
# apart from the normal build (which may use gcc): the library sources
# they need are compiled with clang's sanitizers and coverage into
# tests/fuzz/libfuzz.a, and each target links that.  They are check
# scripts, so `make check` builds them before the tests run;
# fuzz_smoke.sh replays each one's seed corpus and regressions and fuzzes
# a few seconds.  `make fuzz` fuzzes each for FUZZ_SECONDS (default 60);
# a crash leaves crash-* in tests/fuzz/ of the build tree: fix it, then
# keep the input under tests/fuzz/regressions/NAME/.
#   fuzz_records    perf ring records -> records.c
#   fuzz_converter  a record stream -> converter, symbolizer, exporters
#   fuzz_symbols    an ELF/DWARF file -> symbols.c (libdwfl)
#   fuzz_jitmap     perf-PID.map and kallsyms text -> symbols.c
#   fuzz_bmf        BMF JSON -> report.c, BMF out and back
#   fuzz_gbench     Google Benchmark JSON -> report.c, BMF out and back
#   fuzz_config     the config file -> config.c, shown and parsed again
#   fuzz_ci         a GitHub event payload -> ci.c (bpi_ci_detect)
#   fuzz_bencher    Bencher's answer (JsonReport) and a BMF -> bencher.c
#                   (HTTP replaced by the target)
#   fuzz_http       an error answer's body (JSON, S3 XML, text) -> the
#                   message http_answer.c makes of it
#   fuzz_comment    GitHub/GitLab comment list and write answers ->
#                   comment.c (bpi_comment_find, bpi_comment_post)
#   fuzz_compare    run directories (manifest, report, folded stacks) ->
#                   compare.c, compare.json and the comment in memory
#   fuzz_input      an input file, plain or gzip (bombs too) ->
#                   fileio.c's capped read, config.c's file loading
#   fuzz_smoke.sh   every tests/fuzz/fuzz_*.c, briefly, in make check
#                   (FUZZ_SMOKE_SECONDS in the environment, default 1)
# A new target: tests/fuzz/fuzz_NAME.c, corpus/NAME/, its name in
# fuzz_names and fuzz_programs, a rule below.  libfuzz.a holds the whole
# library (libbenchprof_a_SOURCES); a target links what it uses.
FUZZ_CC = clang
FUZZ_SECONDS = 60
fuzz_names = records converter symbols jitmap bmf gbench config ci bencher \
  http comment compare input
fuzz_programs = tests/fuzz/fuzz_records tests/fuzz/fuzz_converter \
  tests/fuzz/fuzz_symbols tests/fuzz/fuzz_jitmap tests/fuzz/fuzz_bmf \
  tests/fuzz/fuzz_gbench tests/fuzz/fuzz_config tests/fuzz/fuzz_ci \
  tests/fuzz/fuzz_bencher tests/fuzz/fuzz_http tests/fuzz/fuzz_comment \
  tests/fuzz/fuzz_compare tests/fuzz/fuzz_input
fuzz_flags = -std=c11 -Wall -Wextra -g -O1 -fno-omit-frame-pointer \
  -fsanitize=address,undefined -fno-sanitize-recover=all \
  -DHAVE_CONFIG_H -I$(top_builddir) $(AM_CPPFLAGS) $(LIBDW_CFLAGS) \
  $(CJSON_CFLAGS) $(ZLIB_CFLAGS) $(LIBCURL_CFLAGS) $(MHD_CFLAGS)
fuzz_libs = $(LIBDW_LIBS) $(CJSON_LIBS) $(ZLIB_LIBS) $(IBERTY_LIBS) \
  $(LIBS)
# The library's sources, all of them (so a file added to the library is
# in the fuzz build too); the rule below compiles the .c files among them.
fuzz_lib_sources = $(libbenchprof_a_SOURCES)
fuzz_headers = $(srcdir)/tests/fuzz/fuzz.h $(srcdir)/tests/fuzz/fuzz_report.h
check_SCRIPTS = $(fuzz_programs)
TESTS += tests/integration/fuzz_smoke.sh
EXTRA_DIST += tests/integration/fuzz_smoke.sh tests/fuzz docs/reliability.md
CLEANFILES += $(fuzz_programs) tests/fuzz/libfuzz.a

# When clang is missing nothing is built, and fuzz_smoke.sh fails saying so.
tests/fuzz/libfuzz.a: $(fuzz_lib_sources) $(top_builddir)/bp_autoconf.h \
  $(srcdir)/tests/hardening.mk
	@$(MKDIR_P) tests/fuzz/obj
	@if command -v $(FUZZ_CC) >/dev/null; then \
	  rm -f $@; \
	  for s in $(fuzz_lib_sources); do \
	    case $$s in *.c) ;; *) continue ;; esac; \
	    echo "  FUZZCC   $$s"; \
	    $(FUZZ_CC) $(fuzz_flags) -fsanitize=fuzzer-no-link -c \
	      -o tests/fuzz/obj/`basename $$s .c`.o $(srcdir)/$$s || exit 1; \
	  done; \
	  $(AR) rc $@ tests/fuzz/obj/*.o && rm -rf tests/fuzz/obj; \
	else echo "$(FUZZ_CC) not found: fuzz targets not built" >&2; fi

fuzz_link = if test -f tests/fuzz/libfuzz.a; then \
	  echo "  FUZZLD   $@"; \
	  $(FUZZ_CC) $(fuzz_flags) -fsanitize=fuzzer \
	    -DFUZZ_SRCDIR='"$(abs_srcdir)/tests/fuzz"' -o $@ \
	    $(srcdir)/$@.c tests/fuzz/libfuzz.a $(fuzz_libs); fi

tests/fuzz/fuzz_records: tests/fuzz/fuzz_records.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_converter: tests/fuzz/fuzz_converter.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_symbols: tests/fuzz/fuzz_symbols.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_jitmap: tests/fuzz/fuzz_jitmap.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_bmf: tests/fuzz/fuzz_bmf.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_gbench: tests/fuzz/fuzz_gbench.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_config: tests/fuzz/fuzz_config.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_ci: tests/fuzz/fuzz_ci.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_bencher: tests/fuzz/fuzz_bencher.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_http: tests/fuzz/fuzz_http.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_comment: tests/fuzz/fuzz_comment.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_compare: tests/fuzz/fuzz_compare.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)
tests/fuzz/fuzz_input: tests/fuzz/fuzz_input.c tests/fuzz/libfuzz.a $(fuzz_headers)
	@$(fuzz_link)

# Fuzz each target for FUZZ_SECONDS, starting from its corpus (new inputs
# go to tests/fuzz/found/NAME in the build tree, never the source tree).
fuzz: $(fuzz_programs)
	@for n in $(fuzz_names); do \
	  test -x tests/fuzz/fuzz_$$n || { echo "fuzz_$$n not built" >&2; exit 1; }; \
	  $(MKDIR_P) tests/fuzz/found/$$n; \
	  echo "fuzz_$$n: $(FUZZ_SECONDS) s"; \
	  (cd tests/fuzz && ./fuzz_$$n -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
	    found/$$n $(abs_srcdir)/tests/fuzz/corpus/$$n) || exit 1; \
	done
.PHONY: fuzz

# ---------------------------------------------------------------- faults
#   fault_*.sh      real processes: full rings at exit, 500 forks, a binary
#                   deleted or replaced, disk full, read-only output,
#                   SIGTERM and SIGKILL of benchprof, leaks under ASan,
#                   links planted under the output directory,
#                   time that runs backwards; hostile names through every
#                   artifact (docs/reliability.md has the matrix)
#   forks           workload: N short children, one after another
#   hostile         workload: payload names for benchmarks, threads,
#                   JIT functions and a BMF file
#   test_timeline   unit: samples whose times go backwards
check_PROGRAMS += tests/workloads/forks tests/workloads/hostile
tests_workloads_forks_SOURCES = tests/workloads/forks.c \
  tests/workloads/workload.h
tests_workloads_forks_CFLAGS = $(workload_cflags)
tests_workloads_forks_LDFLAGS = $(workload_ldflags)
tests_workloads_hostile_SOURCES = tests/workloads/hostile.c
tests_workloads_hostile_CPPFLAGS = -I$(top_srcdir)/plugin/include
tests_workloads_hostile_CFLAGS = $(workload_cflags) -pthread
tests_workloads_hostile_LDFLAGS = $(workload_ldflags) -pthread
check_PROGRAMS += tests/unit/test_fault_clock
TESTS += tests/unit/test_fault_clock tests/integration/fault_rings_full.sh \
  tests/integration/fault_forks.sh tests/integration/fault_binary_gone.sh \
  tests/integration/fault_disk.sh tests/integration/fault_signals.sh \
  tests/integration/fault_leaks.sh tests/integration/fault_hostile_names.sh \
  tests/integration/fault_symlinks.sh
EXTRA_DIST += tests/fault_lib.sh tests/integration/fault_rings_full.sh \
  tests/integration/fault_forks.sh tests/integration/fault_binary_gone.sh \
  tests/integration/fault_disk.sh tests/integration/fault_signals.sh \
  tests/integration/fault_leaks.sh tests/integration/fault_hostile_names.sh \
  tests/integration/fault_symlinks.sh
tests_unit_test_fault_clock_SOURCES = tests/unit/test_fault_clock.c
tests_unit_test_fault_clock_CPPFLAGS = $(unit_cppflags)
tests_unit_test_fault_clock_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
tests_unit_test_fault_clock_LDADD = $(unit_ldadd)

# ------------------------------------------------- publishing, hostile input
#   secrets_publish.sh  every credential in a full publishing run (Bencher,
#                       s3://, http:// store, spool + flush, a comment; -v)
#                       appears in no output, artifact, spool or store
#   secrets_command.sh  secret values on the benchmark's command line
#                       (--token=X, --password X, API_KEY=X) are *** in
#                       every artifact and stored copy; the program gets them
#   secrets_token_name.sh  a token given where its variable's name goes
#                       (--token-env/--token, *.token_env) is refused
#                       (exit 2; config check: the key), never shown
#   hostile_publish.sh  payload names through the store keys, the stored
#                       manifest, compare + comment.md and serve's pages
#   http_bounds.sh      answers without end (body, headers), Retry-After
#                       over the operator's limit, deadlines for requests
#                       and flush (issue 21, F2)
#   input_caps.sh       gzip bombs and huge inputs (--config, --bmf, a
#                       harness's stdout), FIFOs and devices as inputs,
#                       late stdout under --adapter (issue 21, F14 F15 F18)
TESTS += tests/integration/secrets_publish.sh tests/integration/hostile_publish.sh \
  tests/integration/secrets_command.sh \
  tests/integration/secrets_token_name.sh \
  tests/integration/http_bounds.sh tests/integration/input_caps.sh
EXTRA_DIST += tests/integration/secrets_publish.sh \
  tests/integration/secrets_command.sh \
  tests/integration/secrets_token_name.sh \
  tests/integration/hostile_publish.sh tests/integration/http_bounds.sh \
  tests/integration/input_caps.sh

# ------------------------------------------------------------ start-up
#   startup_lazy.sh  libcurl and libmicrohttpd are dlopen()ed at first use
#                    (LD_DEBUG=files): not by --version or record; libcurl
#                    by a run publishing over HTTP, libmicrohttpd by serve;
#                    an unloadable library is a clear error, never a crash
TESTS += tests/integration/startup_lazy.sh
EXTRA_DIST += tests/integration/startup_lazy.sh
