# Usage: Rscript inst/bench/bench-nonlinear-guard.R record|compare [FILE] [--quick|--times]
#
# The "no loss" guard of a change of bahsic()'s (or fohsic()'s) defaults: the
# errors of the selectors on the data sets of the papers' benchmark tables,
# and the time of bahsic() with its defaults on the ALL and Golub expression
# data, before (`record`, with the package as it was) and after (`compare`,
# with the changed package installed). The targets checked by `compare`:
#
#   errors  on each data set, the selector's mean cross-validated error with
#           the installed defaults within one standard deviation (over the
#           folds, of the recorded run) of the recorded mean; the stricter
#           "within one standard error" is printed beside it.
#   time    bahsic() with its defaults on ALL B vs T (128 x 12625) at most 2
#           times today's time; failing that, at most 30 s on 2 threads.
#           Today's time is the recorded median and, when the installed
#           bahsic() has a `screen` argument, also screen = "none" timed in
#           the same run, under the same load: the fairer reference on a
#           shared machine, and the one the verdict uses when it is there.
#
# FILE defaults to inst/bench/guard-baseline-5792c45.rds, recorded with the
# package at commit 5792c45. `compare` reads the protocol (data sets, folds,
# selectors, repetitions of the timings) from FILE, so both runs measure the
# same thing; it exits with status 1 when a target is missed.
#
# The errors are those of inst/bench/reproduce-tables.R (Song et al. 2012,
# section 7.2 and Table 1; section 9.2 and Table 3), restricted to the
# selectors a change of bahsic()'s or fohsic()'s defaults can move, with the
# same folds, classifier and data (the loaders are read from that script, one
# path for the data):
#
#   Table 1  ionosphere, sonar, breastcancer, satimage, vehicle, vowel,
#            vowel_speaker, housing: BAHSIC = bahsic() and FOHSIC = fohsic()
#            with their defaults; top 5 features, SVM (Gaussian, sigma = the
#            median distance, C = 100), 10-fold cross-validation (vowel_speaker:
#            one fold per speaker, 15 folds).
#   Table 3  golub, colon, all_bt, prostate: RBF = bahsic() and dis = bahsic()
#            with kernel_inverse_distance(); top 10 genes, SVM with (C, sigma)
#            tuned by 5-fold inner cross-validation, 10-fold stratified
#            cross-validation. The other columns of Table 3 (feature_scores()
#            methods, clinical_rfe()) do not call bahsic() and are left out.
#
# The full protocol, not a subset: every fold of every table. Each selector
# runs in its own evaluate_selection() call after set.seed(1), so the outer
# folds are the tables' (drawn first) and a selector's inner folds do not
# depend on which others run or on their use of the random number generator.
# (So the Table 1 figures equal those of vignettes/reproduction.md; the Table
# 3 ones differ from it by the inner folds only.) A data set whose package is
# missing is skipped with a message, at `record` and at `compare` alike (with
# the package under test in a library of its own, put the data packages'
# library on R_LIBS too).
#
# The times: bahsic(x, y, threads = t) with every other argument at its
# default, full ranking, t = 1 and 2, the median of `reps` runs (ALL 11, Golub
# 21; fewer, but at least 3, once the runs of one setting have taken 60 s);
# when the installed bahsic() has a `screen` argument, `compare` times
# screen = "none" too (today's path, one argument away), the runs of the two
# taken in turn. The machine is shared: the load average (1 min, mean of
# before and after a setting's runs) is printed beside the times.
#
# Runtime on the project's 2-core machine (shared with other jobs, load
# average 5-8): `record` at 5792c45 9.2 min (errors 8.5 min, of which ALL's
# dis 1.5 min and satimage's BAHSIC 1.2 min; times 0.7 min); `--quick` (3
# folds on ionosphere, vehicle, housing and golub, the times with 1 run each,
# written to a temporary file unless FILE is given) 10-20 s. `compare` takes
# `record`'s time with the new defaults' cost: 16.5 min (load average 3-6)
# with a pair-and-gene screen as bahsic()'s default that takes 15 s on ALL
# (satimage's BAHSIC 4.3 min, m = 1998; ALL's RBF 3.5 min; the times 5 min).
# `record FILE --times` measures the times again and keeps FILE's errors (the
# times are the part that a machine's load moves; see the load average in the
# output).

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
times_only <- "--times" %in% args
args <- setdiff(args, c("--quick", "--times"))
mode <- if (length(args)) args[1L] else ""
if (!mode %in% c("record", "compare") || length(args) > 2L) {
  stop("Usage: Rscript inst/bench/bench-nonlinear-guard.R record|compare [FILE] [--quick|--times]",
       call. = FALSE)
}
if (times_only && (quick || mode != "record")) {
  stop("--times goes with `record` (and an existing FILE), not with --quick or `compare`.",
       call. = FALSE)
}
script_dir <- local({
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) dirname(normalizePath(f[1L])) else file.path("inst", "bench")
})
file <- if (length(args) == 2L) {
  args[2L]
} else if (quick && mode == "record") {
  file.path(tempdir(), "guard-baseline-quick.rds")
} else {
  file.path(script_dir, "guard-baseline-5792c45.rds")
}
if (!requireNamespace("kernlab", quietly = TRUE)) {
  stop("The SVMs need kernlab: apt-get install -y r-cran-kernlab.", call. = FALSE)
}
options(width = 160)

# ---------------------------------------------------------------------------
# The data: the loaders of reproduce-tables.R, read without running it
# ---------------------------------------------------------------------------

loaders <- local({
  exprs <- parse(file.path(script_dir, "reproduce-tables.R"))
  env <- new.env()
  for (e in exprs) {
    if (is.call(e) && identical(e[[1L]], as.name("<-")) && is.name(e[[2L]]) &&
        grepl("^(load_|mlbench_|have$|get_data$|numeric_matrix$)", as.character(e[[2L]]))) {
      eval(e, env)
    }
  }
  env
})

# ---------------------------------------------------------------------------
# The protocol (`record` writes it into FILE; `compare` reads it from there)
# ---------------------------------------------------------------------------

default_protocol <- function(quick) {
  t1 <- c("ionosphere", "sonar", "breastcancer", "satimage", "vehicle", "vowel",
          "vowel_speaker", "housing")
  t3 <- c("golub", "colon", "all_bt", "prostate")
  if (quick) {
    t1 <- c("ionosphere", "vehicle", "housing")
    t3 <- "golub"
  }
  list(sets = rbind(data.frame(table = "table1", data = t1, stringsAsFactors = FALSE),
                    data.frame(table = "table3", data = t3, stringsAsFactors = FALSE)),
       selectors = list(table1 = c(BAHSIC = "bahsic", FOHSIC = "fohsic"),
                        table3 = c(RBF = "bahsic", dis = "bahsic_dis")),
       folds = if (quick) 3L else 10L, inner_folds = if (quick) 2L else 5L,
       threads = 2L,
       timings = data.frame(data = c("all_bt", "golub"), reps = if (quick) 1L else c(11L, 21L),
                            stringsAsFactors = FALSE),
       timing_threads = c(1L, 2L), quick = quick)
}

load_set <- function(name) {
  f <- get(paste0("load_", name), envir = loaders)
  f()
}

# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

# One (data set, selector): the per-fold errors (%) and the top features of
# every fold.
run_errors <- function(d, table, label, selector, pr) {
  set.seed(1)
  k_folds <- if (is.null(d$folds)) pr$folds else d$folds
  sel <- stats::setNames(list(selector), label)
  t0 <- proc.time()[["elapsed"]]
  ev <- if (table == "table1") {
    evaluate_selection(d$x, d$y, selectors = sel, n_features = 5, folds = k_folds,
                       tune = list(C = 100, sigma = "median"), threads = pr$threads)
  } else {
    evaluate_selection(d$x, d$y, selectors = sel, n_features = 10, folds = k_folds,
                       inner_folds = pr$inner_folds, threads = pr$threads)
  }
  secs <- proc.time()[["elapsed"]] - t0
  res <- ev$results
  n <- if (table == "table1") 5L else 10L
  list(errors = data.frame(table = table, selector = label, rep = res$rep, fold = res$fold,
                           error = 100 * res$error, stringsAsFactors = FALSE),
       top = lapply(ev$rankings[[label]], function(r) r[seq_len(n)]),
       secs = secs)
}

all_errors <- function(pr) {
  out <- list()
  for (i in seq_len(nrow(pr$sets))) {
    name <- pr$sets$data[i]
    table <- pr$sets$table[i]
    d <- load_set(name)
    if (is.null(d)) next
    message(sprintf("%s: %d x %d (%s)", name, nrow(d$x), ncol(d$x), d$source))
    sels <- pr$selectors[[table]]
    for (label in names(sels)) {
      r <- run_errors(d, table, label, sels[[label]], pr)
      r$errors$data <- name
      message(sprintf("  %s: %.1f%% (%.0f s)", label, mean(r$errors$error), r$secs))
      out[[paste(name, label)]] <- list(data = name, table = table, selector = label,
                                        errors = r$errors, top = r$top, secs = r$secs)
    }
  }
  out
}

summarise_errors <- function(runs) {
  do.call(rbind, lapply(runs, function(r) {
    e <- r$errors$error
    data.frame(table = r$table, data = r$data, selector = r$selector, folds = length(e),
               error = mean(e), sd = stats::sd(e), se = stats::sd(e) / sqrt(length(e)),
               secs = r$secs, stringsAsFactors = FALSE)
  }))
}

# ---------------------------------------------------------------------------
# Times
# ---------------------------------------------------------------------------

has_screen <- function() "screen" %in% names(formals(getS3method("bahsic", "default")))

# `reps` runs of each variant, taken in turn (default, screen = "none",
# default, ...) so that a change of the machine's load falls on both; fewer
# runs (but at least 3) once a variant's have taken `budget` seconds, so that
# a slow new default does not make `compare` run for long.
time_variants <- function(d, threads, reps, variants, budget = 60) {
  secs <- lapply(variants, function(v) numeric(0))
  more <- function(s) length(s) < reps && (length(s) < min(3L, reps) || sum(s) < budget)
  while (any(vapply(secs, more, logical(1)))) {
    for (v in names(variants)) {
      if (!more(secs[[v]])) next
      gc(verbose = FALSE)
      secs[[v]] <- c(secs[[v]], system.time(
        do.call(bahsic, c(list(d$x, d$y, threads = threads), variants[[v]])))[["elapsed"]])
    }
  }
  secs
}

load_now <- function() as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1L])

all_times <- function(pr, variants) {
  rows <- list()
  for (i in seq_len(nrow(pr$timings))) {
    name <- pr$timings$data[i]
    d <- load_set(name)
    if (is.null(d)) next
    for (th in pr$timing_threads) {
      load <- load_now()
      secs <- time_variants(d, th, pr$timings$reps[i], variants)
      load <- mean(c(load, load_now()))
      for (v in names(variants)) {
        message(sprintf("time %s %s threads = %d: %s s (load %.2f)", name, v, th,
                        paste(format(secs[[v]], nsmall = 2), collapse = ", "), load))
        rows[[length(rows) + 1L]] <- data.frame(
          data = name, m = nrow(d$x), d = ncol(d$x), variant = v, threads = th,
          reps = length(secs[[v]]), median = stats::median(secs[[v]]), min = min(secs[[v]]),
          max = max(secs[[v]]), load = load, stringsAsFactors = FALSE)
      }
    }
  }
  do.call(rbind, rows)
}

# ---------------------------------------------------------------------------
# The machine and the package
# ---------------------------------------------------------------------------

machine <- function() {
  cpu <- tryCatch(grep("^model name", readLines("/proc/cpuinfo"), value = TRUE),
                  error = function(e) character(0))
  commit <- tryCatch(system2("git", c("-C", script_dir, "rev-parse", "--short", "HEAD"),
                             stdout = TRUE, stderr = FALSE), error = function(e) NA_character_,
                     warning = function(w) NA_character_)
  list(date = format(Sys.time(), tz = "UTC", usetz = TRUE),
       commit = if (length(commit)) commit[1L] else NA_character_,
       bahsic = as.character(utils::packageVersion("bahsic")),
       bahsic_path = find.package("bahsic"),
       screen_argument = has_screen(),
       r = R.version.string, kernlab = as.character(utils::packageVersion("kernlab")),
       nproc = parallel::detectCores(),
       cpu = if (length(cpu)) sub("^model name\\s*:\\s*", "", cpu[1L]) else NA_character_,
       loadavg = readLines("/proc/loadavg"))
}

show_machine <- function(mc, what) {
  cat(sprintf("%s: %s, checkout at %s, bahsic %s (%s), screen argument: %s\n", what, mc$date,
              mc$commit, mc$bahsic, mc$bahsic_path, mc$screen_argument))
  cat(sprintf("  %s, kernlab %s, %d cores (%s), load average %s\n", mc$r, mc$kernlab,
              mc$nproc, mc$cpu, mc$loadavg))
}

fmt <- function(v, digits = 1L) formatC(v, format = "f", digits = digits)

# A data frame as a markdown table.
md_table <- function(df) {
  cat("| ", paste(names(df), collapse = " | "), " |\n", sep = "")
  cat("|", strrep("---|", ncol(df)), "\n", sep = "")
  cat(sprintf("| %s |\n", do.call(paste, c(unname(as.list(df)), sep = " | "))), sep = "")
}

# ---------------------------------------------------------------------------
# record
# ---------------------------------------------------------------------------

t_start <- proc.time()[["elapsed"]]
if (mode == "record") {
  mc <- machine()
  show_machine(mc, "record")
  if (times_only) {
    if (!file.exists(file)) {
      stop(sprintf("No baseline at %s to keep the errors of.", file), call. = FALSE)
    }
    base <- readRDS(file)
    pr <- base$protocol
  } else {
    pr <- default_protocol(quick)
    runs <- all_errors(pr)
    base <- list(protocol = pr, machine = mc, runs = runs, summary = summarise_errors(runs))
  }
  times <- all_times(pr, list(default = list()))
  mc$loadavg_end <- readLines("/proc/loadavg")
  base$times <- times
  base$times_machine <- mc
  saveRDS(base, file)
  s <- base$summary
  cat("\nErrors (%, mean over the folds, sd and se over the folds):\n\n")
  md_table(data.frame(table = s$table, `data set` = s$data, selector = s$selector,
                      folds = s$folds, error = fmt(s$error), sd = fmt(s$sd), se = fmt(s$se),
                      time = sprintf("%.0f s", s$secs), check.names = FALSE))
  cat("\nTimes of bahsic() with its defaults (s, median of the runs):\n\n")
  md_table(data.frame(data = times$data, `m x d` = paste(times$m, "x", times$d),
                      variant = times$variant, threads = times$threads, runs = times$reps,
                      median = fmt(times$median, 2), min = fmt(times$min, 2),
                      max = fmt(times$max, 2), load = fmt(times$load, 2), check.names = FALSE))
  cat(sprintf("\nrecorded to %s in %.1f min; load average at the end %s\n", file,
              (proc.time()[["elapsed"]] - t_start) / 60, mc$loadavg_end))
  quit(status = 0L)
}

# ---------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------

if (!file.exists(file)) stop(sprintf("No baseline at %s: run `record` first.", file), call. = FALSE)
base <- readRDS(file)
pr <- base$protocol
show_machine(base$machine, "baseline")
mc <- machine()
show_machine(mc, "now")

runs <- all_errors(pr)
s <- summarise_errors(runs)
b <- base$summary
key <- function(x) paste(x$data, x$selector)
s <- s[key(s) %in% key(b), , drop = FALSE]
missing_now <- setdiff(key(b), key(s))
bm <- b[match(key(s), key(b)), ]
same_top <- vapply(seq_len(nrow(s)), function(i) {
  k <- paste(s$data[i], s$selector[i])
  sum(mapply(setequal, runs[[k]]$top, base$runs[[k]]$top))
}, numeric(1))
delta <- s$error - bm$error
in_sd <- abs(delta) <= bm$sd
in_se <- abs(delta) <= bm$se
cat("\nErrors (%): the recorded mean ± sd over the folds, now, the difference, and whether\n",
    "it is within one sd (the target) and within one se; 'same top' = folds whose top\n",
    "features (as a set) are the recorded ones.\n\n", sep = "")
md_table(data.frame(table = s$table, `data set` = s$data, selector = s$selector,
                    recorded = paste(fmt(bm$error), "±", fmt(bm$sd)), now = fmt(s$error),
                    `now - recorded` = sprintf("%+.1f", delta),
                    `within one sd` = ifelse(in_sd, "yes", "no"),
                    `within one se` = ifelse(in_se, "yes", "no"),
                    `same top` = sprintf("%d of %d", same_top, s$folds),
                    time = sprintf("%.0f s", s$secs), check.names = FALSE))
if (length(missing_now)) {
  cat(sprintf("not run now (data missing): %s\n", paste(missing_now, collapse = ", ")))
}

variants <- list(default = list())
if (has_screen()) variants$`screen = "none"` <- list(screen = "none")
times <- all_times(pr, variants)
bt <- base$times
ref <- bt$median[match(paste(times$data, times$threads), paste(bt$data, bt$threads))]
ratio <- times$median / ref
# today's path timed now, under the same load, when it is one argument away
none <- times[times$variant == "screen = \"none\"", , drop = FALSE]
ref_now <- none$median[match(paste(times$data, times$threads), paste(none$data, none$threads))]
ratio_now <- times$median / ref_now
tm <- if (is.null(base$times_machine)) base$machine else base$times_machine
cat(sprintf(paste0("\nTimes of bahsic() (s, median of the runs; recorded = the defaults at %s, ",
                   "load %s;\nratio = now / recorded; ratio now = now / screen = \"none\" in ",
                   "this run):\n\n"),
            tm$commit, sprintf("%.2f-%.2f", min(bt$load), max(bt$load))))
md_table(data.frame(data = times$data, variant = times$variant, threads = times$threads,
                    runs = times$reps, recorded = fmt(ref, 2), now = fmt(times$median, 2),
                    ratio = fmt(ratio, 2),
                    `ratio now` = ifelse(is.na(ratio_now), "", fmt(ratio_now, 2)),
                    `load now` = fmt(times$load, 2), check.names = FALSE))

# the time target: bahsic()'s default on ALL, at most 2 times today's time
# (screen = "none" now when there is one, else the recorded), else at most
# 30 s on 2 threads
is_def <- times$data == "all_bt" & times$variant == "default"
all_def <- times[is_def, , drop = FALSE]
against_now <- any(!is.na(ratio_now[is_def]))
r_all <- if (against_now) ratio_now[is_def] else ratio[is_def]
two <- all(r_all <= 2)
thirty <- any(all_def$threads == 2L & all_def$median <= 30)
cat(sprintf(paste0("\nALL, default: ratio %s (threads %s; against %s; target <= 2x): %s; ",
                   "2 threads %s s (fallback target <= 30 s): %s\n"),
            paste(fmt(r_all, 2), collapse = " / "), paste(all_def$threads, collapse = " / "),
            if (against_now) "screen = \"none\" now" else "the recorded",
            if (two) "met" else "not met",
            fmt(all_def$median[all_def$threads == 2L], 1), if (thirty) "met" else "not met"))
cat(sprintf("errors: %d of %d within one sd of the recorded (%d within one se)\n",
            sum(in_sd), length(in_sd), sum(in_se)))
cat(sprintf("done in %.1f min; load average now %s\n", (proc.time()[["elapsed"]] - t_start) / 60,
            readLines("/proc/loadavg")))
quit(status = if (all(in_sd) && (two || thirty)) 0L else 1L)
