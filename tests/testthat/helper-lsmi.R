# Plain-R oracles for LSMI, l1-LSMI and l1-HSIC (slides of
# Jitkrittum (2012)): the slide's sums written out literally. Slow;
# for small data only.

# phi_l(x, y) = exp(-||x - x_c(l)||^2 / (2 sigma^2)) * phi_y(y, y_c(l))
oracle_phi <- function(x, y, cen, sigma, ykern) {
  function(i, j) {
    # basis vector at (x_i, y_j)
    vapply(cen, function(l) exp(-sum((x[i, ] - x[l, ])^2) / (2 * sigma^2)) * ykern(y[j], y[l]),
           numeric(1))
  }
}

# H = 1/n^2 sum_i sum_i' phi(x_i, y_i') phi(x_i, y_i')', h = 1/n sum_i phi(x_i, y_i)
oracle_Hh <- function(phi, rows) {
  n <- length(rows)
  b <- length(phi(rows[1], rows[1]))
  H <- matrix(0, b, b)
  h <- numeric(b)
  for (i in rows) {
    h <- h + phi(i, i) / n
    for (j in rows) {
      v <- phi(i, j)
      H <- H + tcrossprod(v) / n^2
    }
  }
  list(H = H, h = h)
}

oracle_lsmi <- function(x, y, cen, sigma, lambda, ykern) {
  hh <- oracle_Hh(oracle_phi(x, y, cen, sigma, ykern), seq_len(nrow(x)))
  alpha <- solve(hh$H + lambda * diag(length(cen)), hh$h)
  sum(hh$h * alpha) / 2 - 1 / 2
}

oracle_cv <- function(x, y, cen, sigma, lambda, ykern, fold) {
  phi <- oracle_phi(x, y, cen, sigma, ykern)
  K <- max(fold)
  mean(vapply(seq_len(K), function(k) {
    te <- oracle_Hh(phi, which(fold == k))
    tr <- oracle_Hh(phi, which(fold != k))
    a <- solve(tr$H + lambda * diag(length(cen)), tr$h)
    drop(crossprod(a, te$H %*% a)) / 2 - sum(te$h * a)
  }, numeric(1)))
}

delta <- function(a, b) as.numeric(a == b)

toy_lsmi <- function(m = 12, d = 3, seed = 1, classes = TRUE) {
  set.seed(seed)
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("f", seq_len(d))))
  y <- if (classes) factor(ifelse(x[, 1] + rnorm(m, sd = 0.5) > 0, "u", "v")) else
    x[, 1]^2 + rnorm(m, sd = 0.3)
  list(x = x, y = y)
}

# LSMI of diag(w) x: the centres are samples, so they are weighted too.
oracle_lsmi_w <- function(x, y, cen, w, sigma, lambda, ykern) {
  oracle_lsmi(sweep(x, 2L, w, "*"), y, cen, sigma, lambda, ykern)
}

# biased HSIC of diag(w) x with exp(-gamma ||.||^2) and label factor Y
oracle_hsic_w <- function(x, Y, w, gamma) {
  K <- exp(-gamma * as.matrix(stats::dist(sweep(x, 2L, w, "*")))^2)
  oracle_hsic0(K, tcrossprod(Y))
}

# central differences
oracle_gradient <- function(f, w, h = 1e-5) {
  vapply(seq_along(w), function(j) {
    e <- replace(numeric(length(w)), j, h)
    (f(w + e) - f(w - e)) / (2 * h)
  }, numeric(1))
}

# Projection onto {w >= 0, sum(w) <= z}: the positive part if it fits, else
# max(v - theta, 0) with theta found by bisection so that the sum is z.
oracle_project <- function(v, z) {
  if (sum(pmax(v, 0)) <= z) return(pmax(v, 0))
  lo <- 0
  hi <- max(v)
  for (i in 1:200) {
    mid <- (lo + hi) / 2
    if (sum(pmax(v - mid, 0)) > z) lo <- mid else hi <- mid
  }
  pmax(v - (lo + hi) / 2, 0)
}

f_measure <- function(selected, relevant) {
  tp <- length(intersect(selected, relevant))
  if (tp == 0L) return(0)
  precision <- tp / length(selected)
  recall <- tp / length(relevant)
  2 * precision * recall / (precision + recall)
}
