/* Tiny assertion macros for the unit tests: each failure prints file:line
 * and the expression, the test keeps going, and check_exit() turns the
 * failure count into the exit status (0 pass, 1 fail). */
#ifndef BP_TESTS_CHECK_H
#define BP_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                   \
  do {                                                                \
    check_count++;                                                    \
    if(!(cond)) {                                                     \
      check_failures++;                                               \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
              #cond);                                                 \
    }                                                                 \
  } while(0)

#define CHECK_EQ_INT(a, b)                                            \
  do {                                                                \
    long long va_ = (long long)(a), vb_ = (long long)(b);             \
    check_count++;                                                    \
    if(va_ != vb_) {                                                  \
      check_failures++;                                               \
      fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",        \
              __FILE__, __LINE__, #a, #b, va_, vb_);                  \
    }                                                                 \
  } while(0)

#define CHECK_EQ_STR(a, b)                                            \
  do {                                                                \
    const char *sa_ = (a), *sb_ = (b);                                \
    check_count++;                                                    \
    if(!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                       \
      check_failures++;                                               \
      fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n",    \
              __FILE__, __LINE__, #a, #b, sa_ ? sa_ : "(null)",       \
              sb_ ? sb_ : "(null)");                                  \
    }                                                                 \
  } while(0)

static inline int check_exit(void)
{
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures ? 1 : 0;
}

#endif
