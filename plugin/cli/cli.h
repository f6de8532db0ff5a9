/* The benchprof command: one cmd_<name>() per subcommand, listed in main.c.
 * Exit statuses shared by all subcommands: */
#ifndef BP_CLI_CLI_H
#define BP_CLI_CLI_H

#define BP_EXIT_OK 0
#define BP_EXIT_ERROR 1       /* benchprof itself failed */
#define BP_EXIT_USAGE 2       /* bad command line, unknown event */
#define BP_EXIT_NOT_FOUND 127 /* the command could not be started */

int cmd_record(int argc, char **argv);
int cmd_events(int argc, char **argv);

#endif
