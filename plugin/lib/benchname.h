/* benchname: a benchmark's name as the file name of a build may give it.
 * A build system that names its binaries with a hash of the build
 * (cargo's target/release/deps/NAME-<16 hex digits>, or a project's own
 * name-<git hash>) gives the same benchmark another name on every build,
 * and a pull request's comparison would list it as new and removed
 * instead of comparing it.  These say what of a name is the benchmark's
 * and what is the build's, and whether two command lines run the same
 * program.  Pure functions; strings are the caller's. */
#ifndef BP_LIB_BENCHNAME_H
#define BP_LIB_BENCHNAME_H

#include <stdbool.h>
#include <stddef.h>

/* The length of name without cargo's metadata hash: '-' and exactly 16
 * lowercase hex digits at its end, with something before them; strlen
 * (name) when it has none.  The default name of a run (the program's
 * file name) is cut there. */
size_t bpi_benchname_cargo_stem(const char *name);

/* The length of name without a trailing build hash: '-', '_' or '.'
 * and 7 or more hex digits (either case) at its end, with something
 * before them; strlen(name) when it has none.  *digits_only (may be
 * NULL) says whether that suffix has decimal digits only (a size such
 * as "sort-1000000" more likely than a hash). */
size_t bpi_benchname_hash_stem(const char *name, bool *digits_only);

/* Whether a and b differ only by a build hash (bpi_benchname_hash_stem):
 * their stems and separators are equal and not empty ("a.deadbeef" and
 * "a_deadbeef" are two names), and not both suffixes are decimal digits
 * only ("sort-1000000" and "sort-2000000" are two sizes). */
bool bpi_benchname_same_but_hash(const char *a, const char *b);

/* Whether the base's name base is the head's head across a build:
 * bpi_benchname_same_but_hash, or one of them is the other and a build
 * hash (not decimal digits only), either way: "mybench-0123456789abcdef"
 * stored before run names dropped cargo's hash, "mybench" now; or
 * "mybench" stored under --name, "mybench-3f2a9c1d" (a build's own hash,
 * which the default name keeps) now.  Symmetric. */
bool bpi_benchname_hash_renamed(const char *base, const char *head);

/* Whether the process names a and b (the roots of two sides' stacks)
 * differ, but only by a build hash: bpi_benchname_hash_renamed, or both the kernel's 15 characters of a name (comm) alike up to
 * a separator after which both run hex digits to their end, a hash cut
 * short ("mybench-0123456", "mybench-fedcba9"), or one of them such a cut
 * of the other's name and a hash ("mybench-0123456", "mybench"). */
bool bpi_benchname_same_process(const char *a, const char *b);

/* Whether the command lines a and b (a manifest's "command": argv joined
 * with spaces, each argument quoted for a POSIX shell when it needs it)
 * run the same program with the same arguments: the program compared by
 * its file name, the same when it differs only by a build hash
 * (bpi_benchname_hash_renamed), so two
 * runners' work directories (/home/runner/_work/... and /builds/...) or
 * two builds do not make it another command.  The arguments are compared
 * word by word, unquoted: each "***" the published line has in place of
 * a secret (record.c's join_command: an argument after a secret option,
 * the value of a secret NAME=, a header's or a scheme's credentials, a
 * -u user:***, a URL's user information, "***@" before the host) stands for any run
 * of characters in the other side's argument, the rest of it the same, so
 * a base recorded before secrets were hidden (or hidden alike) is not
 * another command, and one for another host is.  NULL is unknown: the
 * same as anything. */
bool bpi_benchname_same_command(const char *a, const char *b);

#endif
