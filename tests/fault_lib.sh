# Helpers of the fault tests (tests/integration/fault_*.sh); sourced after
# tests/lib.sh.  The commands they profile write their own pid first
# (PIDFILE_EXEC), so no test scans /proc for children, which is slow on a
# busy machine and racy.

# sh -c "$PIDFILE_EXEC" FILE CMD ARGS...: write the shell's pid to FILE,
# then exec CMD there (same pid)
# shellcheck disable=SC2016,SC2034 # expanded by that sh; used by the tests
PIDFILE_EXEC='echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec "$@"'

# wait_file FILE PID: wait until FILE exists while PID lives (60 s at
# most); false when it never came
wait_file() {
  n=0
  while [ ! -s "$1" ]; do
    kill -0 "$2" 2>/dev/null || return 1
    n=$((n + 1))
    [ $n -gt 1200 ] && return 1
    sleep 0.05
  done
  return 0
}

# state_of PID: its state letter (R, S, Z...), empty when it is gone
state_of() {
  read -r s 2>/dev/null <"/proc/$1/stat" || return 0
  s=${s##*) }   # the fields after "(comm) "
  echo "${s%% *}"
}
