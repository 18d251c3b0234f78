#!/usr/bin/env bash
# Which lines of the C code (src/*.c and src/*.h) each test file and the examples reach, and
# the test files that tools/valgrind.sh needs to reach them all.
#
#   bash tools/c-coverage.sh [OUTDIR]     (some 10 minutes on 2 cores; OUTDIR defaults to
#                                          ${TMPDIR:-/tmp}/bahsic-c-coverage)
#
# The package (a copy) is built with gcc --coverage at -O0 (so that gcov's lines are the
# source's lines) and installed into a temporary library from that copy, whose src/ keeps
# the .gcno files, so the .gcda files land there. Then each test file runs alone, and the
# examples, under exactly the conditions of the valgrind stage (BAHSIC_VALGRIND=true,
# NOT_CRAN unset, OMP_NUM_THREADS=1, R --vanilla), so that the same tests are skipped; after
# each, gcov lists the lines it executed and the .gcda files are reset.
#
# Written to OUTDIR:
#   lines/<name>.txt   the lines one test file (or "examples") reached, as "file.c:line"
#   coverage.rds       the same, a named list
#   selection.txt      the choice below, and the list to paste into tools/valgrind.sh
#
# The choice: the cost of a file is its time under valgrind (vg_seconds() of
# tools/valgrind.sh). Going from the most expensive file to the cheapest, a file is dropped
# when every line it reaches is also reached by the files still kept; so the kept files
# reach every line that the whole suite and the examples reach (checked at the end).
# Lines that depend on timing (schedule.c's probe of a busy machine) may be reached in one run
# and not in the next: selection.txt shows, for each kept file, the lines only it reaches.
# Limitation: lines run only in forked children (parallel::mclapply workers end with
# _exit(), which writes no .gcda) are not counted; valgrind does trace those children.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v gcov >/dev/null || { bk_log "gcov not found (it comes with gcc)" >&2; exit 1; }

out=${1:-${TMPDIR:-/tmp}/bahsic-c-coverage}
rm -rf "$out"
mkdir -p "$out/lines"
out=$(cd "$out" && pwd)

bk_workdir
src=$BK_WORK/src-copy
bk_copy_source "$src"
lib=$BK_WORK/lib
# the user Makevars is read after R's Makeconf: -O0 overrides R's -O2
cat >"$BK_WORK/Makevars" <<'EOF'
CFLAGS += -O0 --coverage
LDFLAGS += --coverage
EOF
bk_log "installing a --coverage build into $lib"
R_MAKEVARS_USER=$BK_WORK/Makevars bk_install "$src" "$lib"
ls "$src"/src/*.gcno >/dev/null 2>&1 || { bk_log "no .gcno files: not a --coverage build" >&2; exit 1; }

# the conditions of tools/valgrind.sh
export R_LIBS=$lib BAHSIC_VALGRIND=true OMP_NUM_THREADS=1
unset NOT_CRAN

# the executed lines of src/ since the last reset, as "file:line", one a line
lines_run() {
  (cd "$src/src" && gcov -t -o . *.c 2>/dev/null) | awk -F: '
    $2 + 0 == 0 && $3 == "Source" { file = $4; sub(/^.*\//, "", file); next }
    { c = $1; gsub(/ /, "", c); if (c ~ /^[0-9]+\*?$/ && c + 0 > 0) print file ":" ($2 + 0) }
  ' | sort -u
}

names=(examples)
for f in "$BAHSIC_ROOT"/tests/testthat/test-*.R; do
  n=$(basename "$f" .R); names+=("${n#test-}")
done
status=0
for n in "${names[@]}"; do
  find "$src/src" -name '*.gcda' -delete
  start=$SECONDS
  if [[ $n == examples ]]; then
    R --vanilla --no-echo -f "$BAHSIC_ROOT/tools/run-examples.R" --args --expect-lib="$lib" \
      >"$out/lines/$n.log" 2>&1 || { bk_log "$n: failed (log: $out/lines/$n.log)" >&2; status=1; }
  else
    BAHSIC_TEST_FILTER="^$n\$" R --vanilla --no-echo -f "$BAHSIC_ROOT/tools/run-tests.R" \
      --args --expect-lib="$lib" >"$out/lines/$n.log" 2>&1 ||
      { bk_log "$n: failed (log: $out/lines/$n.log)" >&2; status=1; }
  fi
  lines_run >"$out/lines/$n.txt"
  bk_log "$n: $(wc -l <"$out/lines/$n.txt") lines of C, $((SECONDS - start)) s"
done

# the costs, from tools/valgrind.sh
eval "$(sed -n '/^vg_seconds() {/,/^}/p' "$BAHSIC_ROOT/tools/valgrind.sh")"
eval "$(grep -m1 '^vg_examples_seconds=' "$BAHSIC_ROOT/tools/valgrind.sh")"
for n in "${names[@]}"; do
  if [[ $n == examples ]]; then echo "$n ${vg_examples_seconds:-235}"
  else echo "$n $(vg_seconds "$n")"; fi
done >"$out/costs.txt"

Rscript --vanilla - "$out" <<'EOF'
out <- commandArgs(TRUE)[1]
costs <- read.table(file.path(out, "costs.txt"), col.names = c("name", "secs"))
cov <- lapply(setNames(nm = costs$name), function(n)
  readLines(file.path(out, "lines", paste0(n, ".txt"))))
saveRDS(cov, file.path(out, "coverage.rds"))
all <- unique(unlist(cov))
count <- table(factor(unlist(cov), levels = all))
kept <- costs$name
for (n in costs$name[order(-costs$secs, costs$name)]) {
  if (all(count[cov[[n]]] >= 2L)) { # every line also reached by another kept file
    count[cov[[n]]] <- count[cov[[n]]] - 1L
    kept <- setdiff(kept, n)
  }
}
kept_lines <- unique(unlist(cov[kept]))
stopifnot(setequal(kept_lines, all))
cost <- setNames(costs$secs, costs$name)
c_lines <- function(x) sum(grepl("[.]c:", x))
dropped <- setdiff(costs$name, kept)
txt <- c(
  sprintf("lines of C reached (src/*.c; with inline code of src/*.h): all files %d (%d), kept %d (%d)",
          c_lines(all), length(all), c_lines(kept_lines), length(kept_lines)),
  sprintf("cost under valgrind: all %d s, kept %d s (%d files of %d), dropped %d s",
          sum(cost), sum(cost[kept]), length(kept), length(cost), sum(cost[dropped])),
  "kept (cost, lines, lines no other kept file reaches):",
  sprintf("  %-24s %4d s %5d %4d", kept, cost[kept], lengths(cov[kept]),
          vapply(kept, function(n) sum(count[cov[[n]]] == 1L), 0L)),
  "dropped (cost, lines):",
  sprintf("  %-24s %4d s %5d", dropped[order(-cost[dropped])],
          cost[dropped][order(-cost[dropped])], lengths(cov[dropped])[order(-cost[dropped])]),
  "for tools/valgrind.sh:",
  "vg_dropped=(",
  strwrap(paste(sort(dropped), collapse = " "), width = 88, prefix = "  "),
  ")")
writeLines(txt, file.path(out, "selection.txt"))
writeLines(txt)
EOF
bk_log "written to $out (coverage.rds, lines/, selection.txt)"
exit $status
