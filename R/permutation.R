# Westfall-Young step-down maxT adjusted p-values by permutation of the
# labels (Westfall and Young 1993; Ge, Dudoit and Speed 2003, algorithm 4),
# with the definitions of multtest::mt.maxT():
#
# * The observed labelling is one of the n_perm labellings (the first): a
#   raw p-value is #{b : |T_b,j| >= |T_j|} / n_perm and is never below
#   1 / n_perm. The adjusted p-value of the feature of rank k (by decreasing
#   observed |T|) is #{b : max over the features of rank >= k of |T_b| >=
#   |T_(k)|} / n_perm, made monotone down the ranks.
# * When n_perm is at least the number of distinct labellings (two classes:
#   choose(m, m_2); "pc": m!), every labelling is used once instead (complete
#   enumeration, the exact permutation p-values, as mt.maxT does); the
#   result's n_perm is then that number. No warning: the result is exact.
# * "Equal" is up to rounding: |T_b,j| counts when it is at least |T_j| (1 -
#   1e-10), so that labellings giving the same statistic in exact arithmetic
#   (the observed one, the class swap of a balanced design) count whatever
#   the order of the sums (mt.maxT allows 120 * DBL_EPSILON absolutely).
# * A feature whose observed statistic is NA (a constant feature) gets NA
#   p-values and takes no part in the maxima; a permuted statistic that is
#   NA counts for nothing. A labelling that leaves a feature no spread within
#   the classes but different class means gives it an infinite statistic
#   (perfect separation), which reaches every threshold; an observed
#   infinite statistic is reached only by such labellings, so its p-values
#   are the smallest the labellings allow.
#
# The labellings are drawn with sample.int() from the caller's RNG, one
# permutation after another, so the result depends on the seed but not on
# the batch size or the number of threads. The statistics of a batch of
# labellings are computed in C (src/maxt.c: class sums over the smaller
# class, permutations on threads); for the moderated t the prior (d0, s0^2)
# is refitted on every labelling in R (fit_f_dist(), R/scores-linear.R) from
# the per-labelling mean differences and pooled variances that C returns.

#' Permutation p-values and Westfall-Young step-down maxT adjusted p-values
#'
#' @param x Validated finite double matrix, samples x features.
#' @param y Two-level factor (methods "t", "lin", "snr", "mt") or numeric
#'   vector ("pc").
#' @param method One of "t", "lin", "snr", "pc", "mt".
#' @param var_equal For "t": the pooled-variance t instead of Welch's.
#' @param n_perm Number of labellings, the observed one included (as
#'   multtest::mt.maxT's B): a whole number >= 1.
#' @param threads Number of OpenMP threads (resolved by the caller).
#' @param run `NULL` (the batches one after another, each drawn when it is
#'   used) or check_parallel()'s function: every labelling is then drawn
#'   first, in the same order, and the batches run on the back end.
#' @return `list(p_value, adj_p_value, statistic, n_perm)`: raw and
#'   step-down maxT adjusted two-sided permutation p-values and the observed
#'   statistics (level 2 minus level 1, as linear_scores()), one per feature
#'   (named by colnames(x)), and the number of labellings used (smaller than
#'   asked under complete enumeration).
#' @noRd
permutation_pvalues <- function(x, y, method, var_equal = FALSE,
                                n_perm = 1000L, threads = 1L, run = NULL) {
  maxt_run(x, y, method, var_equal, n_perm, threads, run = run)
}

# the statistics of the maxT engine: the rows of score_table with `maxt`
# (R/score-table.R), which give each one's C mode

# Relative allowance for rounding in "|T_b| >= |T|".
perm_tolerance <- 1e-10

# The work of permutation_pvalues(); `batch` labellings per call to C (by
# default about 16 MB of statistics per batch). The counts of a batch depend
# on its labellings alone and are whole numbers, so they add up to the same
# doubles in any grouping: through a back end (`run`), the labellings are
# drawn here first, in the serial order, and the batches -- at least 20 of
# them, for the workers to share -- are counted on the workers. `progress`:
# a bar of R/progress.R advanced after each batch (NULL: none). `fit`: the fit
# of a study design (linear_fit_setup(), R/scores-design.R): the labellings
# are then drawn within its strata and the statistics are given the design
# (perm_problem_fit()); no complete enumeration.
maxt_run <- function(x, y, method, var_equal, n_perm, threads, batch = NULL, run = NULL,
                     progress = NULL, fit = NULL) {
  method <- arg_match_perm(method)
  if (!is.numeric(n_perm) || length(n_perm) != 1L || !is.finite(n_perm) ||
      n_perm < 1 || n_perm != round(n_perm) || n_perm > .Machine$integer.max) {
    stop("`n_perm` must be one whole number >= 1 (the number of labellings, ",
         "the observed one included), e.g. n_perm = 1000.", call. = FALSE)
  }
  n_perm <- as.integer(n_perm)
  threads <- check_threads(threads)
  m <- nrow(x)
  p <- ncol(x)
  if (length(y) != m) {
    stop("`y` must have one value per row (sample) of `x`: ", length(y),
         " values for ", m, " samples.", call. = FALSE)
  }
  prep <- if (is.null(fit)) {
    perm_problem(x, y, method, var_equal)
  } else {
    perm_problem_fit(x, y, method, fit)
  }
  n_lab <- if (is.null(fit)) perm_count(prep, m) else Inf
  shuffle <- prep$shuffle %||% function() sample.int(m)
  exact <- n_lab <= n_perm
  if (exact) {
    all_perm <- perm_enumerate(prep, m)
    n_perm <- ncol(all_perm)
  }
  if (is.null(batch)) batch <- maxt_batch(n_perm, p, threads, run, maxt_fused(prep), m)
  if (!is.null(run)) batch <- max(1L, min(batch, ceiling(n_perm / 20)))
  draw <- function(from, to) {
    if (exact) return(all_perm[, from:to, drop = FALSE])
    out <- matrix(0L, m, to - from + 1L)
    for (k in from:to) {
      out[, k - from + 1L] <- if (k == 1L) seq_len(m) else shuffle()
    }
    out
  }

  observed <- perm_stats(prep, matrix(seq_len(m)), threads)[, 1L]
  ok <- which(!is.na(observed))
  # by decreasing |T|, ties by feature index
  order_ok <- ok[order(-abs(observed[ok]), ok, method = "radix")]
  thr <- abs(observed) * (1 - perm_tolerance)
  opts <- list(order = order_ok, thr = as.double(thr), threads = threads)
  raw <- numeric(p)
  adj <- numeric(length(ok))
  starts <- seq(1L, n_perm, by = batch)
  if (is.null(run)) {
    for (from in starts) {
      to <- min(n_perm, from + batch - 1L)
      counts <- maxt_count(draw(from, to), prep, opts)
      raw <- raw + counts$raw
      adj <- adj + counts$adj
      progress_tick(progress, to - from + 1L)
    }
  } else {
    perms <- lapply(starts, function(from) draw(from, min(n_perm, from + batch - 1L)))
    amounts <- pmin(n_perm, starts + batch - 1L) - starts + 1L
    for (counts in run(perms, ship(maxt_count, prep, opts), progress, amounts)) {
      raw <- raw + counts$raw
      adj <- adj + counts$adj
    }
  }
  p_value <- raw / n_perm
  p_value[is.na(observed)] <- NA_real_
  adj_p_value <- rep(NA_real_, p)
  adj_p_value[order_ok] <- cummax(adj / n_perm)
  names(p_value) <- names(adj_p_value) <- names(observed) <- colnames(x)
  list(p_value = p_value, adj_p_value = adj_p_value, statistic = observed,
       n_perm = n_perm)
}

# The counts of one batch of labellings (the columns of perm): for each
# feature, how many reach its observed |T|; for each rank, how many maxima
# reach it (src/maxt.c). A statistic finished in C is counted as it is
# computed (C_maxt_fused: no p x batch matrix of statistics); one that R
# finishes (post) goes through the matrix.
maxt_count <- function(perm, prep, opts) {
  if (maxt_fused(prep)) {
    return(.Call(C_maxt_fused, prep$xt, perm, c(prep$opts, opts)))
  }
  .Call(C_maxt_count, perm_stats(prep, perm, opts$threads), opts)
}

arg_match_perm <- function(method) {
  maxt_methods <- score_methods_with(function(r) !is.null(r$maxt))
  if (!is.character(method) || length(method) != 1L || !method %in% maxt_methods) {
    stop("`method` must be one of ", paste0("\"", maxt_methods, "\"", collapse = ", "),
         " for permutation p-values.", call. = FALSE)
  }
  method
}

# What C needs for every labelling: the data feature-major (p x m), centred
# (every statistic is invariant to a shift of a feature) and, for the
# statistics invariant to its scale too, scaled to unit norm, so that the
# class sums of squares in C lose little to cancellation; the labels.
perm_problem <- function(x, y, method, var_equal) {
  row <- score_row(method)
  spec <- row$maxt
  m <- nrow(x)
  xt <- t(x)
  xt <- xt - rowMeans(xt)
  if (spec$unit_norm) {
    s <- sqrt(rowSums(xt^2))
    s[s == 0] <- 1
    xt <- xt / s
  }
  storage.mode(xt) <- "double"
  if ("numeric" %in% spec$outcomes) {
    # a correlation: every permutation of the numeric outcome
    if (!is.numeric(y)) {
      stop("`y` must be numeric for method \"", method, "\".", call. = FALSE)
    }
    yc <- as.double(y) - mean(y)
    ny <- sqrt(sum(yc^2))
    if (!is.finite(ny) || ny == 0) {
      stop("`y` must not be constant for method \"", method, "\": a correlation with a ",
           "constant is undefined.", call. = FALSE)
    }
    return(list(method = method, xt = xt, numeric = TRUE,
                opts = list(method = spec$mode, y = yc / ny)))
  }
  if (!is.factor(y) || nlevels(y) != 2L || anyNA(y)) {
    stop("`y` must be a factor with exactly 2 levels and no NA for method \"",
         method, "\".", call. = FALSE)
  }
  pooled <- row$variance == "pooled" || (var_equal && "var_equal" %in% row$uses)
  min_n <- if (row$variance == "within" && !pooled) 2L else 1L
  n <- tabulate(as.integer(y), 2L)
  check_classes(list(n = n, m = m, levels = levels(y)), min_n, pooled, method)
  name <- if (pooled && !is.null(spec$pooled_mode)) spec$pooled_mode else spec$mode
  cls <- as.integer(y) - 1L
  list(method = method, xt = xt, n = n, cls = cls, numeric = FALSE,
       opts = list(method = name, cls = cls))
}

# The statistics (p x B) of the labellings in the columns of perm.
perm_stats <- function(prep, perm, threads) {
  opts <- c(prep$opts, list(threads = threads))
  out <- .Call(C_perm_stats, prep$xt, perm, opts)
  if (!is.null(prep$post)) return(prep$post(out, perm))
  post <- score_row(prep$method)$maxt$post
  if (!is.null(post)) out <- post(out, prep$n)
  out
}

# limma's moderated t (moderated_t(), R/scores-linear.R) of every column:
# the prior d0, s0^2 refitted on each labelling (Smyth 2004; Song et al. 2012, section 6.2),
# from the mean differences and pooled variances with m - 2 df.
moderated_t_columns <- function(mom, n) {
  df <- sum(n) - 2
  su <- sqrt(1 / n[1L] + 1 / n[2L])
  t <- mom$diff
  for (b in seq_len(ncol(t))) {
    s2 <- mom$s2[, b]
    prior <- fit_f_dist(s2, df)
    s2_post <- if (is.finite(prior$df2)) {
      (df * s2 + prior$df2 * prior$scale) / (df + prior$df2)
    } else {
      rep_len(prior$scale, length(s2))
    }
    t[, b] <- mom$diff[, b] / su / sqrt(s2_post)
  }
  t[is.nan(t)] <- NA_real_
  t
}

# The number of distinct labellings (as a double: it can exceed integers).
perm_count <- function(prep, m) {
  if (prep$numeric) factorial(m) else choose(m, prep$n[2L])
}

# Every labelling once, as permutations (m x n_lab, the identity among them):
# two classes, every set of class-2 positions; "pc", every permutation.
perm_enumerate <- function(prep, m) {
  if (prep$numeric) return(all_permutations(m))
  cls <- prep$cls
  from2 <- which(cls == 1L)
  from1 <- which(cls == 0L)
  sets <- utils::combn(m, length(from2))
  apply(sets, 2L, function(set) {
    perm <- integer(m)
    perm[set] <- from2
    perm[-set] <- from1
    perm
  })
}

all_permutations <- function(m) {
  if (m <= 1L) return(matrix(seq_len(m), m, 1L))
  sub <- all_permutations(m - 1L)
  do.call(cbind, lapply(seq_len(m), function(i) {
    rest <- seq_len(m)[-i]
    rbind(i, matrix(rest[sub], m - 1L))
  }))
}

# The default batch of maxt_run(): about 16 MB of statistics (2^21 / p
# labellings) where R finishes them; where C counts them as it computes them
# (fused) no statistics are kept, and the batch is 2^23 / max(p, m)
# labellings (the labellings' matrix at most 32 MB; 664 of ALL's 12,625
# genes, some 0.25 s of one core between checks for an interrupt), so that
# each of 16 threads takes several groups of labellings (src/maxt.c), and
# at most 2^30 / (p m) (about 2^30 operations, as long between checks for
# larger problems). In
# the threads' own process (no back end) a multiple of the threads: of 166
# labellings on 16 threads, six threads count an 11th while ten wait; of
# 160, none (the batches change no count).
maxt_batch <- function(n_perm, p, threads, run = NULL, fused = FALSE, m = 0L) {
  room <- if (fused) {
    min(2^23 %/% max(p, m, 1L), 2^30 %/% max(as.double(p) * m, 1))
  } else {
    2^21 %/% max(p, 1L)
  }
  batch <- max(1L, min(n_perm, room))
  if (is.null(run) && batch > threads) batch <- batch %/% threads * threads
  as.integer(batch)
}

# 1 where C counts the statistics of prep as it computes them (maxt_count())
maxt_fused <- function(prep) {
  is.null(prep$post) && is.null(score_row(prep$method)$maxt$post)
}

# The batch of maxt_run() under a bar (inference_p_values()): at most the
# default, and about 100 batches. The batches change no count, so no result.
maxt_progress_batch <- function(progress, n_perm, p) {
  default <- max(1L, min(n_perm, 2^21 %/% max(p, 1L)))
  if (is.null(progress)) return(default)
  as.integer(min(default, max(1L, ceiling(n_perm / 100))))
}
