#!/usr/bin/env bash
# The standalone timing harness of the C core (tools/harness/harness.c): the
# numeric core of src/ built without R into a static binary, so that it runs
# on a machine without R (a many-core server), on the inputs that
# tools/harness/export.R captures from R's own calls; it asserts that every
# ranking and statistic is R's, bit for bit, at every thread count.
#
#   bash tools/harness.sh build [OUT]          # OUT default /tmp/bahsic-harness
#   bash tools/harness.sh export DATA [LIB]    # R with bahsic (and ALL) installed
#   bash tools/harness.sh run DATA [threads] [reps] [workloads]
#   bash tools/harness.sh check                # build, export and run every workload once
#                                              # on 1, 2 and 4 threads (4 stability fits): CI's stage
#   bash tools/harness.sh regions [OUT]        # OUT/harness-regions: BAHSIC's parallel regions
#                                              # timed (tools/harness/regions.py), a line a call
#
# The binary is OUT/harness; `run` uses it (HARNESS=path to use another).
# HARNESS_SRC=DIR builds it from another tree's src/ (e.g. a worktree of the
# baseline commit), to compare two versions of the core on one machine;
# HARNESS_MAIN=FILE builds it from another harness.c and HARNESS_NAME
# names the binary (as `regions` does).
# Built with R's CFLAGS (the same code generation as the package) and
# -fopenmp; ridge.c and cox.c (LAPACK, and nothing the workloads call) are
# left out. The workloads and their sizes: tools/harness/harness.c.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cc=${CC:-gcc}
sources=(scale gram hsic kernel_test pace pairs select schedule scorer_pairs scorer_rff
         scorer_ichol scorer_clinical scorer_mrmr series width clinical scores checks randsel
         lowrank pairtop pairscore maxt ranks screen)

build() {
  local out=${1:-/tmp/bahsic-harness}
  mkdir -p "$out"
  local cflags srcs=()
  local src=${HARNESS_SRC:-$root/src}
  for f in "${sources[@]}"; do srcs+=("$src/$f.c"); done
  cflags=$(R CMD config CFLAGS 2>/dev/null || echo "-g -O2")
  # the p-values' pgamma(): R's mathematics library built standalone
  # (Debian's r-mathlib, which tools/install-deps.sh installs), linked in
  if [[ ! -f /usr/lib/libRmath.a && ! -f /usr/local/lib/libRmath.a ]]; then
    echo "harness: needs R's standalone mathematics library (libRmath.a):" \
      "apt-get install r-mathlib" >&2
    exit 1
  fi
  # shellcheck disable=SC2086
  "$cc" $cflags -fopenmp -static -I "$src" -o "$out/${HARNESS_NAME:-harness}" \
    "${HARNESS_MAIN:-$root/tools/harness/harness.c}" "${srcs[@]}" -lRmath -lm
  echo "built $out/${HARNESS_NAME:-harness}"
}

# the harness with BAHSIC's regions timed, from patched copies of src/ and
# harness.c (tools/harness/regions.py)
regions() {
  local out=${1:-/tmp/bahsic-harness} tmp
  tmp=$(mktemp -d)
  cp -r "${HARNESS_SRC:-$root/src}" "$tmp/src"
  cp "$root/tools/harness/harness.c" "$tmp/harness.c"
  python3 "$root/tools/harness/regions.py" "$tmp/src" "$tmp/harness.c" &&
    HARNESS_SRC=$tmp/src HARNESS_MAIN=$tmp/harness.c HARNESS_NAME=harness-regions \
      build "$out" || { rm -rf "$tmp"; exit 1; }
  rm -rf "$tmp"
}

case "${1:-}" in
  build) shift; build "$@" ;;
  regions) shift; regions "$@" ;;
  export) shift; Rscript "$root/tools/harness/export.R" "$@" ;;
  run)
    shift
    "${HARNESS:-/tmp/bahsic-harness/harness}" "$@"
    ;;
  check)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    build "$tmp"
    Rscript "$root/tools/harness/export.R" "$tmp/data"
    HARNESS_FITS=4 "$tmp/harness" "$tmp/data" 1,2,4 1
    ;;
  *) sed -n '2,16p' "${BASH_SOURCE[0]}"; exit 1 ;;
esac
