/* fploop: a frame pointer that points at itself, as the kernel's
 * frame-pointer walk meets one in a syscall made from code built without
 * frame pointers (glibc's clone3 in pthread_create, where the register
 * holds the new thread's descriptor, whose first word is its own
 * address).  The walk reads the next frame pointer from the frame and the
 * return address after it; both read the same again, so the callchain is
 * the word after the descriptor (a heap address, no code) repeated up to
 * the depth limit.
 *
 * spin_in_loop() computes about 0.3 s of CPU, then nap_in_loop() sleeps
 * 0.3 s in a nanosleep syscall made by hand, each with the frame pointer
 * register on such a two-word frame: { its own address, a heap address }.
 * Their samples (on CPU) and switch-outs (--off-cpu) all carry the loop.
 * x86-64 and arm64 only: on others it exits 77. */
#include "workload.h"

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__aarch64__)

/* the frame the register points at: { next frame, return address } */
static uintptr_t looping_frame[2];

/* iterations of the asm loop, about a nanosecond each: one chunk */
#define LOOP_CHUNK 10000000UL

/* n turns of an empty loop with the frame pointer on looping_frame, then
 * the register as it was */
static void spin_chunk(unsigned long n)
{
#if defined(__x86_64__)
  __asm__ volatile("mov %%rbp, %%r12\n\t"
                   "mov %1, %%rbp\n"
                   "1:\n\t"
                   "sub $1, %0\n\t"
                   "jnz 1b\n\t"
                   "mov %%r12, %%rbp"
                   : "+r"(n)
                   : "r"(looping_frame)
                   : "r12", "cc", "memory");
#else
  __asm__ volatile("mov x19, x29\n\t"
                   "mov x29, %1\n"
                   "1:\n\t"
                   "subs %0, %0, #1\n\t"
                   "b.ne 1b\n\t"
                   "mov x29, x19"
                   : "+r"(n)
                   : "r"(looping_frame)
                   : "x19", "cc", "memory");
#endif
}

/* nanosleep(ts, NULL) made by hand, with the frame pointer on
 * looping_frame while the thread is in the kernel */
static void sleep_syscall(const struct timespec *ts)
{
#if defined(__x86_64__)
  long rc = 35;  /* __NR_nanosleep */
  __asm__ volatile("mov %%rbp, %%r12\n\t"
                   "mov %2, %%rbp\n\t"
                   "syscall\n\t"
                   "mov %%r12, %%rbp"
                   : "+a"(rc)
                   : "D"(ts), "r"(looping_frame), "S"(0L)
                   : "r12", "rcx", "r11", "cc", "memory");
#else
  register long x8 __asm__("x8") = 101;  /* __NR_nanosleep */
  register const struct timespec *x0 __asm__("x0") = ts;
  register long x1 __asm__("x1") = 0;
  __asm__ volatile("mov x19, x29\n\t"
                   "mov x29, %3\n\t"
                   "svc #0\n\t"
                   "mov x29, x19"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(looping_frame)
                   : "x19", "cc", "memory");
#endif
}

static WL_HOT void spin_in_loop(double seconds)
{
  double until = wl_thread_cpu() + seconds;
  while(wl_thread_cpu() < until)
    spin_chunk(LOOP_CHUNK);
}

static WL_HOT void nap_in_loop(double seconds)
{
  struct timespec nap = {0, 10 * 1000000L};
  for(int i = 0; i < (int)(seconds * 100); i++)
    sleep_syscall(&nap);
}

int main(void)
{
  /* a heap address, as glibc's dtv pointer is: in no executable mapping */
  void *heap = malloc(64);
  if(!heap)
    return 1;
  looping_frame[0] = (uintptr_t)looping_frame;
  looping_frame[1] = (uintptr_t)heap;
  spin_in_loop(0.3);
  nap_in_loop(0.3);
  free(heap);
  return 0;
}

#else

int main(void)
{
  return 77;
}

#endif
