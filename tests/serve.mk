# tests of the serve part (benchprof serve, the local viewer)
#   serve_http.sh       a store built from a real run's artifacts served on
#                       127.0.0.1: index pages (names decoded and escaped),
#                       artifacts byte-identical with CORS, content type and
#                       encoding, from-url links, traversal and symlinks
#                       refused, read-only, SIGTERM/SIGINT, bad options
#   serve_chromium.sh   headless Chromium screenshots of the index page and
#                       a benchmark's page: both rendered, the flame graph
#                       in colour
#   serve_slowloris.sh  330 slow connections (trickled headers, idle):
#                       viewers still answered, the header deadline closes
#                       them, a per-address limit (issue 21, F17)
#   site_static.sh      the static pages in a file:// and an s3:// store
#                       (s3rver): runs listed newest first, none lost to
#                       concurrent publishers, a PR run's verdict and
#                       comment, Chromium screenshots, benchprof index
#   serve_origins.sh    only the Firefox Profiler's, serve's own and
#                       --allow-origin origins read the store (others:
#                       403); links from --public-url or the bound
#                       address, never Host; the runs table and a PR
#                       run's verdict as in the static pages; a marked
#                       benchmark's page without the whole run's figures
TESTS += tests/integration/serve_http.sh tests/integration/serve_chromium.sh \
  tests/integration/serve_slowloris.sh tests/integration/site_static.sh \
  tests/integration/serve_origins.sh
EXTRA_DIST += tests/integration/serve_http.sh \
  tests/integration/serve_chromium.sh tests/serve_fixture.py \
  tests/integration/serve_slowloris.sh tests/integration/site_static.sh \
  tests/png_stats.py tests/integration/serve_origins.sh
