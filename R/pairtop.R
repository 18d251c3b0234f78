# The screen of all pairs of features (src/pairtop.c): the k pairs i < j with
# the largest float32 score, for a caller that re-scores them exactly in
# double (pair_scores()). Internal: the inputs are checked by the caller.
#
# Gaussian: s_ij = sum_ab W_ab Kc^i_ab Kc^j_ab, Kc^j = H K^j H the doubly
# centred 1-D Gaussian kernel matrix exp(-gamma (x_aj - x_bj)^2) of the
# standardised feature j, W symmetric m x m (the centred label kernel
# matrix, scaled as the scores should be). Linear: s_ij = sum_t c_t
# (sum_a U_at x_ai x_aj)^2, the same score for the linear kernel with
# W = U diag(c) U'. Results are identical for every thread count; the SIMD
# copy (option bahsic.simd) may differ from the plain one in float rounding.
# Each returns list(i, j, score): 1-based, scores descending, ties by i then j.

# Bytes the screen holds at its peak: rank 0 the Gaussian screen (a float
# column of m (m + 1) / 2 kernel entries per feature: 417 MB for 12,625
# features at m = 128), rank r >= 1 the linear one.
pair_top_bytes <- function(m, p, k, threads = 1L, rank = 0L) {
  .Call(C_pair_top_bytes, list(m = as.double(m), p = as.double(p), k = as.double(k),
                               threads = as.integer(threads), rank = as.double(rank)))
}

# Refuse a screen above the memory budget (option bahsic.max_memory) before
# allocating, as check_memory() does for the m x m matrices.
check_pair_memory <- function(m, p, k, threads = 1L, rank = 0L) {
  need <- pair_top_bytes(m, p, k, threads, rank)
  budget <- option_max_memory()
  if (need > budget) {
    what <- if (rank > 0) "the linear screen" else
      "the kernel screen (m (m + 1) / 2 float kernel entries per feature)"
    stop(sprintf(paste0("Screening all pairs of %d features at %d samples needs %.2f GiB for %s, ",
                        "above the memory budget of %.2f GiB (option bahsic.max_memory). ",
                        "Screen fewer features (e.g. the top genes of feature_scores()), ",
                        "or raise the option if the machine has the memory."),
                 as.integer(p), as.integer(m), need / 1024^3, what, budget / 1024^3),
         call. = FALSE)
  }
  invisible(need)
}

pair_top <- function(xs, W, k, gamma = 0.25, threads = 1L, simd = option_simd()) {
  check_pair_memory(nrow(xs), ncol(xs), k, threads)
  .Call(C_pair_top, xs, W, list(gamma = gamma, k = as.integer(k),
                                threads = as.integer(threads), simd = simd))
}

# scale = TRUE: the screen of x / rep(sqrt(ifelse(q > 0, q, 1)), each =
# nrow(x)), q = sqrt(colSums(x^4)) (the same numbers), each column divided as
# it is packed, without that m x p copy
pair_top_lowrank <- function(xs, U, c, k, threads = 1L, simd = option_simd(), scale = FALSE) {
  U <- as.matrix(U)
  check_pair_memory(nrow(xs), ncol(xs), k, threads, rank = ncol(U))
  .Call(C_pair_top_lowrank, xs, U, list(c = as.double(c), k = as.integer(k),
                                        threads = as.integer(threads), simd = simd,
                                        scale = scale))
}
