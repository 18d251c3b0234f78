# ---- the linear scores with a study design: limma and lm ---------------------------
# With covariates or blocks (R/design.R), the linear scores that adjust (the
# rows of score_table whose `fit` is not NULL) are those of the linear model
# of each feature on the design, as limma and lm fit it:
#   x_j = X b_j + e_j,   X = model.matrix(~ covariates [+ block] + y)
# (design_model()), or the design matrix a limma user gives (`design`, with
# `coef` or `contrast`). Every feature is fitted at once: the coefficients
# L' b_j (L picks y's coefficients, or is the contrast matrix) are one matrix
# product G x with G = L' (X'X)^-1 X', and the residual sum of squares is
# ||x_j - mean||^2 - ||F' x_j||^2 with F an orthonormal basis of the span of X
# orthogonal to the intercept (Frisch, Waugh and Lovell: with r = P y, the
# coefficient of y is r' x_j / r' r), from the centred sums of squares of the
# C pass that checks the block (src/scores.c). Then
#   "ols"        the t of y's coefficient in lm(x_j ~ covariates + y), on
#                m - rank(X) df (with a block and one sample of each class
#                per block, the paired t test);
#   "partial"    the partial correlation of x_j and y given the covariates,
#                with the same t test;
#   "eb"         limma's eBayes() (Smyth 2004): the moderated t of the
#                coefficient, or the moderated F of several (y with more
#                than two classes), with trend = TRUE the prior's trend in
#                the average expression (limma's fitFDist() with a covariate),
#                with robust = TRUE limma's robust prior;
#   "eb_lods"    the B statistic of the same fit.
# Without a design the same code fits ~ y, for a numeric outcome (the
# slope's moderated t) and for trend = TRUE or robust = TRUE.

# The fit of the scores, or NULL when the method's own pass serves (no
# design, no trend, class labels). `args$design_matrix` is limma's design
# matrix as the user gave it; `args$design` the resolved study design.
linear_fit_setup <- function(method, y, d, args, adjust) {
  kind <- score_row(method)$fit
  if (is.null(kind)) return(NULL)
  user <- args$design_matrix
  numeric_fit <- kind %in% c("eb", "eb_lods") && !is.null(y) && !is.factor(y)
  if (is.null(user) && is.null(d$design) && !isTRUE(args$trend) && !isTRUE(args$robust) &&
      !numeric_fit) {
    return(NULL)
  }
  if (!is.null(user)) {
    if (adjust == "maxT") stop_maxt_design_matrix()
    if (nrow(user) != d$m0) {
      stop(sprintf(paste0("'design' has %d rows but x has %d samples: give one row per ",
                          "sample, in the samples' order."), nrow(user), d$m0), call. = FALSE)
    }
    X <- if (is.null(d$rows)) user else user[d$rows, , drop = FALSE]
    L <- fit_contrast(X, args$coef, args$contrast)
  } else {
    if (!is.null(args$coef) || !is.null(args$contrast)) {
      stop(paste0("'coef' and 'contrast' go with design = <a design matrix> (as limma's ",
                  "lmFit()); with y and covariates the coefficient is y's."), call. = FALSE)
    }
    X <- design_model(d$design, y)
    L <- diag(ncol(X))[, attr(X, "coef"), drop = FALSE]
    rownames(L) <- colnames(X)
  }
  if (kind != "eb" && ncol(L) != 1L) {
    stop(sprintf(paste0("method = \"%s\" tests one coefficient; %d are asked. Give one 'coef' ",
                        "or a contrast vector, or use method = \"%s\" (the moderated F)."),
                 method, ncol(L), score_methods_with(function(r) identical(r$fit, "eb"))),
         call. = FALSE)
  }
  if (adjust == "maxT" && (isTRUE(args$trend) || isTRUE(args$robust))) {
    stop(paste0("adjust = \"maxT\" refits limma's plain prior for each permutation; it does ",
                "not take trend = TRUE or robust = TRUE in this version."), call. = FALSE)
  }
  if (isTRUE(args$robust) && isTRUE(args$trend)) {
    stop(paste0("robust = TRUE with trend = TRUE (limma's loess trend of the robust prior) is ",
                "not in this version: give one of them."), call. = FALSE)
  }
  fit <- fit_model(X, L, kind, isTRUE(args$trend), d$design)
  fit$robust <- isTRUE(args$robust)
  fit
}

stop_maxt_design_matrix <- function() {
  stop(paste0("adjust = \"maxT\" permutes the outcome 'y' within the design of ",
              "'covariates' and 'block'; with a design matrix it has no outcome to permute. ",
              "Give y and covariates instead, or another 'adjust'."), call. = FALSE)
}

# The check of limma's design matrix given as `design` and the matrix L of
# the coefficients asked: columns of the identity for `coef` (names or
# indices), or the contrast matrix (limma::contrasts.fit()).
fit_contrast <- function(X, coef, contrast) {
  if (!is.null(coef) && !is.null(contrast)) {
    stop("Give 'coef' or 'contrast', not both (a contrast combines the coefficients).",
         call. = FALSE)
  }
  cols <- colnames(X) %||% paste0("X", seq_len(ncol(X)))
  if (!is.null(contrast)) {
    C <- as.matrix(contrast)
    if (!is.numeric(C) || nrow(C) != ncol(X) || anyNA(C)) {
      stop(sprintf(paste0("'contrast' must be a numeric vector or matrix with one row per ",
                          "column of 'design' (%d: %s), as limma::makeContrasts() gives."),
                   ncol(X), paste(cols, collapse = ", ")), call. = FALSE)
    }
    if (!is.null(rownames(C)) && !identical(rownames(C), cols)) {
      stop(sprintf("The row names of 'contrast' (%s) must be the columns of 'design' (%s).",
                   paste(rownames(C), collapse = ", "), paste(cols, collapse = ", ")),
           call. = FALSE)
    }
    return(C)
  }
  if (is.null(coef)) {
    stop(sprintf(paste0("With design = <a design matrix>, say which coefficient to test: ",
                        "coef = <a name or index of its columns: %s>, or a 'contrast'."),
                 paste(cols, collapse = ", ")), call. = FALSE)
  }
  idx <- if (is.character(coef)) match(coef, cols) else if (is.numeric(coef)) coef else NA
  if (!length(idx) || anyNA(idx) || any(idx < 1 | idx > ncol(X) | idx != round(idx))) {
    stop(sprintf("'coef' must name columns of 'design' (%s) or give their indices (1 to %d).",
                 paste(cols, collapse = ", "), ncol(X)), call. = FALSE)
  }
  L <- diag(ncol(X))[, idx, drop = FALSE]
  dimnames(L) <- list(cols, cols[idx])
  L
}

# Checks of limma's design matrix before the samples are resolved: its type,
# and no y nor covariates beside it. Returns the outcome: NULL.
check_design_matrix <- function(design, y, spec) {
  if (!is.matrix(design) || !is.numeric(design) || anyNA(design) || any(!is.finite(design))) {
    stop(paste0("'design' must be a numeric design matrix with one row per sample, as ",
                "stats::model.matrix() gives (limma's design). For covariates and blocks by ",
                "name use 'covariates' and 'block'."), call. = FALSE)
  }
  if (!is.null(y)) {
    stop(paste0("Give the outcome either as 'y' (with 'covariates' and 'block') or inside ",
                "'design' (limma's design matrix, with 'coef' or 'contrast'), not both."),
         call. = FALSE)
  }
  if (!is.null(spec)) {
    stop(paste0("'covariates' and 'block' build the design from y; with design = <a design ",
                "matrix> put the covariates in its columns instead."), call. = FALSE)
  }
  NULL
}

# The matrices of the fit of every feature on X for the coefficients L' b.
fit_model <- function(X, L, kind, trend, study) {
  m <- nrow(X)
  qx <- qr(X)
  if (qx$rank < ncol(X)) {
    gone <- colnames(X)[qx$pivot[-seq_len(qx$rank)]]
    stop(sprintf(paste0("The design matrix has %d columns but rank %d: %s %s combinations of ",
                        "the others and cannot be estimated. Drop them from the design."),
                 ncol(X), qx$rank, paste(gone, collapse = ", "),
                 if (length(gone) == 1L) "is a combination" else "are"), call. = FALSE)
  }
  if (m <= ncol(X)) {
    stop(sprintf(paste0("The design has %d columns for %d samples: no residual degrees of ",
                        "freedom are left to estimate the variance."), ncol(X), m),
         call. = FALSE)
  }
  XtXi <- chol2inv(qr.R(qx))
  V <- crossprod(L, XtXi %*% L)
  out <- list(V = V, df = m - ncol(X), kind = kind, trend = trend, study = study,
              ones = rep.int(1L, m), names = colnames(L))
  fwl <- fit_fwl(X, L)
  if (!is.null(fwl)) return(c(out, fwl))
  # the intercept in the span of X: the residuals from the centred sums of squares
  centred <- sum(qr.resid(qx, rep(1, m))^2) <= 1e-20 * m
  basis <- if (centred) {
    qr.Q(qr(cbind(1, X)))[, seq_len(ncol(X))[-1L], drop = FALSE]
  } else {
    qr.Q(qx)
  }
  c(out, list(G = crossprod(L, XtXi %*% t(X)), basis = basis, centred = centred))
}

# Coefficients that are columns S of X, the others A holding the intercept
# (y's of ~ covariates + y, or a `coef` of such a design): by Frisch, Waugh
# and Lovell the coefficients are T^-1 U' x with P_A X_S = U T (QR), and the
# basis of the span of X orthogonal to the intercept is that of A's, F_A,
# then U; one product [F_A, U]' x gives both the coefficients and the
# projection. NULL otherwise.
fit_fwl <- function(X, L) {
  S <- apply(L, 2L, function(l) if (sum(l != 0) == 1L && sum(l) == 1) which(l != 0) else NA)
  if (anyNA(S)) return(NULL)
  m <- nrow(X)
  qa <- qr(cbind(1, X[, -S, drop = FALSE]))
  if (qa$rank != ncol(X) - length(S)) return(NULL)    # the intercept not in A's span
  Qa <- qr.Q(qa)[, seq_len(qa$rank), drop = FALSE]
  qr_r <- qr(X[, S, drop = FALSE] - Qa %*% crossprod(Qa, X[, S, drop = FALSE]))
  U <- qr.Q(qr_r)
  k <- length(S)
  list(basis = cbind(Qa[, -1L, drop = FALSE], U), centred = TRUE,
       coef_rows = ncol(Qa) - 1L + seq_len(k), t_inv = backsolve(qr.R(qr_r), diag(k)))
}

# The block scorer of a fitted method: each feature's coefficients, residual
# sum of squares, mean, whether it is constant and where its first
# non-finite value is (one C pass, src/scores.c).
linear_fit_scorer <- function(fit) {
  function(b) {
    mom <- .Call(C_feature_moments, b, fit$ones, 1L)
    ss <- .Call(C_scale_pow2, mom$ss[1L, ], mom$expo, 2L)
    fb <- .Call(C_feature_project, b, fit$basis)
    proj <- colSums(fb^2)
    rss <- if (fit$centred) ss - proj else colSums(b^2) - proj
    coef <- if (is.null(fit$G)) {
      fit$t_inv %*% fb[fit$coef_rows, , drop = FALSE]
    } else {
      fit$G %*% b
    }
    # a constant feature has no coefficient but the intercept's (not 1e-16s)
    coef[, mom$constant == 1L] <- 0
    list(coef = coef, rss = pmax(rss, 0), ss = ss,
         average = .Call(C_scale_pow2, mom$mean[1L, ], mom$expo, 1L),
         constant = mom$constant, bad = mom$bad, fit = fit)
  }
}

# The scores of all blocks from their fits (combine_parts()).
linear_fit_combine <- function(parts, method) {
  fit <- parts[[1L]]$fit
  coef <- do.call(cbind, lapply(parts, `[[`, "coef"))
  rss <- part_column(parts, "rss")
  ss <- part_column(parts, "ss")
  average <- part_column(parts, "average")
  su <- sqrt(diag(fit$V))
  if (fit$kind %in% c("eb", "eb_lods")) {
    return(c(fit_moderated(coef, rss, average, su, fit), list(mom = NULL, fitted = TRUE)))
  }
  # lm: a residual within the rounding of the sums of squares is none (an
  # exact fit: +-Inf, perfect separation given the design)
  rss[rss <= 8 * .Machine$double.eps * length(fit$ones) * ss] <- 0
  bt <- coef[1L, ] / su
  t <- ratio_or_na(sqrt(fit$df) * bt, sqrt(rss))
  p <- two_sided_t(t, fit$df)
  if (fit$kind == "partial") {
    r <- bt / sqrt(rss + bt^2)
    r[is.nan(r)] <- NA_real_
    return(list(score = r, extra = NULL, statistic = t, effect = r, p_value = p, mom = NULL,
                fitted = TRUE))
  }
  list(score = t, extra = NULL, statistic = t, effect = coef[1L, ], p_value = p, mom = NULL,
       fitted = TRUE)
}

# limma's eBayes() of the fits: the prior (d0, s0^2, with a trend in the mean
# when asked) from the residual variances, the moderated t, its p-value on
# the posterior df and B for one coefficient, the moderated F of several
# (classifyTestsF(): t' C^-1 t / k with C the coefficients' correlation,
# which is b' V^-1 b / (k s2_post)).
fit_moderated <- function(coef, rss, average, su, fit) {
  df <- fit$df
  d <- ncol(coef)
  s2 <- rss / df
  prior <- if (fit$robust) {
    fit_f_dist_robust(s2, df)
  } else if (fit$trend) {
    fit_f_dist_trend(s2, df, average)
  } else {
    fit_f_dist(s2, df)
  }
  d0 <- prior$df2
  s20 <- prior$scale
  # limma:::.squeezeVar(), d0 one per feature with robust = TRUE
  s2_post <- rep_len(s20, d)
  fin <- rep_len(is.finite(d0), d)
  s2_post[fin] <- ((df * s2 + d0 * s20) / (df + d0))[fin]
  df_total <- pmin(df + d0, d * df)
  k <- nrow(coef)
  if (k > 1L) {
    f <- colSums(coef * solve(fit$V, coef)) / k / s2_post
    f[is.nan(f)] <- NA_real_
    p <- stats::pf(f, k, df + d0, lower.tail = FALSE)
    return(list(score = f, extra = NULL, statistic = f, effect = NULL, p_value = p))
  }
  t <- coef[1L, ] / su / sqrt(s2_post)
  t[is.nan(t)] <- NA_real_
  p <- two_sided_t(t, df_total)
  if (fit$kind == "eb") {
    return(list(score = t, extra = NULL, statistic = t, effect = coef[1L, ], p_value = p))
  }
  b <- b_statistic(t, su, df_total, d0, log(stats::median(s20)), 0.01, c(0.1, 4))
  list(score = b$lods, extra = data.frame(t = unname(t)), statistic = t, effect = coef[1L, ],
       p_value = p)
}

# limma:::fitFDist() with a covariate (eBayes(trend = TRUE), the average
# expression): the mean of log(s2) is a natural spline in the covariate with
# 1 to 4 df (by the number of features), fitted by least squares, and its
# residual variance gives d0 (Smyth 2004, eq. 25, with a trend).
fit_f_dist_trend <- function(s2, df, covariate) {
  n <- length(s2)
  spline_df <- min(1L + (n >= 3L) + (n >= 6L) + (n >= 30L), length(unique(covariate)))
  if (spline_df < 2L) {
    out <- fit_f_dist(s2, df)
    out$scale <- rep_len(out$scale, n)
    return(out)
  }
  s2 <- pmax(s2, 0)
  med <- stats::median(s2)
  if (med == 0) med <- 1
  s2 <- pmax(s2, 1e-5 * med)
  e <- log(s2) - digamma(df / 2) + log(df / 2)
  basis <- splines::ns(covariate, df = spline_df, intercept = TRUE)
  ls <- stats::lm.fit(basis, e)
  e_mean <- ls$fitted.values
  e_var <- mean(ls$effects[-seq_len(ls$rank)]^2) - trigamma(df / 2)
  if (e_var > 0) {
    df2 <- 2 * trigamma_inverse(e_var)
    return(list(scale = exp(e_mean + digamma(df2 / 2) - log(df2 / 2)), df2 = df2))
  }
  list(scale = exp(e_mean), df2 = Inf)
}

# limma::fitFDistRobustly() without a covariate (eBayes(robust = TRUE);
# Phipson, Oshlack, Smyth, Ritchie and Smyth 2016): the prior from the
# Winsorised log variances (tails winsor_tail_p), whose variance is matched
# to that of the Winsorised log F distribution (Gauss-Legendre quadrature,
# 128 nodes) by d0; each feature's prior df shrunk by its probability of
# being an outlier (df2_shrunk, the df2 used by eBayes()).
fit_f_dist_robust <- function(x, df1, winsor_tail_p = c(0.05, 0.1)) {
  n <- length(x)
  nonrobust <- function(x) {
    out <- fit_f_dist(x, df1)
    list(scale = out$scale, df2 = rep_len(out$df2, n))
  }
  if (n <= 2L) return(nonrobust(x))
  med <- stats::median(x)
  if (med <= 0) stop("The residual variances are mostly zero: robust = TRUE cannot fit a prior.",
                     call. = FALSE)
  x <- pmax(x, med * 1e-12)
  plain <- fit_f_dist(x, df1)
  prob <- c(winsor_tail_p[1L], 1 - winsor_tail_p[2L])
  if (all(winsor_tail_p < 1 / n)) return(list(scale = plain$scale, df2 = rep_len(plain$df2, n)))
  z <- log(x)
  z_trend <- mean(z, trim = winsor_tail_p[2L])
  z_q <- stats::quantile(z - z_trend, probs = prob)
  z_w <- pmin(pmax(z - z_trend, z_q[1L]), z_q[2L])
  z_wvar <- mean((z_w - mean(z_w))^2) * n / (n - 1)
  moments <- winsorised_moments(df1, winsor_tail_p)
  fun_inf <- log(z_wvar / moments(Inf)$var)
  if (fun_inf <= 0) return(robust_prior_inf(z, z_trend + mean(z_w), moments(Inf), df1, n))
  if (plain$df2 == Inf) return(list(scale = plain$scale, df2 = rep_len(Inf, n)))
  link <- function(v) v / (1 + v)
  link_inv <- function(v) v / (1 - v)
  fun <- function(v) log(z_wvar / moments(link_inv(v))$var)
  low <- link(plain$df2)
  fun_low <- fun(low)
  df2 <- if (fun_low >= 0) {
    plain$df2
  } else {
    link_inv(stats::uniroot(fun, interval = c(low, 1), tol = 1e-8, f.lower = fun_low,
                            f.upper = fun_inf)$root)
  }
  centre <- z_trend + mean(z_w) - moments(df2)$mean
  list(scale = exp(centre), df2 = robust_shrunk_df(exp(z - centre), df1, df2, n))
}

# The mean and variance of the Winsorised log F(df1, df2) (limma's
# winsorizedMoments()), a function of df2.
winsorised_moments <- function(df1, winsor_tail_p) {
  g <- gauss_legendre01(128L)
  function(df2) {
    fq <- stats::qf(c(winsor_tail_p[1L], 1 - winsor_tail_p[2L]), df1 = df1, df2 = df2)
    zq <- log(fq)
    q <- fq / (1 + fq)
    nodes <- q[1L] + (q[2L] - q[1L]) * g$nodes
    f_nodes <- nodes / (1 - nodes)
    z_nodes <- log(f_nodes)
    f <- stats::df(f_nodes, df1 = df1, df2 = df2) / (1 - nodes)^2
    q21 <- q[2L] - q[1L]
    mu <- q21 * sum(g$weights * f * z_nodes) + sum(zq * winsor_tail_p)
    list(mean = mu,
         var = q21 * sum(g$weights * f * (z_nodes - mu)^2) + sum((zq - mu)^2 * winsor_tail_p))
  }
}

# Gauss-Legendre nodes and weights on [0, 1] (statmod::gauss.quad.prob(n,
# "uniform")), by the eigen-decomposition of the Jacobi matrix (Golub and
# Welsch 1969).
gauss_legendre01 <- function(n) {
  k <- seq_len(n - 1L)
  J <- matrix(0, n, n)
  J[cbind(k, k + 1L)] <- J[cbind(k + 1L, k)] <- k / sqrt(4 * k^2 - 1)
  e <- eigen(J, symmetric = TRUE)
  o <- order(e$values)
  list(nodes = (e$values[o] + 1) / 2, weights = e$vectors[1L, o]^2)
}

# The robust prior when the Winsorised variance is below that of d0 = Inf.
robust_prior_inf <- function(z, centre_w, mom, df1, n) {
  centre <- centre_w - mom$mean
  f <- exp(z - centre)
  tail <- stats::pchisq(f * df1, df = df1, lower.tail = FALSE)
  not_outlier <- pmin(tail / ((n - rank(f) + 0.5) / n), 1)
  shrunk <- rep_len(Inf, n)
  out <- not_outlier < 1
  if (any(out)) {
    shrunk[out] <- not_outlier[out] * n * df1
    o <- order(tail)
    shrunk[o] <- cummax(shrunk[o])
  }
  list(scale = exp(centre), df2 = shrunk)
}

# Each feature's prior df, shrunk by its probability of being an outlier
# (limma::fitFDistRobustly()'s df2.shrunk), from its F statistic.
robust_shrunk_df <- function(f, df1, df2, n) {
  log_tail <- stats::pf(f, df1 = df1, df2 = df2, lower.tail = FALSE, log.p = TRUE)
  log_not <- pmin(log_tail - (log(n - rank(f) + 0.5) - log(n)), 0)
  if (!any(log_not < 0)) return(rep_len(df2, n))
  not_outlier <- exp(log_not)
  min_tail <- min(log_tail)
  shrunk <- if (min_tail == -Inf) {
    not_outlier * df2
  } else {
    df2_out <- log(0.5) / min_tail * df2
    new_tail <- stats::pf(max(f), df1 = df1, df2 = df2_out, lower.tail = FALSE, log.p = TRUE)
    df2_out <- log(0.5) / new_tail * df2_out
    not_outlier * df2 + (-expm1(log_not)) * df2_out
  }
  o <- order(log_tail)
  ordered <- shrunk[o]
  run <- cumsum(ordered) / seq_len(n)
  i_min <- which.min(run)
  ordered[seq_len(i_min)] <- run[i_min]
  shrunk[o] <- cummax(ordered)
  shrunk
}

# ---- maxT with a design ------------------------------------------------------------
# The statistics of "t", "pc" and "mt" given the design are functions of the
# partial correlation r_j of x_j and y (P = I - Q Q' projects out the
# intercept, covariates and blocks): t = sqrt(df) r / sqrt(1 - r^2), and the
# moderated t takes a_j r_j with s2_j = a_j^2 (1 - r_j^2) / df, a_j = ||P x_j||.
# A labelling pi permutes the outcome's residuals (Freedman and Lane 1983,
# with y as the permuted response: the partial correlation is symmetric in
# x_j and y): y* = H y + Pi P y, whose residual is P Pi P y, and
#   r*_j = (P x_j)' Pi (P y) / (||P x_j|| ||P Pi P y||)
# because P (P x_j) = P x_j. The numerator is the correlation that the C
# loop of "pc" computes (src/maxt.c) for unit-norm P x_j and P y; the
# denominator is one number per labelling. Permutations are drawn within the
# design's strata (design_shuffle()): with discrete covariates and blocks
# they keep every stratum, P Pi P y = Pi P y, and the test is exact;
# with a continuous covariate they permute the residuals (within blocks).
# Two classes within strata: P Pi P y = Pi y - H y (H y is constant within
# the strata, which Pi keeps) and (P x_j)' H y = 0, so the numerator is the
# sum of P x_j over the permuted second class, which the C loop of "lin"
# gives from the smaller class (its difference of means times m_1 m_2 / m).
perm_problem_fit <- function(x, y, method, fit) {
  study <- fit$study
  px <- design_residuals(study, x)
  a <- sqrt(colSums(px^2))
  zero <- a <= 8 * .Machine$double.eps * sqrt(colSums(x^2)) * nrow(x)
  xt <- t(px) / ifelse(zero, 1, a)
  xt[zero, ] <- 0
  # the closures below travel to the workers of `parallel`: not the data
  rm(x, px)
  py <- design_residuals(study, outcome_columns(y)[, 1L])
  yhat <- py / sqrt(sum(py^2))
  df <- fit$df
  kind <- fit$kind
  y01 <- outcome_columns(y)[, 1L]
  classes <- study$permutation == "strata" && all(y01 %in% c(0, 1))
  n <- tabulate(y01 + 1, 2L)
  post <- function(out, perm) {
    r <- if (classes) {
      out / (1 / n[1L] + 1 / n[2L]) / sqrt(sum(py^2))
    } else {
      res <- design_residuals(study, matrix(yhat[perm], nrow(perm)))
      t(t(out) / sqrt(colSums(res^2)))
    }
    r[zero, ] <- NA_real_
    if (kind != "eb") return(r)
    moderate_permuted(r, a, df, zero)
  }
  opts <- if (classes) list(method = "lin", cls = as.integer(y01)) else list(method = "pc", y = yhat)
  list(method = method, xt = xt, numeric = TRUE, post = post,
       shuffle = function() design_shuffle(study), opts = opts)
}

# limma's moderated t of every permutation (a column of r, the partial
# correlations; a, the residual norms of the features): each column's
# residual variances get their own prior (fit_f_dist()). fit_f_dist() floors
# the variances at 1e-5 times their median; a column whose smallest variance
# is above 1e-5 times its largest needs no floor (nor its median): its prior
# comes from the log moments of its variances, computed in C for all columns
# at once (C_eb_permuted); the other columns go through fit_f_dist() itself.
moderate_permuted <- function(r, a, df, zero) {
  keep <- !zero
  n <- sum(keep)
  a2 <- a^2
  mom <- .Call(C_eb_permuted, r, a2, keep, as.double(df), NULL)
  fast <- n > 1L & mom[1L, ] > 1e-5 * mom[2L, ]
  scale <- df2 <- numeric(ncol(r))
  e_var <- mom[4L, ] / (n - 1L) - trigamma(df / 2)
  e_mean <- mom[3L, ] - digamma(df / 2) + log(df / 2)
  for (b in seq_len(ncol(r))) {
    prior <- if (fast[b]) {
      if (e_var[b] > 0) {
        d2 <- 2 * trigamma_inverse(e_var[b])
        list(scale = exp(e_mean[b] + digamma(d2 / 2) - log(d2 / 2)), df2 = d2)
      } else {
        list(scale = mom[5L, b], df2 = Inf)
      }
    } else {
      fit_f_dist(a2[keep] * (1 - pmin(r[keep, b]^2, 1)) / df, df)
    }
    scale[b] <- prior$scale
    df2[b] <- prior$df2
  }
  .Call(C_eb_permuted, r, a2, keep, as.double(df), list(scale, df2))
}
