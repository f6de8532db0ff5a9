# tests of the store part (store.c and http.c)
#   test_store          key parts (round trips, hostile names), content
#                       types, public URLs, bad store URLs, file backend
#   store_tool          the store library as a command, for the scripts
#   store_http.sh       http(s):// backend against put_server.py: bearer
#                       token, 401, retries on 500/429/hang/truncate, a
#                       final 404, connection refused
#   store_s3.sh         s3:// backend against s3rver behind a SigV4
#                       checking proxy: path-style and virtual-host,
#                       headers kept, wrong secret refused, not found,
#                       no secret in the output
#   store_file.sh       file:// backend through store_tool
#   http_tls.sh         TLS verification always on: --ca-file, unknown CA,
#                       wrong host name, missing CA file
#   tls_private_ca.sh   a store and a forge behind an internal CA:
#                       network.ca_file reaches publishing, the pull
#                       request's comparison and benchprof comment
#   test_storekey       the key builders (storekey.h) with hostile parts
#   test_site           the static pages in a file store: lists merged,
#                       generations, hostile names, the comment's Markdown
#   test_rundir         manifest.json round trip, artifacts measured
#   test_fileio         the artifact writer: the digest commit hands back,
#                       no name until commit, mode, abort, replacement
#   test_text           the shared codecs (percent-encoding, UTF-8, times,
#                       strict numbers, edit distance, path join, the
#                       call-graph grammar)
store_unit_tests = tests/unit/test_store tests/unit/test_storekey \
  tests/unit/test_site \
  tests/unit/test_rundir tests/unit/test_text tests/unit/test_fileio
check_PROGRAMS += $(store_unit_tests) tests/unit/store_tool
TESTS += $(store_unit_tests) tests/integration/store_file.sh \
  tests/integration/store_http.sh tests/integration/store_s3.sh \
  tests/integration/http_tls.sh tests/integration/tls_private_ca.sh
EXTRA_DIST += tests/integration/store_file.sh \
  tests/integration/store_http.sh tests/integration/store_s3.sh \
  tests/integration/http_tls.sh tests/integration/tls_private_ca.sh \
  tests/servers/faults.py tests/servers/put_server.py \
  tests/servers/s3_sigv4_proxy.py

tests_unit_test_store_SOURCES = tests/unit/test_store.c
tests_unit_test_store_CPPFLAGS = $(unit_cppflags)
tests_unit_test_store_LDADD = $(unit_ldadd)

tests_unit_test_site_SOURCES = tests/unit/test_site.c
tests_unit_test_site_CPPFLAGS = $(unit_cppflags)
tests_unit_test_site_LDADD = $(unit_ldadd)
tests_unit_test_storekey_SOURCES = tests/unit/test_storekey.c
tests_unit_test_storekey_CPPFLAGS = $(unit_cppflags)
tests_unit_test_storekey_LDADD = $(unit_ldadd)

tests_unit_test_rundir_SOURCES = tests/unit/test_rundir.c
tests_unit_test_rundir_CPPFLAGS = $(unit_cppflags)
tests_unit_test_rundir_LDADD = $(unit_ldadd)

tests_unit_test_fileio_SOURCES = tests/unit/test_fileio.c
tests_unit_test_fileio_CPPFLAGS = $(unit_cppflags)
tests_unit_test_fileio_LDADD = $(unit_ldadd)

tests_unit_test_text_SOURCES = tests/unit/test_text.c
tests_unit_test_text_CPPFLAGS = $(unit_cppflags)
tests_unit_test_text_LDADD = $(unit_ldadd)

tests_unit_store_tool_SOURCES = tests/unit/store_tool.c
tests_unit_store_tool_CPPFLAGS = $(unit_cppflags)
tests_unit_store_tool_LDADD = $(unit_ldadd)
