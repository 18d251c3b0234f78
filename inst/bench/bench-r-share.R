# R's share of bahsic() on the Golub data (38 x 3,051), one thread, with
# the defaults (the nonlinear screen, then BAHSIC on the seeds and on the
# others): the time of bahsic(x, y, threads = 1) outside the package's C
# routines -- argument checks, the inputs' normalisation, the screen's R
# steps, the p-values and adjustments, building the result, gc -- against
# its total, on the machine as it is ("idle") and with one competing busy
# process per core ("loaded", as inst/bench/bench-oversubscription.R makes
# load). Target: at most 10% in both. For information, the share without
# the screen (screen = "none", idle) is printed too.
#
# How the C time is measured: every function of the package's namespace
# that calls .Call() is rewritten (here, in this R session only) so that
# each .Call() goes through a wrapper that adds the seconds the call takes
# (Sys.time(), microseconds; its arguments evaluated first, as R's work) to
# a counter; the rewritten functions are byte-compiled as the installed ones
# are. R's share of a run is 1 - (C
# seconds) / (total seconds); the medians over `runs` runs are printed, with
# the total time of the unmodified bahsic() beside them (the wrapper's own
# cost is the difference). A .Call() made from a closure built when the
# package loaded would escape the rewriting and count as R: the share is,
# if anything, overstated. The results of the rewritten and the unmodified
# bahsic() are asserted identical().
#
#   Rscript inst/bench/bench-r-share.R [runs] [busy]
#
# runs: runs per condition (default 41); busy: the competing processes of
# the loaded half (default: one per core; 0 skips it). Takes about a minute
# on 2 cores. Timings on a shared machine are noisy: the "idle" half is only
# as idle as the machine.

suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
runs <- if (length(args) >= 1L) as.integer(args[1L]) else 41L
n_busy <- if (length(args) >= 2L) as.integer(args[2L]) else parallel::detectCores()
stopifnot(!is.na(runs), runs >= 3L, !is.na(n_busy), n_busy >= 0L)
target <- 0.10

x <- golub$x
y <- golub$y
now <- function() as.double(Sys.time())
load_now <- function() {
  if (!file.exists("/proc/loadavg")) return("?")
  paste(utils::head(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1L]], 3L),
        collapse = " ")
}
cat(sprintf("bahsic %s, R %s, %d cores, load average %s\n", utils::packageVersion("bahsic"),
            getRversion(), parallel::detectCores(), load_now()))
cat(sprintf("golub: %d samples x %d genes; bahsic(x, y, threads = 1), %d runs per condition\n",
            nrow(x), ncol(x), runs))

# --- the competing busy processes (as inst/bench/bench-oversubscription.R) ---
start_busy <- function(n, limit = 600) {
  loop <- sprintf(paste0("end=$(( $(date +%%s) + %d )); i=0; while :; do i=$((i+1)); ",
                         "if [ $i -ge 200000 ]; then i=0; [ $(date +%%s) -ge $end ] && exit 0; fi; ",
                         "done"), limit)
  cmd <- sprintf("(%s) >/dev/null 2>&1 </dev/null & echo $!", loop)
  pids <- vapply(seq_len(n), function(i) {
    as.integer(system2("sh", c("-c", shQuote(cmd)), stdout = TRUE))
  }, 0L)
  Sys.sleep(1)
  pids
}
stop_busy <- function(pids) {
  if (length(pids)) tools::pskill(pids, tools::SIGKILL)
  invisible()
}

# --- the .Call() timer -------------------------------------------------------
ns <- asNamespace("bahsic")
acc <- new.env()
reset <- function() {
  acc$sec <- 0
  acc$calls <- 0L
  acc$by <- list()
}
reset()
timed_call <- function(.NAME, ...) {
  # the arguments first: R's work on them (a promise such as x[, i] * x[, j])
  # counts as R
  args <- list(...)
  t0 <- now()
  on.exit({
    dt <- now() - t0
    acc$sec <- acc$sec + dt
    acc$calls <- acc$calls + 1L
    nm <- if (inherits(.NAME, "NativeSymbolInfo")) .NAME$name else "?"
    acc$by[[nm]] <- (if (is.null(acc$by[[nm]])) 0 else acc$by[[nm]]) + dt
  })
  do.call(.Call, c(list(.NAME), args))
}
rewrite <- function(e) {
  if (is.call(e)) {
    if (identical(e[[1L]], as.name(".Call"))) e[[1L]] <- timed_call
    for (i in seq_along(e)) {
      # (an empty argument, as in x[, j], and NULL are left as they are)
      if (!missing_arg(e, i) && !is.null(e[[i]])) e[[i]] <- rewrite(e[[i]])
    }
  }
  e
}
missing_arg <- function(e, i) is.name(e[[i]]) && !nzchar(as.character(e[[i]]))
calls_c <- function(f) {
  is.function(f) && !is.primitive(f) && any(grepl(".Call(", deparse(body(f)), fixed = TRUE))
}
swap <- function(name, f) {
  unlockBinding(name, ns)
  assign(name, f, envir = ns)
  lockBinding(name, ns)
}
originals <- list()
instrument <- function() {
  for (nm in ls(ns, all.names = TRUE)) {
    f <- get(nm, envir = ns)
    if (!calls_c(f)) next
    originals[[nm]] <<- f
    g <- f
    body(g) <- rewrite(body(f))
    swap(nm, compiler::cmpfun(g))
  }
  length(originals)
}
restore <- function() {
  for (nm in names(originals)) swap(nm, originals[[nm]])
}

# --- the runs ------------------------------------------------------------------
fit <- function() bahsic(x, y, threads = 1L)
plain_runs <- function(n) {
  vapply(seq_len(n), function(i) {
    t0 <- now()
    fit()
    now() - t0
  }, 0)
}
timed_runs <- function(n) {
  out <- matrix(0, n, 3L, dimnames = list(NULL, c("total", "c", "gc")))
  by <- list()
  for (i in seq_len(n)) {
    reset()
    g0 <- gc.time()[1L]
    t0 <- now()
    fit()
    out[i, ] <- c(now() - t0, acc$sec, gc.time()[1L] - g0)
    by[[i]] <- unlist(acc$by)
  }
  list(tab = out, calls = acc$calls, by = by)
}
summarise <- function(label, tm, plain) {
  tab <- tm$tab
  share <- 1 - tab[, "c"] / tab[, "total"]
  row <- data.frame(condition = label, plain_ms = 1e3 * stats::median(plain),
                    total_ms = 1e3 * stats::median(tab[, "total"]),
                    c_ms = 1e3 * stats::median(tab[, "c"]),
                    r_ms = 1e3 * stats::median(tab[, "total"] - tab[, "c"]),
                    gc_ms = 1e3 * stats::median(tab[, "gc"]),
                    r_share = stats::median(share), calls = tm$calls)
  row
}
measure <- function(label) {
  restore()
  plain <- plain_runs(runs)
  instrument()
  tm <- timed_runs(runs)
  list(row = summarise(label, tm, plain), by = tm$by)
}

ref <- fit()
n_fun <- instrument()
stopifnot(identical(fit(), ref))
cat(sprintf("%d functions of the namespace call .Call(); their calls are timed\n", n_fun))
invisible(fit()) # warm

results <- list()
by_routine <- NULL
idle <- measure(sprintf("idle (load %s)", load_now()))
results[["idle"]] <- idle$row
by_routine <- idle$by
if (n_busy > 0L) {
  pids <- start_busy(n_busy)
  loaded <- tryCatch(measure(sprintf("loaded, %d busy (load %s)", n_busy, load_now())),
                     finally = stop_busy(pids))
  results[["loaded"]] <- loaded$row
}
restore()
stopifnot(identical(fit(), ref))
# for information: BAHSIC without the screen (no target), idle
fit_default <- fit
fit <- function() bahsic(x, y, threads = 1L, screen = "none")
ref_none <- fit()
none <- measure(sprintf("screen = \"none\", idle (load %s)", load_now()))
results[["none"]] <- none$row
restore()
stopifnot(identical(fit(), ref_none))
fit <- fit_default

tab <- do.call(rbind, results)
cat("\nMedians over the runs (ms; r_share: median of the runs' 1 - C / total;",
    "plain: the unmodified bahsic())\n")
print(format(tab, digits = 3), row.names = FALSE)

routines <- names(by_routine[[1L]])
ms <- vapply(routines, function(r) {
  1e3 * stats::median(vapply(by_routine, function(b) if (r %in% names(b)) b[[r]] else 0, 0))
}, 0)
cat("\nC time by routine, idle (median ms per run)\n")
print(round(sort(ms, decreasing = TRUE), 2))

cat("\nTargets\n")
for (nm in setdiff(names(results), "none")) {
  share <- results[[nm]]$r_share
  cat(sprintf("  R share of bahsic() on golub, 1 thread, %-6s %6.3f  target <= %.2f  %s\n", nm,
              share, target, if (share <= target) "ok" else "MISSED"))
}
cat("  result identical() with the .Call() timer and without: yes (asserted)\n")
cat(sprintf("  load average at the end: %s\n", load_now()))
