# ---- the Cox score test of each feature: the linear special case for survival -----
# For a right-censored outcome the linear score of a feature is the Cox
# partial-likelihood score test of that feature alone at beta = 0 (Therneau
# and Grambsch 2000, sections 3.2-3.4): U^2 / I, chi-square on 1 df, its
# signed root U / sqrt(I) as the score and the one-step log hazard ratio
# U / I as the effect, with the ties of coxph() ("efron", "breslow",
# "exact"). With covariates it is the score test of x_j in
# coxph(y ~ covariates + x_j) at the covariates' fitted coefficients
# (the information of x_j less its part the covariates explain); with a block,
# the risk sets are those of the block's strata, as coxph(y ~ x_j +
# strata(block)).
#
# At a death time with risk set R (risk weights w = exp(z'beta)) and d tied
# deaths D, for r = 0..d-1 (Efron: f = r / d; Breslow: one term of weight d,
# f = 0):
#   U += sum_D x - sum_r S1_r / S0_r,
#   I += sum_r S2_r / S0_r - (S1_r / S0_r)^2,   S_k,r = S_k(R) - f S_k(D)
# with S_k the sums of w x^k. All but the squares of the S1_r are linear in
# x (or x^2): the coefficients a, b and C (the cross information with the
# covariates) are computed here once; the C pass (src/cox.c) adds the
# squares from one prefix sum per feature. The exact partial likelihood at
# beta = 0 without covariates is the hypergeometric form: U = sum_D x -
# d mean_R(x), I = d (n - d) / (n - 1) var_R(x) (n = |R|, var with divisor
# n), the log-rank test (survival::survdiff()) for a binary feature.

# The block scorer of method "cox": the setup from the outcome and the design
# once, then one C pass per block.
cox_block_scorer <- function(y, ties, design) {
  setup <- cox_setup(y, ties, design)
  function(b) {
    part <- .Call(C_cox_scores, b, setup)
    for (v in c("score", "statistic", "effect")) part[[v]][is.nan(part[[v]])] <- NA_real_
    part$p_value <- stats::pchisq(part$statistic, 1, lower.tail = FALSE)
    part
  }
}

# The outcome's checks of method "cox" (the row's `check`).
check_cox_outcome <- function(method, y, m, args) {
  check_surv_events(y, 2L, sprintf("method = \"%s\" (the Cox score test)", method))
  invisible()
}

# The coefficients of the C pass (its argument list, in the order of
# C_cox_scores()).
cox_setup <- function(y, ties, design) {
  # times equal within rounding are tied, as coxph() takes them (its timefix)
  y <- survival::aeqSurv(y)
  time <- surv_time(y)
  event <- surv_event(y)
  m <- length(time)
  Z <- if (!is.null(design)) design$Z else matrix(0, m, 0L)
  strata <- if (!is.null(design$block)) as.integer(design$block) else rep.int(1L, m)
  beta <- cox_null_fit(y, Z, strata, ties)
  # without tied deaths (cox_null_fit() refuses them) exact ties are Breslow's
  if (ncol(Z) && ties == "exact") ties <- "breslow"
  eta <- if (ncol(Z)) drop(Z %*% beta) else numeric(m)
  w <- exp(eta - max(eta))
  ord <- order(strata, -time, event)
  g <- cox_groups(time[ord], event[ord], strata[ord], w[ord])
  terms <- cox_terms(g, ties)
  # the linear coefficients, in the sorted order: over the risk sets that
  # hold a sample (a reverse cumulative sum within its stratum) and at its
  # own death time
  ws <- w[ord]
  over_r <- function(v) stats::ave(cox_at_rend(v, g, m), strata[ord], FUN = function(u) rev(cumsum(rev(u))))
  at_d <- function(v) {
    out <- numeric(m)
    dead <- event[ord] > 0
    out[dead] <- v[g$of[dead]]
    out
  }
  a <- event[ord] - ws * over_r(terms$A) + ws * at_d(terms$B)
  b <- if (ties == "exact") over_r(terms$b) else event[ord] - a
  C <- matrix(0, m, ncol(Z))
  for (k in seq_len(ncol(Z))) {
    zk <- Z[ord, k]
    E <- cox_cross(g, terms, zk * ws)
    C[, k] <- zk * b - ws * over_r(E$E) + ws * at_d(E$F)
  }
  back <- order(ord)
  a <- a[back]
  b <- b[back]
  C <- C[back, , drop = FALSE]
  Izz <- crossprod(Z, C)
  list(ord = as.integer(ord - 1L), w = ws, a = a, b = b, C = C,
       Izz_inv = if (ncol(Z)) solve(Izz) else matrix(0, 0L, 0L),
       sstart = as.integer(g$sstart), rend = as.integer(g$rend),
       dstart = as.integer(g$rend - g$d), tg = as.integer(terms$tg - 1L),
       tc = terms$tc, tf = terms$tf)
}

# The death times of the sorted samples, one group per stratum and time:
# the 0-based start of its stratum, the 0-based end of its risk set
# (exclusive), its deaths d, the sums of w over the risk set and the tied
# deaths, and for each sorted sample its group (`of`, NA when none).
cox_groups <- function(time, event, strata, w) {
  m <- length(time)
  key <- cumsum(c(TRUE, diff(time) != 0 | diff(strata) != 0))
  last <- !duplicated(key, fromLast = TRUE)
  pos <- seq_len(m)
  deaths <- stats::ave(event, key, FUN = sum)
  rend <- pos[last & deaths > 0]
  first <- match(strata, strata)
  d <- deaths[rend]
  cw <- c(0, cumsum(w))
  sstart <- first[rend] - 1L
  S0 <- cw[rend + 1L] - cw[sstart + 1L]
  S0D <- cw[rend + 1L] - cw[rend - d + 1L]
  of <- match(key, key[rend])
  list(rend = rend, sstart = sstart, d = d, S0 = S0, S0D = S0D, of = of)
}

# Each group's part of the linear coefficients (A over the risk set, B at
# the deaths; b, exact ties: the x^2 part) and the terms of the squares: one
# per tied death (Efron), one per group of weight d (Breslow, exact).
cox_terms <- function(g, ties) {
  G <- length(g$d)
  if (ties == "efron") {
    tg <- rep.int(seq_len(G), g$d)
    tf <- unlist(lapply(g$d, function(d) (seq_len(d) - 1) / d), use.names = FALSE)
    S0r <- g$S0[tg] - tf * g$S0D[tg]
    return(list(tg = tg, tf = tf, tc = 1 / S0r^2, S0r = S0r,
                A = rowsum_full(1 / S0r, tg, G), B = rowsum_full(tf / S0r, tg, G)))
  }
  n <- g$rend - g$sstart
  if (ties == "exact") {
    # the hypergeometric variance: no information from a risk set of one
    v <- ifelse(n > 1, g$d * (n - g$d) / (n - 1), 0)
    return(list(tg = seq_len(G), tf = numeric(G), tc = v / n^2, A = g$d / n, B = numeric(G),
                b = v / n))
  }
  list(tg = seq_len(G), tf = numeric(G), tc = g$d / g$S0^2, S0r = g$S0, A = g$d / g$S0,
       B = numeric(G))
}

rowsum_full <- function(v, group, G) {
  out <- numeric(G)
  s <- rowsum(v, group)
  out[as.integer(rownames(s))] <- s[, 1L]
  out
}

# A group value put at the last position of its risk set (for the reverse
# cumulative sums over the risk sets that hold a sample).
cox_at_rend <- function(v, g, m) {
  out <- numeric(m)
  out[g$rend] <- v
  out
}

# The cross information of x with a covariate z (wz = w z, sorted): per
# group, E = sum_r Sz_r / S0_r^2 over the risk set and F = sum_r f Sz_r /
# S0_r^2 at the deaths.
cox_cross <- function(g, terms, wz) {
  cz <- c(0, cumsum(wz))
  G <- length(g$d)
  Sz <- cz[g$rend + 1L] - cz[g$sstart + 1L]
  SzD <- cz[g$rend + 1L] - cz[g$rend - g$d + 1L]
  Szr <- Sz[terms$tg] - terms$tf * SzD[terms$tg]
  list(E = rowsum_full(Szr * terms$tc, terms$tg, G),
       F = rowsum_full(terms$tf * Szr * terms$tc, terms$tg, G))
}

# The covariates' coefficients of the model without the feature,
# coxph(y ~ covariates [+ strata(block)]) (survival::coxph.fit()); none
# without covariates.
cox_null_fit <- function(y, Z, strata, ties) {
  if (!ncol(Z)) return(numeric())
  if (ties == "exact") {
    dead <- surv_event(y) > 0
    tied <- anyDuplicated(cbind(strata, surv_time(y))[dead, , drop = FALSE]) > 0
    if (tied) {
      stop(paste0("ties = \"exact\" with covariates needs the exact partial likelihood of ",
                  "tied deaths at the covariates' fitted coefficients, which is not in this ",
                  "version; 'y' has tied death times. Use ties = \"efron\" (coxph()'s ",
                  "default) or \"breslow\", or leave out the covariates."), call. = FALSE)
    }
    ties <- "breslow"  # without tied deaths the three are the same
  }
  fit <- survival::coxph.fit(Z, y, strata = strata, offset = NULL, init = NULL,
                             control = survival::coxph.control(), weights = NULL,
                             method = ties, rownames = NULL, resid = FALSE)
  beta <- fit$coefficients
  if (anyNA(beta) || any(!is.finite(beta))) {
    stop(sprintf(paste0("The Cox model of the covariates alone (coxph(y ~ %s)) has no finite ",
                        "coefficients for %s: a covariate is collinear with the others or ",
                        "separates the events. Drop it from 'covariates'."),
                 paste(colnames(Z), collapse = " + "),
                 paste(colnames(Z)[is.na(beta) | !is.finite(beta)], collapse = ", ")),
         call. = FALSE)
  }
  beta
}
