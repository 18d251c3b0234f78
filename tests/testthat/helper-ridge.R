# Plain-R oracle of the ridge selection loop (src/ridge.c): every candidate
# set's kernel inverted afresh, the schedule of the selectors (batches, ties
# to the lower index after rounding to 1e-10 of the largest score, the width
# policies), for test-kernel-ridge.R.

# HSIC of the ridge kernel of the columns cols of x (width sigma when the
# base has one): tr(W) - lambda sum(A o W), A = (K + lambda I)^-1; 0 for the
# empty set (Kbar = 0). O(m^2 s + m^3).
oracle_ridge_set_hsic <- function(x, cols, base, sigma, lambda, W) {
  if (length(cols) == 0L) return(0)
  if (!is.na(sigma)) base$params$sigma <- sigma
  K <- bahsic:::gram(base, x[, cols, drop = FALSE])
  A <- bahsic:::ridge_inverse(unname(K), lambda)
  sum(diag(W)) - lambda * sum(A * W)
}

# The order of candidates as score_candidates() in src/select.c sorts them:
# by the score rounded to 1e-10 of the largest, then by index.
oracle_ridge_order <- function(h, idx, decreasing, high_first) {
  scale <- max(abs(h), 0)
  q <- if (scale > 0) 1e-10 * scale else 1
  r <- round(h / q)
  if (decreasing) r <- -r
  order(r, if (high_first) -idx else idx)
}

# Section 4.1, step 3 for a base kernel with a width: the width of this
# iteration (NA without one); ref the reference set for "optimize".
oracle_ridge_sigma <- function(policy, base, s, x, ref, sigma_grid, lambda, W) {
  has_width <- base$name %in% c("gaussian", "laplace")
  if (!has_width) return(NA_real_)
  gaussian <- base$name == "gaussian"
  switch(policy,
    dimension = if (gaussian) 1 / (2 * s) else 1 / sqrt(2 * s),
    fixed = base$params$sigma,
    optimize = {
      grid <- if (is.null(sigma_grid)) {
        bahsic:::median_sigma(x[, ref, drop = FALSE], gaussian, n_max = nrow(x)) * 2^(-3:3)
      } else {
        sort(as.double(sigma_grid))
      }
      h <- vapply(grid, function(sg) oracle_ridge_set_hsic(x, ref, base, sg, lambda, W), 0)
      best <- 1L
      for (g in seq_along(grid)[-1L]) {
        # larger beyond rounding: ties keep the smaller width
        if (h[g] - h[best] > 1e-10 * max(abs(h[g]), abs(h[best]))) best <- g
      }
      grid[best]
    })
}

# The schedule of bk_ridge_select() (src/ridge.c) in plain R: the oracle of
# the C loop, for every base, width policy and n_features.
oracle_ridge_select <- function(method, x, W, lambda, base, policy, sigma_grid, step, n_target,
                           verbose) {
  p <- ncol(x)
  rank <- integer(p)
  score <- rep(NaN, p)
  iteration <- integer(p)
  path <- matrix(numeric(0), 0L, 4L)
  batch_size <- function(n) max(1L, floor(step * n))
  set_hsic <- function(cols, sg) oracle_ridge_set_hsic(x, cols, base, sg, lambda, W)
  say <- function(it, size, h, sg) {
    if (verbose) {
      message(sprintf("%s iteration %d: %d features, HSIC %.6g%s", toupper(method), it, size, h,
                      if (is.na(sg)) "" else sprintf(", sigma %.4g", sg)))
    }
  }
  it <- 0L
  if (method == "bahsic") {
    active <- seq_len(p)
    elim <- integer(0)
    round_scores <- function(sg) {
      vapply(active, function(j) set_hsic(setdiff(active, j), sg), 0)
    }
    while (length(active) > n_target) {
      it <- it + 1L
      ns <- length(active)
      sg <- oracle_ridge_sigma(policy, base, ns, x, active, sigma_grid, lambda, W)
      h <- set_hsic(active, sg)
      path <- rbind(path, c(it, ns, h, sg))
      hs <- round_scores(sg)
      if (ns == 1L) hs <- 0
      o <- oracle_ridge_order(hs, active, decreasing = TRUE, high_first = TRUE)
      k <- min(batch_size(ns), ns - n_target)
      out <- o[seq_len(k)]
      score[active[out]] <- hs[out]
      iteration[active[out]] <- it
      elim <- c(elim, active[out])
      active <- active[-out]
      say(it, ns, h, sg)
    }
    top <- 0L
    if (length(active) > 0L) {
      it <- it + 1L
      ns <- length(active)
      sg <- oracle_ridge_sigma(policy, base, ns, x, active, sigma_grid, lambda, W)
      h <- set_hsic(active, sg)
      path <- rbind(path, c(it, ns, h, sg))
      hs <- round_scores(sg)
      o <- oracle_ridge_order(hs, active, decreasing = FALSE, high_first = FALSE)
      score[active[o]] <- hs[o]
      iteration[active] <- it
      rank[active[o]] <- seq_len(ns)
      top <- ns
      say(it, ns, h, sg)
    }
    rank[elim] <- top + rev(seq_along(elim))
  } else {
    target <- if (n_target > 0) n_target else p
    sel <- integer(0)
    rem <- seq_len(p)
    while (length(sel) < target) {
      it <- it + 1L
      ref <- if (length(sel) > 0L) sel else seq_len(p)
      sg <- oracle_ridge_sigma(policy, base, length(sel) + 1L, x, ref, sigma_grid, lambda, W)
      hs <- vapply(rem, function(j) set_hsic(c(sel, j), sg), 0)
      o <- oracle_ridge_order(hs, rem, decreasing = TRUE, high_first = FALSE)
      k <- min(batch_size(length(rem)), target - length(sel))
      new <- o[seq_len(k)]
      score[rem[new]] <- hs[new]
      iteration[rem[new]] <- it
      rank[rem[new]] <- length(sel) + seq_len(k)
      sel <- c(sel, rem[new])
      rem <- rem[-new]
      h <- set_hsic(sel, sg)
      path <- rbind(path, c(it, length(sel), h, sg))
      say(it, length(sel), h, sg)
    }
  }
  list(rank = rank, score = score, iteration = iteration, path = path)
}
