/* hostile [BMF]: names made of the classic injection payloads, in every
 * place a benchmark can put a name.  For each payload, one after another:
 *   - a benchmark (benchprof/hooks.h) named by it,
 *   - a thread named by it (PR_SET_NAME keeps 15 bytes),
 *   - which spends about 0.05 s in JIT code that /tmp/perf-PID.map names
 *     by it (a newline cannot be in a map line: there it is a tab).
 * With BMF, also writes a Bencher Metric Format file whose benchmark
 * names are the payloads.  x86-64 only (exits 77 elsewhere). */
#define _GNU_SOURCE
#include "benchprof/hooks.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static const char *const payloads[] = {
  "q\"uote\\back",
  "</script><b>x",
  "]]><!--&amp;'",
  "<img src=x onerror=alert(1)>",
  "ctl\x01\x1b[31m\x7f",
  "bad\xff\xfe\xc3(utf8",
  "{{x}}${y}%s%n",
  "new\nline\r\ttab",
};
#define NPAYLOADS (sizeof(payloads) / sizeof(payloads[0]))

#if defined(__x86_64__)
/* mov rcx, imm64; 1: dec rcx; jnz 1b; ret */
static const unsigned char loop_code[] = {
  0x48, 0xb9, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
  0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3,
};
#define SLOT 64

static unsigned char *code;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
  size_t i = (size_t)arg;
  char name[16];
  snprintf(name, sizeof(name), "%s", payloads[i]);
  prctl(PR_SET_NAME, name);
  void (*fn)(void) = (void (*)(void))(uintptr_t)(code + SLOT * (i + 1));
  double end = now() + 0.05;
  while(now() < end)
    fn();
  return NULL;
}

/* s as a JSON string, escaped, bytes >= 0x80 as they are */
static void json_str(FILE *f, const char *s)
{
  fputc('"', f);
  for(const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if(*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if(*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static int write_bmf(const char *path)
{
  FILE *f = fopen(path, "w");
  if(!f) {
    perror(path);
    return 1;
  }
  fputc('{', f);
  for(size_t i = 0; i < NPAYLOADS; i++) {
    fputs(i ? ",\n" : "\n", f);
    json_str(f, payloads[i]);
    fprintf(f, ": {\"latency\": {\"value\": %zu}}", i + 1);
  }
  fputs("\n}\n", f);
  return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
  size_t len = (size_t)sysconf(_SC_PAGESIZE);
  code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if(code == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  char path[64];
  snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
  FILE *map = fopen(path, "w");
  if(!map) {
    perror(path);
    return 1;
  }
  for(size_t i = 0; i < NPAYLOADS; i++) {
    unsigned char *fn = code + SLOT * (i + 1);
    memcpy(fn, loop_code, sizeof(loop_code));
    fprintf(map, "%lx %zx ", (unsigned long)(uintptr_t)fn,
            sizeof(loop_code));
    for(const char *p = payloads[i]; *p; p++)
      fputc(*p == '\n' ? '\t' : *p, map);
    fputc('\n', map);
  }
  if(fclose(map))
    return 1;
  for(size_t i = 0; i < NPAYLOADS; i++) {
    pthread_t t;
    benchprof_begin(payloads[i]);
    if(pthread_create(&t, NULL, worker, (void *)i)) {
      fprintf(stderr, "hostile: pthread_create failed\n");
      return 1;
    }
    pthread_join(t, NULL);
    benchprof_end();
  }
  if(argc > 1 && write_bmf(argv[1]))
    return 1;
  printf("%s\n", path);
  return 0;
}
#else
int main(void)
{
  fprintf(stderr, "hostile: x86-64 only\n");
  return 77;
}
#endif
