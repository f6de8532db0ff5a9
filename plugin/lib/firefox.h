/* firefox: the opt-in upload of a Gecko profile to the Firefox
 * Profiler's public store (publish.c's part 2).  POST the gzipped profile
 * to {api}/compressed-store; the answer is a JWT whose payload holds
 * {"profileToken": T}, the profile's public link being
 * https://profiler.firefox.com/public/T/. */
#ifndef BP_LIB_FIREFOX_H
#define BP_LIB_FIREFOX_H

#include "benchprof/benchprof.h"
#include "http.h"

#define BP_FIREFOX_API "https://api.profiler.firefox.com"
#define BP_FIREFOX_PUBLIC "https://profiler.firefox.com/public/"

/* Upload the file at path (a gzipped Gecko profile, sent as it is) to
 * api (NULL: none, an error of the request); *link (malloc'd) its public
 * link.  The POST is not repeated once the store may have it: *lost when
 * it went out and no answer came (a second try would make a second
 * public copy). */
bp_code bpi_firefox_upload(const struct bp_http_opts *http, const char *api,
                           const char *path, char **link, bool *lost,
                           struct bp_err *err);

/* The public link named by the store's answer (a JWT), malloc'd; NULL
 * when the answer names no valid profile token. */
char *bpi_firefox_link(const char *answer);

#endif
