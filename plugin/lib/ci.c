/* ci: identity from git only, for now (the CI environments come with the
 * config work).  git runs with envp as its environment and its output is
 * read from a pipe; a directory that is no work tree leaves the fields
 * NULL. */
#include "bp_setup.h"
#include "ci.h"
#include "buf.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The first line git prints for `git -C dir ARGS`, malloc'd; NULL when
 * it fails or prints nothing. */
static char *git_line(const char *dir, const char *a1, const char *a2,
                      const char *a3, char *const *envp)
{
  char *argv[] = {(char *)"git", (char *)"-C", (char *)dir, (char *)a1,
                  (char *)a2, (char *)a3, NULL};
  int fds[2];
  if(pipe2(fds, O_CLOEXEC))
    return NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, "git", &fa, NULL, argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  struct bp_buf out;
  bpi_buf_init(&out);
  char chunk[512];
  ssize_t n;
  while(!rc && ((n = read(fds[0], chunk, sizeof(chunk))) > 0 ||
                (n < 0 && errno == EINTR)))
    if(n > 0)
      bpi_buf_add(&out, chunk, (size_t)n);
  close(fds[0]);
  int status = 1;
  if(!rc)
    while(waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
  bpi_buf_addc(&out, '\0');
  if(rc || !WIFEXITED(status) || WEXITSTATUS(status) ||
     bpi_buf_failed(&out) || !out.data[0] || out.data[0] == '\n') {
    bpi_buf_cleanup(&out);
    return NULL;
  }
  out.data[strcspn(out.data, "\r\n")] = '\0';
  return out.data;
}

bp_code bpi_ci_detect(struct bp_ident *id, char *const *envp,
                      const char *dir, struct bp_err *err)
{
  (void)err;
  if(!dir)
    dir = ".";
  if(!id->hash)
    id->hash = git_line(dir, "rev-parse", "--verify", "HEAD", envp);
  if(!id->branch) {
    /* fails on a detached checkout: no branch */
    id->branch = git_line(dir, "symbolic-ref", "--short", "HEAD", envp);
  }
  if(!id->project) {
    char *top = git_line(dir, "rev-parse", "--show-toplevel", NULL, envp);
    const char *base = top ? strrchr(top, '/') : NULL;
    if(base && base[1])
      id->project = strdup(base + 1);
    free(top);
  }
  if(!id->provider && id->hash)
    id->provider = strdup("git");
  return BP_OK;
}

void bpi_ident_cleanup(struct bp_ident *id)
{
  free(id->project);
  free(id->branch);
  free(id->hash);
  free(id->testbed);
  free(id->pr);
  free(id->base_branch);
  free(id->base_hash);
  free(id->provider);
  free(id->repo);
  free(id->api_url);
  memset(id, 0, sizeof(*id));
}
