# Whole-process timing helpers of the bench/*.sh scripts (sourced; `out` is the script's scratch folder).
# timed_run LABEL TOOL ARGS...: one run of TOOL under /usr/bin/time, its "wall user sys rss_kb" appended
# to $out/LABEL.times (stdout discarded); timed_report LABEL: the medians of those runs (wall, user,
# system, CPU = user + system) and the peak RSS of the last.

timed_median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

timed_run() {
  local label=$1 tool=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$tool" "$@" >/dev/null
  cat "$out/time" >>"$out/$label.times"
}

timed_report() {
  local f=$out/$1.times
  printf '%-22s wall %6.2f s  user %6.2f s  sys %6.2f s  CPU %6.2f s  peak RSS %5d MB\n' "$1" \
    "$(cut -d' ' -f1 "$f" | timed_median)" "$(cut -d' ' -f2 "$f" | timed_median)" "$(cut -d' ' -f3 "$f" | timed_median)" \
    "$(awk '{print $2 + $3}' "$f" | timed_median)" $(($(tail -1 "$f" | cut -d' ' -f4) / 1024))
}
