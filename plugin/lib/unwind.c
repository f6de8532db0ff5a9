#include "bp_setup.h"
#include "unwind.h"

#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
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

/* DWARF register numbers of x86-64 */
enum { DW_RBP = 6, DW_RSP = 7, DW_RIP = 16, DW_NREGS = 17 };

/* A row of CFI compiled for the fast path.  x86-64 code nearly always says
 * "CFA = rsp or rbp + N, the return address at CFA + k, rbp unchanged or
 * saved at CFA + m", which a tight loop over the stack copy applies far
 * faster than libdwfl's general machinery (a frame state per frame, every
 * register evaluated as an expression).  Any other row is slow: the whole
 * sample then goes through libdwfl. */
struct urule {
  uint64_t start, end;  /* runtime addresses it covers */
  bool slow;
  bool cfa_on_rbp;      /* else on rsp */
  bool ra_undefined;    /* the outermost frame (_start, clone) */
  uint8_t rbp_rule;     /* enum rbp_rule */
  uint8_t nsaved;
  int64_t cfa_off, ra_off, rbp_off;
  /* every register read from the stack, for libdwfl's failed reads */
  int32_t saved_off[DW_NREGS];
  int64_t lo_off, hi_off;
};

enum rbp_rule { RBP_SAME, RBP_SAVED, RBP_UNDEFINED };

/* A module of a process as libdwfl placed it, with its CFI and the rows
 * compiled so far (sorted by start, never overlapping). */
struct umod {
  uint64_t start, end;
  Dwfl_Module *mod;
  bool eh_loaded, dwarf_loaded;
  Dwarf_CFI *eh, *dwarf;
  Dwarf_Addr eh_bias, dwarf_bias;
  struct urule *rules;
  uint32_t nrules, cap;
  uint8_t entry_state;  /* 0: not read yet, 1: entry known, 2: none */
  uint64_t entry;       /* runtime address of the ELF entry point */
};

struct uproc {
  uint32_t pid;
  Dwfl *dwfl;
  bool attached;   /* dwfl_attach_state succeeded */
  uint64_t used;   /* tick of the last use */
  struct umod *mods;  /* sorted by start */
  uint32_t nmods;
  uint32_t last;   /* the module found last */
};

struct bp_unwind {
  struct uproc procs[MAX_PROCS];
  uint32_t nprocs;
  uint64_t tick;
  char *debuginfo_path;
  Dwfl_Callbacks cb;
  Dwfl_Callbacks live_cb;  /* bpi_unwind_add_live_proc: files by path */
  /* the sample being unwound */
  const struct bp_unwind_sample *cur;
  uint64_t sp;
  bool truncated;    /* a read above the stack copy failed */
  bool read_failed;  /* any read failed (libdwfl then ends the stack) */
  uint64_t *pcs;
  uint32_t max, n;
  uint64_t hi;       /* end of the highest word read from the copy */
  bool slow_only;    /* bpi_unwind_set_fast(u, false) */
  uint32_t last_proc;  /* index of the process found last */
  /* where each perf register sits in the samples of regs_mask */
  uint64_t regs_mask;
  int8_t reg_pos[64];
  uint32_t regs_needed;  /* 0: libdwfl's 17 are not all sampled */
  struct bp_unwind_stats stats;
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
 * .eh_frame says the same.  Found by build id, locally: the standard
 * search would end with debuginfod (see symbols.c). */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
                          const char *modname, Dwarf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name)
{
  Dwarf_Addr bias;
  if(has_eh_frame(dwfl_module_getelf(mod, &bias)))
    return -1;
  return dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
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
  u->live_cb = u->cb;
  u->live_cb.find_elf = dwfl_linux_proc_find_elf;
  *out = u;
  return BP_OK;
}

/* Release a process's Dwfl and compiled rows; the slot is zeroed. */
static void proc_clear(struct uproc *p)
{
  for(uint32_t i = 0; i < p->nmods; i++)
    free(p->mods[i].rules);
  free(p->mods);
  dwfl_end(p->dwfl);
  memset(p, 0, sizeof(*p));
}

void bpi_unwind_free(struct bp_unwind *u)
{
  if(!u)
    return;
  for(uint32_t i = 0; i < u->nprocs; i++)
    proc_clear(&u->procs[i]);
  free(u);
}

void bpi_unwind_get_stats(const struct bp_unwind *u,
                          struct bp_unwind_stats *out)
{
  *out = u->stats;
}

void bpi_unwind_set_fast(struct bp_unwind *u, bool on)
{
  u->slow_only = !on;
}

static struct uproc *find_proc(struct bp_unwind *u, uint32_t pid)
{
  /* samples come in runs of one process */
  if(u->last_proc < u->nprocs && u->procs[u->last_proc].pid == pid &&
     u->procs[u->last_proc].dwfl)
    return &u->procs[u->last_proc];
  for(uint32_t i = 0; i < u->nprocs; i++)
    if(u->procs[i].pid == pid) {
      u->last_proc = i;
      return &u->procs[i];
    }
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
    if(addr + 8 - u->sp > u->hi)
      u->hi = addr + 8 - u->sp;
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
  proc_clear(old);
  return old;
}

static int count_module(Dwfl_Module *mod, void **userdata, const char *name,
                        Dwarf_Addr start, void *arg)
{
  (void)mod;
  (void)userdata;
  (void)name;
  (void)start;
  (*(uint32_t *)arg)++;
  return DWARF_CB_OK;
}

static int add_module(Dwfl_Module *mod, void **userdata, const char *name,
                      Dwarf_Addr start, void *arg)
{
  struct uproc *p = arg;
  Dwarf_Addr low, high;
  (void)userdata;
  (void)name;
  (void)start;
  if(!dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL) ||
     high <= low)
    return DWARF_CB_OK;
  p->mods[p->nmods++] = (struct umod){ .start = low, .end = high,
                                       .mod = mod };
  return DWARF_CB_OK;
}

static int mod_cmp(const void *a, const void *b)
{
  const struct umod *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* The fast path's module table: the ranges libdwfl itself looks pcs up
 * in (dwfl_addrmodule), so both paths take the same module's CFI. */
static bp_code list_modules(struct uproc *p)
{
  /* count them first: libdwfl keeps no count */
  uint32_t count = 0;
  if(dwfl_getmodules(p->dwfl, count_module, &count, 0) < 0 || !count)
    return BP_OK;
  p->mods = calloc(count, sizeof(*p->mods));
  if(!p->mods)
    return BPE_NOMEM;
  dwfl_getmodules(p->dwfl, add_module, p, 0);
  qsort(p->mods, p->nmods, sizeof(*p->mods), mod_cmp);
  return BP_OK;
}

/* pid's slot, emptied (a process reported again starts afresh), with a
 * new Dwfl using cb; NULL without memory. */
static struct uproc *begin_proc(struct bp_unwind *u, uint32_t pid,
                                const Dwfl_Callbacks *cb)
{
  struct uproc *p = find_proc(u, pid);
  if(p)
    proc_clear(p);
  else
    p = new_slot(u);
  p->pid = pid;
  p->used = ++u->tick;
  p->dwfl = dwfl_begin(cb);
  return p->dwfl ? p : NULL;
}

/* After the modules were reported (any: at least one was): attach the
 * thread callbacks and list the modules for the fast path. */
static bp_code finish_proc(struct bp_unwind *u, struct uproc *p, bool any)
{
  dwfl_report_end(p->dwfl, NULL, NULL);
  if(any)
    p->attached = dwfl_attach_state(p->dwfl, NULL, (pid_t)p->pid,
                                    &thread_cb, u);
  return p->attached ? list_modules(p) : BP_OK;
}

bp_code bpi_unwind_add_proc(struct bp_unwind *u, uint32_t pid,
                            const struct bp_unwind_module *mods, uint32_t n)
{
  struct uproc *p = begin_proc(u, pid, &u->cb);
  if(!p)
    return BPE_NOMEM;
  dwfl_report_begin(p->dwfl);
  bool any = false;
  for(uint32_t i = 0; i < n; i++) {
    /* a file that cannot be read or overlaps another is left out */
    if(dwfl_report_elf(p->dwfl, mods[i].path, mods[i].path, -1,
                       mods[i].bias, false))
      any = true;
  }
  return finish_proc(u, p, any);
}

bp_code bpi_unwind_add_live_proc(struct bp_unwind *u, uint32_t pid)
{
  struct uproc *p = begin_proc(u, pid, &u->live_cb);
  if(!p)
    return BPE_NOMEM;
  dwfl_report_begin(p->dwfl);
  int rc = dwfl_linux_proc_report(p->dwfl, (pid_t)pid);
  bp_code code = finish_proc(u, p, rc == 0);
  if(rc || code || !p->attached) {
    proc_clear(p);  /* its slot and files back: nothing to unwind with */
    return rc || !p->attached ? BPE_IO : code;
  }
  return BP_OK;
}

void bpi_unwind_drop_proc(struct bp_unwind *u, uint32_t pid)
{
  struct uproc *p = find_proc(u, pid);
  if(p)
    proc_clear(p);
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

/* How CFI says a caller's register is found (dwarf_frame_register's
 * conventions, libdw.h). */
enum reg_kind { REG_UNDEFINED, REG_SAME, REG_SAVED, REG_VALUE, REG_OTHER };

static enum reg_kind reg_rule(Dwarf_Frame *fr, int regno, int64_t *off)
{
  Dwarf_Op mem[3], *ops;
  size_t nops;
  if(dwarf_frame_register(fr, regno, mem, &ops, &nops))
    return REG_OTHER;
  if(!nops)
    return ops == mem ? REG_UNDEFINED : ops ? REG_OTHER : REG_SAME;
  /* CFA + off, as a location (saved there) or a value (with stack_value) */
  if(ops != mem || mem[0].atom != DW_OP_call_frame_cfa)
    return REG_OTHER;
  size_t i = 1;
  *off = 0;
  if(i < nops && mem[i].atom == DW_OP_plus_uconst)
    *off = (int64_t)mem[i++].number;
  if(i == nops)
    return REG_SAVED;
  if(i + 1 == nops && mem[i].atom == DW_OP_stack_value)
    return REG_VALUE;
  return REG_OTHER;
}

/* Compile a row of CFI into r (r->slow when the fast path cannot apply
 * it exactly as libdwfl would). */
static void compile_row(Dwarf_Frame *fr, struct urule *r)
{
  Dwarf_Op *ops;
  size_t nops;
  bool signal;
  r->slow = true;
  /* a signal frame changes how the caller's pc is looked up */
  if(dwarf_frame_info(fr, NULL, NULL, &signal) != DW_RIP || signal ||
     dwarf_frame_cfa(fr, &ops, &nops) || nops != 1 ||
     ops[0].atom != DW_OP_bregx ||
     (ops[0].number != DW_RSP && ops[0].number != DW_RBP))
    return;
  r->cfa_on_rbp = ops[0].number == DW_RBP;
  r->cfa_off = (int64_t)ops[0].number2;
  for(int regno = 0; regno < DW_NREGS; regno++) {
    int64_t off = 0;
    enum reg_kind k = reg_rule(fr, regno, &off);
    if(k == REG_OTHER || (k == REG_SAVED && (off < INT32_MIN ||
                                             off > INT32_MAX)))
      return;
    if(k == REG_SAVED) {
      if(!r->nsaved || off < r->lo_off)
        r->lo_off = off;
      if(!r->nsaved || off > r->hi_off)
        r->hi_off = off;
      r->saved_off[r->nsaved++] = (int32_t)off;
    }
    if(regno == DW_RIP) {
      if(k != REG_SAVED && k != REG_UNDEFINED)
        return;
      r->ra_undefined = k == REG_UNDEFINED;
      r->ra_off = off;
    }
    else if(regno == DW_RSP) {
      /* the caller's rsp is the CFA */
      if(k != REG_VALUE || off)
        return;
    }
    else if(regno == DW_RBP) {
      if(k == REG_VALUE)
        return;
      r->rbp_rule = k == REG_SAME ? RBP_SAME :
                    k == REG_SAVED ? RBP_SAVED : RBP_UNDEFINED;
      r->rbp_off = off;
    }
  }
  r->slow = false;
}

/* The module of p holding addr, NULL when none. */
static struct umod *module_at(struct uproc *p, uint64_t addr)
{
  if(p->last < p->nmods && addr >= p->mods[p->last].start &&
     addr < p->mods[p->last].end)
    return &p->mods[p->last];
  uint32_t lo = 0, hi = p->nmods;
  while(lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if(addr < p->mods[mid].start)
      hi = mid;
    else if(addr >= p->mods[mid].end)
      lo = mid + 1;
    else {
      p->last = mid;
      return &p->mods[mid];
    }
  }
  return NULL;
}

/* Index of the first compiled row of m starting after addr. */
static uint32_t row_after(const struct umod *m, uint64_t addr)
{
  uint32_t lo = 0, hi = m->nrules;
  while(lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if(m->rules[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The CFI row for addr in m the way libdwfl picks it: .eh_frame first,
 * then .debug_frame.  An .eh_frame row is cached for its whole range;
 * the others only for addr (a .debug_frame row may span code that
 * .eh_frame covers too). */
static bool compile_at(struct umod *m, uint64_t addr, struct urule *r)
{
  Dwarf_Frame *fr = NULL;
  Dwarf_Addr start, end;
  if(!m->eh_loaded) {
    m->eh = dwfl_module_eh_cfi(m->mod, &m->eh_bias);
    m->eh_loaded = true;
  }
  memset(r, 0, sizeof(*r));
  r->start = addr;
  r->end = addr + 1;
  r->slow = true;
  if(m->eh && !dwarf_cfi_addrframe(m->eh, addr - m->eh_bias, &fr)) {
    compile_row(fr, r);
    if(!dwarf_frame_info(fr, &start, &end, NULL) &&
       start + m->eh_bias <= addr && end + m->eh_bias > addr) {
      r->start = start + m->eh_bias;
      r->end = end + m->eh_bias;
    }
    free(fr);
    return true;
  }
  if(!m->dwarf_loaded) {
    m->dwarf = dwfl_module_dwarf_cfi(m->mod, &m->dwarf_bias);
    m->dwarf_loaded = true;
  }
  if(m->dwarf && !dwarf_cfi_addrframe(m->dwarf, addr - m->dwarf_bias,
                                      &fr)) {
    compile_row(fr, r);
    free(fr);
  }
  /* else no CFI: libdwfl would try frame pointers; r stays slow */
  return true;
}

/* The compiled row for addr, compiling it on first use; NULL without a
 * module or memory. */
static const struct urule *rule_at(struct uproc *p, uint64_t addr)
{
  struct umod *m = module_at(p, addr);
  if(!m)
    return NULL;
  uint32_t i = row_after(m, addr);
  if(i && addr < m->rules[i - 1].end)
    return &m->rules[i - 1];
  struct urule r;
  compile_at(m, addr, &r);
  /* a row never reaches into the next one cached */
  if(i < m->nrules && r.end > m->rules[i].start)
    r.end = m->rules[i].start;
  if(i && r.start < m->rules[i - 1].end)
    r.start = m->rules[i - 1].end;
  if(m->nrules == m->cap) {
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    struct urule *nr = realloc(m->rules, cap * sizeof(*nr));
    if(!nr)
      return NULL;
    m->rules = nr;
    m->cap = cap;
  }
  memmove(&m->rules[i + 1], &m->rules[i],
          (m->nrules - i) * sizeof(*m->rules));
  m->rules[i] = r;
  m->nrules++;
  return &m->rules[i];
}

/* The program entry code (_start) of a module is at most this long; a
 * return address inside it is the call out of the outermost frame. */
#define ENTRY_CODE_BYTES 64

/* Whether pc (a frame's lookup address) is in the entry code of its
 * module: the ELF entry point (e_entry), where the return-address chain
 * of the main thread ends.  glibc's _start in ld.so has no CFI saying so
 * (no undefined return address), so the chain stops there without one. */
static bool at_entry(struct uproc *p, uint64_t pc)
{
  struct umod *m = module_at(p, pc);
  if(!m)
    return false;
  if(!m->entry_state) {
    GElf_Addr bias;
    GElf_Ehdr eh;
    Elf *elf = dwfl_module_getelf(m->mod, &bias);
    m->entry_state = 2;
    if(elf && gelf_getehdr(elf, &eh) && eh.e_entry &&
       (eh.e_type == ET_EXEC || eh.e_type == ET_DYN)) {
      m->entry = eh.e_entry + bias;
      m->entry_state = 1;
    }
  }
  return m->entry_state == 1 && pc >= m->entry &&
         pc - m->entry < ENTRY_CODE_BYTES;
}

/* Whether the last frame of a chain is the outermost one: its CFI leaves
 * the return address undefined (_start, clone), or it is the entry code. */
static bool outermost_at(struct uproc *p, uint64_t pc)
{
  const struct urule *r = rule_at(p, pc);
  return (r && r->ra_undefined) || at_entry(p, pc);
}

/* The state of one frame on the fast path. */
struct fast_frame {
  uint64_t pc, sp, rbp;
  bool rbp_known;
};

/* Where the sample's stack copy is, and how reads outside it went. */
struct fast_stack {
  const unsigned char *data;
  uint64_t sp, len;
  uint64_t hi;  /* end of the highest word found in the copy */
  bool truncated, read_failed;
};

/* Whether [addr, addr + 8) lies in the stack copy (then it may be read:
 * hi follows the highest such word). */
static bool in_copy(struct fast_stack *st, uint64_t addr)
{
  if(addr < st->sp || st->len < 8 || addr - st->sp > st->len - 8)
    return false;
  if(addr + 8 - st->sp > st->hi)
    st->hi = addr + 8 - st->sp;
  return true;
}

static uint64_t copy_word(const struct fast_stack *st, uint64_t addr)
{
  uint64_t v;
  memcpy(&v, st->data + (addr - st->sp), 8);
  return v;
}

/* The reads of a row that fall outside the copy, as memory_read would
 * see them; false when one may hit a mapped file (libdwfl's business). */
static bool outside_reads(struct uproc *p, const struct urule *r,
                          uint64_t cfa, struct fast_stack *st)
{
  for(uint32_t i = 0; i < r->nsaved; i++) {
    uint64_t addr = cfa + (uint64_t)(int64_t)r->saved_off[i];
    if(in_copy(st, addr))
      continue;
    if(module_at(p, addr))
      return false;
    st->read_failed = true;
    if(addr >= st->sp)
      st->truncated = true;
  }
  return true;
}

enum fast_step { STEP_NEXT, STEP_END, STEP_SLOW };

/* Unwind f to its caller with row r, the way libdwfl's handle_cfi does:
 * STEP_END when the caller's pc is undefined (outermost frame, or a
 * return address that could not be read). */
static enum fast_step fast_step(struct uproc *p, const struct urule *r,
                                struct fast_frame *f, struct fast_stack *st)
{
  if(r->cfa_on_rbp && !f->rbp_known)
    return STEP_END;  /* no CFA: nothing can be recovered */
  uint64_t cfa = (r->cfa_on_rbp ? f->rbp : f->sp) + (uint64_t)r->cfa_off;
  if(r->nsaved && !(in_copy(st, cfa + (uint64_t)r->lo_off) &&
                    in_copy(st, cfa + (uint64_t)r->hi_off)) &&
     !outside_reads(p, r, cfa, st))
    return STEP_SLOW;
  if(r->rbp_rule == RBP_UNDEFINED)
    f->rbp_known = false;
  else if(r->rbp_rule == RBP_SAVED) {
    uint64_t addr = cfa + (uint64_t)r->rbp_off;
    f->rbp_known = in_copy(st, addr);
    if(f->rbp_known)
      f->rbp = copy_word(st, addr);
  }
  uint64_t ra_addr = cfa + (uint64_t)r->ra_off;
  if(r->ra_undefined || !in_copy(st, ra_addr))
    return STEP_END;
  f->pc = copy_word(st, ra_addr);
  f->sp = cfa;
  return f->pc ? STEP_NEXT : STEP_END;
}

/* Learn where the registers of mask sit in a sample (once per mask):
 * sample_reg's popcount per register adds up on the fast path. */
static void learn_regs(struct bp_unwind *u, uint64_t mask)
{
  int8_t pos = 0;
  u->regs_mask = mask;
  for(int i = 0; i < 64; i++)
    u->reg_pos[i] = (mask & (1ULL << i)) ? pos++ : -1;
  u->regs_needed = 0;
  for(int i = 0; i < DW_NREGS; i++) {
    int8_t at = u->reg_pos[dwarf_to_perf[i]];
    if(at < 0) {
      u->regs_needed = 0;
      return;
    }
    if((uint32_t)at + 1 > u->regs_needed)
      u->regs_needed = (uint32_t)at + 1;
  }
}

/* The fast path: false when the sample needs libdwfl (nothing is kept
 * then).  Mirrors dwfl_getthread_frames with on_frame: each frame is
 * unwound before it is reported, and the frame past max is unwound too. */
static bool fast_unwind(struct bp_unwind *u, struct uproc *p,
                        const struct bp_unwind_sample *s, uint64_t *pcs,
                        uint32_t max, uint32_t *n,
                        enum bp_unwind_status *status,
                        struct bp_unwind_reach *reach)
{
  struct fast_frame f = { .rbp_known = true };
  struct fast_stack st = { .data = s->stack, .len = s->stack_len };
  if(s->regs_mask != u->regs_mask || !u->regs_needed)
    learn_regs(u, s->regs_mask);
  /* libdwfl needs every register to start (set_initial_registers) */
  if(!u->regs_needed || s->nregs < u->regs_needed)
    return false;
  f.pc = s->regs[u->reg_pos[X86_IP]];
  f.sp = s->regs[u->reg_pos[X86_SP]];
  f.rbp = s->regs[u->reg_pos[X86_BP]];
  st.sp = f.sp;
  uint32_t k = 0;
  bool initial = true, aborted = false, outermost = false;
  for(;;) {
    /* a return address is looked up inside its call */
    uint64_t at = initial ? f.pc : f.pc - 1;
    const struct urule *r = rule_at(p, at);
    if(!r || r->slow)
      return false;
    struct fast_frame next = f;
    enum fast_step step = fast_step(p, r, &next, &st);
    if(step == STEP_SLOW)
      return false;
    if(k >= max) {
      aborted = true;
      break;
    }
    pcs[k++] = at;
    if(step == STEP_END) {
      outermost = r->ra_undefined || at_entry(p, at);
      break;
    }
    f = next;
    initial = false;
  }
  *n = k;
  reach->used = st.hi;
  reach->outermost = outermost;
  /* the chain reached _start or clone: whatever else could not be read
   * (a register saved above the copy), the stack is whole */
  if(outermost)
    *status = BP_UNWIND_COMPLETE;
  else if(st.truncated)
    *status = BP_UNWIND_TRUNCATED;
  else if((!aborted && !st.read_failed) || k >= max)
    *status = BP_UNWIND_COMPLETE;
  else
    *status = BP_UNWIND_FAILED;
  return true;
}

enum bp_unwind_status bpi_unwind_sample(struct bp_unwind *u,
                                        const struct bp_unwind_sample *s,
                                        uint64_t *pcs, uint32_t max,
                                        uint32_t *n)
{
  struct bp_unwind_reach reach;
  return bpi_unwind_sample_used(u, s, pcs, max, n, &reach);
}

enum bp_unwind_status bpi_unwind_sample_used(struct bp_unwind *u,
                                             const struct bp_unwind_sample *s,
                                             uint64_t *pcs, uint32_t max,
                                             uint32_t *n,
                                             struct bp_unwind_reach *reach)
{
  uint64_t ip = 0;
  *n = 0;
  *reach = (struct bp_unwind_reach){0};
  if(!max || !sample_reg(s, X86_IP, &ip))
    return BP_UNWIND_FAILED;
  struct uproc *p = find_proc(u, s->pid);
  uint64_t sp;
  if(!p || !p->attached || !sample_reg(s, X86_SP, &sp)) {
    pcs[(*n)++] = ip;
    return BP_UNWIND_FAILED;
  }
  p->used = ++u->tick;
  enum bp_unwind_status status;
  if(!u->slow_only && fast_unwind(u, p, s, pcs, max, n, &status, reach)) {
    u->stats.fast++;
    return status;
  }
  u->stats.slow++;
  u->cur = s;
  u->sp = sp;
  u->truncated = false;
  u->read_failed = false;
  u->pcs = pcs;
  u->max = max;
  u->n = 0;
  u->hi = 0;
  int rc = dwfl_getthread_frames(p->dwfl, (pid_t)s->tid, on_frame, u);
  *n = u->n;
  reach->used = u->hi;
  u->cur = NULL;
  if(!*n)
    pcs[(*n)++] = ip;
  /* the last frame is the outermost one (its CFI leaves the return
   * address undefined: _start, clone): the stack is whole, even when a
   * read of another register failed on the way */
  if(outermost_at(p, pcs[*n - 1])) {
    reach->outermost = true;
    return BP_UNWIND_COMPLETE;
  }
  /* a failed read leaves the return address unset, which libdwfl takes
   * for the outermost frame: rc is 0 then too */
  if(u->truncated)
    return BP_UNWIND_TRUNCATED;
  if((rc == 0 && !u->read_failed) || u->n >= max)
    return BP_UNWIND_COMPLETE;
  return BP_UNWIND_FAILED;
}
