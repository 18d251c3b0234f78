# permutation_pvalues() and its C core (src/maxt.c): the Westfall-Young
# step-down maxT (Westfall and Young 1993; Ge, Dudoit and Speed 2003,
# algorithm 4) against a plain-R oracle on the SAME labellings (identical
# counts), against multtest::mt.maxT() within Monte Carlo error and exactly
# under complete enumeration, and its properties.

perm_data <- function(m = 16, d = 12, n2 = 7, seed = 1) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  y <- factor(rep(c("lo", "hi"), c(m - n2, n2)), levels = c("lo", "hi"))[sample.int(m)]
  x[y == "hi", 1:3] <- x[y == "hi", 1:3] + c(2, 1.2, 0.6)[col(x[y == "hi", 1:3])]
  list(x = x, y = y)
}

# The labellings permutation_pvalues() draws: the observed one, then one
# sample.int(m) after another from the caller's RNG.
oracle_perms <- function(m, n_perm) {
  out <- matrix(seq_len(m), m, n_perm)
  for (b in seq_len(n_perm)[-1L]) out[, b] <- sample.int(m)
  out
}

# The statistic of every column of x for labels lab, the plain-R way.
oracle_stat <- function(x, lab, method, var_equal = FALSE) {
  unname(oracle_stat_named(x, lab, method, var_equal))
}
oracle_stat_named <- function(x, lab, method, var_equal) {
  if (method == "pc") return(as.vector(cor(x, lab)))
  hi <- lab == levels(lab)[2L]
  a <- x[hi, , drop = FALSE]
  b <- x[!hi, , drop = FALSE]
  n2 <- nrow(a)
  n1 <- nrow(b)
  diff <- colMeans(a) - colMeans(b)
  v2 <- apply(a, 2L, var)
  v1 <- apply(b, 2L, var)
  switch(method,
    lin = diff,
    snr = diff / (sqrt(v2) + sqrt(v1)),
    t = if (var_equal) {
      diff / sqrt(((n2 - 1) * v2 + (n1 - 1) * v1) / (n1 + n2 - 2) * (1 / n1 + 1 / n2))
    } else {
      diff / sqrt(v2 / n2 + v1 / n1)
    },
    mt = {
      fit <- limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~lab)))
      unname(fit$t[, 2L])
    })
}

# Step-down maxT from the statistics of the observed (obs) and the permuted
# labellings (stat, p x B), with the documented rounding allowance.
oracle_maxt <- function(obs, stat, tol = 1e-10) {
  thr <- abs(obs) * (1 - tol)
  B <- ncol(stat)
  raw <- rowSums(abs(stat) >= thr) / B
  ord <- order(-abs(obs))
  hits <- vapply(seq_len(B), function(b) {
    s <- abs(stat[ord, b])
    rev(cummax(rev(s))) >= thr[ord]
  }, logical(length(obs)))
  adj <- numeric(length(obs))
  adj[ord] <- cummax(rowSums(matrix(hits, length(obs))) / B)
  list(p_value = raw, adj_p_value = adj)
}

oracle_run <- function(x, y, method, var_equal, n_perm, seed) {
  set.seed(seed)
  perms <- oracle_perms(nrow(x), n_perm)
  stat <- vapply(seq_len(n_perm), function(b) {
    oracle_stat(x, y[perms[, b]], method, var_equal)
  }, numeric(ncol(x)))
  c(oracle_maxt(stat[, 1L], stat), list(statistic = stat[, 1L]))
}

test_that("the p-values are those of a plain-R maxT on the same labellings", {
  d <- perm_data()
  cases <- list(list("t", FALSE), list("t", TRUE), list("lin", FALSE),
                list("snr", FALSE), list("pc", FALSE))
  for (case in test_cases(cases)) {
    method <- case[[1L]]
    y <- if (method == "pc") as.numeric(d$y) + d$x[, 4] else d$y
    set.seed(42)
    got <- permutation_pvalues(d$x, y, method, var_equal = case[[2L]], n_perm = 199L)
    want <- oracle_run(d$x, y, method, case[[2L]], 199L, seed = 42)
    label <- paste(method, case[[2L]])
    expect_identical(unname(got$p_value), want$p_value, label = label)
    expect_identical(unname(got$adj_p_value), want$adj_p_value, label = label)
    expect_equal(unname(got$statistic), want$statistic, tolerance = 1e-10, label = label)
    expect_identical(got$n_perm, 199L)
    expect_identical(names(got$p_value), colnames(d$x))
  }
})

test_that("the moderated t refits limma's prior on every labelling", {
  skip_peer("limma")
  d <- perm_data(m = 12, d = 15, n2 = 5, seed = 3)
  set.seed(7)
  got <- permutation_pvalues(d$x, d$y, "mt", n_perm = 60L)
  want <- oracle_run(d$x, d$y, "mt", FALSE, 60L, seed = 7)
  expect_identical(unname(got$p_value), want$p_value)
  expect_identical(unname(got$adj_p_value), want$adj_p_value)
  expect_equal(unname(got$statistic), want$statistic, tolerance = 1e-10)
})

test_that("the observed statistics are feature_scores()'s linear scores", {
  d <- perm_data()
  for (method in c("t", "lin", "snr", "mt")) {
    for (ve in c(FALSE, TRUE)) {
      got <- permutation_pvalues(d$x, d$y, method, var_equal = ve, n_perm = 1L)
      want <- linear_scores(d$x, d$y, method, var_equal = ve)$score
      expect_equal(got$statistic, want, tolerance = 1e-10, label = method)
    }
  }
  yn <- d$x[, 2] + rnorm(nrow(d$x))
  expect_equal(permutation_pvalues(d$x, yn, "pc", n_perm = 1L)$statistic,
               linear_scores(d$x, yn, "pc")$score, tolerance = 1e-10)
})

test_that("1 and 2 threads and any batch size give identical results", {
  d <- perm_data(m = 20, d = 40, n2 = 9, seed = 5)
  for (method in c("t", "mt", "pc")) {
    y <- if (method == "pc") d$x[, 1] + rnorm(20) else d$y
    run <- function(threads, batch) {
      set.seed(11)
      maxt_run(d$x, y, method, FALSE, 101L, threads, batch = batch)
    }
    ref <- run(1L, NULL)
    expect_identical(run(2L, NULL), ref, label = method)
    expect_identical(run(1L, 1L), ref, label = method)
    expect_identical(run(2L, 7L), ref, label = method)
  }
})

test_that("the default batch is a multiple of the threads, bounded by memory and work", {
  expect_identical(maxt_batch(1000L, 12625L, 1L), 166L)
  expect_identical(maxt_batch(1000L, 12625L, 16L), 160L)
  expect_identical(maxt_batch(1000L, 12625L, 200L), 166L)
  expect_identical(maxt_batch(50L, 10L, 16L), 48L)
  expect_identical(maxt_batch(10L, 10L, 16L), 10L)
  # a back end's workers share the batches, not the threads
  expect_identical(maxt_batch(1000L, 12625L, 16L, run = identity), 166L)
  # counted as computed (no statistics kept): 2^23 / max(p, m)
  expect_identical(maxt_batch(1000L, 12625L, 1L, fused = TRUE, m = 79L), 664L)
  expect_identical(maxt_batch(1000L, 12625L, 16L, fused = TRUE, m = 79L), 656L)
  expect_identical(maxt_batch(10^6, 100L, 1L, fused = TRUE, m = 5000L), 1677L)
  # and about 2^30 operations a batch
  expect_identical(maxt_batch(1000L, 4096L, 16L, fused = TRUE, m = 4096L), 64L)
  expect_identical(maxt_batch(1000L, 10^6, 1L, fused = TRUE, m = 5000L), 1L)
})

test_that("maxT's counts do not depend on the batch or the threads' groups of labellings", {
  set.seed(11)
  x <- matrix(rnorm(30 * 200), 30)
  x[1:15, 1:5] <- x[1:15, 1:5] + 1.5
  y <- factor(rep(c("a", "b"), each = 15))
  run <- function(batch, threads) {
    set.seed(5)
    maxt_run(x, y, "t", FALSE, 300L, threads, batch = batch)
  }
  ref <- run(1L, 1L)
  expect_true(any(ref$adj_p_value < 0.05))
  for (b in c(7L, 64L, 300L)) {
    expect_identical(run(b, 2L), ref, label = paste("batch", b))
  }
})

test_that("a feature's statistics do not depend on the others, for 1 and 2 threads", {
  # 1,100 features of 40 samples: two tiles of features in C
  set.seed(7)
  x <- matrix(rnorm(40 * 1100), 40, 1100)
  y <- factor(rep(c("a", "b"), c(15, 25)))
  perm <- cbind(seq_len(40), replicate(6, sample.int(40)))
  cols <- c(1:30, 800:840, 1070:1100)
  for (method in c("t", "pc")) {
    yy <- if (method == "pc") x[, 1] + rnorm(40) else y
    full <- perm_stats(perm_problem(x, yy, method, FALSE), perm, 1L)
    expect_identical(perm_stats(perm_problem(x, yy, method, FALSE), perm, 2L), full,
                     label = method)
    part <- perm_stats(perm_problem(x[, cols], yy, method, FALSE), perm, 1L)
    expect_identical(full[cols, ], part, label = method)
  }
  run <- function(threads) {
    set.seed(11)
    maxt_run(x, y, "t", FALSE, 101L, threads, batch = 40L)
  }
  expect_identical(run(2L), run(1L))
})

test_that("the counts made as the statistics are computed equal those of the statistics", {
  # C_maxt_fused against C_perm_stats + C_maxt_count: 1,100 features of 40
  # samples (two tiles), 37 labellings (chunks of 16, 16 and 5 on one
  # thread, uneven runs on 2), every statistic finished in C, a constant and
  # a separating feature
  set.seed(9)
  x <- matrix(rnorm(40 * 1100), 40, 1100)
  y <- factor(rep(c("a", "b"), c(15, 25)))
  x[, 5] <- 1
  x[, 6] <- as.integer(y) + 0
  perm <- cbind(seq_len(40), replicate(36, sample.int(40)))
  for (method in c("t", "pc", "lin", "snr")) {
    yy <- if (method == "pc") x[, 1] + rnorm(40) else y
    for (var_equal in c(FALSE, method == "t")) {
      prep <- perm_problem(x, yy, method, var_equal)
      expect_null(prep$post)
      observed <- perm_stats(prep, matrix(seq_len(40)), 1L)[, 1L]
      ok <- which(!is.na(observed))
      opts <- list(order = ok[order(-abs(observed[ok]), ok)],
                   thr = abs(observed) * (1 - 1e-9), threads = 1L)
      want <- .Call(C_maxt_count, perm_stats(prep, perm, 1L), opts)
      for (threads in 1:2) {
        opts$threads <- threads
        got <- .Call(C_maxt_fused, prep$xt, perm, c(prep$opts, opts))
        expect_identical(got, want, label = sprintf("%s, %d thread(s)", method, threads))
      }
      expect_gt(sum(want$adj), 0)
    }
  }
  prep <- perm_problem(x, y, "mt", FALSE)
  expect_error(.Call(C_maxt_fused, prep$xt, perm, c(prep$opts, list(order = 1L, thr = 1,
                                                                  threads = 1L))),
               "finished in R")
})

test_that("the labellings come from the caller's RNG: same seed, same result", {
  d <- perm_data()
  set.seed(3)
  a <- permutation_pvalues(d$x, d$y, "t", n_perm = 50L)
  after_a <- .Random.seed
  set.seed(3)
  b <- permutation_pvalues(d$x, d$y, "t", n_perm = 50L)
  expect_identical(a, b)
  # exactly n_perm - 1 draws of sample.int(m)
  set.seed(3)
  invisible(oracle_perms(nrow(d$x), 50L))
  expect_identical(.Random.seed, after_a)
  set.seed(4)
  expect_false(identical(permutation_pvalues(d$x, d$y, "t", n_perm = 50L)$p_value,
                         a$p_value))
})

test_that("p-values are at least 1 / n_perm, adjusted >= raw, monotone in |t|", {
  d <- perm_data(m = 20, d = 50, n2 = 10, seed = 8)
  d$x[d$y == "hi", 1] <- d$x[d$y == "hi", 1] + 3
  set.seed(1)
  r <- permutation_pvalues(d$x, d$y, "t", n_perm = 300L)
  expect_true(all(r$p_value >= 1 / 300 & r$p_value <= 1))
  expect_true(all(r$adj_p_value >= r$p_value))
  ord <- order(-abs(r$statistic))
  expect_false(is.unsorted(r$adj_p_value[ord]))
  # the strongly planted gene is found, the nulls are not
  expect_lt(r$adj_p_value[1], 0.05)
  expect_gt(min(r$adj_p_value[-(1:3)]), 0.05)
})

test_that("a constant feature gets NA p-values and takes no part in the maxima", {
  d <- perm_data()
  x <- d$x
  x[, 5] <- 3
  set.seed(2)
  r <- permutation_pvalues(x, d$y, "t", n_perm = 99L)
  expect_true(is.na(r$statistic[5]) && is.na(r$p_value[5]) && is.na(r$adj_p_value[5]))
  set.seed(2)
  r2 <- permutation_pvalues(x[, -5], d$y, "t", n_perm = 99L)
  expect_identical(r$adj_p_value[-5], r2$adj_p_value)
  expect_identical(r$p_value[-5], r2$p_value)
})

test_that("small samples use every labelling once (complete enumeration)", {
  set.seed(1)
  x <- matrix(rnorm(6 * 4), 6, 4)
  y <- factor(c("a", "b", "a", "b", "b", "a"))
  seed_before <- .Random.seed
  r <- permutation_pvalues(x, y, "t", n_perm = 1000L)
  expect_identical(.Random.seed, seed_before)   # no draws
  expect_identical(r$n_perm, 20L)                # choose(6, 3)
  # the oracle over all 20 labellings
  sets <- utils::combn(6, 3)
  stat <- apply(sets, 2L, function(s) {
    lab <- factor(ifelse(seq_len(6) %in% s, "b", "a"), levels = levels(y))
    oracle_stat(x, lab, "t")
  })
  obs <- oracle_stat(x, y, "t")
  want <- oracle_maxt(obs, stat)
  expect_identical(unname(r$p_value), want$p_value)
  expect_identical(unname(r$adj_p_value), want$adj_p_value)
  # n_perm equal to the number of labellings enumerates too; one fewer draws
  expect_identical(permutation_pvalues(x, y, "t", n_perm = 20L), r)
  set.seed(1)
  expect_identical(permutation_pvalues(x, y, "t", n_perm = 19L)$n_perm, 19L)
  # correlation: all 4! orderings
  yn <- c(0.3, 1.2, -0.5, 2, 0.1, 0.9)
  expect_identical(permutation_pvalues(x[1:4, ], yn[1:4], "pc", n_perm = 100L)$n_perm, 24L)
})

test_that("complete enumeration agrees with multtest::mt.maxT(B = 0)", {
  skip_peer("multtest")
  set.seed(9)
  x <- matrix(rnorm(9 * 8), 9, 8)
  y <- factor(rep(c("a", "b"), c(4, 5)))
  x[y == "b", 1] <- x[y == "b", 1] + 3
  for (case in list(c("t", "FALSE"), c("t.equalvar", "TRUE"))) {
    theirs <- multtest::mt.maxT(t(x), as.integer(y) - 1L, test = case[1], B = 0)
    theirs <- theirs[order(theirs$index), ]
    ours <- permutation_pvalues(x, y, "t", var_equal = as.logical(case[2]), n_perm = 10000L)
    expect_identical(ours$n_perm, 126L)
    expect_equal(unname(ours$p_value), theirs$rawp, tolerance = 1e-12)
    expect_equal(unname(ours$adj_p_value), theirs$adjp, tolerance = 1e-12)
    expect_equal(unname(ours$statistic), theirs$teststat, tolerance = 1e-10)
  }
})

test_that("random permutations agree with multtest::mt.maxT within Monte Carlo error", {
  skip_peer("multtest")
  skip_on_cran()
  set.seed(21)
  m <- 24
  d <- 150
  x <- matrix(rnorm(m * d), m, d)
  y <- factor(rep(c("a", "b"), c(11, 13)))
  x[y == "b", 1:10] <- x[y == "b", 1:10] + seq(0.6, 2, length.out = 10)
  B <- 3000L
  for (case in list(c("t", "FALSE"), c("t.equalvar", "TRUE"))) {
    invisible(utils::capture.output(
      theirs <- multtest::mt.maxT(t(x), as.integer(y) - 1L, test = case[1], B = B)
    ))
    theirs <- theirs[order(theirs$index), ]
    ours <- permutation_pvalues(x, y, "t", var_equal = as.logical(case[2]), n_perm = B)
    # two independent estimates: their difference has variance 2 p (1 - p) / B
    for (what in c("raw", "adj")) {
      a <- if (what == "raw") ours$p_value else ours$adj_p_value
      b <- if (what == "raw") theirs$rawp else theirs$adjp
      pbar <- pmin(pmax((a + b) / 2, 1 / B), 1 - 1 / B)
      z <- abs(a - b) / sqrt(2 * pbar * (1 - pbar) / B)
      expect_lt(max(z), 4.5, label = paste(case[1], what))
    }
    expect_equal(unname(ours$statistic), theirs$teststat, tolerance = 1e-10)
  }
})

test_that("bad n_perm, method and labels are refused with a message naming them", {
  d <- perm_data()
  for (bad in list(0, 1.5, NA, -3, "100", c(10, 20), Inf)) {
    expect_error(permutation_pvalues(d$x, d$y, "t", n_perm = bad), "`n_perm`")
  }
  expect_error(permutation_pvalues(d$x, d$y, "lods"), "`method`")
  expect_error(permutation_pvalues(d$x, as.numeric(d$y), "t"), "`y`")
  expect_error(permutation_pvalues(d$x, d$y[-1], "t"), "`y`")
  expect_error(permutation_pvalues(d$x, rep(1, nrow(d$x)), "pc"), "constant")
  one <- factor(c("a", rep("b", 15)))
  expect_error(permutation_pvalues(d$x, one, "t"), "at least 2")
})

test_that("the C entry points refuse labellings that are not permutations", {
  d <- perm_data()
  xt <- t(d$x)
  opts <- list(method = "t", cls = as.integer(d$y) - 1L, threads = 1L)
  bad <- matrix(seq_len(16), 16, 2)
  bad[1, 2] <- 2L
  expect_error(.Call(C_perm_stats, xt, bad, opts), "permutation")
  expect_error(.Call(C_perm_stats, xt, matrix(0L, 16, 1), opts), "permutation")
  expect_error(.Call(C_perm_stats, xt, matrix(1:16, 16), c(opts, list(extra = 1))), "extra")
  expect_error(.Call(C_maxt_count, matrix(0, 3, 2),
                     list(order = 4L, thr = c(0, 0, 0), threads = 1L)), "order")
})

test_that("a labelling without spread within the classes gives +-Inf, a constant feature NaN", {
  y <- factor(rep(c("a", "b"), each = 6))
  set.seed(2)
  x <- cbind(sep = rep(c(0, 2), each = 6), neg = rep(c(1, 0), each = 6), const = 3,
             noise = rnorm(12))
  for (method in c("t", "snr")) {
    for (var_equal in c(FALSE, TRUE)) {
      prep <- perm_problem(x, y, method, var_equal)
      # the observed labelling, its class swap, and one that mixes the classes
      perm <- cbind(1:12, c(7:12, 1:6), c(1:5, 7L, 6L, 8:12))
      st <- perm_stats(prep, perm, 1L)
      info <- paste(method, var_equal)
      # the oracle: the statistic of linear_scores() on the relabelled data
      for (b in 1:3) {
        want <- linear_scores(x, y[perm[, b]], method, var_equal)$score
        expect_identical(is.infinite(st[1:2, b]), unname(is.infinite(want[1:2])), info = info)
        expect_equal(st[-3, b], unname(want[-3]), tolerance = 1e-8, info = info)
        expect_true(is.na(want[3]), info = info)
      }
      expect_identical(st[1:2, 1], c(Inf, -Inf), info = info)
      expect_identical(st[1:2, 2], c(-Inf, Inf), info = info)
      expect_true(all(is.finite(st[1:2, 3])), info = info)
      expect_true(all(is.nan(st[3, ])), info = info)
    }
  }
  # maxT: the separating features get the smallest p-values the labellings allow
  res <- permutation_pvalues(x, y, "t", n_perm = 200L)
  expect_identical(res$statistic[1:2], c(sep = Inf, neg = -Inf))
  expect_true(all(res$p_value[1:2] <= 2 / 200))
  expect_true(all(res$adj_p_value[1:2] <= 2 / 200))
  expect_true(is.na(res$p_value[3]))
  # every labelling once: the observed one and its class swap separate, 2 of 924
  all <- permutation_pvalues(x, y, "t", n_perm = 1000L)
  expect_identical(all$n_perm, 924L)
  expect_identical(unname(all$p_value[1:2]), c(2, 2) / 924)
  expect_identical(unname(all$adj_p_value[1:2]), c(2, 2) / 924)
})
