# The fast subset of inst/bench/bench-nonlinear.R: which methods find a planted
# XOR pair, a U-shaped gene or linear genes among noise genes
# (simulate_nonlinear()), at sizes that take seconds.
#
# To add a method or a setting: write a function(x, y) that returns the genes
# ranked, best first (as the rankers below), and assert on
# planted_ranks(ranker, signal, p, ...): a repeats x planted-genes matrix of
# ranks, and worst_rank() for the rank of a pair's worse member.

# Ranks of the planted genes by rank_genes(x, y) over `repeats` data sets of
# simulate_nonlinear(m, p, signal, ...) drawn from `seed`: one row per repeat,
# one column per planted gene; a gene missing from the ranking has rank Inf.
planted_ranks <- function(rank_genes, signal, p = 200, m = 100, repeats = 5, seed = 1, ...) {
  set.seed(seed)
  sims <- lapply(seq_len(repeats), function(r) simulate_nonlinear(m, p, signal, ...))
  ranks <- vapply(sims, function(sim) {
    rk <- match(sim$truth, rank_genes(sim$x, sim$y))
    rk[is.na(rk)] <- Inf
    as.numeric(rk)
  }, numeric(length(sims[[1]]$truth)))
  matrix(ranks, nrow = repeats, byrow = TRUE)
}

worst_rank <- function(ranks) apply(ranks, 1L, max)

rank_hsic <- function(x, y) {
  s <- feature_scores(x, y, method = "hsic", threads = 1)
  s$feature[order(s$rank)]
}
rank_limma <- function(x, y) {
  fit <- limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~ y)))
  colnames(x)[order(-abs(fit$t[, 2L]))]
}
rank_fohsic <- function(x, y) fohsic(x, y, threads = 1)$ranking
rank_bahsic <- function(...) function(x, y) bahsic(x, y, threads = 1, ...)$ranking

test_that("planted_ranks() reads the ranks of the planted genes", {
  first <- function(x, y) rev(colnames(x))
  r <- planted_ranks(function(x, y) colnames(x), "xor", p = 30, m = 20, repeats = 3)
  expect_identical(dim(r), c(3L, 2L))
  expect_true(all(r >= 1 & r <= 30))
  expect_identical(planted_ranks(function(x, y) character(), "u_numeric", p = 30, m = 20,
                                 repeats = 2), matrix(Inf, 2, 1))
  set.seed(1)
  sim <- simulate_nonlinear(20, 30, "xor")
  expect_identical(planted_ranks(first, "xor", p = 30, m = 20, repeats = 1)[1, ],
                   31 - as.numeric(sub("X", "", sim$truth)))
  expect_identical(worst_rank(rbind(c(3, 5), c(Inf, 1))), c(5, Inf))
})

test_that("per-gene HSIC finds a U-shaped gene", {
  skip_on_cran()
  skip_statistical_under_checkers("a statistical check of many selections")
  # log T with hazard exp(1.5 x^2), and a U-shaped class, among 199 genes
  expect_true(all(planted_ranks(rank_hsic, "u_hazard", repeats = 5, seed = 11) == 1))
  expect_true(all(planted_ranks(rank_hsic, "u_class", repeats = 5, seed = 12) <= 2))
})

test_that("limma and per-gene HSIC find linear genes", {
  skip_on_cran()
  skip_statistical_under_checkers("a statistical check of many selections")
  skip_peer("limma")
  # 10 genes shifted by 1 sd between 50 and 50 samples, among 200
  lim <- planted_ranks(rank_limma, "linear", repeats = 5, seed = 13)
  hs <- planted_ranks(rank_hsic, "linear", repeats = 5, seed = 13)
  expect_gte(mean(lim <= 20), 0.9)
  expect_gte(mean(hs <= 20), 0.9)
})

test_that("BAHSIC finds the XOR pair among 20 genes with both width policies", {
  skip_on_cran()
  skip_statistical_under_checkers("a statistical check of many selections")
  for (sigma in c("dimension", "optimize")) {
    w <- worst_rank(planted_ranks(rank_bahsic(sigma = sigma), "xor", p = 20, repeats = 5, seed = 14))
    expect_identical(w, rep(2, 5), label = sprintf("bahsic(sigma = \"%s\")", sigma))
  }
})

test_that("per-gene methods and FOHSIC, which adds one gene at a time, miss the XOR pair", {
  skip_on_cran()
  skip_statistical_under_checkers("a statistical check of many selections")
  # neither gene alone carries information: at p = 200 the pair's worse member
  # is ranked far down
  expect_gt(stats::median(worst_rank(planted_ranks(rank_hsic, "xor", repeats = 5, seed = 15))), 20)
  expect_gt(stats::median(worst_rank(planted_ranks(rank_fohsic, "xor", repeats = 5, seed = 15))), 20)
  skip_peer("limma")
  expect_gt(stats::median(worst_rank(planted_ranks(rank_limma, "xor", repeats = 5, seed = 15))), 20)
})

test_that("bahsic()'s default screen finds the XOR pair and the U-shaped gene among 200", {
  skip_on_cran()
  skip_statistical_under_checkers("a statistical check of many selections")
  # the same data without the screen lose them (BAHSIC as before)
  xor_def <- worst_rank(planted_ranks(rank_bahsic(), "xor", repeats = 5, seed = 16))
  xor_none <- worst_rank(planted_ranks(rank_bahsic(screen = "none"), "xor", repeats = 5, seed = 16))
  expect_true(all(xor_def <= 20), label = paste("default, XOR pair's worse gene:", toString(xor_def)))
  expect_gt(stats::median(xor_none), 20)
  u_def <- worst_rank(planted_ranks(rank_bahsic(), "u_hazard", repeats = 5, seed = 17))
  expect_true(all(u_def <= 10), label = paste("default, U-shaped gene:", toString(u_def)))
  # linear genes: the screen keeps what BAHSIC alone finds
  lin_def <- planted_ranks(rank_bahsic(), "linear", repeats = 3, seed = 18)
  lin_none <- planted_ranks(rank_bahsic(screen = "none"), "linear", repeats = 3, seed = 18)
  expect_gte(mean(lin_def <= 20), mean(lin_none <= 20) - 0.1)
})
