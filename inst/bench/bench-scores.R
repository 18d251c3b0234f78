# Timing of the univariate scores against their reference implementations on
# the ALL data (12625 genes x 128 samples, B vs T lineage):
#   pooled t         vs genefilter::rowttests   (target: <= 1.5 x rowttests)
#   moderated t, B   vs limma lmFit + eBayes     (target: faster)
# Run after installing the package: Rscript inst/bench/bench-scores.R

suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
  library(genefilter)
  library(limma)
})

# The one line to change when the exported interface takes over.
score_fn <- function(x, y, method, ...) {
  feature_scores(x, y, method = method, ...)$score
}

data(ALL)
genes <- Biobase::exprs(ALL)                   # genes x samples, for the peers
x <- t(genes)                                  # samples x genes, for us
y <- factor(substr(ALL$BT, 1, 1))
design <- model.matrix(~y)

median_time <- function(expr_fn, reps) {
  expr_fn() # warm-up: first-call costs (byte compiling, page faults)
  times <- vapply(seq_len(reps), function(i) {
    system.time(expr_fn())[["elapsed"]]
  }, numeric(1))
  stats::median(times)
}

reps <- 15
timings <- rbind(
  t = c(
    peer = median_time(function() rowttests(genes, y)$statistic, reps),
    bahsic = median_time(function() score_fn(x, y, "t", var_equal = TRUE), reps)
  ),
  mt = c(
    peer = median_time(function() eBayes(lmFit(genes, design))$t, reps),
    bahsic = median_time(function() score_fn(x, y, "mt"), reps)
  ),
  lods = c(
    peer = median_time(function() eBayes(lmFit(genes, design))$lods, reps),
    bahsic = median_time(function() score_fn(x, y, "lods"), reps)
  )
)

# the numbers must agree before their speed means anything
fit <- eBayes(lmFit(genes, design))
agree <- c(
  t = max(abs(score_fn(x, y, "t", var_equal = TRUE) +
                rowttests(genes, y)$statistic)),
  mt = max(abs(score_fn(x, y, "mt") - fit$t[, 2])),
  lods = max(abs(score_fn(x, y, "lods") - fit$lods[, 2]))
)

out <- data.frame(
  statistic = rownames(timings),
  peer = c("genefilter::rowttests", "limma lmFit+eBayes", "limma lmFit+eBayes"),
  peer_sec = timings[, "peer"],
  bahsic_sec = timings[, "bahsic"],
  ratio = timings[, "bahsic"] / timings[, "peer"],
  max_abs_diff = agree,
  row.names = NULL
)
cat(sprintf("ALL: %d genes x %d samples (B %d, T %d); median of %d runs\n",
            ncol(x), nrow(x), sum(y == "B"), sum(y == "T"), reps))
print(out, digits = 3)
