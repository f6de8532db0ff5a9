/* publish_defaults: what a publication falls back on when neither the
 * flags nor CI say (see publish.h): the store and spool under the XDG
 * directories, the project from the directory's name, the testbed the
 * host name.  Never the branch: a guessed one would be some base
 * branch's.  Reads the environment from envp only. */
#include "bp_setup.h"
#include "publish.h"
#include "buf.h"
#include "err.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_get(char *const *envp, const char *name)
{
  size_t len = strlen(name);
  for(; envp && *envp; envp++)
    if(!strncmp(*envp, name, len) && (*envp)[len] == '=')
      return (*envp)[len + 1] ? *envp + len + 1 : NULL;
  return NULL;
}

static char *path_under(char *const *envp, const char *var,
                        const char *home_rel, const char *tail,
                        const char *prefix)
{
  const char *base = env_get(envp, var);
  struct bp_buf b;
  bpi_buf_init(&b);
  if(base && base[0] == '/')
    bpi_buf_printf(&b, "%s%s/%s", prefix, base, tail);
  else if((base = env_get(envp, "HOME")) && base[0] == '/')
    bpi_buf_printf(&b, "%s%s/%s/%s", prefix, base, home_rel, tail);
  else
    return NULL;
  if(bpi_buf_failed(&b)) {
    bpi_buf_cleanup(&b);
    return NULL;
  }
  return b.data;
}

bp_code bpi_publish_default_store(char *const *envp, char **store_url,
                                  struct bp_err *err)
{
  *store_url = path_under(envp, "XDG_DATA_HOME", ".local/share",
                          "benchprof/store", "file://");
  if(!*store_url)
    return bpi_err_set(err, BPE_CONFIG, 0, "no store: neither "
                       "$XDG_DATA_HOME nor $HOME is set (give --store)");
  return BP_OK;
}

bp_code bpi_publish_default_spool(char *const *envp, char **spool_dir,
                                  struct bp_err *err)
{
  const char *env = env_get(envp, "BENCHPROF_SPOOL");
  *spool_dir = env ? strdup(env)
                   : path_under(envp, "XDG_STATE_HOME", ".local/state",
                                "benchprof/spool", "");
  if(!*spool_dir)
    return bpi_err_set(err, BPE_CONFIG, 0, "no spool directory: neither "
                       "$BENCHPROF_SPOOL, $XDG_STATE_HOME nor $HOME is set "
                       "(give --spool)");
  return BP_OK;
}

/* lowercase [a-z0-9-], no leading, trailing or doubled '-' */
static char *slugify(const char *s)
{
  char *out = malloc(strlen(s) + 1);
  size_t n = 0;
  for(; out && *s; s++) {
    char c = *s;
    if(c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if(!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      c = '-';
    if(c == '-' && (n == 0 || out[n - 1] == '-'))
      continue;
    out[n++] = c;
  }
  while(out && n && out[n - 1] == '-')
    n--;
  if(out)
    out[n] = '\0';
  return out;
}

bp_code bpi_publish_ident_defaults(struct bp_ident *id, const char *dir,
                                   struct bp_err *err)
{
  char cwd[PATH_MAX], host[256];
  if(!id->project) {
    const char *base = NULL;
    /* "." and other relative names have no useful base name */
    if(dir ? realpath(dir, cwd) != NULL : getcwd(cwd, sizeof(cwd)) != NULL)
      dir = cwd;
    if(dir)
      base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    id->project = slugify(base && *base ? base : "benchprof");
    if(id->project && !*id->project) {
      free(id->project);
      id->project = strdup("benchprof");
    }
    id->from[BP_IDENT_PROJECT] = "the directory's name, outside git";
  }
  /* git's hashes are lowercase and Bencher refuses others: a hash given
   * in capitals (--hash, BENCHER_HASH) is the same commit */
  char *hashes[] = {id->hash, id->base_hash};
  for(size_t i = 0; i < BP_ARRAY_LEN(hashes); i++)
    for(char *c = hashes[i]; c && *c; c++)
      if(*c >= 'A' && *c <= 'F')
        *c = (char)(*c - 'A' + 'a');
  if(!id->testbed) {
    if(gethostname(host, sizeof(host)))
      return bpi_err_set(err, BPE_SYS, errno, "cannot read the host name");
    host[sizeof(host) - 1] = '\0';
    id->testbed = strdup(host);
  }
  if(!id->project || !id->testbed)
    return bpi_err_set(err, BPE_NOMEM, 0, "identity");
  return BP_OK;
}

bp_code bpi_publish_ident_check(const struct bp_ident *id,
                                struct bp_err *err)
{
  if(!id->branch)
    return bpi_err_set(err, BPE_CONFIG, 0, "the branch is unknown (no CI "
                       "branch variable, and HEAD is detached or this is "
                       "not a git repository): nothing is published, since "
                       "any branch guessed would be overwritten; give "
                       "--branch NAME (in a Bencher runner job, "
                       "BENCHER_BRANCH)");
  if(id->base_branch && !strcmp(id->branch, id->base_branch))
    return bpi_err_set(err, BPE_CONFIG, 0, "the branch '%s' is also the "
                       "base branch (start point) of this run: publishing "
                       "would overwrite its runs and reset its Bencher "
                       "history; give the pull request's own branch "
                       "(--branch, BENCHER_BRANCH), or no base branch for a "
                       "run of '%s' itself", id->branch, id->branch);
  return BP_OK;
}
