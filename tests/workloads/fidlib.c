/* A shared library whose hot function is local: nothing but its debug
 * info names fid_hidden_spin once the library is stripped (the dynamic
 * symbol table holds only fid_entry).  record_debuginfod.sh builds it
 * with -g and a build id, puts the debug info on a local debuginfod
 * server and strips the library. */

static __attribute__((noinline)) unsigned long fid_hidden_spin(unsigned long n)
{
  unsigned long x = 0;
  for(unsigned long i = 0; i < n; i++) {
    x = x * 31 + i;
    __asm__ volatile("" : "+r"(x));  /* keep the loop */
  }
  return x;
}

unsigned long fid_entry(unsigned long n)
{
  return fid_hidden_spin(n) ^ 1;
}
