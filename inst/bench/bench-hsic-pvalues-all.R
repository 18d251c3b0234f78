# Per-gene HSIC on ALL: how many genes the gamma p-values of
# feature_scores(method = "hsic") (the defaults: Gaussian kernel, BH) call
# significant, beside limma's moderated t / F on the same samples, and how
# long the scores take. A screen that seeds a selector with the per-gene
# non-linear hits must cope with these counts on real data.
#
#   bcr_neg  B-lineage samples, BCR/ABL vs NEG (79 = 37 + 42)
#   b_stage  B1, B2, B3, B4 (90 = 19 + 36 + 23 + 12; the 5 samples of stage
#            "B" unspecified left out); limma's moderated F over the 3
#            contrasts
#   b_vs_t   B vs T lineage (128 = 95 + 33), the data of bench-bahsic.R
#
# Usage: Rscript inst/bench/bench-hsic-pvalues-all.R [reps]   (reps of the
# timing, threads 1 and 2; default 1). Needs the ALL and limma packages
# (apt-get install -y r-bioc-all r-bioc-limma). About 30 s with reps = 5 on
# the project's 2-core machine.

suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
  library(limma)
})

reps <- suppressWarnings(as.integer(commandArgs(TRUE)[1L]))
if (is.na(reps)) reps <- 1L
data(ALL)
x <- t(Biobase::exprs(ALL))
bt <- as.character(ALL$BT)
mb <- as.character(ALL$mol.biol)
subset_of <- function(keep, y) list(x = x[keep, ], y = factor(y[keep]))
sets <- list(
  bcr_neg = subset_of(substr(bt, 1, 1) == "B" & mb %in% c("BCR/ABL", "NEG"), mb),
  b_stage = subset_of(bt %in% c("B1", "B2", "B3", "B4"), bt),
  b_vs_t = subset_of(rep(TRUE, nrow(x)), substr(bt, 1, 1)))

for (nm in names(sets)) {
  d <- sets[[nm]]
  secs <- lapply(1:2, function(th) {
    vapply(seq_len(reps), function(r) {
      system.time(s <<- feature_scores(d$x, d$y, method = "hsic", threads = th))[["elapsed"]]
    }, numeric(1))
  })
  adj <- s$adj_p_value
  # limma's moderated t (two classes) or F (more) on the same samples
  design <- stats::model.matrix(~ d$y)
  fit <- eBayes(lmFit(t(d$x), design))
  ladj <- topTable(fit, coef = 2:ncol(design), number = Inf, sort.by = "none",
                   adjust.method = "BH")$adj.P.Val
  cat(sprintf("%s: m = %d (%s), %d genes\n", nm, nrow(d$x),
              paste(names(table(d$y)), table(d$y), collapse = ", "), ncol(d$x)))
  cat(sprintf(paste0("  hsic gamma: raw p < 0.05: %d; BH < 0.05: %d, < 0.01: %d, < 0.001: %d; ",
                     "limma BH < 0.05: %d; both: %d; hsic only: %d\n"),
              sum(s$p_value < 0.05), sum(adj < 0.05), sum(adj < 0.01), sum(adj < 0.001),
              sum(ladj < 0.05), sum(adj < 0.05 & ladj < 0.05), sum(adj < 0.05 & ladj >= 0.05)))
  cat(sprintf(paste0("  feature_scores(method = \"hsic\"): median %.2f s on 1 thread (%s), ",
                     "%.2f s on 2 (%s); load average %s\n"),
              stats::median(secs[[1L]]), paste(format(secs[[1L]], nsmall = 2), collapse = ", "),
              stats::median(secs[[2L]]), paste(format(secs[[2L]], nsmall = 2), collapse = ", "),
              readLines("/proc/loadavg")))
}
