# Expression-like data with one planted non-linear (or linear) signal among
# many noise genes: the benchmark of joint and non-monotone signal at gene
# scale (inst/bench/bench-nonlinear.R) draws its data here. Every draw comes
# from R's RNG, so set.seed() reproduces a data set.

#' Planted non-linear signal among many noise genes
#'
#' Draws an expression-like matrix of `p` genes, all standard normal (either
#' independent or correlated in blocks), and an outcome that depends on one
#' or a few planted genes at random positions, in one of the ways a per-gene
#' linear test misses (an interacting pair, a non-monotone gene) or finds
#' (genes shifted between the classes). With it one measures whether a
#' selector finds joint and non-monotone signal among thousands of genes, as
#' [simulate_xor()] does among 20 noise features (Song et al., 2012, section
#' 7.1).
#'
#' The signals (\eqn{x_1}, \eqn{x_2} are the planted genes, \eqn{\epsilon
#' \sim N(0, \mathrm{noise}^2)}):
#'
#' * `"xor"`: binary XOR, class `"+1"` when \eqn{\mathrm{sign}(x_1)
#'   \mathrm{sign}(x_2) > 0} (after adding \eqn{\epsilon} to \eqn{x_1 x_2}
#'   when `noise > 0`), `"-1"` otherwise. Each gene alone is independent of
#'   the class: only the pair carries information.
#' * `"xor_numeric"`: continuous XOR, \eqn{y = x_1 x_2 + \epsilon} (numeric).
#' * `"u_numeric"`: one U-shaped gene, \eqn{y = x_1^2 + \epsilon} (numeric).
#' * `"u_class"`: one U-shaped gene, class `"+1"` when \eqn{x_1^2 +
#'   \epsilon} is above its median over the samples (balanced classes).
#' * `"u_hazard"`: one gene with a U-shaped hazard: the survival time \eqn{T}
#'   is exponential with rate \eqn{\exp(1.5 x_1^2)} and the outcome is
#'   \eqn{y = \log T} (numeric, no censoring; `noise` does not apply).
#' * `"ring"`: class `"+1"` when \eqn{x_1^2 + x_2^2 + \epsilon} is above its
#'   median over the samples (balanced classes): a disc inside a ring.
#' * `"linear"`: `n_linear` genes whose means differ between the balanced
#'   classes by `effect` (in noise standard deviations): half of them (rounded
#'   up) higher in class `"+1"`, the others lower (class `"-1"` is shifted by
#'   \eqn{-\mathrm{effect}/2} and `"+1"` by \eqn{+\mathrm{effect}/2} times the
#'   gene's sign).
#'
#' The genes are standard normal. With `rho = 0` they are independent; with
#' `rho > 0` consecutive columns form blocks of `block_size` genes (the last
#' block may be smaller), and genes of one block have correlation `rho`
#' (\eqn{x_j = \sqrt{\rho} z_b + \sqrt{1 - \rho} e_j} with a shared
#' standard normal \eqn{z_b} per block), as co-regulated genes of expression
#' data are; different blocks are independent. The planted genes are columns
#' of this matrix drawn at random positions, in different blocks when there
#' are enough blocks (so the two genes of a pair are independent of each
#' other); the planted genes' block neighbours are then correlated with them
#' and carry part of the signal, as in real data, but only the planted genes
#' are the `truth`.
#'
#' @param n number of samples, a whole number of at least 4.
#' @param p number of genes in all, planted ones included, a whole number of
#'   at least 2 (at least `n_linear` for `"linear"`).
#' @param signal the planted signal, one of `"xor"`, `"xor_numeric"`,
#'   `"u_numeric"`, `"u_class"`, `"u_hazard"`, `"ring"`, `"linear"`.
#' @param noise standard deviation of the Gaussian noise \eqn{\epsilon}, a
#'   non-negative number; `NULL` (the default) means 0 for the class signals
#'   (`"xor"`, `"u_class"`, `"ring"`: the class is a function of the genes)
#'   and 1 for the numeric ones. Not used by `"u_hazard"` and `"linear"`.
#' @param rho within-block correlation of the genes, in \[0, 1).
#' @param block_size number of genes in a block of correlated genes, a whole
#'   number of at least 2 (used when `rho > 0`).
#' @param n_linear for `"linear"`: number of shifted genes, at least 1.
#' @param effect for `"linear"`: difference of the shifted genes' means
#'   between the classes, a positive number.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A list with
#' \describe{
#'   \item{`x`}{numeric matrix, `n` samples x `p` genes, column names `X1`
#'     to `Xp`.}
#'   \item{`y`}{the outcome: a factor with levels `"-1"`, `"+1"` (`"xor"`,
#'     `"u_class"`, `"ring"`, `"linear"`) or a numeric vector.}
#'   \item{`truth`}{names of the planted genes (columns of `x`): two for
#'     `"xor"`, `"xor_numeric"` and `"ring"`, one for the U-shaped signals,
#'     `n_linear` for `"linear"`.}
#' }
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. *Journal of
#'   Machine Learning Research* 13, 1393-1434. Section 7.1.
#' @family simulate
#' @examples
#' set.seed(1)
#' sim <- simulate_nonlinear(100, p = 500, signal = "xor")
#' sim$truth
#' plot(sim$x[, sim$truth], col = sim$y, asp = 1)
#'
#' # per-gene HSIC finds a U-shaped gene, also among correlated genes
#' sim <- simulate_nonlinear(100, p = 500, signal = "u_hazard", rho = 0.5)
#' fs <- feature_scores(sim$x, sim$y, method = "hsic")
#' fs[fs$feature %in% sim$truth, c("feature", "rank")]
#' @export
simulate_nonlinear <- function(n, p = 200, signal = c("xor", "xor_numeric", "u_numeric", "u_class",
                                                      "u_hazard", "ring", "linear"),
                               noise = NULL, rho = 0, block_size = 30, n_linear = 10,
                               effect = 1, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  signal <- arg_match(signal)
  k <- switch(signal, xor = , xor_numeric = , ring = 2L, linear = NA, 1L)
  if (is.na(k)) k <- check_sim_count(n_linear, "n_linear", 1, "the number of shifted genes")
  p <- check_sim_count(p, "p", max(2L, k), "the number of genes")
  # x, the block draws spread over the columns and their scaled sum: at most
  # about six n x p copies at the peak
  check_size(48 * as.double(n) * p, "p", p,
             sprintf("the %d x %s matrix and its draws, about 48 bytes an entry", n,
                     format(p, big.mark = ",")))
  if (is.null(noise)) noise <- if (signal %in% c("xor", "u_class", "ring")) 0 else 1
  check_sim_sd(noise, "noise", allow_zero = TRUE)
  if (!is.numeric(rho) || length(rho) != 1L || !is.finite(rho) || rho < 0 || rho >= 1) {
    stop("'rho' (the within-block correlation) must be a single number in [0, 1).", call. = FALSE)
  }
  block_size <- check_sim_count(block_size, "block_size", 2, "the genes in a block")
  check_sim_sd(effect, "effect", allow_zero = FALSE)
  x <- sim_blocks(n, p, rho, block_size)
  planted <- sim_planted(p, k, if (rho > 0) block_size else 1L)
  out <- sim_signal(x[, planted, drop = FALSE], signal, noise, effect)
  x[, planted] <- out$genes
  colnames(x) <- paste0("X", seq_len(p))
  list(x = x, y = out$y, truth = colnames(x)[planted])
}

# A count argument: a single whole number of at least `low`.
check_sim_count <- function(value, arg, low, what) {
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value) || value != round(value) ||
      value < low) {
    stop(sprintf("'%s' (%s) must be a single whole number of at least %d.", arg, what,
                 as.integer(low)), call. = FALSE)
  }
  check_int_limit(value, arg)
  as.integer(value)
}

# n x p standard normal genes, independent (rho = 0) or equicorrelated within
# consecutive blocks of `size` columns.
sim_blocks <- function(n, p, rho, size) {
  x <- matrix(stats::rnorm(as.double(n) * p), n, p)
  if (rho == 0) return(x)
  block <- (seq_len(p) - 1L) %/% size + 1L
  z <- matrix(stats::rnorm(as.double(n) * max(block)), n, max(block))
  sqrt(rho) * z[, block, drop = FALSE] + sqrt(1 - rho) * x
}

# k distinct random columns of 1..p, in different blocks of `size` columns
# when there are at least k blocks.
sim_planted <- function(p, k, size) {
  n_block <- (p - 1L) %/% size + 1L
  if (size == 1L || n_block < k) return(sample.int(p, k))
  blocks <- sample.int(n_block, k)
  first <- (blocks - 1L) * size
  width <- pmin(size, p - first)
  first + vapply(width, sample.int, integer(1), size = 1L)
}

# The outcome from the planted genes g (n x k); returns the genes (shifted
# for "linear") and y.
sim_signal <- function(g, signal, noise, effect) {
  n <- nrow(g)
  eps <- if (signal %in% c("u_hazard", "linear")) 0 else stats::rnorm(n, sd = noise)
  above_median <- function(z) sim_class(z > stats::median(z))
  y <- switch(signal,
    xor = sim_class(g[, 1L] * g[, 2L] + eps > 0),
    xor_numeric = g[, 1L] * g[, 2L] + eps,
    u_numeric = g[, 1L]^2 + eps,
    u_class = above_median(g[, 1L]^2 + eps),
    u_hazard = log(stats::rexp(n, rate = exp(1.5 * g[, 1L]^2))),
    ring = above_median(g[, 1L]^2 + g[, 2L]^2 + eps),
    linear = sim_class(sample(rep_len(c(FALSE, TRUE), n)))
  )
  if (signal == "linear") {
    k <- ncol(g)
    sign <- rep_len(c(1, -1), k)
    shift <- ifelse(y == "+1", 0.5, -0.5) * effect
    g <- g + outer(shift, sign)
  }
  list(genes = g, y = y)
}

sim_class <- function(up) factor(ifelse(up, "+1", "-1"), levels = c("-1", "+1"))
