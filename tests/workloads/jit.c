/* A tiny JIT: copies a busy loop of machine code into anonymous executable
 * memory, announces it in /tmp/perf-PID.map the way JVMs and Node do, and
 * runs it for about argv[1] seconds.  x86-64 only.
 *
 *   jit SECONDS  -> prints the map file's path, exits 0 */
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
  0x48, 0xb9, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x48, 0xff, 0xc9,
  0x75, 0xfb,
  0xc3,
};
#endif

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
  double secs = argc > 1 ? atof(argv[1]) : 0.5;
  size_t len = (size_t)sysconf(_SC_PAGESIZE);
  unsigned char *code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(code == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  /* a little way into the page, so the address is not the mapping start */
  unsigned char *fn = code + 64;
  memcpy(fn, loop_code, sizeof(loop_code));
  char path[64];
  snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
  FILE *map = fopen(path, "w");
  if(!map) {
    perror(path);
    return 1;
  }
  fprintf(map, "%lx %zx jit_hot_loop\n", (unsigned long)(uintptr_t)fn,
          sizeof(loop_code));
  fclose(map);
  void (*run)(void) = (void (*)(void))(uintptr_t)fn;
  double end = now() + secs;
  while(now() < end)
    run();
  printf("%s\n", path);
  return 0;
#else
  (void)argc;
  (void)argv;
  fprintf(stderr, "jit: x86-64 only\n");
  return 77;
#endif
}
