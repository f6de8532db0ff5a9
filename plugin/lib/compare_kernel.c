/* compare, kernel frames: which frames of a folded stack are the
 * kernel's, and which samples are the machine's interrupt handling.
 *
 * profile.folded marks each kernel frame "_[k]" (flamegraph.pl's
 * convention).  The kernel part of a sample starts at the frame where the
 * thread entered the kernel, and that entry says why: a system call
 * (entry_SYSCALL_64, el0_svc) or an exception the thread raised itself (a
 * page fault) is the benchmark's own work; an interrupt (a timer, another
 * CPU's IPI, a device: asm_sysvec_*, asm_common_interrupt) is the
 * machine's, whatever the benchmark was doing, and on a loaded VM it can
 * take more time in one job than in the other.  Only the entries named
 * here count as interrupts: a kernel part that starts anywhere else stays
 * the benchmark's. */
#include "bp_setup.h"
#include "compare_int.h"

#include <string.h>

static const char kernel_mark[] = BP_CMP_KERNEL_MARK;
#define KERNEL_MARK_LEN (sizeof(kernel_mark) - 1)

bool bpi_cmp_kernel_frame(const char *frame, size_t len)
{
  return len > KERNEL_MARK_LEN &&
         !memcmp(frame + len - KERNEL_MARK_LEN, kernel_mark, KERNEL_MARK_LEN);
}

/* Whether the len bytes at name are one of names[] or start with one of
 * prefixes[] (both NULL-terminated). */
static bool name_in(const char *name, size_t len, const char *const *names,
                    const char *const *prefixes)
{
  for(size_t i = 0; names[i]; i++)
    if(strlen(names[i]) == len && !memcmp(name, names[i], len))
      return true;
  for(size_t i = 0; prefixes[i]; i++) {
    size_t n = strlen(prefixes[i]);
    if(len > n && !memcmp(name, prefixes[i], n))
      return true;
  }
  return false;
}

/* Where an interrupt enters the kernel (x86-64 since 5.8, older x86-64,
 * arm64), and the interrupt bookkeeping that runs in nothing else: a
 * kernel whose stacks lack the entry frame still shows these. */
static const char *const irq_names[] = {
  "asm_common_interrupt", "common_interrupt", "asm_spurious_interrupt",
  "spurious_interrupt", "asm_exc_nmi", "exc_nmi", "asm_exc_machine_check",
  "irq_entries_start", "ret_from_intr", "do_IRQ", "apic_timer_interrupt",
  "smp_apic_timer_interrupt", "reschedule_interrupt",
  "call_function_interrupt", "call_function_single_interrupt",
  "irq_work_interrupt", "el0_interrupt", "el1_interrupt", "el0_irq",
  "el1_irq", "irq_enter", "irq_enter_rcu", "irq_exit", "irq_exit_rcu",
  "__irq_exit_rcu", NULL
};
static const char *const irq_prefixes[] = {
  "asm_sysvec_", "sysvec_", "__sysvec_", "el0t_64_irq", "el0t_64_fiq",
  "el0t_32_irq", "el0t_32_fiq", "el1h_64_irq", "el1h_64_fiq", NULL
};

/* Where a thread enters the kernel, by names no user program has: an
 * unmarked stack is taken as kernel from one of them up.  A user-mode
 * profile (cpu-clock:u) is unmarked too, so names a program could use
 * (page_fault, irq_exit) are left out. */
static const char *const entry_names[] = {
  "do_syscall_64", "ret_from_fork_asm", "asm_common_interrupt",
  "asm_spurious_interrupt", NULL
};
static const char *const entry_prefixes[] = {
  "entry_SYSCALL_", "entry_SYSENTER_", "entry_INT80_", "asm_exc_",
  "asm_sysvec_", "el0t_64_", "el0t_32_", "el1h_64_", NULL
};

bool bpi_cmp_interrupt_frame(const char *frame, size_t len)
{
  return bpi_cmp_kernel_frame(frame, len) &&
         name_in(frame, len - KERNEL_MARK_LEN, irq_names, irq_prefixes);
}

/* Whether the unmarked frame of len bytes is where a thread enters the
 * kernel, for any reason. */
static bool kernel_entry(const char *frame, size_t len)
{
  return name_in(frame, len, entry_names, entry_prefixes);
}

bool bpi_cmp_mark_kernel(const char *stack, struct bp_buf *out)
{
  if(strstr(stack, kernel_mark))
    return false;   /* marked where it was recorded */
  const char *first = strchr(stack, ';');   /* after the process name */
  while(first && !kernel_entry(first + 1, strcspn(first + 1, ";")))
    first = strchr(first + 1, ';');
  if(!first)
    return false;   /* no kernel part that can be told */
  bpi_buf_reset(out);
  bpi_buf_add(out, stack, (size_t)(first - stack));
  for(const char *f = first + 1;; f++) {
    size_t len = strcspn(f, ";");
    bpi_buf_addc(out, ';');
    bpi_buf_add(out, f, len);
    bpi_buf_adds(out, kernel_mark);
    f += len;
    if(!*f)
      break;
  }
  bpi_buf_addc(out, '\0');
  return true;
}
