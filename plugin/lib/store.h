/* store: where a run's artifacts go, under the keys storekey.h builds.
 * Backends, chosen by the URL's scheme:
 *   file:///dir            files under dir, written atomically (temp+rename)
 *   s3://bucket/prefix     any S3-compatible service, SigV4 (via http.c)
 *   http(s)://host/prefix  plain PUT/GET, optional bearer token
 * Input: keys, bytes or files, content type and encoding.  Owns: the
 * struct bp_store and copies of the option strings. */
#ifndef BP_LIB_STORE_H
#define BP_LIB_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "benchprof/benchprof.h"
#include "http.h"
#include "storekey.h"   /* the key scheme */

struct bp_store_opts {
  const char *url;           /* the store (see above) */
  const char *public_url;    /* base URL readers use for the same keys
                                (a bucket's website or CDN); NULL: for
                                http(s) the url itself, for s3 the
                                endpoint's URL of the object, for file the
                                file:// URL */
  /* s3:// only */
  const char *s3_endpoint;   /* "http://127.0.0.1:4569"; NULL:
                                https://s3.{region}.amazonaws.com */
  const char *s3_region;     /* NULL: "us-east-1" */
  bool s3_path_style;        /* endpoint/bucket/key instead of
                                bucket.endpoint/key (MinIO, s3rver, Ceph) */
  const char *aws_key;       /* AWS_ACCESS_KEY_ID */
  const char *aws_secret;    /* AWS_SECRET_ACCESS_KEY */
  const char *aws_session_token; /* AWS_SESSION_TOKEN, or NULL */
  /* http(s):// only */
  const char *bearer;        /* token for PUT, or NULL */
  const struct bp_http_opts *http; /* NULL: defaults */
};

struct bp_store;

bp_code bpi_store_open(struct bp_store **st, const struct bp_store_opts *o,
                       struct bp_err *err);
void bpi_store_close(struct bp_store *st);

/* The store's URL as given, for messages (never holds credentials). */
const char *bpi_store_url(const struct bp_store *st);

/* Where the store is, for a message that names no more than it must
 * (an operator's job log): an http(s) or s3 store's scheme and host
 * ("http://10.0.0.5:9000"), without the path; a file store's URL.
 * Appended to b. */
void bpi_store_where(const struct bp_store *st, struct bp_buf *b);

/* Whether url names a store on this machine's file system (file://):
 * writing to it waits on no network. */
bool bpi_store_url_is_local(const char *url);

/* Store bytes or a file's contents under key (a '/'-joined list of parts
 * already made safe).  content_type "application/json" etc.;
 * content_encoding "gzip" for a gzipped JSON profile, else NULL.
 * Replaces an existing object.  The file store hard links a file put
 * with bpi_store_put_file when it can (same file system), else copies
 * it: the file must not be rewritten in place afterwards. */
bp_code bpi_store_put(struct bp_store *st, const char *key, const void *data,
                      size_t len, const char *content_type,
                      const char *content_encoding, struct bp_err *err);
bp_code bpi_store_put_file(struct bp_store *st, const char *key,
                           const char *path, const char *content_type,
                           const char *content_encoding, struct bp_err *err);

/* Read an object whole (NUL-terminated, *data malloc'd).  BPE_NOT_FOUND
 * when there is none. */
bp_code bpi_store_get(struct bp_store *st, const char *key, char **data,
                      size_t *len, struct bp_err *err);

/* Call each with the name of every object and folder right under the
 * folder dir (a key), in no order: a file store's only (a listing of an
 * http(s) or s3 store is a request of its own kind, not worth a hint),
 * BPE_INVAL for the others; BPE_NOT_FOUND when there is no such folder. */
bp_code bpi_store_list(struct bp_store *st, const char *dir,
                       void (*each)(void *ctx, const char *name), void *ctx,
                       struct bp_err *err);

/* Replace the object at key with what decide makes of its current bytes
 * (cur NULL when there is none), so that two writers cannot interleave:
 * decide returns 1 with *out (malloc'd, NUL-terminated) to write it, 0 to
 * leave the object as it is, -1 on failure, and BP_STORE_REREAD when the
 * bytes read are not a whole object of its kind: an object store may
 * serve an object while another writer's PUT of it is still being
 * written, so they are read again (an error after the last try, never
 * replaced by a fresh start that would drop what the others wrote).  A file store holds an flock
 * of the object's directory over read, decide and the atomic write; an
 * http(s) or s3 store writes with If-Match: <the ETag read> (If-None-Match:
 * * when there was none) and, when the server answers 412 because another
 * writer came first, reads and decides again (8 times at most). */
enum { BP_STORE_REREAD = 2 };
bp_code bpi_store_update(struct bp_store *st, const char *key,
                         const char *content_type,
                         int (*decide)(void *ctx, const char *cur,
                                       size_t len, char **out),
                         void *ctx, struct bp_err *err);

/* bpi_store_update for a caller that has just read key and found no
 * object: an http(s) or s3 store's first try writes what decide makes of
 * none with If-None-Match: * without reading again, and reads and decides
 * as above only when the server answers 412 (one was written since).  A
 * file store reads it anyway (a file read under its lock). */
bp_code bpi_store_update_absent(struct bp_store *st, const char *key,
                                const char *content_type,
                                int (*decide)(void *ctx, const char *cur,
                                              size_t len, char **out),
                                void *ctx, struct bp_err *err);

/* The URL a reader (browser, profiler.firefox.com/from-url/) loads key
 * from; malloc'd, NULL when out of memory. */
char *bpi_store_public_url(const struct bp_store *st, const char *key);
/* Whether the store's URLs need credentials to read and no public URL
 * (store.public_url) was given: an s3:// store (its objects need a
 * signed request) or an http(s) store that takes a bearer token.  A
 * browser cannot open what bpi_store_public_url gives then. */
bool bpi_store_needs_credentials(const struct bp_store *st);

/* Content type and encoding for an artifact file by its name:
 * ".json.gz" -> application/json + gzip, ".pb.gz" -> application/
 * octet-stream (pprof is gzip by format, no encoding), ".svg" ->
 * image/svg+xml, ".json" -> application/json, else text/plain;
 * charset=utf-8. */
void bpi_store_content_type(const char *file, const char **type,
                            const char **encoding);

#endif
