/* serve's HTTP half, shared by its files and nothing else: serve.c (the
 * server: libmicrohttpd loaded, the daemon, the connections and their
 * header deadlines), serve_answer.c (a request routed and answered) and
 * serve_paths.c (URLs, key parts and files under the root, whose checks
 * answer with HTTP statuses).  The only header that includes
 * libmicrohttpd's; serve_pages.c and serve_links.c use serve_int.h. */
#ifndef BP_LIB_SERVE_MHD_H
#define BP_LIB_SERVE_MHD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "serve_int.h"

/* The libmicrohttpd functions used, each named without its "MHD_";
 * serve.c loads them. */
struct bp_mhd_api {
  struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                     MHD_AcceptPolicyCallback apc,
                                     void *apc_cls,
                                     MHD_AccessHandlerCallback dh,
                                     void *dh_cls, ...);
  void (*stop_daemon)(struct MHD_Daemon *daemon);
  const union MHD_DaemonInfo *(*get_daemon_info)(
    struct MHD_Daemon *daemon, enum MHD_DaemonInfoType info_type, ...);
  const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                         enum MHD_ValueKind kind,
                                         const char *key);
  struct MHD_Response *(*create_response_from_buffer)(
    size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
  struct MHD_Response *(*create_response_from_fd64)(uint64_t size, int fd);
  enum MHD_Result (*add_response_header)(struct MHD_Response *response,
                                         const char *header,
                                         const char *content);
  enum MHD_Result (*queue_response)(struct MHD_Connection *connection,
                                    unsigned int status_code,
                                    struct MHD_Response *response);
  void (*destroy_response)(struct MHD_Response *response);
  const union MHD_ConnectionInfo *(*get_connection_info)(
    struct MHD_Connection *connection, enum MHD_ConnectionInfoType info_type,
    ...);
};
extern struct bp_mhd_api bpi_mhd_api;

/* A connection the watchdog watches (serve.c), its socket context. */
struct watched {
  int fd;
  long since_ms;       /* when it began waiting for a request's headers */
  bool waiting;        /* no complete request header yet */
  bool shut;           /* the deadline passed and it was shut down */
  const char *allow;   /* the request's Origin when it may read the
                          answer (one of bp_serve's origins), else NULL */
  struct watched *next, **prevp;
};

/* serve.c: a connection's record (NULL when it has none); a request's
 * headers arrived (waiting false), or its answer went out and the
 * connection waits for the next one (waiting true, a new deadline). */
struct watched *bpi_serve_watched_of(struct MHD_Connection *c);
void bpi_serve_set_waiting(struct bp_serve *sv, struct MHD_Connection *c,
                           bool waiting);

/* serve_answer.c: libmicrohttpd's request handler (cls: the bp_serve),
 * and its unescape hook, which leaves the URL as received. */
enum MHD_Result bpi_serve_answer(void *cls, struct MHD_Connection *c,
                                 const char *url, const char *method,
                                 const char *version,
                                 const char *upload_data,
                                 size_t *upload_data_size, void **con_cls);
size_t bpi_serve_keep_escaped(void *cls, struct MHD_Connection *c, char *s);

#endif
