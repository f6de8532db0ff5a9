/* fuzz_http: an error answer's body (JSON {"message"}, {"error"},
 * {"error": {"message"}}, S3's <Error><Code>..<Message>.., or text) ->
 * http_answer.c's bpi_http_server_message, which puts the server's words
 * into an error message: they come out on one line, without control
 * characters, cut to a bounded length. */
#include "bp_setup.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http_int.h"

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
  bpi_http_server_message(&shown, body, size);
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
