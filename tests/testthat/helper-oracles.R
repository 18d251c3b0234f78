# Plain-R oracles: short, obviously correct, slow. The C code is checked
# against these on small data.

oracle_hsic0 <- function(K, L) {
  m <- nrow(K)
  H <- diag(m) - 1 / m
  sum(diag(K %*% H %*% L %*% H)) / (m - 1)^2
}

# eq. 5 of Song et al. (2012), written out with explicit matrices
oracle_hsic1 <- function(K, L) {
  m <- nrow(K)
  Kt <- K
  Lt <- L
  diag(Kt) <- 0
  diag(Lt) <- 0
  one <- rep(1, m)
  (sum(diag(Kt %*% Lt)) + sum(Kt) * sum(Lt) / ((m - 1) * (m - 2)) -
     2 / (m - 2) * drop(one %*% Kt %*% Lt %*% one)) / (m * (m - 3))
}

# The U-statistic of eq. 10-11: the symmetrised kernel h over every ordered
# quadruple of distinct samples; returns HSIC1 and the variance of eq. 15.
oracle_ustat <- function(K, L) {
  m <- nrow(K)
  idx <- as.matrix(expand.grid(seq_len(m), seq_len(m), seq_len(m), seq_len(m)))
  quads <- idx[apply(idx, 1, function(r) length(unique(r)) == 4L), , drop = FALSE]
  perms <- as.matrix(expand.grid(1:4, 1:4, 1:4, 1:4))
  perms <- perms[apply(perms, 1, function(r) length(unique(r)) == 4L), ]
  hval <- apply(quads, 1, function(q) {
    s <- 0
    for (p in seq_len(nrow(perms))) {
      r <- q[perms[p, ]]
      s <- s + K[r[1], r[2]] * (L[r[1], r[2]] + L[r[3], r[4]] - 2 * L[r[1], r[3]])
    }
    s / 24
  })
  hsic1 <- mean(hval)
  per_i <- vapply(seq_len(m), function(i) sum(hval[quads[, 1] == i]), numeric(1))
  p3 <- (m - 1) * (m - 2) * (m - 3)
  R <- mean((per_i / p3)^2)
  list(hsic1 = hsic1, variance = 16 / m * (R - hsic1^2))
}

oracle_gauss <- function(x, sigma) {
  x <- as.matrix(x)
  exp(-sigma * as.matrix(stats::dist(x))^2)
}

# what feature_scores() and friends must see: random but fixed
# (feature `informative` shifted by `shift` in class "b")
toy_binary <- function(m = 30, d = 6, seed = 1, informative = 1L, shift = 1.5) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), length.out = m))
  x <- matrix(rnorm(m * d), m, d, dimnames = list(NULL, paste0("g", seq_len(d))))
  x[y == "b", informative] <- x[y == "b", informative] + shift
  list(x = x, y = y)
}
