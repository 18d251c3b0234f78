# The toy data sets of the l1-LSMI slides (Jitkrittum 2012, slides
# "3 Toy Datasets" and "Toy Dataset: 3clusters"). Every draw comes from R's
# RNG, so set.seed() reproduces a data set.

#' Toy data of the l1-LSMI slides
#'
#' Generators of the four artificial data sets on which Jitkrittum (2012)
#' compares l1-LSMI with other selectors (F-measure of the selected
#' features, \eqn{n = 400}). Each has 10 features named `X1` to `X10`.
#'
#' * `simulate_andor()` (\eqn{k = 4}): \eqn{X_1, \dots, X_7 \sim}
#'   Bernoulli(0.5), \eqn{Y = (X_1 \wedge X_2) \vee (X_3 \wedge X_4)}, and
#'   \eqn{X_8, X_9, X_{10}} are copies of \eqn{Y} whose bits are each
#'   flipped independently with probability `flip` (0.2). Feature
#'   redundancy and weak interaction. The relevant features are taken to be
#'   \eqn{X_1, \dots, X_4} (the slides' \eqn{k = 4} and their table of
#'   LSMI values, where \eqn{\{1, 2, 3, 4\}} is best); the noisy copies are
#'   informative but redundant.
#' * `simulate_quad()` (\eqn{k = 2}): \eqn{X_1, \dots, X_8, \epsilon \sim
#'   N(0, 1)}, \eqn{X_9 = 0.5 X_1 + U(-1, 1)}, \eqn{X_{10} = 0.5 X_2 +
#'   U(-1, 1)}, \eqn{Y = (X_1^2 + X_2) / (0.5 + (X_2 + 1.5)^2) +
#'   0.1\epsilon}, as the slide prints it (numeric outcome). Non-linear
#'   dependence; \eqn{X_9, X_{10}} are noisy (redundant) versions of the
#'   relevant \eqn{X_1, X_2}.
#' * `simulate_xor10()` (\eqn{k = 2}): \eqn{X_1, \dots, X_5 \sim}
#'   Bernoulli(0.5), \eqn{X_6, \dots, X_{10} \sim} Bernoulli(0.75),
#'   \eqn{Y = \mathrm{xor}(X_1, X_2)}. Pure interaction: each of
#'   \eqn{X_1, X_2} alone is independent of \eqn{Y}. (Named `xor10` to set it
#'   apart from [simulate_xor()], the Gaussian XOR of Song et al.)
#' * `simulate_3clusters()` (\eqn{k = 2}): the slide only says that
#'   \eqn{\{X_1, X_2\}} separate three classes perfectly, that \eqn{X_3} is
#'   redundant and that \eqn{X_4, \dots, X_{10} \sim U(0, 1)}; it shows the
#'   data as a picture. Here: three equally likely classes with
#'   \eqn{(X_1, X_2)} Gaussian with standard deviation `sd` (0.05) around
#'   \eqn{(0.2, 0.2)}, \eqn{(0.8, 0.2)} and \eqn{(0.5, 0.8)} (clusters at
#'   least 0.6 apart, so separable), and \eqn{X_3 = (X_1 + X_2) / 2 +
#'   N(0, sd^2)}, which separates the classes only partly and adds nothing
#'   to \eqn{X_1, X_2}.
#'
#' Binary features are returned as 0/1 numbers, binary outcomes as factors
#' with levels `"0"`, `"1"`.
#'
#' @param n number of samples, a whole number of at least 4.
#' @param flip probability that a bit of \eqn{X_8, X_9, X_{10}} differs
#'   from \eqn{Y}, in \[0, 1\].
#' @param sd standard deviation of the clusters, a positive number.
#' @return A list with `x` (`n` x 10 matrix, columns `X1`, ..., `X10`), `y`
#'   (factor, or numeric for `simulate_quad()`) and `relevant` (column
#'   indices of the relevant features).
#' @references Jitkrittum, W. (2012). Feature selection via
#'   l1-penalized squared-loss mutual information. Slides, Sugiyama
#'   laboratory, Tokyo Institute of Technology (slides "3 Toy Datasets",
#'   "Toy Dataset: 3clusters").
#' @family simulate
#' @family lsmi
#' @examples
#' set.seed(1)
#' sim <- simulate_andor(100)
#' table(sim$y, sim$x[, 8])
#' sim <- simulate_xor10(100)
#' table(sim$y, paste(sim$x[, 1], sim$x[, 2]))
#' sim <- simulate_quad(100)
#' plot(sim$x[, 1], sim$y)
#' sim <- simulate_3clusters(150)
#' plot(sim$x[, 1:2], col = sim$y, asp = 1)
#' @name simulate_lsmi
NULL

#' @rdname simulate_lsmi
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @export
simulate_andor <- function(n, flip = 0.2, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  if (!is.numeric(flip) || length(flip) != 1L || !is.finite(flip) || flip < 0 || flip > 1) {
    stop("'flip' must be a single probability in [0, 1].", call. = FALSE)
  }
  b <- matrix(stats::rbinom(7 * n, 1L, 0.5), n, 7L)
  y <- as.integer((b[, 1L] & b[, 2L]) | (b[, 3L] & b[, 4L]))
  flips <- matrix(stats::runif(3 * n) < flip, n, 3L)
  copies <- abs(matrix(y, n, 3L) - flips)
  lsmi_sim(cbind(b, copies), factor(y, levels = 0:1), 1:4)
}

#' @rdname simulate_lsmi
#' @export
simulate_quad <- function(n, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  x <- matrix(stats::rnorm(8 * n), n, 8L)
  eps <- stats::rnorm(n)
  x9 <- 0.5 * x[, 1L] + stats::runif(n, -1, 1)
  x10 <- 0.5 * x[, 2L] + stats::runif(n, -1, 1)
  y <- (x[, 1L]^2 + x[, 2L]) / (0.5 + (x[, 2L] + 1.5)^2) + 0.1 * eps
  lsmi_sim(cbind(x, x9, x10), y, 1:2)
}

#' @rdname simulate_lsmi
#' @export
simulate_xor10 <- function(n, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  x <- cbind(matrix(stats::rbinom(5 * n, 1L, 0.5), n, 5L),
             matrix(stats::rbinom(5 * n, 1L, 0.75), n, 5L))
  lsmi_sim(x, factor(as.integer(xor(x[, 1L], x[, 2L])), levels = 0:1), 1:2)
}

#' @rdname simulate_lsmi
#' @export
simulate_3clusters <- function(n, sd = 0.05, ...) {
  check_dots(...)
  n <- check_sim_n(n)
  check_sim_sd(sd, "sd", allow_zero = FALSE)
  cls <- sample(rep_len(1:3, n))
  centres <- rbind(c(0.2, 0.2), c(0.8, 0.2), c(0.5, 0.8))
  x12 <- centres[cls, , drop = FALSE] + matrix(stats::rnorm(2 * n, sd = sd), n, 2L)
  x3 <- (x12[, 1L] + x12[, 2L]) / 2 + stats::rnorm(n, sd = sd)
  noise <- matrix(stats::runif(7 * n), n, 7L)
  lsmi_sim(cbind(x12, x3, noise), factor(cls, levels = 1:3), 1:2)
}

lsmi_sim <- function(x, y, relevant) {
  x <- unname(x)
  storage.mode(x) <- "double"
  colnames(x) <- paste0("X", seq_len(ncol(x)))
  list(x = x, y = y, relevant = relevant)
}
