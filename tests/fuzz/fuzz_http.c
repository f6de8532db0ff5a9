/* fuzz_http: an error answer's body (JSON {"message"}, {"error"},
 * {"error": {"message"}}, S3's <Error><Code>..<Message>.., or text) ->
 * http.c's server_message, which puts the server's words into an error
 * message: they come out on one line, without control characters, cut to
 * a bounded length.  http.c is compiled into this target (its helper is
 * static). */
#include "../../plugin/lib/http.c"

#include <stdint.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* bodies come NUL-terminated (struct bp_buf) */
  char *body = malloc(size + 1);
  if(!body)
    return 0;
  memcpy(body, data, size);
  body[size] = '\0';
  struct bp_buf shown;
  bpi_buf_init(&shown);
  server_message(&shown, body, size);
  if(bpi_buf_failed(&shown))
    abort();
  for(size_t i = 0; i < shown.len; i++)
    if((unsigned char)shown.data[i] < ' ' || shown.data[i] == 0x7f)
      abort();
  /* SHOW_MESSAGE bytes of each of two fields, ": " and two "..." */
  if(shown.len > 2 * SHOW_MESSAGE + 8)
    abort();
  bpi_buf_cleanup(&shown);
  free(body);
  return 0;
}
