#include "bp_setup.h"
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

/* Dwfl handles kept at once; the least recently used one goes first (each
 * holds its modules' files open). */
#define MAX_PROCS 32

/* perf's x86-64 register numbers (asm/perf_regs.h) */
enum {
  X86_AX = 0, X86_BX, X86_CX, X86_DX, X86_SI, X86_DI, X86_BP, X86_SP,
  X86_IP, X86_R8 = 16,
};
/* The DWARF register order libdwfl wants (0..16, 16 being the pc):
 * rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int dwarf_to_perf[17] = {
  X86_AX, X86_DX, X86_CX, X86_BX, X86_SI, X86_DI, X86_BP, X86_SP,
  X86_R8, X86_R8 + 1, X86_R8 + 2, X86_R8 + 3, X86_R8 + 4, X86_R8 + 5,
  X86_R8 + 6, X86_R8 + 7, X86_IP,
};

struct uproc {
  uint32_t pid;
  Dwfl *dwfl;
  bool attached;   /* dwfl_attach_state succeeded */
  uint64_t used;   /* tick of the last use */
};

struct bp_unwind {
  struct uproc procs[MAX_PROCS];
  uint32_t nprocs;
  uint64_t tick;
  char *debuginfo_path;
  Dwfl_Callbacks cb;
  /* the sample being unwound */
  const struct bp_unwind_sample *cur;
  uint64_t sp;
  bool truncated;    /* a read above the stack copy failed */
  bool read_failed;  /* any read failed (libdwfl then ends the stack) */
  uint64_t *pcs;
  uint32_t max, n;
};

uint64_t bpi_unwind_regs_mask(void)
{
#if defined(__x86_64__)
  return ((1ULL << (X86_IP + 1)) - 1) | (0xffULL << X86_R8);
#else
  return 0;
#endif
}

/* Whether elf has call frame information of its own (.eh_frame). */
static bool has_eh_frame(Elf *elf)
{
  size_t shstrndx;
  if(!elf || elf_getshdrstrndx(elf, &shstrndx))
    return false;
  for(Elf_Scn *scn = elf_nextscn(elf, NULL); scn;
      scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if(!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
       !sh.sh_size)
      continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if(name && !strcmp(name, ".eh_frame"))
      return true;
  }
  return false;
}

/* The separate debug file only when the module has no .eh_frame: libdwfl
 * looks for .debug_frame first, and opening a debug file (libc6-dbg's is
 * compressed) to find it costs far more than the unwinding itself, while
 * .eh_frame says the same. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
                          const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
  Dwarf_Addr bias;
  if(has_eh_frame(dwfl_module_getelf(mod, &bias)))
    return -1;
  return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
                                      file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

bp_code bpi_unwind_new(struct bp_unwind **out)
{
  struct bp_unwind *u = calloc(1, sizeof(*u));
  if(!u)
    return BPE_NOMEM;
  u->cb.find_elf = dwfl_build_id_find_elf;
  u->cb.find_debuginfo = find_debuginfo;
  u->cb.section_address = dwfl_offline_section_address;
  u->cb.debuginfo_path = &u->debuginfo_path;
  *out = u;
  return BP_OK;
}

void bpi_unwind_free(struct bp_unwind *u)
{
  if(!u)
    return;
  for(uint32_t i = 0; i < u->nprocs; i++)
    dwfl_end(u->procs[i].dwfl);
  free(u);
}

static struct uproc *find_proc(struct bp_unwind *u, uint32_t pid)
{
  for(uint32_t i = 0; i < u->nprocs; i++)
    if(u->procs[i].pid == pid)
      return &u->procs[i];
  return NULL;
}

bool bpi_unwind_has_proc(struct bp_unwind *u, uint32_t pid)
{
  return find_proc(u, pid) != NULL;
}

/* The value of perf register idx in the sample, false when not sampled. */
static bool sample_reg(const struct bp_unwind_sample *s, int idx,
                       uint64_t *val)
{
  if(!(s->regs_mask & (1ULL << idx)))
    return false;
  uint32_t pos = (uint32_t)__builtin_popcountll(s->regs_mask &
                                                ((1ULL << idx) - 1));
  if(pos >= s->nregs)
    return false;
  *val = s->regs[pos];
  return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
  struct bp_unwind *u = arg;
  (void)dwfl;
  if(*thread_argp)
    return 0;
  *thread_argp = u;
  return (pid_t)u->cur->tid;
}

/* A word of the process's memory: from the stack copy, else from the
 * mapped file holding it. */
static bool read_file_word(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out)
{
  Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
  Dwarf_Addr bias;
  Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
  size_t phnum;
  if(!elf || elf_getphdrnum(elf, &phnum))
    return false;
  uint64_t vaddr = addr - bias;
  for(size_t i = 0; i < phnum; i++) {
    GElf_Phdr ph;
    if(!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
      continue;
    if(vaddr < ph.p_vaddr || ph.p_filesz < 8 ||
       vaddr - ph.p_vaddr > ph.p_filesz - 8)
      continue;
    Elf_Data *d = elf_getdata_rawchunk(elf,
                                       (int64_t)(ph.p_offset + vaddr -
                                                 ph.p_vaddr),
                                       8, ELF_T_BYTE);
    if(!d || !d->d_buf || d->d_size < 8)
      return false;
    memcpy(out, d->d_buf, 8);
    return true;
  }
  return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
                        void *arg)
{
  struct bp_unwind *u = arg;
  uint64_t len = u->cur->stack_len;
  if(addr >= u->sp && len >= 8 && addr - u->sp <= len - 8) {
    memcpy(result, u->cur->stack + (addr - u->sp), 8);
    return true;
  }
  if(addr >= u->sp) {
    /* above the copy: stack the kernel did not copy, unless a file is
     * mapped there */
    if(read_file_word(dwfl, addr, result))
      return true;
    u->truncated = true;
    u->read_failed = true;
    return false;
  }
  if(read_file_word(dwfl, addr, result))
    return true;
  u->read_failed = true;
  return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
  struct bp_unwind *u = arg;
  Dwarf_Word regs[17];
  for(int i = 0; i < 17; i++) {
    uint64_t v;
    if(!sample_reg(u->cur, dwarf_to_perf[i], &v))
      return false;
    regs[i] = v;
  }
  if(!dwfl_thread_state_registers(thread, 0, 17, regs))
    return false;
  dwfl_thread_state_register_pc(thread, regs[16]);
  return true;
}

static const Dwfl_Thread_Callbacks thread_cb = {
  .next_thread = next_thread,
  .memory_read = memory_read,
  .set_initial_registers = set_initial_registers,
};

/* A free slot, evicting the least recently used process when full. */
static struct uproc *new_slot(struct bp_unwind *u)
{
  if(u->nprocs < MAX_PROCS)
    return &u->procs[u->nprocs++];
  struct uproc *old = &u->procs[0];
  for(uint32_t i = 1; i < u->nprocs; i++)
    if(u->procs[i].used < old->used)
      old = &u->procs[i];
  dwfl_end(old->dwfl);
  memset(old, 0, sizeof(*old));
  return old;
}

bp_code bpi_unwind_add_proc(struct bp_unwind *u, uint32_t pid,
                            const struct bp_unwind_module *mods, uint32_t n)
{
  struct uproc *p = find_proc(u, pid);
  if(p) {
    dwfl_end(p->dwfl);
    memset(p, 0, sizeof(*p));
  }
  else {
    p = new_slot(u);
  }
  p->pid = pid;
  p->used = ++u->tick;
  p->dwfl = dwfl_begin(&u->cb);
  if(!p->dwfl)
    return BPE_NOMEM;
  dwfl_report_begin(p->dwfl);
  bool any = false;
  for(uint32_t i = 0; i < n; i++) {
    /* a file that cannot be read or overlaps another is left out */
    if(dwfl_report_elf(p->dwfl, mods[i].path, mods[i].path, -1,
                       mods[i].bias, false))
      any = true;
  }
  dwfl_report_end(p->dwfl, NULL, NULL);
  if(any)
    p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)pid, &thread_cb,
                                    u);
  return BP_OK;
}

static int on_frame(Dwfl_Frame *f, void *arg)
{
  struct bp_unwind *u = arg;
  Dwarf_Addr pc;
  bool activation;
  if(!dwfl_frame_pc(f, &pc, &activation))
    return DWARF_CB_ABORT;
  if(u->n >= u->max)
    return DWARF_CB_ABORT;
  /* a return address points after its call */
  u->pcs[u->n++] = activation ? pc : pc - 1;
  return DWARF_CB_OK;
}

enum bp_unwind_status bpi_unwind_sample(struct bp_unwind *u,
                                        const struct bp_unwind_sample *s,
                                        uint64_t *pcs, uint32_t max,
                                        uint32_t *n)
{
  uint64_t ip = 0;
  *n = 0;
  if(!max || !sample_reg(s, X86_IP, &ip))
    return BP_UNWIND_FAILED;
  struct uproc *p = find_proc(u, s->pid);
  uint64_t sp;
  if(!p || !p->attached || !sample_reg(s, X86_SP, &sp)) {
    pcs[(*n)++] = ip;
    return BP_UNWIND_FAILED;
  }
  p->used = ++u->tick;
  u->cur = s;
  u->sp = sp;
  u->truncated = false;
  u->read_failed = false;
  u->pcs = pcs;
  u->max = max;
  u->n = 0;
  int rc = dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, on_frame, u);
  *n = u->n;
  u->cur = NULL;
  if(!*n)
    pcs[(*n)++] = ip;
  /* a failed read leaves the return address unset, which libdwfl takes
   * for the outermost frame: rc is 0 then too */
  if(u->truncated)
    return BP_UNWIND_TRUNCATED;
  if((rc == 0 && !u->read_failed) || u->n >= max)
    return BP_UNWIND_COMPLETE;
  return BP_UNWIND_FAILED;
}
