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

best <- function(expr, reps = 3L) {
  f <- substitute(expr)
  env <- parent.frame()
  min(vapply(seq_len(reps), function(i) {
    gc()
    system.time(eval(f, env))[["elapsed"]]
  }, numeric(1)))
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

cat(sprintf("ours  \"t\"  1 thread : %6.3f s (best of 3)\n", t_ours1))
cat(sprintf("ours  \"t\"  2 threads: %6.3f s\n", t_ours2))
cat(sprintf("ours  \"mt\" 1 thread : %6.3f s\n", t_mt1))
cat(sprintf("ours  \"mt\" 2 threads: %6.3f s\n", t_mt2))
cat(sprintf("multtest::mt.maxT(test = \"t\", B = %d): %6.3f s\n", n_perm, t_theirs))
cat(sprintf("ratio ours / mt.maxT: %.3f (1 thread), %.3f (2 threads)\n",
            t_ours1 / t_theirs, t_ours2 / t_theirs))
cat(sprintf("max |adj p ours - mt.maxT|: %.4f; max |raw p ours - mt.maxT|: %.4f\n",
            max(abs(ours$adj_p_value - theirs$adjp)),
            max(abs(ours$p_value - theirs$rawp))))
cat(sprintf("max |t ours - mt.maxT| (observed): %.2e\n",
            max(abs(ours$statistic - theirs$teststat))))
