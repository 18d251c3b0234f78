# The linear scores with a study design, timed as the user calls them, on
# the ALL data (128 samples x 12,625 genes): the outcome is the lineage (B
# or T), the covariate a four-level batch drawn at random (set.seed(1), so
# that it is not confounded with the lineage).
#
#   R_LIBS=<lib> Rscript inst/bench/bench-design.R
#
# 1. feature_scores(method = "mt", covariates = batch) against limma's
#    lmFit() + eBayes() with model.matrix(~ batch + lineage) (15 runs of each
#    in turn, one thread; medians of the elapsed and of the CPU seconds, the
#    steadier figure on a shared machine); target: ours <= 0.2 times limma's. The
#    largest |difference| of the moderated t's is printed too (equal to
#    rounding).
# 2. adjust = "maxT" with 1,000 permutations (method = "t", within the
#    batches) against multtest::mt.maxT(test = "t", B = 1000) without
#    covariates (median of 3 against one run); target: <= 0.1 times; and the
#    same for method = "mt", whose prior is refitted on every permutation
#    (the log moments of the variances in C, C_eb_permuted).
# The calibration of the kernel methods' p-values with a design is in
# inst/bench/bench-design-kernel.R.
suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
  library(limma)
  library(multtest)
})
data(ALL)
e <- Biobase::exprs(ALL)
x <- t(e)
y <- factor(substr(ALL$BT, 1L, 1L))
set.seed(1)
batch <- factor(sample(paste0("batch", 1:4), nrow(x), replace = TRUE))
cat(sprintf("ALL, lineage B (%d) vs T (%d): %d samples x %d genes; batch: 4 levels\n",
            sum(y == "B"), sum(y == "T"), nrow(x), ncol(x)))

median_time <- function(expr, reps) {
  f <- substitute(expr)
  env <- parent.frame()
  stats::median(vapply(seq_len(reps), function(i) {
    gc()
    system.time(eval(f, env))[["elapsed"]]
  }, 0))
}

# ours and limma's in turn (the same load on a shared machine): medians of
# the elapsed and of the CPU (user + system) seconds
interleaved <- function(ours, theirs, reps = 15L) {
  one <- function(f) {
    gc()
    st <- system.time(f())
    c(st[["elapsed"]], st[["user.self"]] + st[["sys.self"]])
  }
  tm <- vapply(seq_len(reps), function(i) c(one(ours), one(theirs)), numeric(4))
  apply(tm, 1L, stats::median)
}

design <- model.matrix(~ batch + y)
tm <- interleaved(function() feature_scores(x, y, method = "mt", covariates = batch, threads = 1L),
                  function() eBayes(lmFit(e, design)))
s <- feature_scores(x, y, method = "mt", covariates = batch, threads = 1L)
fit <- eBayes(lmFit(e, design))
tt <- topTable(fit, coef = "yT", number = Inf, sort.by = "none")
cat(sprintf(paste0("mt with a batch: ours %.3f s (CPU %.3f), limma lmFit + eBayes %.3f s ",
                   "(CPU %.3f): ratio %.3f elapsed, %.3f CPU (target <= 0.2; medians of 15, in turn)\n"),
            tm[1L], tm[2L], tm[3L], tm[4L], tm[1L] / tm[3L], tm[2L] / tm[4L]))
cat(sprintf("  largest |t - limma's t| = %.2e, |P.Value - limma's| = %.2e\n",
            max(abs(s$statistic - tt$t)), max(abs(s$p_value - tt$P.Value))))
t0 <- interleaved(function() feature_scores(x, y, method = "mt", threads = 1L),
                  function() feature_scores(x, y, method = "mt", covariates = batch, threads = 1L))
cat(sprintf("  ours without the batch %.3f s (CPU %.3f), with it %.3f s (CPU %.3f)\n",
            t0[1L], t0[2L], t0[3L], t0[4L]))

n_perm <- 1000L
t_maxt <- median_time(m1 <- feature_scores(x, y, method = "t", covariates = batch,
                                            adjust = "maxT", n_perm = n_perm, threads = 1L), 3L)
t_mt <- median_time(invisible(capture.output(
  theirs <- mt.maxT(e, as.integer(y) - 1L, test = "t", B = n_perm)
)), 1L)
cat(sprintf(paste0("maxT, %d permutations within the batches: ours (\"t\", 1 thread) %.3f s, ",
                   "mt.maxT(test = \"t\") without covariates %.3f s: ratio %.3f (target <= 0.1)\n"),
            n_perm, t_maxt, t_mt, t_maxt / t_mt))
t_maxt_mt <- median_time(feature_scores(x, y, method = "mt", covariates = batch,
                                        adjust = "maxT", n_perm = n_perm, threads = 1L), 3L)
cat(sprintf("  the same with method = \"mt\" (the prior refitted per permutation): %.3f s (%.3f)\n",
            t_maxt_mt, t_maxt_mt / t_mt))
cat(sprintf("  genes at adjusted p <= 0.05: ours %d (with the batch), mt.maxT %d (without)\n",
            sum(m1$adj_p_value <= 0.05, na.rm = TRUE), sum(theirs$adjp <= 0.05)))
