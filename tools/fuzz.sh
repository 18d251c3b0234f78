#!/usr/bin/env bash
# libFuzzer harnesses for the plain-C numeric core (src/{scale,gram,hsic,kernel_test,pace,pairs,select,schedule,scorer_*,series,width,clinical,scores,checks,randsel,lowrank,ridge,pairtop,screen,maxt}.c;
# R's headers and BLAS/LAPACK for ridge.c, nothing else of R), built with AddressSanitizer and UndefinedBehaviorSanitizer and run for a bounded
# time each.
#
# Run locally:
#   bash tools/fuzz.sh                          # every target, FUZZ_SECONDS (default 60) each
#   FUZZ_SECONDS=600 bash tools/fuzz.sh fuzz_select   # a subset, longer
#   FUZZ_KEEP=1 bash tools/fuzz.sh              # keep the build and the grown corpus
# The targets are tools/fuzz/fuzz_*.c; the seeds tools/fuzz/corpus/<target>/. Each target runs on
# a temporary copy of its seeds, so the repository is never modified. Everything goes into a
# temporary directory (its path is printed), removed on success unless FUZZ_KEEP=1 and kept on
# failure; crashing inputs are in its artifacts/<target>/.
# Environment: FUZZ_SECONDS (per target), FUZZ_JOBS (targets at a time; default the number
# of cores), CC (a clang with libFuzzer; default clang, then clang-14), FUZZ_FLAGS (extra libFuzzer flags, e.g. "-jobs=2 -workers=2"), TMPDIR.
#
# Exit status non-zero if a target fails to build, crashes, leaks, hangs (> 10 s on one input),
# goes over 2048 MB or reports undefined behaviour (UBSan halts on the first report). The last
# lines are one summary line per target (runs executed, seconds).
#
# Reproduce a crash (the failure message prints the exact command):
#   <tmpdir>/build/<target> <tmpdir>/artifacts/<target>/crash-...
# which runs that one input under the same sanitizers and prints the report; add
# -runs=100 to repeat it. Rebuild by hand with:
#   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
#     -fno-omit-frame-pointer -I src $(R CMD config --cppflags) tools/fuzz/<target>.c \
#     src/{scale,gram,hsic,kernel_test,pace,pairs,select,schedule,scorer_*,series,width,clinical,scores,checks,randsel,lowrank,ridge,pairtop,screen,maxt}.c \
#     $(R CMD config LAPACK_LIBS) $(R CMD config BLAS_LIBS) $(R CMD config FLIBS) -lm
# Once fixed, keep the input as a regression seed: cp it to tools/fuzz/corpus/<target>/ under a
# descriptive name (regress-<what>).
#
# Add a target: write tools/fuzz/fuzz_<name>.c with LLVMFuzzerTestOneInput() (decode the bytes
# with tools/fuzz/fuzz_input.h, allocate every buffer with exactly its documented size, free
# everything: leaks fail the run; call abort() only for invariants of finite inputs), put a
# few seeds in tools/fuzz/corpus/fuzz_<name>/ (e.g. from a short run: mkdir that directory and
# run the built target on it with -max_total_time=60, then -merge=1 into an empty directory
# to keep a small set), and it is picked up automatically. The fuzzers are built without
# -fopenmp (the pragmas are ignored), so nthreads > 1 must be harmless.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fuzz_dir="$root/tools/fuzz"
seconds=${FUZZ_SECONDS:-60}
core_sources=(scale gram hsic kernel_test pace pairs select schedule scorer_pairs scorer_rff scorer_ichol scorer_clinical series width clinical scores checks randsel lowrank ridge pairtop screen maxt)

log() { echo "[fuzz.sh] $*"; }

if [[ ! $seconds =~ ^[0-9]+$ ]] || [[ $seconds -lt 1 ]]; then
  log "FUZZ_SECONDS must be a positive whole number of seconds, not '$seconds'" >&2
  exit 1
fi

# ---- compiler -------------------------------------------------------------------------------
cc=${CC:-}
if [[ -z $cc ]]; then
  cc=$(command -v clang || command -v clang-14 || true)
fi
if [[ -z $cc ]] || ! command -v "$cc" >/dev/null 2>&1; then
  log "clang not found (set CC to a clang with libFuzzer). On Debian 12:" >&2
  log "  apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 1
fi

# ---- targets --------------------------------------------------------------------------------
all_targets=()
for src in "$fuzz_dir"/fuzz_*.c; do
  [[ -e $src ]] || continue
  all_targets+=("$(basename "$src" .c)")
done
if [[ ${#all_targets[@]} -eq 0 ]]; then
  log "no targets in $fuzz_dir (fuzz_*.c)" >&2
  exit 1
fi
if [[ $# -gt 0 ]]; then
  targets=()
  for t in "$@"; do
    t=${t%.c}
    t=$(basename "$t")
    [[ $t == fuzz_* ]] || t="fuzz_$t"
    if [[ ! -f $fuzz_dir/$t.c ]]; then
      log "unknown target '$t'; targets: ${all_targets[*]}" >&2
      exit 1
    fi
    targets+=("$t")
  done
else
  targets=("${all_targets[@]}")
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bahsic-fuzz.XXXXXX")
log "working directory (build, corpus copies, logs, artifacts): $work"
mkdir -p "$work/build" "$work/corpus" "$work/artifacts" "$work/logs"

# (BK_TRI_PAR_MIN: the median's bracketing passes, src/gram.c, from 16 distances instead
# of 2^18, so that the targets' few samples reach them)
cflags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
        -fno-omit-frame-pointer -DBK_TRI_PAR_MIN=16 -I "$root/src")
# ridge.c calls R's BLAS and LAPACK (its headers; the libraries R links)
read -r -a r_cppflags <<<"$(R CMD config --cppflags)"
read -r -a r_libs <<<"$(R CMD config LAPACK_LIBS) $(R CMD config BLAS_LIBS) $(R CMD config FLIBS)"

# a clang without libFuzzer's runtime (libclang-rt-*-dev) fails here, not in the middle
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void) d; (void) n; return 0; }' \
  >"$work/probe.c"
if ! "$cc" "${cflags[@]}" "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1; then
  cat "$work/probe.log" >&2
  log "$cc cannot build a libFuzzer target with ASan and UBSan. On Debian 12:" >&2
  log "  apt-get install clang-14 libclang-rt-14-dev" >&2
  exit 1
fi

# ---- build ----------------------------------------------------------------------------------
srcs=()
for s in "${core_sources[@]}"; do srcs+=("$root/src/$s.c"); done
build_target() { # target; logs/<target>.build.log, and logs/<target>.build-failed on failure
  local t=$1
  log "building $t with $cc"
  if ! "$cc" "${cflags[@]}" "${r_cppflags[@]}" "$fuzz_dir/$t.c" "${srcs[@]}" "${r_libs[@]}" -lm \
      -o "$work/build/$t" >"$work/logs/$t.build.log" 2>&1; then
    touch "$work/logs/$t.build-failed"
  fi
}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
if [[ ! $jobs =~ ^[0-9]+$ ]] || [[ $jobs -lt 1 ]]; then
  log "FUZZ_JOBS must be a positive whole number, not '$jobs'" >&2
  exit 2
fi
for t in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  build_target "$t" &
done
wait
for t in "${targets[@]}"; do
  if [[ -e $work/logs/$t.build-failed ]]; then
    cat "$work/logs/$t.build.log" >&2
    log "$t: build failed; working directory kept: $work" >&2
    exit 1
  fi
  # warnings are shown, not fatal
  if [[ -s $work/logs/$t.build.log ]]; then cat "$work/logs/$t.build.log"; fi
done

# ---- run ------------------------------------------------------------------------------------
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# Targets run FUZZ_JOBS at a time, as they were built (each is single-threaded, so two cores
# halve the stage's time). A target's report goes to its own files and is printed when all
# are done, in the targets' order.
run_target() { # target; writes logs/<target>.summary and, on failure, logs/<target>.report
  local t=$1 corpus="$work/corpus/$1" art="$work/artifacts/$1" start rc=0 elapsed runs kind
  mkdir -p "$corpus" "$art"
  if [[ -d $fuzz_dir/corpus/$t ]]; then cp -R "$fuzz_dir/corpus/$t/." "$corpus/"; fi
  log "running $t for ${seconds} s on a copy of $(find "$corpus" -type f | wc -l) seed(s)"
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$work/build/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_FLAGS:-} "$corpus" \
    >"$work/logs/$t.log" 2>&1 || rc=$?
  elapsed=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/logs/$t.log" | tail -n 1)
  [[ -n $runs ]] || runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work/logs/$t.log" | tail -n 1)
  [[ -n $runs ]] || runs="?"
  local found
  mapfile -t found < <(find "$art" -type f | sort)
  if [[ $rc -ne 0 || ${#found[@]} -gt 0 ]]; then
    kind=$(grep -oE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z-]+|runtime error: .*|invariant failed: .*' \
             "$work/logs/$t.log" | head -n 1 || true)
    echo "$t: FAILED (exit $rc${kind:+, $kind}) after $runs runs in ${elapsed} s" >"$work/logs/$t.summary"
    {
      echo
      log "$t FAILED (exit $rc). Last lines of $work/logs/$t.log:"
      tail -n 60 "$work/logs/$t.log"
      for a in "${found[@]}"; do
        log "$t: crashing input: $a"
        log "  reproduce: UBSAN_OPTIONS=$UBSAN_OPTIONS $work/build/$t $a"
      done
      if [[ ${#found[@]} -eq 0 ]]; then
        log "$t: no input was saved; see the log above"
      fi
    } >"$work/logs/$t.report" 2>&1
  else
    echo "$t: OK, $runs runs in ${elapsed} s" >"$work/logs/$t.summary"
  fi
}
for t in "${targets[@]}"; do
  while (( $(jobs -rp | wc -l) >= jobs )); do wait -n || true; done
  run_target "$t" &
done
wait
summary=()
failed=0
for t in "${targets[@]}"; do
  if [[ -s $work/logs/$t.report ]]; then
    cat "$work/logs/$t.report" >&2
    failed=1
  fi
  if [[ -s $work/logs/$t.summary ]]; then
    summary+=("$(cat "$work/logs/$t.summary")")
  else
    summary+=("$t: FAILED (no summary: the run did not finish)")
    failed=1
  fi
done

echo
if [[ $failed -ne 0 ]]; then
  log "working directory kept: $work (artifacts in $work/artifacts)"
else
  if [[ ${FUZZ_KEEP:-0} == 1 ]]; then
    log "working directory kept (FUZZ_KEEP=1): $work"
  else
    rm -rf "$work"
  fi
fi
for line in "${summary[@]}"; do log "$line"; done
exit "$failed"
