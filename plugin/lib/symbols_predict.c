/* The modules a program will map, as far as they can be told before it
 * runs (symbols.h, bpi_symbols_predict): so that preload.c reads their
 * tables while the rings are being set up, before the command starts. */
#include "bp_setup.h"
#include "symbols_int.h"

#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct paths {
  char **v;       /* NULL-terminated once done */
  size_t n, cap;
  bool failed;    /* out of memory */
};

/* Add path as the kernel will name its mapping: symbolic links resolved
 * (the merged /usr's /lib -> usr/lib too).  Once each. */
static void add_path(struct paths *p, const char *path, bool resolve)
{
  char *name = resolve ? realpath(path, NULL) : strdup(path);
  if(!name) {
    p->failed |= !resolve;  /* a path that does not resolve is skipped */
    return;
  }
  for(size_t i = 0; i < p->n; i++)
    if(!strcmp(p->v[i], name)) {
      free(name);
      return;
    }
  char **v = grow_array(p->v, &p->cap, p->n + 2, sizeof(*v));
  if(!v) {
    free(name);
    p->failed = true;
    return;
  }
  p->v = v;
  p->v[p->n++] = name;
}

/* The file execvp() runs for argv0: itself when it holds a '/', else the
 * first executable regular file of that name in search_path's
 * directories (an empty one is the current directory); NULL when none. */
static char *find_program(const char *argv0, const char *search_path)
{
  if(strchr(argv0, '/'))
    return strdup(argv0);
  const char *dirs = search_path ? search_path : "/bin:/usr/bin";
  for(const char *d = dirs; ; d++) {
    size_t len = strcspn(d, ":");
    char file[PATH_MAX];
    int n = snprintf(file, sizeof(file), "%.*s%s%s", (int)len, d,
                     len ? "/" : "", argv0);
    struct stat st;
    if(n > 0 && (size_t)n < sizeof(file) && !stat(file, &st) &&
       S_ISREG(st.st_mode) && !access(file, X_OK))
      return strdup(file);
    d += len;
    if(!*d)
      return NULL;
  }
}

struct loaded {
  struct paths *p;
  const char *soname;
};

/* dl_iterate_phdr: the library of ours whose file name is the soname. */
static int add_if_loaded(struct dl_phdr_info *info, size_t size, void *ctx)
{
  (void)size;
  struct loaded *l = ctx;
  const char *name = info->dlpi_name;
  if(!name || !*name)
    return 0;
  const char *base = strrchr(name, '/');
  if(strcmp(base ? base + 1 : name, l->soname))
    return 0;
  add_path(l->p, name, true);
  return 1;
}

/* The program's dynamic loader (PT_INTERP). */
static void add_interpreter(struct paths *p, Elf *elf)
{
  size_t nph, len;
  const char *raw = elf_rawfile(elf, &len);
  if(!raw || elf_getphdrnum(elf, &nph))
    return;
  for(size_t i = 0; i < nph; i++) {
    GElf_Phdr ph;
    if(!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_INTERP ||
       ph.p_offset >= len || ph.p_filesz > len - ph.p_offset ||
       ph.p_filesz >= PATH_MAX)
      continue;
    char interp[PATH_MAX];
    memcpy(interp, raw + ph.p_offset, ph.p_filesz);
    interp[ph.p_filesz] = '\0';
    add_path(p, interp, true);
  }
}

/* The libraries the program needs (DT_NEEDED, not theirs) that benchprof
 * has loaded too: the loader finds the same soname in the same place
 * unless the program's RUNPATH or environment says otherwise, and then
 * the table read is only not used. */
static void add_needed(struct paths *p, Elf *elf)
{
  Elf_Scn *scn = NULL;
  while((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if(!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
       !sh.sh_entsize)
      continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = sh.sh_size / sh.sh_entsize;
    for(size_t i = 0; data && i < n; i++) {
      GElf_Dyn dyn;
      if(!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
        continue;
      struct loaded l = {p, elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)};
      if(l.soname)
        dl_iterate_phdr(add_if_loaded, &l);
    }
  }
}

/* An ELF program of our class, with what it needs; nothing of a script
 * (its interpreter is what the kernel maps, found in the maps later). */
static void add_program(struct paths *p, const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return;
  Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  if(elf && elf_kind(elf) == ELF_K_ELF &&
     gelf_getclass(elf) == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    add_path(p, path, true);
    add_interpreter(p, elf);
    add_needed(p, elf);
  }
  elf_end(elf);
  close(fd);
}

char **bpi_symbols_predict(const char *argv0, const char *search_path)
{
  struct paths p = {0};
  elf_version(EV_CURRENT);  /* when no symbolizer was made yet */
  char *exe = argv0 ? find_program(argv0, search_path) : NULL;
  if(exe)
    add_program(&p, exe);
  free(exe);
  add_path(&p, VDSO_PATH, false);  /* the kernel's, the same in all */
  if(p.v)
    p.v[p.n] = NULL;  /* add_path keeps room for it */
  if(p.failed) {
    bpi_symbols_predict_free(p.v);
    return NULL;
  }
  return p.v;
}

void bpi_symbols_predict_free(char **paths)
{
  for(size_t i = 0; paths && paths[i]; i++)
    free(paths[i]);
  free(paths);
}
