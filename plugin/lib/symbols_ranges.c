/* symbols_ranges: symbols that are address ranges in a text file: the
 * kernel's (kallsyms) and a JIT's (perf-PID.map). */
#include "bp_setup.h"
#include "symbols_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* kallsyms has no sizes: the last symbol is taken to end one page on,
 * as perf does. */
#define KSYM_LAST_SIZE 4096

static int range_cmp(const void *a, const void *b)
{
  const struct range *x = a, *y = b;
  if(x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort and keep one symbol per start address: the first in the file when
 * keep_last is false (kallsyms aliases), the last when true (a JIT that
 * writes the same address again has replaced the code). */
static void range_sort(struct range_table *t, bool keep_last)
{
  if(!t->count)
    return;
  /* kallsyms comes in address order (its 100,000 symbols: a tenth of
   * reading it went to sorting them again) */
  size_t sorted = 1;
  while(sorted < t->count &&
        range_cmp(&t->r[sorted - 1], &t->r[sorted]) < 0)
    sorted++;
  if(sorted < t->count)
    qsort(t->r, t->count, sizeof(*t->r), range_cmp);
  size_t n = 0;
  for(size_t i = 0; i < t->count; i++) {
    if(n && t->r[n - 1].start == t->r[i].start) {
      if(keep_last)
        t->r[n - 1] = t->r[i];
      continue;
    }
    t->r[n++] = t->r[i];
  }
  t->count = n;
}

static bool range_add(struct bp_symbols *s, struct range_table *t,
                      uint64_t start, uint64_t end, const char *name)
{
  if(t->count >= UINT32_MAX)
    return false;
  struct range *r = grow_array(t->r, &t->cap, t->count + 1, sizeof(*r));
  if(!r)
    return false;
  t->r = r;
  uint32_t id = bpi_strtab_intern(&s->strs, name);
  if(id == BP_NONE)
    return false;
  t->r[t->count] = (struct range){ .start = start, .end = end, .name = id,
                                   .seq = (uint32_t)t->count };
  t->count++;
  return true;
}

static bool range_lookup(struct bp_symbols *s, struct range_table *t,
                         uint64_t addr, struct bp_sym *out)
{
  /* first symbol that starts after addr; the one before may cover it */
  size_t lo = 0, hi = t->count;
  while(lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if(t->r[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if(!lo || addr >= t->r[lo - 1].end)
    return false;
  struct range *r = &t->r[lo - 1];
  if(r->text) {
    uint32_t id = bpi_strtab_intern(&s->strs, r->text);
    if(id == BP_NONE)
      return false;
    r->name = id;
    r->text = NULL;
  }
  if(s->demangle && !r->demangled) {
    /* demangle lazily: most of the 100k+ kernel symbols are never hit */
    char *dm = bpi_symbols_demangle(bpi_strtab_get(&s->strs, r->name));
    uint32_t id = dm ? bpi_strtab_intern(&s->strs, dm) : BP_NONE;
    free(dm);
    if(id != BP_NONE)
      r->name = id;
    r->demangled = true;
  }
  out->name = bpi_strtab_get(&s->strs, r->name);
  out->file = NULL;
  out->line = 0;
  out->start_line = 0;
  out->inlines = NULL;
  out->ninlines = 0;
  out->unnamed = false;
  return true;
}

/* A hex number at *p, with or without 0x; moves *p past it. */
static bool parse_hex(char **p, uint64_t *val)
{
  char *end;
  errno = 0;
  unsigned long long v = strtoull(*p, &end, 16);
  if(end == *p || errno || (*end != ' ' && *end != '\t'))
    return false;
  *val = v;
  *p = end;
  return true;
}

static char *skip_blanks(char *p)
{
  while(*p == ' ' || *p == '\t')
    p++;
  return p;
}

static void chomp(char *line, ssize_t len)
{
  while(len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    line[--len] = '\0';
}

/* "ADDR TYPE NAME[\t[module]]": keep code symbols (t, T, w, W). */
static bool kallsyms_line(char *line, uint64_t *addr, char **name)
{
  char *p = line;
  if(!parse_hex(&p, addr))
    return false;
  p = skip_blanks(p);
  char type = *p;
  if(type != 't' && type != 'T' && type != 'w' && type != 'W')
    return false;
  p = skip_blanks(p + 1);
  if(!*p)
    return false;
  *name = p;
  p += strcspn(p, " \t");
  *p = '\0';
  return true;
}

/* The whole of a file that has no size (/proc), NUL-terminated; NULL
 * when it cannot be read. */
static char *read_all(const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return NULL;
  size_t len = 0, cap = 1 << 20;
  char *buf = malloc(cap);
  while(buf) {
    if(cap - len < 2) {
      char *more = realloc(buf, cap * 2);
      if(!more)
        break;
      buf = more;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + len, cap - len - 1);
    if(n < 0 && errno == EINTR)
      continue;
    if(n == 0) {
      buf[len] = '\0';
      close(fd);
      return buf;
    }
    if(n < 0)
      break;
    len += (size_t)n;
  }
  free(buf);
  close(fd);
  return NULL;
}

/* Read kallsyms (once per recording, or once for several: check_kernel):
 * the whole text at once, its lines cut in place, and a name interned
 * only when a sample falls in it (a handful of 100,000).  A missing file
 * or one with every address zero (kptr_restrict) leaves the table empty,
 * so kernel lookups fail. */
static void kallsyms_load(struct bp_symbols *s)
{
  struct range_table *t = &s->kernel;
  char *text = read_all(s->kallsyms);
  if(!text)
    return;
  s->kernel_text = text;
  for(char *line = text, *next; *line; line = next) {
    char *nl = strchr(line, '\n');
    next = nl ? nl + 1 : line + strlen(line);
    if(nl)
      *nl = '\0';
    uint64_t addr;
    char *name;
    chomp(line, nl ? nl - line : (ssize_t)strlen(line));
    if(!kallsyms_line(line, &addr, &name) || !addr)
      continue;
    if(t->count >= UINT32_MAX)
      break;
    struct range *r = grow_array(t->r, &t->cap, t->count + 1, sizeof(*r));
    if(!r)
      break;
    t->r = r;
    t->r[t->count] = (struct range){.start = addr, .text = name,
                                    .name = BP_NONE,
                                    .seq = (uint32_t)t->count};
    t->count++;
  }
  range_sort(t, false);
  /* each symbol ends where the next begins */
  for(size_t i = 0; i < t->count; i++)
    t->r[i].end = i + 1 < t->count ? t->r[i + 1].start :
                  t->r[i].start + KSYM_LAST_SIZE;
}

void bpi_sym_forget_kernel(struct bp_symbols *s)
{
  free(s->kernel_text);
  s->kernel_text = NULL;
  free(s->kernel.r);
  memset(&s->kernel, 0, sizeof(s->kernel));
  s->kernel_loaded = false;
}

/* A hash of /proc/modules: the kernel's symbols change when a module is
 * loaded or unloaded (0 without modules). */
static uint64_t modules_hash(void)
{
  FILE *f = fopen("/proc/modules", "re");
  if(!f)
    return 0;
  char buf[65536];
  uint64_t h = 0;
  size_t n;
  while((n = fread(buf, 1, sizeof(buf), f)) > 0)
    h = h * 1099511628211u ^ bpi_hash_bytes(buf, n);
  fclose(f);
  return h;
}

/* kallsyms as read by an earlier recording of this symbolizer is kept
 * while neither it (as a file) nor the list of modules changed: reading
 * and sorting its 100,000 lines is a fifth of a second here, once per
 * benchmark of a --each run that samples the kernel. */
static void check_kernel(struct bp_symbols *s)
{
  if(!s->kernel_loaded || s->kernel_checked == s->recording)
    return;
  s->kernel_checked = s->recording;
  struct file_id now = bpi_sym_file_id(s->kallsyms);
  if(bpi_sym_same_file(&s->kernel_file, &now) &&
     s->kernel_modules == modules_hash())
    s->tables.reused++;
  else
    bpi_sym_forget_kernel(s);
}

bool bpi_symbols_resolve_kernel(struct bp_symbols *s, uint64_t addr,
                                struct bp_sym *out)
{
  check_kernel(s);
  if(!s->kernel_loaded) {
    s->kernel_loaded = true;
    s->kernel_checked = s->recording;
    s->kernel_file = bpi_sym_file_id(s->kallsyms);
    s->kernel_modules = modules_hash();
    kallsyms_load(s);
    s->tables.read++;
  }
  return range_lookup(s, &s->kernel, addr, out);
}

/* "START SIZE name with spaces": both numbers hex, 0x optional. */
static bool jit_line(char *line, uint64_t *start, uint64_t *size,
                     char **name)
{
  char *p = skip_blanks(line);
  if(!parse_hex(&p, start))
    return false;
  p = skip_blanks(p);
  if(!parse_hex(&p, size))
    return false;
  p = skip_blanks(p);
  if(!*p || !*size || *start + *size < *start)
    return false;
  *name = p;
  return true;
}

/* Read jit_map_dir/perf-PID.map into t; a missing file gives an empty
 * table, which is kept so the file is looked for once. */
static void jit_load(struct bp_symbols *s, pid_t pid, struct range_table *t)
{
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s/perf-%ld.map", s->jit_map_dir,
                   (long)pid);
  if(n < 0 || (size_t)n >= sizeof(path))
    return;
  FILE *f = fopen(path, "re");
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  if(!f)
    return;
  while((len = getline(&line, &cap, f)) > 0) {
    uint64_t start, size;
    char *name;
    chomp(line, len);
    if(!jit_line(line, &start, &size, &name))
      continue;
    if(!range_add(s, t, start, start + size, name))
      break;
  }
  free(line);
  fclose(f);
  range_sort(t, true);
}

bool bpi_symbols_resolve_jit(struct bp_symbols *s, pid_t pid, uint64_t addr,
                             struct bp_sym *out)
{
  uint32_t i = bpi_map_get(&s->jit_of, (uint64_t)pid, 0);
  if(i == BP_NONE) {
    struct range_table *jits = grow_array(s->jits, &s->jits_cap,
                                          s->njits + 1, sizeof(*jits));
    if(!jits)
      return false;
    s->jits = jits;
    struct range_table *t = &s->jits[s->njits];
    memset(t, 0, sizeof(*t));
    jit_load(s, pid, t);
    i = (uint32_t)s->njits;
    if(bpi_map_put(&s->jit_of, (uint64_t)pid, 0, i)) {
      free(t->r);
      return false;
    }
    s->njits++;
  }
  return range_lookup(s, &s->jits[i], addr, out);
}
