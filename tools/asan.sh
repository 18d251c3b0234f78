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
# sanitizer report appears in the output. About 11 minutes on 2 cores (two lanes, below; 640 s in
# a CI run of 2026-11-28, against 730 s for one process).
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
# Two lanes, one per core (as tools/valgrind.sh): the test files dealt by their seconds under
# the sanitizers (testthat's time per file in the two lanes of one thread each of the CI run
# of 2026-11-28, whose lanes took 531 and 417 s of tests; a file not listed counts 2 s), the
# examples (~100 s) starting lane 2. With BAHSIC_TEST_FILTER or BAHSIC_ASAN_LANES=1, one lane:
# the tests, then the examples.
asan_seconds() {
  case $1 in
    bad-input) echo 149 ;; guards) echo 75 ;; progress) echo 66 ;; interrupts) echo 40 ;;
    kernels) echo 38 ;; bioc) echo 35 ;; select-hsic) echo 32 ;; stability) echo 31 ;;
    properties) echo 27 ;; parallel) echo 26 ;; selector-table) echo 23 ;; hsic) echo 20 ;;
    adapter-recipes) echo 19 ;; adapter-caret|adapter-mlr3|glue) echo 16 ;; evaluate) echo 15 ;;
    inputs-large|lsmi) echo 14 ;; design-entry-points|threads) echo 13 ;;
    score-table|select-screen) echo 11 ;; codes|selection-test|survival-entry-points) echo 10 ;;
    scores|scores-rank|select-mrmr) echo 9 ;;
    args|pair-scores|scores-corners|select-rfe) echo 8 ;;
    approx|kernel-ridge|permutation|select-approx|series|simulate) echo 7 ;;
    bahsic-package|kernel-clinical|scale|scores-design|scores-inference) echo 6 ;;
    contribution|resampling-design|select-l1) echo 5 ;;
    hsic-design|pairtop|plots|select-weights) echo 4 ;;
    kernel-test|options|scores-cox|scores-linear) echo 3 ;;
    *) echo 2 ;;
  esac
}
if [[ -n ${BAHSIC_TEST_FILTER:-} || ${BAHSIC_ASAN_LANES:-2} == 1 ]]; then
  run tests Rscript "$BAHSIC_ROOT/tools/run-tests.R" --expect-lib="$lib"
  run examples Rscript "$BAHSIC_ROOT/tools/run-examples.R" --expect-lib="$lib"
else
  # one thread each by default, as in tools/valgrind.sh: two lanes of two threads on two cores
  # would wait for each other; the tests that ask for two threads still get them
  export OMP_NUM_THREADS=1
  mapfile -t files < <(bk_test_files)
  bk_two_lanes asan_seconds 100 "${files[@]}"
  bk_log "lane 1 (~${bk_load1} s): $bk_lane1"
  bk_log "lane 2 (~${bk_load2} s): examples, $bk_lane2"
  (export BAHSIC_TEST_FILTER=$bk_lane1
   run tests-1 Rscript "$BAHSIC_ROOT/tools/run-tests.R" --expect-lib="$lib"
   exit $fail) >"$BK_WORK/lane1.out" 2>&1 &
  pid1=$!
  (run examples Rscript "$BAHSIC_ROOT/tools/run-examples.R" --expect-lib="$lib"
   export BAHSIC_TEST_FILTER=$bk_lane2
   run tests-2 Rscript "$BAHSIC_ROOT/tools/run-tests.R" --expect-lib="$lib"
   exit $fail) >"$BK_WORK/lane2.out" 2>&1 &
  pid2=$!
  wait $pid1 || fail=1
  wait $pid2 || fail=1
  # the lanes' output one after the other, each with its own summary line
  cat "$BK_WORK/lane1.out" "$BK_WORK/lane2.out"
fi

if [[ $fail -ne 0 ]]; then
  bk_log "FAILED"
  exit 1
fi
bk_log "passed: tests and examples without a sanitizer report"
