# The artificial data sets of section 7.1 of Song et al. (2012)
# (Figure 2, first row): 22 features, of which only the first two are related
# to the outcome and the other 20 are standard normal noise. Every draw comes
# from R's RNG, so set.seed() reproduces a data set.

#' Artificial data of Song et al. (2012), section 7.1
#'
#' Generators of the three artificial data sets that section 7.1 and Figure 2
#' of Song et al. (2012) use to compare BAHSIC with per-feature selectors.
#' Each has 22 features; only the first two (`X1`, `X2`) are related to the
#' outcome, the other 20 are independent standard normal noise. All draws
#' come from R's random number generator, so [set.seed()] reproduces a data
#' set.
#'
#' * `simulate_xor()`: binary XOR, where samples of the same class have
#'   multimodal distributions (Figure 2a). Each sample belongs to one of four
#'   Gaussian clusters centred at \eqn{(\pm 1, \pm 1)} in \eqn{(x_1, x_2)},
#'   with standard deviation `sd` in each coordinate; the class is the sign
#'   of the product of the centre's coordinates: `"+1"` for the clusters at
#'   \eqn{(1, 1)} and \eqn{(-1, -1)}, `"-1"` for \eqn{(1, -1)} and \eqn{(-1,
#'   1)}. Each class is therefore a mixture of two Gaussians, and each of
#'   \eqn{x_1} and \eqn{x_2} on its own is independent of the class: only
#'   the pair carries information, so any method that scores features one at
#'   a time (Pearson correlation, FOHSIC's first step) cannot find them.
#' * `simulate_multiclass()`: four classes, three of them collinear (Figure
#'   2b). Classes `"1"`, `"2"` and `"3"` are Gaussian clusters centred at
#'   \eqn{(-1, -1)}, \eqn{(0, 0)} and \eqn{(1, 1)}, in this order along the
#'   diagonal; class `"4"` is centred off that line at \eqn{(1, -1)}; the
#'   standard deviation is `sd` in each coordinate. Each feature alone
#'   separates some classes (\eqn{x_1} does not tell class 3 from 4,
#'   \eqn{x_2} not 1 from 4) and the pair separates all four. With the class
#'   number as a numeric outcome the three collinear classes give a linear
#'   correlation with the features, which the fourth class weakens (for
#'   \eqn{x_2} most).
#' * `simulate_regression()`: nonlinear regression (Figure 2c), \eqn{y = x_1
#'   \exp(-x_1^2 - x_2^2) + \epsilon} with all features standard normal and
#'   \eqn{\epsilon \sim N(0, \mathrm{noise}^2)}. The signal has standard
#'   deviation 0.2 (\eqn{E[f^2] = 1/25}), so the default `noise = 0.1` gives
#'   a signal to noise ratio of 2 in standard deviations.
#'
#' In the two classification sets the cluster memberships are balanced:
#' `sample(rep_len(1:4, n))`, so each of the four clusters (or classes) has
#' `n / 4` samples, give or take one, and every class is present.
#'
#' Figure 2 of the paper reports, for sample sizes 40 to 400, that BAHSIC
#' with a Gaussian kernel ranks the two relevant features on top on all
#' three sets; that on the XOR set FOHSIC, Pearson's correlation and mutual
#' information fail, because they evaluate each feature on its own; that on
#' the multiclass set BAHSIC and FOHSIC find the two features at every sample
#' size; and that on the regression set Pearson's correlation is only
#' slightly better than random. The paper shows the data only as plots; the
#' centres, spreads and noise level here are this package's choices, made
#' to match those plots and the text.
#'
#' @param n number of samples, a whole number of at least 4.
#' @param sd standard deviation of each Gaussian cluster in \eqn{x_1} and
#'   \eqn{x_2}, a positive number.
#' @param noise standard deviation of the additive Gaussian noise
#'   \eqn{\epsilon}, a non-negative number.
#' @return A list with
#' \describe{
#'   \item{`x`}{numeric matrix, `n` samples x 22 features, column names `X1`
#'     to `X22`.}
#'   \item{`y`}{the outcome: a factor with levels `"-1"`, `"+1"`
#'     (`simulate_xor()`) or `"1"` to `"4"` (`simulate_multiclass()`), or a
#'     numeric vector (`simulate_regression()`).}
#' }
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. *Journal of
#'   Machine Learning Research* 13, 1393-1434. Section 7.1 and Figure 2.
#' @family simulate
#' @examples
#' set.seed(1)
#' sim <- simulate_xor(100)
#' dim(sim$x)
#' table(sim$y)
#' plot(sim$x[, 1:2], col = sim$y, asp = 1)
#'
#' # each relevant feature alone is (nearly) uncorrelated with the class
#' feature_scores(sim$x[, 1:4], sim$y, method = "pc")
#'
#' sim <- simulate_multiclass(100)
#' plot(sim$x[, 1:2], col = sim$y, pch = as.integer(sim$y), asp = 1)
#'
#' sim <- simulate_regression(100, noise = 0.05)
#' summary(sim$y)
#' @name simulate
NULL

#' @rdname simulate
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @export
simulate_xor <- function(n, sd = 0.5, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  check_sim_sd(sd, "sd", allow_zero = FALSE)
  cluster <- sample(rep_len(1:4, n))
  # cluster 1..4 -> centres (1, 1), (-1, -1), (1, -1), (-1, 1)
  c1 <- c(1, -1, 1, -1)[cluster]
  c2 <- c(1, -1, -1, 1)[cluster]
  relevant <- cbind(c1, c2) + matrix(stats::rnorm(2 * n, sd = sd), n, 2L)
  y <- factor(ifelse(c1 * c2 > 0, "+1", "-1"), levels = c("-1", "+1"))
  list(x = sim_features(relevant, n), y = y)
}

#' @rdname simulate
#' @export
simulate_multiclass <- function(n, sd = 0.5, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  check_sim_sd(sd, "sd", allow_zero = FALSE)
  cls <- sample(rep_len(1:4, n))
  # classes 1-3 on the diagonal, class 4 off it
  centres <- rbind(c(-1, -1), c(0, 0), c(1, 1), c(1, -1))
  relevant <- centres[cls, , drop = FALSE] + matrix(stats::rnorm(2 * n, sd = sd), n, 2L)
  y <- factor(cls, levels = 1:4)
  list(x = sim_features(relevant, n), y = y)
}

#' @rdname simulate
#' @export
simulate_regression <- function(n, noise = 0.1, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  check_sim_sd(noise, "noise", allow_zero = TRUE)
  relevant <- matrix(stats::rnorm(2 * n), n, 2L)
  x1 <- relevant[, 1L]
  x2 <- relevant[, 2L]
  y <- x1 * exp(-x1^2 - x2^2) + stats::rnorm(n, sd = noise)
  list(x = sim_features(relevant, n), y = y)
}

# The two relevant columns followed by 20 standard normal noise features.
sim_features <- function(relevant, n) {
  x <- cbind(unname(relevant), matrix(stats::rnorm(20 * n), n, 20L))
  colnames(x) <- paste0("X", seq_len(22L))
  x
}

# n, checked against the integer limit and the memory budget: the
# simulators of few columns hold at most about 600 bytes per sample at their
# peak (measured with gc() at n = 1e5: 310 to 590), the draws and their
# bound copies.
check_sim_n <- function(n) {
  if (!is.numeric(n) || length(n) != 1L || !is.finite(n) || n != round(n) || n < 4) {
    stop("'n' (the number of samples) must be a single whole number of at least 4.",
         call. = FALSE)
  }
  check_int_limit(n, "n")
  check_size(640 * n, "n", n, "the simulated samples, about 640 bytes each")
  as.integer(n)
}

check_sim_sd <- function(value, arg, allow_zero) {
  ok <- is.numeric(value) && length(value) == 1L && is.finite(value) &&
    (value > 0 || (allow_zero && value == 0))
  if (!ok) {
    stop(sprintf("'%s' must be a single %s finite number.", arg,
                 if (allow_zero) "non-negative" else "positive"), call. = FALSE)
  }
  invisible()
}

#' Weston's artificial data
#'
#' The linear and nonlinear problems of Weston et al. (2001), section 4.1,
#' which the randSel paper uses (with 100 features and 300 samples) in its
#' Table 1. The classes `"-1"` and `"+1"` are equally likely (each sample's
#' class is drawn independently).
#'
#' * `type = "linear"`: six relevant features. With probability 0.7 the
#'   first three are \eqn{x_i = y\,N(i, 1)}, i = 1, 2, 3, and the next three
#'   standard normal; otherwise the first three are standard normal and the
#'   next three \eqn{x_i = y\,N(i - 3, 1)}, i = 4, 5, 6.
#' * `type = "nonlinear"`: two relevant features. For class `"-1"`
#'   \eqn{(x_1, x_2)} is drawn from \eqn{N((-3/4, -3), I)} or \eqn{N((3/4,
#'   3), I)}, for class `"+1"` from \eqn{N((3, -3), I)} or \eqn{N((-3, 3),
#'   I)}, each with probability 1/2.
#'
#' All other features are noise, \eqn{N(0, 20^2)} (Weston's "N(0, 20)",
#' read as a standard deviation; the selectors standardise features, so the
#' scale does not matter to them). Note: the randSel paper says both of its
#' Weston sets have 5 relevant features; Weston's own definitions, followed
#' here, have 6 (linear) and 2 (nonlinear). The indices are returned as
#' `relevant`.
#'
#' @param n number of samples, a whole number of at least 4.
#' @param type `"linear"` or `"nonlinear"`.
#' @param d number of features, at least the number of relevant ones (6 or 2).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A list with `x` (`n` x `d` matrix, columns `X1`, ...), `y` (factor
#'   with levels `"-1"`, `"+1"`) and `relevant` (column indices of the
#'   relevant features).
#' @references Weston, J., Mukherjee, S., Chapelle, O., Pontil, M., Poggio,
#'   T. and Vapnik, V. (2001). Feature selection for SVMs. *Advances in Neural
#'   Information Processing Systems* 13, 668-674.
#' @family simulate
#' @examples
#' set.seed(1)
#' sim <- simulate_weston(100, "nonlinear")
#' plot(sim$x[, 1:2], col = sim$y, asp = 1)
#' sim$relevant
#' @export
simulate_weston <- function(n, type = c("linear", "nonlinear"), d = 100, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  type <- arg_match(type)
  k <- if (type == "linear") 6L else 2L
  if (!is.numeric(d) || length(d) != 1L || !is.finite(d) || d != round(d) || d < k) {
    stop(sprintf("'d' (the number of features) must be a whole number of at least %d for type = \"%s\".",
                 k, type), call. = FALSE)
  }
  check_int_limit(d, "d")
  # x, the noise drawn for it and their bound copy: about 32 bytes an entry
  check_size(32 * as.double(n) * d, "d", d, sprintf("the %d x %s matrix, about 32 bytes an entry",
                                                    n, format(d)))
  d <- as.integer(d)
  ys <- sample(c(-1, 1), n, replace = TRUE)
  if (type == "linear") {
    first <- stats::runif(n) < 0.7
    means <- matrix(rep(c(1:3, 1:3), each = n), n, 6L)
    signal <- ys * (means + matrix(stats::rnorm(6 * n), n, 6L))
    noise <- matrix(stats::rnorm(6 * n), n, 6L)
    use_signal <- cbind(matrix(first, n, 3L), matrix(!first, n, 3L))
    relevant <- ifelse(use_signal, signal, noise)
  } else {
    branch <- sample(1:2, n, replace = TRUE)
    # class -1: (-3/4, -3) or (3/4, 3); class +1: (3, -3) or (-3, 3)
    mu1 <- ifelse(ys < 0, c(-0.75, 0.75)[branch], c(3, -3)[branch])
    mu2 <- ifelse(ys < 0, c(-3, 3)[branch], c(-3, 3)[branch])
    relevant <- cbind(mu1, mu2) + matrix(stats::rnorm(2 * n), n, 2L)
  }
  x <- cbind(unname(relevant), matrix(stats::rnorm(as.double(d - k) * n, sd = 20), n, d - k))
  colnames(x) <- paste0("X", seq_len(d))
  y <- factor(ifelse(ys > 0, "+1", "-1"), levels = c("-1", "+1"))
  list(x = x, y = y, relevant = seq_len(k))
}
