#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer (gcc): the whole testthat suite and every
# example, against a sanitized build of the package.
#
#   bash tools/asan.sh
#
# The package (a copy, so src/ keeps its ordinary objects) is installed into a temporary
# library with a user Makevars (R_MAKEVARS_USER):
#   CFLAGS  = -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer
#             -fno-sanitize-recover=undefined
# R itself is not instrumented, so the ASan runtime is preloaded into every R process
# (LD_PRELOAD=$(gcc -print-file-name=libasan.so)), with ASAN_OPTIONS=detect_leaks=0
# (R frees much of its memory only at exit). UBSan aborts on the first report
# (-fno-sanitize-recover), ASan on the first error; both print "runtime error" /
# "ERROR: AddressSanitizer" first.
# Fails (exit 1) if the install fails, a test fails, an example fails, R aborts, or any
# sanitizer report appears in the output. About 1 minute on 2 cores.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

asan_lib=$(gcc -print-file-name=libasan.so)
if [[ ! -e $asan_lib ]]; then
  bk_log "gcc's libasan.so not found (Debian: apt-get install libasan8)" >&2
  exit 1
fi

bk_workdir
bk_copy_source "$BK_WORK/src-copy"
cat >"$BK_WORK/asan.mk" <<'MK'
CC = gcc
CFLAGS = -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS = -fsanitize=address,undefined
MK

export LD_PRELOAD=$asan_lib
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:print_summary=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# the few statistical tests that repeat large selections skip themselves here
# (tests/testthat/helper-skips.R): the C paths they run are in the other tests
export BAHSIC_SANITIZERS=true
lib="$BK_WORK/lib"
bk_log "installing a sanitized build into $lib"
R_MAKEVARS_USER="$BK_WORK/asan.mk" bk_install "$BK_WORK/src-copy" "$lib"
grep -q -- '-fsanitize=address' "$lib/install.log" || {
  bk_log "the build did not use -fsanitize (see $lib/install.log)" >&2
  exit 1
}

fail=0
run() { # name, then the command; output to $BK_WORK/<name>.log and the terminal
  local name=$1
  shift
  bk_log "running the $name under the sanitizers"
  if ! R_LIBS="$lib" "$@" 2>&1 | tee "$BK_WORK/$name.log"; then
    bk_log "$name: the R process failed or aborted" >&2
    fail=1
  fi
  if grep -qE 'runtime error|ERROR: AddressSanitizer|SUMMARY: (Address|UndefinedBehavior)Sanitizer' \
       "$BK_WORK/$name.log"; then
    bk_log "$name: sanitizer report(s):" >&2
    grep -E -A30 'runtime error|ERROR: AddressSanitizer' "$BK_WORK/$name.log" | head -n 80 >&2
    fail=1
  fi
}
run tests Rscript "$BAHSIC_ROOT/tools/run-tests.R" --expect-lib="$lib"
run examples Rscript "$BAHSIC_ROOT/tools/run-examples.R" --expect-lib="$lib"

if [[ $fail -ne 0 ]]; then
  bk_log "FAILED"
  exit 1
fi
bk_log "passed: tests and examples without a sanitizer report"
