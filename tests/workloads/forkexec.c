/* forkexec SECONDS CHILD: forks a child that execs CHILD (the forkexec_child
 * workload) with SECONDS, while this process spends SECONDS of CPU in
 * fe_parent_work.  Exits 0 when the child succeeded. */
#define _GNU_SOURCE
#include "workload.h"

#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static WL_HOT void fe_parent_work(double secs)
{
  double end = wl_thread_cpu() + secs;
  do {
    WL_SPIN(WL_CHUNK, sink);
  } while(wl_thread_cpu() < end);
}

int main(int argc, char **argv)
{
  if(argc != 3) {
    fprintf(stderr, "usage: forkexec SECONDS CHILD\n");
    return 2;
  }
  double secs = wl_arg(argc, argv, 1, 0);
  wl_full_stack();
  fflush(NULL);
  pid_t pid = fork();
  if(pid < 0) {
    perror("forkexec: fork");
    return 1;
  }
  if(pid == 0) {
    execl(argv[2], argv[2], argv[1], (char *)NULL);
    perror("forkexec: exec");
    _exit(127);
  }
  fe_parent_work(secs);
  int st;
  if(waitpid(pid, &st, 0) != pid) {
    perror("forkexec: waitpid");
    return 1;
  }
  if(!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    fprintf(stderr, "forkexec: child failed (status 0x%x)\n", st);
    return 1;
  }
  return 0;
}
