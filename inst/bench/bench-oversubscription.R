# The default number of threads on an idle machine and on a busy one
# (?threads): every function with a parallel region, run with its default
# `threads`, with threads = 1 and with every core, alternately, `runs` times
# each (default 7), first as the machine is, then with one competing busy
# process per core, which this script starts and stops. Prints, per function, the medians, the
# speed-ups over one thread on the idle machine, the ratios time / one thread's
# under load (the target for the default: at most 1.1), and the threads the
# default chose. The results of the three are asserted identical.
#
#   Rscript inst/bench/bench-oversubscription.R [runs] [regexp] [busy]
#
# `regexp` keeps the functions whose label matches (a shorter run while
# developing), e.g. Rscript inst/bench/bench-oversubscription.R 3 'block|maxT';
# `busy`: the number of competing processes (default: one per core).
# The whole bench takes about 10 to 15 minutes on 2 cores (each sample runs for at least
# 0.5 s). Measure on an
# otherwise quiet machine: the "idle" half is only as idle as the machine.

suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
runs <- if (length(args) >= 1L) as.integer(args[1L]) else 7L
keep <- if (length(args) >= 2L) args[2L] else "."
cores <- parallel::detectCores()
n_busy <- if (length(args) >= 3L) as.integer(args[3L]) else cores

# --- competing busy processes ------------------------------------------------
# One shell loop per core; each ends by itself after `limit` seconds should
# this script be killed before it stops them.
start_busy <- function(n, limit = 1200) {
  loop <- sprintf(paste0("end=$(( $(date +%%s) + %d )); i=0; while :; do i=$((i+1)); ",
                         "if [ $i -ge 200000 ]; then i=0; [ $(date +%%s) -ge $end ] && exit 0; fi; ",
                         "done"), limit)
  cmd <- sprintf("(%s) >/dev/null 2>&1 </dev/null & echo $!", loop)
  pids <- vapply(seq_len(n), function(i) {
    as.integer(system2("sh", c("-c", shQuote(cmd)), stdout = TRUE))
  }, 0L)
  Sys.sleep(1) # let them take their cores
  pids
}

stop_busy <- function(pids) {
  if (length(pids)) tools::pskill(pids, tools::SIGKILL)
  invisible()
}

load_now <- function() {
  paste(utils::head(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1L]], 4L),
        collapse = " ")
}

# --- the functions -------------------------------------------------------------
set.seed(1)
env <- new.env()
have_all <- requireNamespace("ALL", quietly = TRUE) && requireNamespace("Biobase", quietly = TRUE)
if (have_all) {
  utils::data("ALL", package = "ALL", envir = env)
  all_x <- t(Biobase::exprs(env$ALL))
  all_y <- factor(substr(env$ALL$BT, 1L, 1L) == "B")
} else {
  all_x <- golub$x
  all_y <- golub$y
}
all_lab <- if (have_all) "ALL" else "golub" # ALL: 128 x 12625
xb <- matrix(stats::rnorm(50000 * 50), 50000)
yb <- stats::rnorm(50000)
x2 <- matrix(stats::rnorm(2500 * 50), 2500)
y2 <- x2[, 1]^2 + stats::rnorm(2500)
x4 <- matrix(stats::rnorm(4000 * 20), 4000)

# each function(threads) returns what must be identical across thread counts;
# threads = NULL: the default (the argument left out)
th <- function(t) if (is.null(t)) list() else list(threads = t)
entries <- list(
  "hsic block, m 50000, d 50" = function(t) {
    set.seed(5) # the random blocks
    do.call(hsic, c(list(xb, yb, kernel = kernel_gaussian(sigma = 1), approx = "block"), th(t)))$estimate
  },
  "hsic, m 2500, d 50" = function(t) do.call(hsic, c(list(x2, y2), th(t)))$estimate,
  "hsic_test, m 2500, d 5" = function(t) {
    do.call(hsic_test, c(list(x2[, 1:5], y2), th(t)))$p.value
  },
  "kernel_matrix, m 4000" = function(t) {
    sum(do.call(kernel_matrix, c(list(kernel_gaussian(), x4), th(t))))
  },
  "feature_scores hsic, ALL" = function(t) {
    do.call(feature_scores, c(list(all_x, all_y, method = "hsic"), th(t)))$score
  },
  "bahsic, ALL" = function(t) do.call(bahsic, c(list(all_x, all_y), th(t)))$ranking,
  "fohsic 30, ALL" = function(t) {
    do.call(fohsic, c(list(all_x, all_y, n_features = 30), th(t)))$ranking
  },
  "randsel 1000 boot, golub" = function(t) {
    set.seed(2)
    do.call(randsel, c(list(golub$x, golub$y, n_boot = 1000), th(t)))$ranking
  },
  "stability bahsic, golub" = function(t) {
    set.seed(3)
    do.call(stability_selection, c(list(golub$x, golub$y, selector = "bahsic",
                                         n_features = 20, n_subsamples = 10), th(t)))$selections
  },
  "maxT t 500 perm, ALL" = function(t) {
    set.seed(4)
    do.call(feature_scores, c(list(all_x, all_y, method = "t", adjust = "maxT",
                                   n_perm = 500), th(t)))$adj_p_value
  }
)
# BAHSIC inside the workers of your own back end (one worker per core, one
# fit each; x: the first 4000 genes of ALL)
in_worker <- function(i, x, y, t) {
  do.call(bahsic::bahsic, c(list(x, y), if (!is.null(t)) list(threads = t)))$ranking
}
xw <- all_x[, seq_len(min(4000L, ncol(all_x)))]
if (requireNamespace("future.apply", quietly = TRUE)) {
  entries[["bahsic in future workers"]] <- function(t) {
    future.apply::future_lapply(seq_len(cores), in_worker, x = xw, y = all_y, t = t)
  }
}
if (requireNamespace("BiocParallel", quietly = TRUE)) {
  snow <- BiocParallel::SnowParam(cores)
  entries[["bahsic in SnowParam workers"]] <- function(t) {
    BiocParallel::bplapply(seq_len(cores), in_worker, x = xw, y = all_y, t = t, BPPARAM = snow)
  }
}
names(entries) <- sub("ALL", all_lab, names(entries), fixed = TRUE)
entries <- entries[grepl(keep, names(entries))]

# --- timing --------------------------------------------------------------------
# `runs` alternating rounds (the default, 1 thread, every core): the
# medians. Each sample repeats the call until it has run for `min_time`
# seconds (k calls, the same k for the three), so that a call of 0.1 s is
# not judged on one slice of the scheduler. `chosen`: the fewest and the
# most threads default_threads() gave just before the default's samples.
min_time <- 0.5
time_rounds <- function(f, label) {
  ref <- f(1L)
  if (!identical(f(NULL), ref) || !identical(f(cores), ref)) {
    stop(label, ": the default, threads = 1 and threads = ", cores, " give different results")
  }
  k <- max(1L, ceiling(min_time / max(system.time(f(1L))[["elapsed"]], 1e-3)))
  one <- function(t) system.time(for (i in seq_len(k)) f(t))[["elapsed"]] / k
  sec <- vapply(seq_len(runs), function(i) {
    chosen <- default_threads()
    c(default = one(NULL), one = one(1L), all = one(cores), chosen = chosen)
  }, c(default = 0, one = 0, all = 0, chosen = 0))
  c(apply(sec[1:3, , drop = FALSE], 1L, stats::median), lo = min(sec["chosen", ]),
    hi = max(sec["chosen", ]))
}

phase <- function(label) {
  cat(sprintf("%s: load %s (1, 5, 15 min, runnable/total)\n", label, load_now()))
  t(vapply(names(entries), function(nm) time_rounds(entries[[nm]], nm),
           c(default = 0, one = 0, all = 0, lo = 0, hi = 0)))
}

main <- function() {
  cat(sprintf("%d cores; median of %d alternating runs each; seconds\n", cores, runs))
  # the workers start once, before the timings
  if (any(grepl("future workers", names(entries)))) {
    old_plan <- future::plan(future::multisession, workers = cores)
    on.exit(future::plan(old_plan), add = TRUE)
  }
  if (any(grepl("SnowParam", names(entries)))) {
    BiocParallel::bpstart(snow)
    on.exit(BiocParallel::bpstop(snow), add = TRUE)
  }
  idle <- phase("idle")
  pids <- start_busy(n_busy)
  on.exit(stop_busy(pids), add = TRUE)
  busy <- phase(sprintf("with %d busy processes", n_busy))
  stop_busy(pids)
  pids <- integer()
  ratio <- busy[, "default"] / busy[, "one"]
  thr <- function(r) if (r[["lo"]] == r[["hi"]]) sprintf("%d", as.integer(r[["lo"]])) else
    sprintf("%d-%d", as.integer(r[["lo"]]), as.integer(r[["hi"]]))
  cat(sprintf("\n%-28s %6s %6s %6s %3s %5s %5s | %6s %6s %6s %3s %5s %5s %3s\n", "function",
              "idle 1", "def", "all", "thr", "x def", "x all", "busy 1", "def", "all", "thr",
              "r def", "r all", "ok"))
  for (nm in rownames(idle)) {
    i <- idle[nm, ]
    b <- busy[nm, ]
    cat(sprintf("%-28s %6.3f %6.3f %6.3f %3s %5.2f %5.2f | %6.3f %6.3f %6.3f %3s %5.2f %5.2f %3s\n",
                nm, i[["one"]], i[["default"]], i[["all"]], thr(i),
                i[["one"]] / i[["default"]], i[["one"]] / i[["all"]], b[["one"]], b[["default"]],
                b[["all"]], thr(b), ratio[nm], b[["all"]] / b[["one"]],
                if (ratio[nm] <= 1.1) "yes" else "NO"))
  }
  cat(sprintf(paste0("1, def, all: threads = 1, the default, threads = %d (every core), seconds a call ",
                     "(each sample repeats the call for at least %.1f s); thr: the threads ",
                     "default_threads() gave before each sample;\nx def, x all: ",
                     "speed-up over 1 thread on the machine as it was; r def, r all: time / ",
                     "1 thread's with the busy processes (target for the default: <= 1.1)\n"),
              cores, min_time))
  invisible(list(idle = idle, busy = busy))
}

main()
