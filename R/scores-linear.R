# Univariate special cases of HSIC with a linear kernel on the data (Song et
# al. 2012, section 6): Pearson correlation (eq. 23), the mean difference and
# its variants -- centroid, t, signal to noise, moderated t, B (section 6.2)
# -- and the shrunken centroid (section 6.5, eq. 27-28).
#
# Every statistic but the correlation is a function of the per-class counts,
# means and within-class sums of squares, so those are computed once, in C
# (src/scores.c, one read of each feature), and each method turns them into a
# score with vectorised O(d) formulas.
#
# Scale: the C code gives each feature's moments in units of a power of two
# of its own, 2^expo (its largest |value| in [0.5, 1)), so that no sum of
# squares underflows or overflows at any scale of the data; the conversions
# are exact. The statistics of one feature (t, snr, pc) are ratios that do not
# see the unit; the centroid difference is put back into the data's units;
# the moderated t, B and pam compare features (limma's prior, pamr's s0) and
# take every feature in one common unit (common_units()). A statistic that is
# invariant to the scale of the data is then the same at x * 1e-170 and
# x * 1e170 as at x, and for data of ordinary size the numbers are those of
# the computation without units.
#
# Sign convention: for two classes the score is level 2 minus level 1 of `y`
# (limma's coefficient 2 of `~ y`). genefilter::rowttests() uses level 1
# minus level 2, so its statistic is minus ours.
#
# Zero spread within the classes: where the statistic divides by a
# within-class spread that is exactly zero (t, snr; pam when more than half
# of the features have none), a feature whose class means differ separates
# the classes perfectly and its statistic is +-Inf (it ranks first, and the
# caller warns); a constant feature (equal means too) has no defined
# statistic: NA rather than NaN, and the caller warns. The moderated t and B
# borrow the prior variance, so such features get a finite score there (0
# when the class means are equal), as in limma.

#' Univariate linear feature scores
#'
#' @param x Validated finite double matrix, samples x features.
#' @param y Numeric vector (a method without class moments, the correlation),
#'   a two-level factor (a method that takes two classes only) or a factor
#'   with two or more levels, as the method's row of `score_table` says.
#' @param method One of the linear methods of `score_table`.
#' @param var_equal For the methods that use it: pooled-variance t instead
#'   of Welch's.
#' @return `list(score = <double, one per feature>, extra = <data.frame with
#'   one row per feature, or NULL>)`, and for the methods with an analytic
#'   null `statistic` and `p_value`. For limma's statistics the list carries
#'   the empirical Bayes hyper-parameters as `attr(, "prior")`.
#' @noRd
linear_scores <- function(x, y, method = linear_method_names(), var_equal = FALSE) {
  method <- match.arg(method)
  row <- score_row(method)
  m <- nrow(x)
  if (length(y) != m) {
    stop("`y` must have one value per row (sample) of `x`: ", length(y),
         " values for ", m, " samples.", call. = FALSE)
  }
  if (is.null(row$moments)) {
    if (!is.numeric(y)) {
      stop("`y` must be numeric for method \"", method, "\".", call. = FALSE)
    }
    out <- score_pc(x, as.double(y))
  } else {
    binary <- identical(row$outcomes, "two classes")
    k <- if (binary) "exactly 2" else "at least 2"
    if (!is.factor(y) || nlevels(y) < 2L || (binary && nlevels(y) != 2L)) {
      stop("`y` must be a factor with ", k, " levels for method \"", method,
           "\".", call. = FALSE)
    }
    out <- row$moments(class_moments(x, y), var_equal = var_equal, method = method)
  }
  names(out$score) <- colnames(x)
  out
}

linear_method_names <- function() score_methods_with(function(r) r$family == "linear")

# Per-class counts, means and within-class sums of squares (K x d), feature
# j in units of 2^expo[j] (NA: a feature of zeros), whether each feature is
# constant and the position of the first non-finite value (`bad`, 0: none),
# with the sample size and level names the methods need.
class_moments <- function(x, y) {
  mom <- .Call(C_feature_moments, x, as.integer(y), nlevels(y))
  mom$m <- nrow(x)
  mom$levels <- levels(y)
  mom
}

# The moments of every feature in one unit 2^E, for the statistics that
# compare features. Data of ordinary size (every feature's largest |value|
# between 2^-256 and 2^256) stay in their own units, E = 0, so the numbers are
# those of limma's and pamr's computation in the data's units; beyond, E is
# the (lower) median of the features' exponents, so that the bulk of the
# features is in range at any scale of the data (a common rescaling by 2^k
# then moves E by k, and the statistics agree with those at scale 1 to
# rounding). mom$unit = E.
common_units <- function(mom) {
  e <- mom$expo
  E <- common_unit(e)
  mom$mean <- .Call(C_scale_pow2, mom$mean, e - E, 1L)
  mom$ss <- .Call(C_scale_pow2, mom$ss, e - E, 2L)
  mom$expo <- NULL
  mom$unit <- E
  mom
}

# E of common_units() for the features' exponents e.
common_unit <- function(e) {
  # the largest |e| (0 where none), found without a vector the size of e
  if (max(-min(e, 0L, na.rm = TRUE), max(e, 0L, na.rm = TRUE)) <= 256L) return(0L)
  ok <- e[!is.na(e)]
  sort.int(ok, method = "radix")[(length(ok) + 1L) %/% 2L]
}

# Every class needs `min_n` samples, and with `pooled` the pooled variance
# needs residual degrees of freedom m - K >= 1.
check_classes <- function(mom, min_n, pooled, method) {
  small <- mom$n < min_n
  if (any(small)) {
    stop("Method \"", method, "\" needs at least ", min_n,
         " sample(s) in every class of `y`; class \"",
         mom$levels[which(small)[1]], "\" has ", mom$n[which(small)[1]], ".",
         call. = FALSE)
  }
  if (pooled && mom$m <= length(mom$n)) {
    stop("Method \"", method, "\" needs more samples than classes in `y`.",
         call. = FALSE)
  }
  invisible(mom)
}

# num / den for a spread den: where den is 0, +-Inf when num is not (perfect
# separation, the strongest evidence there is) and NA when num is 0 too (a
# constant feature: no statistic).
ratio_or_na <- function(num, den) {
  out <- num / den
  out[den == 0 & num == 0] <- NA_real_
  out
}

mean_diff <- function(mom) mom$mean[2L, ] - mom$mean[1L, ]

# Pearson correlation (eq. 23); NA for a constant feature.
score_pc <- function(x, y) {
  score <- .Call(C_feature_cor, x, y)$score
  if (anyNA(score)) score[is.nan(score)] <- NA_real_
  list(score = score, extra = NULL)
}

# Centroid (Bedo et al. 2006) with lambda = 1/2: the mean difference.
score_lin <- function(mom, method) {
  check_classes(mom, 1L, FALSE, method)
  # in the data's units
  list(score = .Call(C_scale_pow2, mean_diff(mom), mom$expo, 1L), extra = NULL)
}

# Welch t with s-bar of eq. (24), or the pooled-variance t. The p-value is
# two-sided from Student's t with m - 2 degrees of freedom (pooled) or the
# Welch-Satterthwaite df, as stats::t.test() computes them. In one pass in C
# with R's own pt(): the numbers of score_t_r(), its oracle.
score_t <- function(mom, var_equal, method) {
  check_classes(mom, if (var_equal) 1L else 2L, var_equal, method)
  r <- .Call(C_t_from_moments, mom$mean, mom$ss, mom$n, as.double(mom$m), var_equal)
  list(score = r$t, extra = NULL, statistic = r$t, p_value = r$p_value)
}

score_t_r <- function(mom, var_equal, method) {
  n <- mom$n
  if (var_equal) {
    check_classes(mom, 1L, TRUE, method)
    s2 <- (mom$ss[1L, ] + mom$ss[2L, ]) / (mom$m - 2)
    se <- sqrt(s2 * (1 / n[1L] + 1 / n[2L]))
    df <- mom$m - 2
  } else {
    check_classes(mom, 2L, FALSE, method)
    # eq. (24): s_k^2 / m_k with s_k^2 = ss_k / (m_k - 1)
    v1 <- mom$ss[1L, ] / (n[1L] - 1) / n[1L]
    v2 <- mom$ss[2L, ] / (n[2L] - 1) / n[2L]
    se <- sqrt(v2 + v1)
    # Welch-Satterthwaite, (v1 + v2)^2 / (v1^2 / (m1 - 1) + v2^2 / (m2 - 1)),
    # with the shares of v1 + v2 so that no square underflows
    w1 <- v1 / (v1 + v2)
    df <- 1 / (w1^2 / (n[1L] - 1) + (1 - w1)^2 / (n[2L] - 1))
  }
  score <- ratio_or_na(mean_diff(mom), se)
  list(score = score, extra = NULL, statistic = score, p_value = two_sided_t_r(score, df))
}

# Two-sided p-value of a t statistic (stats::t.test(), stats::cor.test());
# NA where the statistic is, 0 where it is infinite (whatever the df: Welch's
# df are 0 / 0 when neither class has a spread). In one pass in C, with R's
# own pt(): the numbers of 2 * stats::pt(-abs(t), df) (two_sided_t_r()).
two_sided_t <- function(t, df) {
  .Call(C_two_sided_t, as.double(t), as.double(df))
}

two_sided_t_r <- function(t, df) {
  p <- 2 * stats::pt(-abs(t), df)
  p[is.infinite(t)] <- 0
  p[is.na(t)] <- NA_real_
  p
}

# Signal to noise: s-bar = s_+ + s_- (section 6.2).
score_snr <- function(mom, method) {
  check_classes(mom, 2L, FALSE, method)
  s <- sqrt(mom$ss / (mom$n - 1))
  list(score = ratio_or_na(mean_diff(mom), s[1L, ] + s[2L, ]), extra = NULL)
}

# Two classes: the moderated t of the difference (coefficient 2 of ~ y), its
# p-value from t with the posterior df; more classes: the moderated F of
# coefficients 2..K together (limma's topTable(fit, coef = 2:K)).
score_mt <- function(mom, method) {
  if (length(mom$n) > 2L) {
    eb <- moderated_f(mom, method)
    return(structure(list(score = eb$F, extra = NULL, statistic = eb$F, p_value = eb$p_value),
                     prior = eb$prior))
  }
  eb <- moderated_t(mom, method, lods = FALSE)
  structure(list(score = eb$t, extra = NULL, statistic = eb$t,
                 p_value = two_sided_t(eb$t, eb$df_total)), prior = eb$prior)
}

score_lods <- function(mom, method) {
  eb <- moderated_t(mom, method)
  structure(list(score = eb$lods, extra = data.frame(t = unname(eb$t)), statistic = eb$t,
                 p_value = two_sided_t(eb$t, eb$df_total)),
            prior = eb$prior)
}

# Shrunken centroid at threshold 0 (section 6.5), with pamr's conventions
# (pamr::pamr.train -> pamr:::nsc): s_j is the pooled within-class sd with
# denominator m - K, s0 its median (offset.percent = 50, through quantile()),
# and the class-k contrast is scaled by mk_k = sqrt(1 / m_k - 1 / m). The
# score sum_k d_jk^2 is HSIC0 of eq. (27-28) up to (m - 1)^2, with feature j
# scaled by 1 / (s_j + s0) and the label map e_y / (m_y mk_y).
score_pam <- function(mom, method) {
  check_classes(mom, 1L, TRUE, method)
  # s0 compares the features' spreads: one unit for all
  mom <- common_units(mom)
  m <- mom$m
  n <- mom$n
  s <- sqrt(colSums(mom$ss) / (m - length(n)))
  s <- s + stats::quantile(s, 0.5, names = FALSE)
  overall <- colSums(mom$mean * n) / m
  # K x d: the length-K vectors recycle down the columns
  d <- t((t(mom$mean) - overall) / s) / sqrt(1 / n - 1 / m)
  if (any(s == 0)) d[, s == 0] <- pam_zero_spread(mom$mean[, s == 0, drop = FALSE], overall[s == 0])
  extra <- as.data.frame(t(d))
  names(extra) <- paste0("d_", mom$levels)
  list(score = colSums(d^2), extra = extra)
}

# pam's d where s_j + s0 = 0 (s0 = 0: more than half of the features have no
# spread within the classes): +-Inf for a class whose mean differs from the
# overall mean, 0 for one whose mean equals it, NA for a constant feature
# (every class mean equal, exactly, as its values are).
pam_zero_spread <- function(means, overall) {
  dev <- t(t(means) - overall)
  d <- sign(dev) * Inf
  d[dev == 0] <- 0
  d[, colSums(means != rep(means[1L, ], each = nrow(means))) == 0] <- NA_real_
  d
}

# ---- permutation p-values (lin, snr, pam) ----------------------------------------
# The centroid difference, the signal to noise ratio and pamr's statistic have
# no analytic null distribution: their p-values come from permutations of the
# labels, (1 + #{b: |T_b| >= |T_obs|}) / (1 + B), two-sided (pam's statistic
# is a sum of squares). `perms` is the m x B matrix of permutations the caller
# drew from R's RNG; each permutation gives each feature's class moments from
# the permuted labels (one pass in C) and the statistic from them, so the
# counts do not depend on how the features are cut into blocks (pam's s0, a
# median over all features, needs them all in one block). A permutation that
# gives the same partition of the samples sums the same values in the same
# order (the C code lists each class's samples in index order), so it
# reproduces the observed statistic exactly and counts. A permutation that
# leaves no spread within the classes gives an infinite statistic, which
# counts (only an infinite one counts for an observed infinite statistic, so
# a feature that separates the classes gets the smallest p-value the
# permutations allow). NA is only the constant feature's (0 / 0), observed
# too: its p-value is NA.
permutation_scorer <- function(y, method, var_equal, perms) {
  fun <- score_row(method)$moments
  cls <- as.integer(y)
  k <- nlevels(y)
  stat <- function(b, labels) {
    mom <- .Call(C_feature_moments, b, labels, k)
    mom$m <- nrow(b)
    mom$levels <- levels(y)
    fun(mom, var_equal = var_equal, method = method)$score
  }
  # the blocks were checked by the scoring pass: bad = 0
  function(b) {
    obs <- abs(stat(b, cls))
    count <- numeric(length(obs))
    for (i in seq_len(ncol(perms))) {
      s <- abs(stat(b, cls[perms[, i]]))
      hit <- s >= obs
      hit[is.na(s)] <- TRUE
      count <- count + hit
    }
    p <- (1 + count) / (1 + ncol(perms))
    p[is.na(obs)] <- NA_real_
    list(p_value = p, bad = 0)
  }
}

# ---- moderated t and B (Smyth 2004) ------------------------------------------
# What limma::eBayes(limma::lmFit(t(x), model.matrix(~ y))) computes for
# coefficient 2 with its defaults (proportion = 0.01, stdev.coef.lim =
# c(0.1, 4), no trend, not robust), from the class moments: the residual
# variance of the two-group fit is the pooled variance with m - 2 df and the
# unscaled sd of the mean difference is sqrt(1 / m_1 + 1 / m_2).
#
# The variances are compared in the common unit 4^E of common_units(), so
# that d0, the moderated t and every quantity but the data-unit limits of B
# are the same at any common scale of the data. B is not scale-free in limma:
# stdev_coef_lim bounds the sd of the true log-fold change in the data's
# units, and v0 is clamped to stdev_coef_lim^2 / s0^2 (s0^2 in the data's
# units). At extreme scales those limits are beyond the doubles (1e338 at
# x * 1e-170), so v0 is clamped, averaged and used in logs.
moderated_t <- function(mom, method, proportion = 0.01,
                        stdev_coef_lim = c(0.1, 4), lods = TRUE) {
  check_classes(mom, 1L, TRUE, method)
  unit <- common_unit(mom$expo)
  n <- mom$n
  d <- ncol(mom$mean)
  df <- mom$m - 2
  # the variances and differences in the common unit (common_units()), in C
  v <- .Call(C_mt_common, mom$mean, mom$ss, mom$expo, unit, as.double(df))
  su <- sqrt(1 / n[1L] + 1 / n[2L])

  # eq. (25): prior df d0 and scale s0^2 from all features; the posterior
  # variance shrinks s^2 towards s0^2 (s-tilde of section 6.2).
  prior <- fit_f_dist(v$s2, df, one = 2^(-2 * unit))
  d0 <- prior$df2
  s20 <- prior$scale
  t <- .Call(C_mt_posterior, v$s2, v$diff, su, as.double(df), as.double(d0), as.double(s20))
  moderated_t_end(t, su, df, d, d0, s20, unit, proportion, stdev_coef_lim, lods)
}

# moderated_t() in R, its oracle: the same numbers.
moderated_t_r <- function(mom, method, proportion = 0.01,
                          stdev_coef_lim = c(0.1, 4), lods = TRUE) {
  check_classes(mom, 1L, TRUE, method)
  mom <- common_units(mom)
  unit <- mom$unit
  n <- mom$n
  d <- ncol(mom$mean)
  df <- mom$m - 2
  s2 <- (mom$ss[1L, ] + mom$ss[2L, ]) / df
  su <- sqrt(1 / n[1L] + 1 / n[2L])
  prior <- fit_f_dist_r(s2, df, one = 2^(-2 * unit))
  d0 <- prior$df2
  s20 <- prior$scale
  s2_post <- if (is.finite(d0)) (df * s2 + d0 * s20) / (df + d0) else
    rep_len(s20, d)
  t <- mean_diff(mom) / su / sqrt(s2_post)
  t[is.nan(t)] <- NA_real_
  moderated_t_end(t, su, df, d, d0, s20, unit, proportion, stdev_coef_lim, lods)
}

# The df, the prior in the data's units and, when asked, B.
moderated_t_end <- function(t, su, df, d, d0, s20, unit, proportion, stdev_coef_lim, lods) {
  df_total <- min(df + d0, d * df)
  prior <- c(df_prior = d0, s2_prior = .Call(C_scale_pow2, s20, unit, 2L))
  # B only when asked (the moderated t alone does not need its prior)
  if (!lods) return(list(t = t, df_total = df_total, prior = prior))
  log_s20 <- log(s20) + 2 * unit * log(2)     # s0^2 in the data's units
  b <- b_statistic(t, su, df_total, d0, log_s20, proportion, stdev_coef_lim)
  list(t = t, lods = b$lods, df_total = df_total,
       prior = c(prior, var_prior = exp(b$log_v0)))
}

# B statistic: log posterior odds with prior variance v0 of the true
# difference estimated from the top `proportion` of |t| (tmixture), for
# moderated t's on df_total df whose coefficient has unscaled sd su; log_s20,
# the log of the prior variance s0^2 in the data's units (limma: of its
# median, with a trend).
b_statistic <- function(t, su, df_total, d0, log_s20, proportion, stdev_coef_lim) {
  log_v0 <- t_mixture(t, su, df_total, proportion, 2 * log(stdev_coef_lim) - log_s20)
  if (is.na(log_v0)) {
    log_v0 <- -log_s20
    warning("Estimation of the prior variance of the B statistic failed; ",
            "set to 1 / s0^2.", call. = FALSE)
  }
  # log(r), r = (su^2 + v0) / su^2 = 1 + exp(a), without overflow
  a <- log_v0 - 2 * log(su)
  log_r <- if (a > 0) a + log1p(exp(-a)) else log1p(exp(a))
  t2 <- t^2
  # limma treats d0 > 1e6 as infinite: the limit of the kernel below (d0 is
  # one per feature with robust = TRUE)
  kernel <- if (all(d0 > 1e6)) {
    -t2 * expm1(-log_r) / 2
  } else {
    (1 + df_total) / 2 * log((t2 + df_total) / (t2 * exp(-log_r) + df_total))
  }
  inf <- rep_len(d0 > 1e6, length(t))
  if (any(inf) && !all(inf)) kernel[inf] <- (-t2 * expm1(-log_r) / 2)[inf]
  list(lods = log(proportion / (1 - proportion)) - log_r / 2 + kernel, log_v0 = log_v0)
}

# The moderated F test of K > 2 classes (Smyth 2004, section 6): limma's F
# for coefficients 2..K of eBayes(lmFit(t(x), model.matrix(~ y))), the F
# statistic of classifyTestsF() (fstat.only = TRUE) and its p-value as in
# eBayes() (chi-square when the total df exceeds 1e6). With the treatment
# contrasts of ~ y the quadratic form t' C^-1 t of the moderated t's of
# those coefficients (C their correlation matrix) is the between-class sum of
# squares sum_k m_k (mean_k - mean)^2 over the posterior variance, so F is
# the one-way ANOVA F with the moderated variance of eq. (25) in place of the
# residual variance.
moderated_f <- function(mom, method) {
  check_classes(mom, 1L, TRUE, method)
  mom <- common_units(mom)
  n <- mom$n
  k <- length(n)
  d <- ncol(mom$mean)
  df <- mom$m - k
  s2 <- colSums(mom$ss) / df
  prior <- fit_f_dist(s2, df, one = 2^(-2 * mom$unit))
  d0 <- prior$df2
  s20 <- prior$scale
  s2_post <- if (is.finite(d0)) (df * s2 + d0 * s20) / (df + d0) else rep_len(s20, d)
  overall <- colSums(mom$mean * n) / mom$m
  # K x d deviations of the class means; the length-K n recycles down columns
  between <- colSums((t(t(mom$mean) - overall))^2 * n)
  f <- between / (k - 1) / s2_post
  f[is.nan(f)] <- NA_real_
  df_total <- min(df + d0, d * df)
  p <- if (df_total > 1e6) {
    stats::pchisq((k - 1) * f, k - 1, lower.tail = FALSE)
  } else {
    stats::pf(f, k - 1, df_total, lower.tail = FALSE)
  }
  list(F = f, p_value = p, df_total = df_total,
       prior = c(df_prior = d0, s2_prior = .Call(C_scale_pow2, s20, mom$unit, 2L)))
}

# Fit a scaled F distribution s0^2 F(df, d0) to the variances s2 by the
# moments of log(s2) (limma:::fitFDist without covariate): mean and variance
# of z_j = log(s2_j) give d0 and s0^2 through digamma and trigamma, eq. (25).
# As limma does, zero variances are offset to 1e-5 times the median (or 1 when
# the median is 0: `one` is limma's 1 in the unit of s2, when that is a
# double) and an estimate of the variance of z below its expected sampling
# variance means d0 = Inf.
fit_f_dist <- function(s2, df, one = 1) {
  # the vector work in C with R's arithmetic (C_f_dist_sums); one df only
  if (!is.double(s2) || length(df) != 1L) return(fit_f_dist_r(s2, df, one))
  fallback <- if (one > 0 && is.finite(one)) one else 1
  sums <- .Call(C_f_dist_sums, s2, as.double(fallback), digamma(df / 2), log(df / 2))
  n_ok <- sums[[1L]]
  if (n_ok < 2) return(fit_f_dist_r(s2, df, one))
  e_mean <- sums[[3L]]
  e_var <- sums[[4L]] / (n_ok - 1) - trigamma(df / 2)
  f_dist_prior(e_mean, e_var, sums[[5L]])
}

# d0 and s0^2 from the moments of e = log(s2) - digamma(df / 2) + log(df / 2)
# (mean e_mean, variance e_var less its sampling variance) or, when that is
# not positive, s0^2 = the mean variance s2_mean and d0 = Inf.
f_dist_prior <- function(e_mean, e_var, s2_mean) {
  if (e_var > 0) {
    df2 <- 2 * trigamma_inverse(e_var)
    list(scale = exp(e_mean + digamma(df2 / 2) - log(df2 / 2)), df2 = df2)
  } else {
    list(scale = s2_mean, df2 = Inf)
  }
}

# fit_f_dist() in R, its oracle (and the path of a df per feature)
fit_f_dist_r <- function(s2, df, one = 1) {
  ok <- is.finite(s2)
  if (sum(ok) == 0L) {
    stop("No finite within-class variances to estimate the prior from.",
         call. = FALSE)
  }
  if (sum(ok) == 1L) return(list(scale = s2[ok], df2 = 0))
  s2 <- pmax(s2[ok], 0)
  med <- stats::median(s2)
  if (med == 0) med <- if (one > 0 && is.finite(one)) one else 1
  s2 <- pmax(s2, 1e-5 * med)
  e <- log(s2) - digamma(df / 2) + log(df / 2)
  e_mean <- mean(e)
  e_var <- sum((e - e_mean)^2) / (length(e) - 1L) - trigamma(df / 2)
  f_dist_prior(e_mean, e_var, if (e_var > 0) NA_real_ else mean(s2))
}

# y with trigamma(y) = x, x > 0, by Newton's method on 1 / trigamma(y), which
# is close to linear (Smyth 2004); the asymptotes serve at the extremes.
trigamma_inverse <- function(x) {
  if (x > 1e7) return(1 / sqrt(x))
  if (x < 1e-6) return(1 / x)
  y <- 0.5 + 1 / x
  for (iter in 1:50) {
    tri <- trigamma(y)
    step <- tri * (1 - tri / x) / psigamma(y, deriv = 2)
    y <- y + step
    if (-step / y < 1e-8) break
  }
  y
}

# Prior variance v0 of the true mean difference (limma:::tmixture.vector for
# one coefficient, all features with the same df): match the top ntarget |t|
# to the quantiles of the mixture of null and alternative t distributions.
# Returns log(v0); the limits are given as logs, log_v0_lim.
t_mixture <- function(t, su, df, proportion, log_v0_lim) {
  if (length(df) > 1L) {
    # per-feature df (robust = TRUE): each |t| to the same tail on the largest
    ok <- !is.na(t)
    t <- abs(t[ok])
    df <- df[ok]
    max_df <- max(df)
    low <- df < max_df
    if (any(low)) {
      tail <- stats::pt(t[low], df = df[low], lower.tail = FALSE, log.p = TRUE)
      t[low] <- stats::qt(tail, df = max_df, lower.tail = FALSE, log.p = TRUE)
    }
    df <- max_df
  }
  t <- abs(t[!is.na(t)])
  n_feat <- length(t)
  n_target <- ceiling(proportion / 2 * n_feat)
  if (n_target < 1) return(NA_real_)
  p <- max(n_target / n_feat, proportion)
  top <- sort(t, decreasing = TRUE)[seq_len(n_target)]
  p0 <- 2 * stats::pt(top, df = df, lower.tail = FALSE)
  p_target <- ((seq_len(n_target) - 0.5) / n_feat - (1 - p) * p0) / p
  v0 <- numeric(n_target)
  pos <- p_target > p0
  if (any(pos)) {
    q_target <- stats::qt(p_target[pos] / 2, df = df, lower.tail = FALSE)
    v0[pos] <- su^2 * ((top[pos] / q_target)^2 - 1)
  }
  # limma's mean(pmin(pmax(v0, lim[1]), lim[2])), in logs
  lv <- pmin(pmax(log(pmax(v0, 0)), log_v0_lim[1L]), log_v0_lim[2L])
  top_lv <- max(lv)
  top_lv + log(mean(exp(lv - top_lv)))
}
