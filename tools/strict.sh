#!/usr/bin/env bash
# Strict-warning and LTO builds of the C sources: zero warnings allowed.
#
#   bash tools/strict.sh
#
# Three installs of a copy of the package into a temporary library, each with its own
# user Makevars (R_MAKEVARS_USER), so nothing is left in src/:
#   gcc    -Wall -Wextra -pedantic -Wstrict-prototypes -Wconversion -Wno-sign-conversion
#          (plus -Wno-cast-function-type: R_registerRoutines' DL_FUNC casts in init.c are
#          how R's own manual registers routines)
#   clang  the same flags plus -Wshorten-64-to-32 (if clang is installed)
#   LTO    gcc -flto, linked with -Wlto-type-mismatch -Wodr: what CRAN's LTO check reports
#          (mismatched declarations across files)
# Fails (exit 1) if an install fails or the compiler prints any "warning:" for a file of
# src/; prints every warning. Takes about a minute on 2 cores.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bk_workdir
bk_copy_source "$BK_WORK/src-copy"
warn_flags="-Wall -Wextra -pedantic -Wstrict-prototypes -Wconversion -Wno-sign-conversion -Wno-cast-function-type"

cat >"$BK_WORK/gcc.mk" <<MK
CC = gcc
CFLAGS = -g -O2 $warn_flags
MK
cat >"$BK_WORK/lto.mk" <<MK
CC = gcc
CFLAGS = -g -O2 -flto=2 -Wall -Wlto-type-mismatch -Wodr
LDFLAGS = -flto=2 -Wlto-type-mismatch -Wodr
MK
builds=(gcc lto)
clang_cc=$(command -v clang || command -v clang-14 || true)
if [[ -n $clang_cc ]]; then
  # R's OpenMP flag is gcc's -fopenmp; clang without libomp-dev takes it as libgomp.
  cat >"$BK_WORK/clang.mk" <<MK
CC = $clang_cc
CFLAGS = -g -O2 $warn_flags -Wshorten-64-to-32
SHLIB_OPENMP_CFLAGS = -fopenmp=libgomp
MK
  builds+=(clang)
else
  bk_log "clang not found: clang build skipped (apt-get install clang-14)"
fi

fail=0
for b in "${builds[@]}"; do
  lib="$BK_WORK/lib-$b"
  if ! R_MAKEVARS_USER="$BK_WORK/$b.mk" bk_install "$BK_WORK/src-copy" "$lib"; then
    fail=1
    continue
  fi
  # every compiler warning about a file of the package (src/, and the LTO link)
  n=$(grep -cE 'warning:' "$lib/install.log" || true)
  if [[ $n -gt 0 ]]; then
    bk_log "$b: $n warning(s):"
    grep -E -B2 -A4 'warning:' "$lib/install.log" | sed 's/^/    /'
    fail=1
  else
    ncomp=$(grep -cE '^(gcc|clang|/usr/bin/clang).* -c [a-z_]+\.c ' "$lib/install.log" || true)
    bk_log "$b: $ncomp files compiled, 0 warnings"
  fi
done
if [[ $(grep -c 'flto' "$BK_WORK/lib-lto/install.log" 2>/dev/null || echo 0) -eq 0 ]]; then
  bk_log "lto: the build did not use -flto" >&2
  fail=1
fi

if [[ $fail -ne 0 ]]; then
  bk_log "FAILED"
  exit 1
fi
bk_log "passed: ${builds[*]} without warnings"
