#!/usr/bin/env bash
# One run of the harness on a many-core machine without R (the machine the
# README's 16-core table comes from): every binary of tools/harness/bin/ (e.g.
# the baseline's and the new build, made by `bash tools/harness.sh build`)
# on the data of tools/harness/data/ (`bash tools/harness.sh export`), then,
# with LOAD=1, BAHSIC, hsic() and maxT again with one busy process per core.
#
#   THREADS=1,2,4,8,16 REPS=3 FITS=48 LOAD=1 bash tools/harness/device.sh
#
# Prints the machine, then each binary's table; copies the output to $OUT
# when set.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=${OUT:-/tmp}/harness-device.txt
{
  echo "== machine: $(nproc) processors; $(grep -m1 'model name' /proc/cpuinfo)"
  echo "== $(uptime)"
  echo "== transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  for b in "$here"/bin/harness*; do
    echo "== $(basename "$b")"
    HARNESS_FITS=${FITS:-48} "$b" "$here/data" "${THREADS:-1,2,4,8,16}" "${REPS:-3}" ${WORK:-}
  done
  if [[ ${LOAD:-0} == 1 ]]; then
    n=$(nproc)
    pids=()
    for ((i = 0; i < n; i++)); do
      (while :; do :; done) &
      pids+=($!)
    done
    sleep 1
    echo "== under load: $n busy processes; $(uptime)"
    for b in "$here"/bin/harness*; do
      echo "== $(basename "$b"), loaded"
      timeout 120 "$b" "$here/data" "1,2,${n}" "${REPS:-3}" default_all,default_golub,bahsic_all,bahsic_golub,hsic,maxt ||
        echo "(stopped after 120 s)"
    done
    kill "${pids[@]}" 2>/dev/null
    wait 2>/dev/null
  fi
} 2>&1 | tee "$log"
