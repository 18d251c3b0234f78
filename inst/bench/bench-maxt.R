# Westfall-Young step-down maxT by permutation (Ge, Dudoit and Speed 2003,
# algorithm 4): bahsic's permutation_pvalues() against multtest::mt.maxT() on
# the ALL data, B-lineage samples with BCR/ABL or NEG (79 x 12,625), 1,000
# labellings (the observed one included, as mt.maxT counts it).
#
#   R_LIBS=<lib> Rscript inst/bench/bench-maxt.R
#
# Prints the best of 3 elapsed times of ours on 1 and 2 threads (methods "t"
# and "mt") and of mt.maxT(test = "t", B = 1000), the ratio, and the largest
# |difference| of the adjusted and raw p-values between the two (different
# random labellings: Monte Carlo error of order sqrt(p (1 - p) / 1000) <=
# 0.016 is expected, not zero).
suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
  library(multtest)
})
data(ALL)
keep <- grepl("^B", ALL$BT) & ALL$mol.biol %in% c("BCR/ABL", "NEG")
e <- ALL[, keep]
x <- t(Biobase::exprs(e))
y <- factor(e$mol.biol[, drop = TRUE], levels = c("NEG", "BCR/ABL"))
cat(sprintf("ALL B-lineage BCR/ABL vs NEG: %d samples x %d genes\n", nrow(x), ncol(x)))
n_perm <- 1000L
perm_pvalues <- bahsic:::permutation_pvalues

# best of reps: elapsed seconds, and the CPU seconds (user + system, all
# threads) of that run -- on a shared machine the CPU time of a 1-thread run
# is the steadier figure
best <- function(expr, reps = 3L) {
  f <- substitute(expr)
  env <- parent.frame()
  tm <- vapply(seq_len(reps), function(i) {
    gc()
    st <- system.time(eval(f, env))
    c(st[["elapsed"]], st[["user.self"]] + st[["sys.self"]])
  }, numeric(2))
  tm[, which.min(tm[1L, ])]
}

set.seed(1)
t_ours1 <- best(ours <- perm_pvalues(x, y, "t", n_perm = n_perm, threads = 1L))
t_ours2 <- best(ours2 <- perm_pvalues(x, y, "t", n_perm = n_perm, threads = 2L))
t_mt1 <- best(perm_pvalues(x, y, "mt", n_perm = n_perm, threads = 1L))
t_mt2 <- best(perm_pvalues(x, y, "mt", n_perm = n_perm, threads = 2L))
cl <- as.integer(y) - 1L
invisible(capture.output(
  t_theirs <- best(theirs <- mt.maxT(t(x), cl, test = "t", B = n_perm))
))
theirs <- theirs[order(theirs$index), ]

show <- function(what, tm) {
  cat(sprintf("%-42s %6.3f s elapsed (CPU %6.3f s), best of 3\n", what, tm[1L], tm[2L]))
}
show("ours \"t\", 1 thread", t_ours1)
show("ours \"t\", 2 threads", t_ours2)
show("ours \"mt\", 1 thread", t_mt1)
show("ours \"mt\", 2 threads", t_mt2)
show(sprintf("multtest::mt.maxT(test = \"t\", B = %d)", n_perm), t_theirs)
cat(sprintf("ratio ours / mt.maxT (elapsed): %.3f (1 thread), %.3f (2 threads); target <= 0.1\n",
            t_ours1[1L] / t_theirs[1L], t_ours2[1L] / t_theirs[1L]))
cat(sprintf("ratio ours / mt.maxT (CPU, 1 thread): %.3f\n", t_ours1[2L] / t_theirs[2L]))
cat(sprintf("max |adj p ours - mt.maxT|: %.4f; max |raw p ours - mt.maxT|: %.4f\n",
            max(abs(ours$adj_p_value - theirs$adjp)),
            max(abs(ours$p_value - theirs$rawp))))
zmax <- function(a, b) {
  pbar <- pmin(pmax((a + b) / 2, 1 / n_perm), 1 - 1 / n_perm)
  max(abs(a - b) / sqrt(2 * pbar * (1 - pbar) / n_perm))
}
cat(sprintf("largest |difference| in Monte Carlo standard errors (two independent runs): adj %.2f, raw %.2f over %d genes\n",
            zmax(ours$adj_p_value, theirs$adjp), zmax(ours$p_value, theirs$rawp), ncol(x)))
cat(sprintf("max |t ours - mt.maxT| (observed): %.2e\n",
            max(abs(ours$statistic - theirs$teststat))))
cat(sprintf("load average at the end: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
