# Shared by the check scripts in tools/ (source it; it does nothing by itself).
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# BAHSIC_ROOT   the repository root
# bk_log MSG    print "[<script>] MSG"
# bk_workdir    make a fresh temporary directory, BK_WORK, removed when the script exits
#               unless BAHSIC_KEEP=1 (call it directly, not in $(...): the removal is
#               a trap of the calling shell)
# bk_copy_source DIR
#               copy the package sources (working tree, uncommitted changes included) to
#               DIR without .git, build products or bahsic-output, so that a special build
#               never leaves objects compiled with other flags in src/
# bk_install SRC LIB [R CMD INSTALL args...]
#               install SRC into library LIB (created), log in LIB/install.log; on failure
#               print the log's tail and return 1
# bk_two_lanes COST LOAD2 NAME...
#               deal the test files NAME... (without test- and .R) to two lanes, one per
#               core: the costliest first (COST: a function that prints a file's seconds),
#               each to the lane with less work so far, lane 2 starting with LOAD2 seconds
#               (e.g. the examples); sets bk_lane1 and bk_lane2 (testthat filters, "^(a|b)$")
#               and bk_load1, bk_load2 (their seconds)
set -euo pipefail

# caret and recipes load lubridate, whose Sys.timezone() warns ("running command 'timedatectl'
# had status 1") on a machine without systemd when TZ is unset: the scripts run in UTC then
export TZ=${TZ:-UTC}

BAHSIC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bk_script=$(basename "$0" .sh)

bk_log() { printf '[%s] %s\n' "$bk_script" "$*"; }

bk_workdir() {
  BK_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bahsic-$bk_script.XXXXXX")
  if [[ ${BAHSIC_KEEP:-0} != 1 ]]; then
    # shellcheck disable=SC2064
    trap "rm -rf '$BK_WORK'" EXIT
  else
    bk_log "work directory (kept): $BK_WORK"
  fi
}

bk_copy_source() {
  local dest=$1
  mkdir -p "$dest"
  tar -C "$BAHSIC_ROOT" --exclude=.git --exclude=bahsic-output --exclude='*.o' \
      --exclude='*.so' --exclude='*.Rcheck' --exclude='bahsic_*.tar.gz' -cf - . |
    tar -C "$dest" -xf -
}

bk_install() {
  local src=$1 lib=$2
  shift 2
  mkdir -p "$lib"
  if ! R CMD INSTALL --preclean --no-multiarch --library="$lib" "$@" "$src" \
       >"$lib/install.log" 2>&1; then
    tail -n 40 "$lib/install.log" >&2
    bk_log "R CMD INSTALL failed; full log: $lib/install.log" >&2
    return 1
  fi
}

bk_two_lanes() {
  local cost=$1 secs name
  bk_load1=0 bk_load2=$2
  shift 2
  local lane1=() lane2=()
  while read -r secs name; do
    if ((bk_load1 <= bk_load2)); then lane1+=("$name"); bk_load1=$((bk_load1 + secs))
    else lane2+=("$name"); bk_load2=$((bk_load2 + secs)); fi
  done < <(for n in "$@"; do echo "$("$cost" "$n") $n"; done | sort -k1,1nr -k2)
  bk_lane1="^($(IFS='|'; echo "${lane1[*]}"))\$"
  bk_lane2="^($(IFS='|'; echo "${lane2[*]}"))\$"
}

# The names of the test files, without test- and .R.
bk_test_files() {
  local f n
  for f in "$BAHSIC_ROOT"/tests/testthat/test-*.R; do
    n=$(basename "$f" .R)
    echo "${n#test-}"
  done
}
