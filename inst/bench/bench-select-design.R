# The selectors under a study design (covariates, block).
#
#   speed      BAHSIC on the ALL data (128 x 12,625, B against T), the defaults
#              (Gaussian kernel, sigma = "dimension", drop = 0.1, the non-linear
#              screen), one thread, without covariates and with a four-level
#              batch factor (drawn at random: ALL has no complete batch
#              variable) as `covariates`; runs alternate, medians of `reps`.
#              The design's cost is the projection of the label (P Y, m x 1)
#              and of the genes in the screen's pair step (P x, m x p); the
#              rest differs only by what the screen seeds.
#   confounded the simulated confounded study of the tests
#              (simulate_confounded(): 20 genes driven by batch alone, batch
#              correlated with the class, a within-batch XOR pair and a
#              within-batch linear gene among 300 genes, 120 samples), `n_sim`
#              data sets: the ranks of the truth, the best and the median
#              batch gene (and the median noise gene), with and without
#              covariates = ~ batch.
#   calibration the per-gene tests of bahsic()'s screen under a design (the
#              one-pass C test against P L P, gamma moments of all
#              permutations of H K H and P L P) on 2,000 null genes shifted by
#              4 batches that are correlated with the class (m = 100): the
#              Kolmogorov-Smirnov distance to uniform and P(p < 0.05), beside
#              feature_scores(method = "hsic", covariates = ), whose moments
#              are those of the residualised pair P K P, P L P.
#   strata     the same one-pass tests under blocks of 2 to 20 samples (1,000 null
#              genes with a strong block effect, m = 60, two classes balanced
#              within the blocks): P(p < 0.05) and KS D by block size, which
#              set where the screen re-checks its hits within the strata
#              (screen_recheck_size); and the seeds of bahsic() on 2,000
#              such null genes in 20 pairs (3 data sets), with the re-check
#              and with the one-pass tests alone.
#
# Usage, after installing the package:
#   Rscript inst/bench/bench-select-design.R [speed|confounded|calibration|strata|all] [reps] [n_sim]
suppressPackageStartupMessages(library(bahsic))
args <- commandArgs(trailingOnly = TRUE)
what <- if (length(args) >= 1L) args[1L] else "all"
reps <- if (length(args) >= 2L) as.integer(args[2L]) else 5L
n_sim <- if (length(args) >= 3L) as.integer(args[3L]) else 10L
stopifnot(what %in% c("speed", "confounded", "calibration", "strata", "all"), reps >= 1L,
          n_sim >= 1L)

if (what %in% c("speed", "all")) {
  suppressPackageStartupMessages(library(ALL))
  data(ALL)
  x <- t(Biobase::exprs(ALL))
  y <- factor(substr(ALL$BT, 1, 1))
  set.seed(32)
  batch <- factor(sample(rep_len(c("b1", "b2", "b3", "b4"), nrow(x))))
  ann <- data.frame(batch = batch)
  cat(sprintf("ALL: %d samples x %d genes; batch: %s\n", nrow(x), ncol(x),
              paste(table(batch), collapse = "/")))
  runs <- list(none = function() bahsic(x, y, threads = 1L),
               covariates = function() bahsic(x, y, threads = 1L, covariates = ~ batch,
                                              data = ann))
  times <- cpu <- matrix(NA_real_, reps, 2L, dimnames = list(NULL, names(runs)))
  fits <- list()
  # a warm-up of each, then alternating timed runs; elapsed and processor
  # (user + system) seconds: on a shared machine the latter varies less
  for (k in names(runs)) fits[[k]] <- runs[[k]]()
  for (r in seq_len(reps)) {
    for (k in names(runs)) {
      st <- system.time(runs[[k]]())
      times[r, k] <- st[["elapsed"]]
      cpu[r, k] <- st[["user.self"]] + st[["sys.self"]]
    }
  }
  med <- apply(times, 2L, stats::median)
  med_cpu <- apply(cpu, 2L, stats::median)
  colnames(times) <- paste0("elapsed_", names(runs))
  colnames(cpu) <- paste0("cpu_", names(runs))
  print(cbind(round(times, 3), round(cpu, 3)))
  colnames(times) <- colnames(cpu) <- names(runs)
  cat(sprintf(paste0("median seconds, one thread: without covariates %.3f, with covariates %.3f ",
                     "(ratio %.3f); processor seconds %.3f and %.3f (ratio %.3f)\n"),
              med[["none"]], med[["covariates"]], med[["covariates"]] / med[["none"]],
              med_cpu[["none"]], med_cpu[["covariates"]],
              med_cpu[["covariates"]] / med_cpu[["none"]]))
  # what the design itself adds: resolving it, projecting the label (P Y)
  # and the screen's genes (P x); medians of 20
  design <- bahsic:::resolve_design(bahsic:::design_spec(~ batch, data = ann), nrow(x))
  xs <- scale(x)
  Y <- bahsic:::label_gram(default_label_kernel(y), y)$Y
  step <- function(fn) stats::median(replicate(20L, system.time(fn())[["elapsed"]]))
  cat(sprintf(paste0("the design's own steps (median of 20): resolve %.4f s, P Y %.5f s, ",
                     "P x (m x p) %.4f s\n"),
              step(function() bahsic:::resolve_design(bahsic:::design_spec(~ batch, data = ann),
                                                      nrow(x))),
              step(function() bahsic:::design_factor(design, Y)),
              step(function() bahsic:::design_residuals(design, xs))))
  for (k in names(fits)) cat(sprintf("  %-10s screen: %s\n", k, fits[[k]]$settings$screen))
  cat(sprintf("  top 20 shared: %d\n", length(intersect(selected(fits$none, 20),
                                                        selected(fits$covariates, 20)))))
}

if (what %in% c("confounded", "all")) {
  rank_of <- function(fit, genes) fit$features$rank[match(genes, fit$features$feature)]
  rows <- lapply(seq_len(n_sim), function(s) {
    set.seed(s)
    sim <- bahsic:::simulate_confounded()
    f0 <- bahsic(sim$x, sim$y, threads = 1L)
    f1 <- bahsic(sim$x, sim$y, threads = 1L, covariates = ~ batch, data = sim$data)
    noise <- setdiff(colnames(sim$x), c(sim$truth, sim$batch_genes))
    data.frame(seed = s, truth_cov = paste(rank_of(f1, sim$truth), collapse = ","),
               best_batch_cov = min(rank_of(f1, sim$batch_genes)),
               median_batch_cov = stats::median(rank_of(f1, sim$batch_genes)),
               median_noise_cov = stats::median(rank_of(f1, noise)),
               truth_none = paste(rank_of(f0, sim$truth), collapse = ","),
               batch_top10_none = sum(rank_of(f0, sim$batch_genes) <= 10L),
               median_batch_none = stats::median(rank_of(f0, sim$batch_genes)))
  })
  tab <- do.call(rbind, rows)
  cat("\nConfounded study (120 samples, 300 genes, 20 batch genes; truth: xor1, xor2, linear)\n")
  print(tab, row.names = FALSE)
}

if (what %in% c("calibration", "all")) {
  set.seed(11)
  m <- 100L
  p <- 2000L
  batch <- factor(rep(1:4, each = 25))
  y <- factor(ifelse(stats::runif(m) < c(0.8, 0.2, 0.8, 0.2)[batch], "b", "a"))
  x <- matrix(stats::rnorm(m * p), m) + matrix(stats::rnorm(4 * p), 4)[batch, ] * 1.5
  d <- bahsic:::resolve_design(bahsic:::design_spec(batch), m)
  # the screen's per-gene tests as screen_genes() runs them on the problem's genes
  xr <- scale(bahsic:::design_features(d, x))
  kl <- bahsic:::screen_label(list(design = d, y = y, threads = 1L, m = m),
                              default_label_kernel(y))
  scorer <- bahsic:::kernel_block_scorer(y, m, bahsic:::screen_score_method, kernel_gaussian(),
                                         kl, "biased", 1L)
  p_screen <- scorer(xr)$p_value
  p_exact <- feature_scores(x, y, method = "hsic", covariates = batch, threads = 1L)$p_value
  p_none <- feature_scores(x, y, method = "hsic", threads = 1L)$p_value
  row <- function(label, pv) {
    cat(sprintf("  %-40s KS D %.3f, P(p < 0.05) %.4f\n", label,
                stats::ks.test(pv, "punif")$statistic, mean(pv < 0.05)))
  }
  cat("\nCalibration of the screen's per-gene tests (2,000 null genes, 4 batches, m = 100)\n")
  row("screen, covariates (H K H, P L P moments)", p_screen)
  row("feature_scores, covariates (P K P)", p_exact)
  row("feature_scores, no covariates", p_none)
  cat(sprintf("  screen / exact p-values: mean ratio %.4f, correlation of log p %.5f\n",
              mean(p_screen / p_exact), stats::cor(log(p_screen), log(p_exact))))
}

if (what %in% c("strata", "all")) {
  ns <- asNamespace("bahsic")
  cat("\nThe screen's one-pass tests within blocks (1,000 null genes, m = 60)\n")
  set.seed(1)
  for (size in c(2, 4, 6, 10, 20)) {
    m <- 60
    p <- 1000
    st <- factor(rep(seq_len(m / size), each = size))
    y <- factor(rep(c("a", "b"), m / 2))
    x <- matrix(rnorm(m * p), m, p) +
      3 * matrix(rnorm(nlevels(st) * p), nlevels(st), p)[as.integer(st), ]
    d <- ns$resolve_design(ns$design_spec(block = st), m)
    kl <- ns$screen_label(list(design = d, y = y, threads = 1L, m = m), default_label_kernel(y))
    scorer <- ns$kernel_block_scorer(y, m, ns$screen_score_method, kernel_gaussian(), kl,
                                     "biased", 1L)
    pv <- scorer(scale(ns$design_features(d, x)))$p_value
    cat(sprintf("  blocks of %2d: P(p < 0.05) %.3f, KS D %.3f\n", size, mean(pv < 0.05),
                stats::ks.test(pv, "punif")$statistic))
  }
  cat("Seeds of bahsic() on 2,000 null genes in 20 pairs (re-check / one-pass only)\n")
  set.seed(1)
  pair <- rep(1:20, 2)
  y <- factor(rep(c("n", "t"), each = 20))
  for (r in 1:3) {
    x <- matrix(rnorm(40 * 2000), 40, 2000) + 3 * matrix(rnorm(20 * 2000), 20, 2000)[pair, ]
    colnames(x) <- paste0("g", seq_len(ncol(x)))
    with_check <- length(bahsic(x, y, block = pair, threads = 1L)$screen$seeds)
    one_pass <- local({
      size <- ns$screen_recheck_size
      assignInNamespace("screen_recheck_size", 0, "bahsic")
      on.exit(assignInNamespace("screen_recheck_size", size, "bahsic"))
      length(bahsic(x, y, block = pair, threads = 1L)$screen$seeds)
    })
    cat(sprintf("  data set %d: %d / %d\n", r, with_check, one_pass))
  }
}
