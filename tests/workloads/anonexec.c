/* Code that no file names, the same in every run at other addresses:
 * the process execs itself EXECS times (the samples taken while the
 * kernel loads each new image have their user-space frame, the execve
 * call, in the image the exec replaces; the first one's is benchprof's
 * own, forked), then runs for about SECONDS of its CPU time a busy loop
 * copied into anonymous executable memory that no /tmp/perf-PID.map
 * names (a JIT without one).  x86-64 only.
 *
 *   anonexec EXECS SECONDS  -> exits 0 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* mov rcx, imm64; 1: dec rcx; jnz 1b; ret */
static const unsigned char loop_code[] = {
  0x48, 0xb9, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x48, 0xff, 0xc9,
  0x75, 0xfb,
  0xc3,
};

static double cpu_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int run_anonymous_code(double secs)
{
  size_t len = (size_t)sysconf(_SC_PAGESIZE);
  unsigned char *code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(code == MAP_FAILED) {
    perror("anonexec: mmap");
    return 1;
  }
  memcpy(code + 64, loop_code, sizeof(loop_code));
  void (*run)(void) = (void (*)(void))(uintptr_t)(code + 64);
  double end = cpu_seconds() + secs;
  while(cpu_seconds() < end)
    run();
  return 0;
}
#endif

int main(int argc, char **argv)
{
#if defined(__x86_64__)
  if(argc != 3) {
    fprintf(stderr, "usage: anonexec EXECS SECONDS\n");
    return 2;
  }
  long execs = atol(argv[1]);
  if(execs > 0) {
    /* by its path, not /proc/self/exe: the process keeps its name */
    char self[4096], left[24];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if(n <= 0) {
      perror("anonexec: /proc/self/exe");
      return 1;
    }
    self[n] = '\0';
    snprintf(left, sizeof(left), "%ld", execs - 1);
    char *args[] = {argv[0], left, argv[2], NULL};
    execv(self, args);
    perror("anonexec: execv");
    return 1;
  }
  return run_anonymous_code(atof(argv[2]));
#else
  (void)argc;
  (void)argv;
  fprintf(stderr, "anonexec: x86-64 only\n");
  return 77;
#endif
}
