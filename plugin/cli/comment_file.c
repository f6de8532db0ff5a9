/* comment.file: a copy of the pull request comment that `run` wrote
 * (OUTPUT/compare/comment.md) at a path the operator chose, for a tool
 * that posts or archives it from a fixed place.  A relative path is the
 * job's working directory's, as the output directory is.  Every run
 * removes the earlier copy before its command starts, and a comparison
 * that wrote no comment (the base could not be read) leaves none, so
 * that a copy of an earlier run's comment is never taken for this one's
 * (a failed, interrupted or uncompared run writes none). */
#include "bp_setup.h"
#include "cli.h"
#include "msgs.h"

#include "config.h"
#include "err.h"
#include "fileio.h"
#include "rundir.h"
#include "text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* path's directory, made when missing (path has a '/' in it). */
static bp_code make_parent(const char *path, struct bp_err *err)
{
  const char *slash = strrchr(path, '/');
  if(!slash || slash == path)
    return BP_OK;
  char *dir = strndup(path, (size_t)(slash - path));
  if(!dir)
    return bpi_err_set(err, BPE_NOMEM, 0, "comment.file");
  bp_code rc = bpi_file_mkdirs(dir, err);
  free(dir);
  return rc;
}

/* No file (an earlier run's copy) any more. */
static bp_code remove_copy(const char *file, struct bp_err *err)
{
  if(unlink(file) && errno != ENOENT)
    return bpi_err_set(err, BPE_IO, errno, "comment.file: cannot remove "
                       "the earlier '%s'", file);
  return BP_OK;
}

/* The copy of out/comment.md at file, or none when there is none. */
static bp_code copy_comment(const char *out, const char *file,
                            struct bp_err *err)
{
  char *md = bpi_text_path_join(out, BP_FILE_COMMENT);
  if(!md)
    return bpi_err_set(err, BPE_NOMEM, 0, "comment.file");
  char *text = NULL;
  size_t len = 0;
  bp_code rc = BP_OK;
  if(access(md, F_OK) && errno == ENOENT)
    rc = remove_copy(file, err);
  else {
    rc = bpi_file_read(md, &text, &len, err);
    if(!rc)
      rc = make_parent(file, err);
    if(!rc)
      rc = bpi_file_write(file, text, len, false, err);
  }
  free(text);
  free(md);
  return rc;
}

void bp_cli_comment_file(const struct bp_config *cfg, const char *out)
{
  if(!cfg || !cfg->comment.file)
    return;
  struct bp_err err = {0};
  if(copy_comment(out, cfg->comment.file, &err))
    bp_msg_warn("comment.file: %s", err.msg[0] ? err.msg
                                               : bp_strerror(err.code));
}

void bp_cli_comment_file_clear(const struct bp_config *cfg)
{
  if(!cfg || !cfg->comment.file)
    return;
  struct bp_err err = {0};
  if(remove_copy(cfg->comment.file, &err))
    bp_msg_warn("comment.file: %s", err.msg);
}
