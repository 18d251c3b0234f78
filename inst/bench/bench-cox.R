# The Cox score test of every gene, feature_scores(x, y, method = "cox"), as
# its user calls it, against the survival package's ways to the same numbers,
# on an ALL-sized matrix: 128 samples x 12,625 genes (the expression values of
# the Bioconductor package ALL when it is installed, otherwise a simulated
# matrix of that size), with a simulated censored outcome
# (simulate_survival(), 30% censoring expected; its times multiplied by 30 and
# rounded up, so that tied times are common, about 50 distinct ones).
#
#   ours       feature_scores(x, y, method = "cox")          target: < 0.5 s
#   coxph      a loop of survival::coxph(y ~ x[, j]) per gene: the fit and
#              its score test (`fit$score`), as a user writes it
#   coxph.fit  a loop of survival::coxph.fit() per gene at beta = 0 with
#              iter.max = 0: the score test alone, without the formula and
#              model frame (the cheapest exported way found)
#   survdiff   a loop of survival::survdiff() per gene on the gene split at
#              its median: the log-rank test of a binarised gene (another
#              statistic; what users of survdiff() time)
#
# The loops are timed on `n_sub` genes and extrapolated to all genes (time per
# gene times 12,625); the statistic of coxph.fit() is checked against ours.
# ours is the median of `reps` calls with threads = 1. The machine's load
# average is printed: on a shared machine the times are noisy.
#
# Run after installing the package:  Rscript inst/bench/bench-cox.R [reps] [n_sub]

suppressPackageStartupMessages({
  library(bahsic)
  library(survival)
})

args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1L) as.integer(args[1L]) else 11L
n_sub <- if (length(args) >= 2L) as.integer(args[2L]) else 200L

m <- 128L
p <- 12625L
set.seed(1)
sim <- simulate_survival(m, p = 20, n_linear = 2, n_u = 0, effect = 1, censoring = 0.3)
y <- Surv(ceiling(sim$y[, 1L] * 30), sim$y[, 2L])
source_words <- if (requireNamespace("ALL", quietly = TRUE)) {
  suppressPackageStartupMessages(library(ALL))
  data(ALL)
  x <- t(Biobase::exprs(ALL))
  "ALL expression values"
} else {
  x <- matrix(rnorm(m * p), m, p, dimnames = list(NULL, paste0("g", seq_len(p))))
  "a simulated matrix"
}
stopifnot(nrow(x) == m, ncol(x) == p)

median_time <- function(f, reps) {
  f()
  stats::median(vapply(seq_len(reps), function(r) system.time(f())[["elapsed"]], 0))
}

ours <- function() feature_scores(x, y, method = "cox", threads = 1)
sub <- seq_len(n_sub)
loop_coxph <- function() {
  vapply(sub, function(j) {
    xj <- x[, j]
    survival::coxph(y ~ xj)$score
  }, 0)
}
loop_coxph_fit <- function() {
  ctrl <- survival::coxph.control(iter.max = 0)
  vapply(sub, function(j) {
    survival::coxph.fit(x[, j, drop = FALSE], y, strata = NULL, offset = NULL, init = 0,
                        control = ctrl, weights = NULL, method = "efron", rownames = NULL,
                        resid = FALSE)$score
  }, 0)
}
loop_survdiff <- function() {
  vapply(sub, function(j) {
    g <- x[, j] > stats::median(x[, j])
    survival::survdiff(y ~ g)$chisq
  }, 0)
}

cat(sprintf("data: %s, %d samples x %d genes; %d events, %d distinct event times\n",
            source_words, m, p, sum(y[, 2L]), length(unique(y[y[, 2L] == 1, 1L]))))
cat(sprintf("load average: %s (a shared machine: times are noisy)\n",
            paste(readLines("/proc/loadavg", warn = FALSE), collapse = " ")))
s <- ours()
check <- loop_coxph_fit()
cat(sprintf("largest relative difference from coxph.fit()'s score test (%d genes): %.2g\n",
            n_sub, max(abs(s$statistic[sub] / check - 1))))

t_ours <- median_time(ours, reps)
loop_reps <- max(3L, reps %/% 3L)
t_coxph <- median_time(loop_coxph, loop_reps) / n_sub * p
t_fit <- median_time(loop_coxph_fit, loop_reps) / n_sub * p
t_sd <- median_time(loop_survdiff, loop_reps) / n_sub * p

cat(sprintf("\n%-44s %10s %12s\n", "all 12,625 genes (loops: extrapolated)", "seconds", "ours / peer"))
row <- function(what, t) cat(sprintf("%-44s %10.3f %12.4f\n", what, t, t_ours / t))
row("feature_scores(method = \"cox\")", t_ours)
row(sprintf("coxph() loop (%d genes timed)", n_sub), t_coxph)
row(sprintf("coxph.fit(iter.max = 0) loop (%d genes)", n_sub), t_fit)
row(sprintf("survdiff() of median splits (%d genes)", n_sub), t_sd)
cat(sprintf("\ntarget < 0.5 s: %s (median of %d calls, threads = 1)\n",
            if (t_ours < 0.5) "met" else "NOT met", reps))
