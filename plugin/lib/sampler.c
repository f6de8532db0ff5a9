/* sampler: the command's side.  Forks it and holds it on a pipe until
 * the events are open (sampler_open.c), releases it, copies its stdout,
 * and runs the poll loop that drains the rings (sampler_queue.c) until it
 * exits and is reaped. */
#include "bp_setup.h"
#include "sampler_int.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 2 MiB per CPU: a few seconds of frame-pointer samples at 997 Hz fit, so
 * a short benchmark does not wake us before it ends (with stack copies
 * the recorder asks for larger rings: record.h) */
#define DEFAULT_RING_PAGES 512

uint64_t bpi_sampler_now_ns(clockid_t clk)
{
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  (void)pid;
  errno = ENOSYS;
  return -1;
#endif
}

/* Whether SIGPIPE and SIGCHLD were ignored when benchprof started (only
 * SIG_IGN survives exec).  Read before the caller changes them (it
 * ignores SIGPIPE while it copies output), so every command, however
 * many we start, gets what benchprof's parent gave benchprof. */
static int orig_pipe_ign = -1, orig_chld_ign = -1;

static void note_orig_signals(void)
{
  struct sigaction sa;
  if(orig_pipe_ign < 0 && !sigaction(SIGPIPE, NULL, &sa))
    orig_pipe_ign = sa.sa_handler == SIG_IGN;
  if(orig_chld_ign < 0 && !sigaction(SIGCHLD, NULL, &sa))
    orig_chld_ign = sa.sa_handler == SIG_IGN;
}

/* In the child, before it waits for the go byte: the default action for
 * every signal benchprof catches, as exec would give them.  A signal that
 * reaches the child before exec (a TERM that came while it was held)
 * then acts on it as on the command, never runs a copy of benchprof's
 * handler that would swallow it; an ignored one stays ignored. */
static void default_caught_signals(void)
{
  for(int sig = 1; sig < NSIG; sig++) {
    struct sigaction sa;
    if(sig != SIGKILL && sig != SIGSTOP && !sigaction(sig, NULL, &sa) &&
       sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)
      signal(sig, SIG_DFL);
  }
}

static void child_wait_and_exec(int go_rd, int err_wr, int out_wr,
                                char *const *argv, char *const *envp,
                                pid_t parent, const sigset_t *mask)
{
  char go;
  ssize_t n;
  /* benchprof killed outright (SIGKILL, the OOM killer: nothing of ours
   * runs to pass a signal on) must not leave the command running on the
   * runner for ever: the kernel kills it when benchprof dies.  It survives
   * exec (except of set-user-ID programs), the command's own children do
   * not inherit it, and a command whose benchprof is alive never sees it
   * fire.  getppid() catches a benchprof that died before the prctl. */
  if(prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
    _exit(127);
  default_caught_signals();
  if(orig_pipe_ign >= 0)
    signal(SIGPIPE, orig_pipe_ign ? SIG_IGN : SIG_DFL);
  if(orig_chld_ign >= 0)
    signal(SIGCHLD, orig_chld_ign ? SIG_IGN : SIG_DFL);
  /* forked with every signal blocked: one that came since (a Ctrl-C to
   * the process group) is pending here and now takes its default action */
  sigprocmask(SIG_SETMASK, mask, NULL);
  do
    n = read(go_rd, &go, 1);
  while(n < 0 && errno == EINTR);
  if(n != 1)
    _exit(127);  /* benchprof gave up before starting us */
  close(go_rd);
  if(out_wr >= 0 && (dup2(out_wr, STDOUT_FILENO) < 0 || close(out_wr)))
    _exit(127);
  if(envp)
    execvpe(argv[0], argv, envp);
  else
    execvp(argv[0], argv);
  int e = errno;
  ssize_t w = write(err_wr, &e, sizeof(e));
  (void)w;
  _exit(127);
}

/* Our environment with add ("NAME=value") in place of any NAME=; built
 * before fork, so the child only execs.  The strings are environ's. */
static char **env_with(const char *add)
{
  extern char **environ;
  size_t n = 0, key = strcspn(add, "=") + 1;
  while(environ[n])
    n++;
  char **envp = malloc((n + 2) * sizeof(*envp));
  if(!envp)
    return NULL;
  size_t j = 0;
  for(size_t i = 0; i < n; i++)
    if(strncmp(environ[i], add, key))
      envp[j++] = environ[i];
  envp[j++] = (char *)add;
  envp[j] = NULL;
  return envp;
}

bp_code bpi_sampler_new(struct bp_sampler **out,
                        const struct bp_sampler_opts *o, struct bp_err *err)
{
  int go[2] = {-1, -1}, ex[2] = {-1, -1}, so[2] = {-1, -1};
  struct bp_sampler *s = calloc(1, sizeof(*s));
  if(!s)
    return bpi_err_set(err, BPE_NOMEM, 0, "sampler");
  s->pidfd = -1;
  s->go_fd = s->exec_err_fd = s->out_fd = -1;
  s->freer.pid = s->freer.wr = -1;
  s->on_output = o->on_output;
  s->output_ctx = o->output_ctx;
  s->input_fd = o->on_input ? o->input_fd : -1;
  s->on_input = o->on_input;
  s->input_ctx = o->input_ctx;
  s->ring_pages = o->ring_pages ? o->ring_pages : DEFAULT_RING_PAGES;
  s->spill_dir = o->spill_dir;
  s->spill_disk_only = o->spill_disk_only;
  s->whole_stacks = o->whole_stacks;
  if(s->ring_pages & (s->ring_pages - 1)) {
    free(s);
    return bpi_err_set(err, BPE_INVAL, 0,
                       "ring pages must be a power of two, not %u",
                       o->ring_pages);
  }
  if(!o->argv || !o->argv[0] || !o->argv[0][0]) {
    free(s);
    return bpi_err_set(err, BPE_INVAL, 0, "no command given");
  }
  char **envp = NULL;
  if(o->env_add && !(envp = env_with(o->env_add))) {
    bpi_err_set(err, BPE_NOMEM, 0, "environment");
    goto fail;
  }
  if(pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC) ||
     (o->on_output && pipe2(so, O_CLOEXEC))) {
    bpi_err_set(err, BPE_SYS, errno, "pipe");
    goto fail;
  }
  note_orig_signals();
  pid_t self = getpid();
  /* No handler of ours may run in the child before it has put back the
   * defaults: it would swallow a signal meant for the command. */
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &before);
  s->pid = fork();
  if(s->pid != 0)
    pthread_sigmask(SIG_SETMASK, &before, NULL);
  if(s->pid < 0) {
    bpi_err_set(err, BPE_SYS, errno, "fork");
    goto fail;
  }
  if(s->pid == 0) {
    close(go[1]);
    close(ex[0]);
    if(so[0] >= 0)
      close(so[0]);
    child_wait_and_exec(go[0], ex[1], so[1], o->argv, envp, self,
                        o->sigmask ? o->sigmask : &before);
  }
  free(envp);
  envp = NULL;
  close(go[0]);
  close(ex[1]);
  s->go_fd = go[1];
  s->exec_err_fd = ex[0];
  if(so[1] >= 0) {
    close(so[1]);
    s->out_fd = so[0];
    fcntl(s->out_fd, F_SETFL, fcntl(s->out_fd, F_GETFL) | O_NONBLOCK);
  }
  s->pidfd = pidfd_open_compat(s->pid);
  *out = s;
  return BP_OK;
fail:
  for(int i = 0; i < 2; i++) {
    if(go[i] >= 0)
      close(go[i]);
    if(ex[i] >= 0)
      close(ex[i]);
    if(so[i] >= 0)
      close(so[i]);
  }
  free(envp);
  free(s);
  return err->code;
}

static void reap(struct bp_sampler *s, int options)
{
  if(s->reaped || s->pid <= 0)
    return;
  int st;
  pid_t r;
  do
    r = waitpid(s->pid, &st, options);
  while(r < 0 && errno == EINTR);
  if(r == s->pid) {
    s->reaped = true;
    s->wait_status = st;
    s->end_ns = bpi_sampler_now_ns(CLOCK_MONOTONIC);
  }
  else if(r < 0 && errno == ECHILD) {
    /* SIGCHLD ignored: the kernel reaped it and kept the status */
    s->reaped = true;
    s->wait_status = 0;
    s->status_lost = true;
    s->end_ns = bpi_sampler_now_ns(CLOCK_MONOTONIC);
  }
}

void bpi_sampler_free(struct bp_sampler *s)
{
  if(!s)
    return;
  if(!s->started && s->pid > 0 && !s->reaped)
    kill(s->pid, SIGKILL);
  if(s->go_fd >= 0)
    close(s->go_fd);  /* a waiting child reads EOF and exits */
  if(s->exec_err_fd >= 0)
    close(s->exec_err_fd);
  reap(s, 0);
  if(s->pidfd >= 0)
    close(s->pidfd);
  if(s->out_fd >= 0)
    close(s->out_fd);
  bpi_sampler_close_events(s);
  free(s->queue);
  free(s->sort_tmp);
  free(s->arena);
  free(s);
}

bp_code bpi_sampler_start(struct bp_sampler *s, struct bp_err *err)
{
  char go = 'g';
  s->start_epoch_ms = (double)bpi_sampler_now_ns(CLOCK_REALTIME) / 1e6;
  s->start_ns = bpi_sampler_now_ns(CLOCK_MONOTONIC);
  s->started = true;
  ssize_t w = write(s->go_fd, &go, 1);
  close(s->go_fd);
  s->go_fd = -1;
  if(w != 1) {
    int e = errno;
    reap(s, 0);
    /* its process was killed while it was held, by a signal that came
     * before the release (its default action, as on the command): that
     * is how the command ended, not a failure to start it */
    if(s->reaped && !s->status_lost && WIFSIGNALED(s->wait_status))
      return BP_OK;
    return bpi_err_set(err, BPE_EXEC, e, "cannot release the command");
  }
  int child_errno = 0;
  ssize_t n;
  do
    n = read(s->exec_err_fd, &child_errno, sizeof(child_errno));
  while(n < 0 && errno == EINTR);
  close(s->exec_err_fd);
  s->exec_err_fd = -1;
  if(n == (ssize_t)sizeof(child_errno)) {
    reap(s, 0);
    return bpi_err_set(err, BPE_EXEC, child_errno, "cannot run the command");
  }
  return BP_OK;
}

static bool child_done(struct bp_sampler *s, const struct pollfd *pidpoll)
{
  if(pidpoll && !(pidpoll->revents & POLLIN))
    return false;
  reap(s, WNOHANG);
  return s->reaped;
}

static bool write_all(int fd, const char *p, size_t len)
{
  while(len) {
    ssize_t n = write(fd, p, len);
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0)
      return false;
    p += n;
    len -= (size_t)n;
  }
  return true;
}

/* Copy what the command wrote to its stdout to ours, unchanged, and hand
 * it to the caller unless it came after the command exited (late: from a
 * process it left behind, not its results).  Reads until the pipe is
 * empty; closes it at EOF. */
static void pump_output(struct bp_sampler *s, bool late)
{
  char buf[65536];
  while(s->out_fd >= 0) {
    ssize_t n = read(s->out_fd, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return;
    if(n <= 0) {
      close(s->out_fd);
      s->out_fd = -1;
      return;
    }
    /* our stdout may be closed (EPIPE; SIGPIPE is ignored here): the
     * command's output still counts for the report */
    if(!s->stdout_broken && !write_all(STDOUT_FILENO, buf, (size_t)n))
      s->stdout_broken = true;
    if(!late)
      s->on_output(s->output_ctx, buf, (size_t)n);
  }
}

/* The relay's body: copy stdin to stdout until either ends. */
static _Noreturn void copy_until_closed(void)
{
  char buf[16384];
  for(;;) {
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    if(n < 0 && errno == EINTR)
      continue;
    if(n <= 0 || !write_all(STDOUT_FILENO, buf, (size_t)n))
      _exit(0);
  }
}

static void close_from(int first)
{
  if(!syscall(SYS_close_range, (unsigned)first, ~0U, 0))
    return;
  long max = sysconf(_SC_OPEN_MAX);
  for(long fd = first; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
    close((int)fd);
}

/* The relay process: the pipe on its stdin, nothing else of ours open,
 * the signals a plain command gets, then cat (so that none of the
 * recording's memory or rings stay mapped while it lives), else the
 * copy loop itself. */
static _Noreturn void relay_child(int fd)
{
  if(fd != STDIN_FILENO && dup2(fd, STDIN_FILENO) < 0)
    _exit(0);
  close_from(STDERR_FILENO + 1);
  fcntl(STDIN_FILENO, F_SETFL,
        fcntl(STDIN_FILENO, F_GETFL) & ~O_NONBLOCK);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  execlp("cat", "cat", (char *)NULL);
  copy_until_closed();
}

/* The relay, detached: a child forks it and exits at once, so the relay
 * is init's (or the subreaper's) to reap, and a run --each that leaves
 * many behind collects no zombies of its own. */
static void start_relay(int fd)
{
  pid_t mid = fork();
  if(mid == 0) {
    if(fork() == 0)
      relay_child(fd);
    _exit(0);
  }
  if(mid > 0)
    while(waitpid(mid, NULL, 0) < 0 && errno == EINTR)
      ;
}

/* After the command exited, its stdout pipe stays open while a process it
 * left behind holds it.  What comes within LATE_OUTPUT_MS is copied here;
 * after that a relay process of ours goes on copying it to our stdout
 * until that process closes it, as the terminal would have shown it
 * without --adapter: the run neither waits for a daemon nor loses what
 * it prints.  Output after the exit is relayed only, never taken as the
 * command's results. */
#define LATE_OUTPUT_MS 250
static void relay_late_output(struct bp_sampler *s)
{
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pump_output(s, false);  /* what it wrote just before it exited */
  while(s->out_fd >= 0) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    long spent = (long)(now.tv_sec - t0.tv_sec) * 1000 +
      (now.tv_nsec - t0.tv_nsec) / 1000000;
    if(spent >= LATE_OUTPUT_MS)
      break;
    struct pollfd p = { .fd = s->out_fd, .events = POLLIN };
    if(poll(&p, 1, (int)(LATE_OUTPUT_MS - spent)) < 0 && errno != EINTR)
      break;
    pump_output(s, true);
  }
  if(s->out_fd < 0)
    return;
  /* our stdout closed: the holder gets EPIPE, as it would have */
  if(!s->stdout_broken)
    start_relay(s->out_fd);
  close(s->out_fd);
  s->out_fd = -1;
}

bp_code bpi_sampler_run(struct bp_sampler *s, bp_record_fn fn, void *ctx,
                        struct bp_err *err)
{
  /* rings, then the pidfd, the command's stdout and the input fd; -1 is
   * skipped */
  uint32_t n = s->ncpus;
  struct pollfd *pfd = calloc(n + 3, sizeof(*pfd));
  if(!pfd)
    return bpi_err_set(err, BPE_NOMEM, 0, "poll set");
  for(uint32_t i = 0; i < n; i++) {
    pfd[i].fd = s->fds[i];
    pfd[i].events = POLLIN;
  }
  pfd[n].fd = s->pidfd;
  pfd[n].events = POLLIN;
  pfd[n + 1].fd = s->out_fd;
  pfd[n + 1].events = POLLIN;
  pfd[n + 2].fd = s->input_fd;
  pfd[n + 2].events = POLLIN;
  bp_code rc = BP_OK, cb_rc = BP_OK;
  while(!s->reaped) {
    /* without a pidfd, look for the exit every 50 ms */
    /* ring wake-ups are edge-triggered: with records left behind, only
     * look whether anything else happened */
    int r = poll(pfd, n + 3, s->rings_behind ? 0 : s->pidfd >= 0 ? 1000 : 50);
    if(r < 0 && errno != EINTR && !rc)
      rc = bpi_err_set(err, BPE_SYS, errno, "poll");
    for(uint32_t i = 0; i < n; i++)
      if(pfd[i].revents & (POLLHUP | POLLERR))
        pfd[i].fd = -1;  /* no more wake-ups from it; drained below */
    if(s->out_fd >= 0 && pfd[n + 1].revents) {
      pump_output(s, false);
      pfd[n + 1].fd = s->out_fd;
    }
    if(s->input_fd >= 0 && pfd[n + 2].revents)
      s->on_input(s->input_ctx);
    bpi_sampler_drain(s, pfd, false, fn, ctx, &rc, &cb_rc, err);
    child_done(s, s->pidfd >= 0 ? &pfd[n] : NULL);
  }
  relay_late_output(s);  /* its children may still write */
  if(s->on_input)
    s->on_input(s->input_ctx);
  bpi_sampler_drain(s, NULL, true, fn, ctx, &rc, &cb_rc, err);
  for(uint32_t i = 0; i < n; i++)
    s->corrupt += s->rings[i].corrupt;
  free(pfd);
  if(!rc && cb_rc)
    rc = cb_rc;
  return rc;
}

pid_t bpi_sampler_pid(const struct bp_sampler *s)
{
  return s->pid;
}

int bpi_sampler_wait_status(const struct bp_sampler *s)
{
  return s->wait_status;
}

uint64_t bpi_sampler_start_ns(const struct bp_sampler *s)
{
  return s->start_ns;
}

double bpi_sampler_start_epoch_ms(const struct bp_sampler *s)
{
  return s->start_epoch_ms;
}

uint64_t bpi_sampler_end_ns(const struct bp_sampler *s)
{
  return s->end_ns;
}

uint64_t bpi_sampler_corrupt(const struct bp_sampler *s)
{
  return s->corrupt;
}

uint64_t bpi_sampler_spilled(const struct bp_sampler *s, uint64_t *trimmed)
{
  *trimmed = s->spill_trimmed;
  return s->spilled;
}

uint64_t bpi_sampler_stack_tops_learned(const struct bp_sampler *s)
{
  return s->tops_stats.learned;
}

uint64_t bpi_sampler_spill_freed(const struct bp_sampler *s)
{
  return s->spill_freed;
}

uint64_t bpi_sampler_queue_peak(const struct bp_sampler *s)
{
  return s->queue_peak;
}

int bpi_sampler_spill_errno(const struct bp_sampler *s)
{
  return s->spill_errno;
}
