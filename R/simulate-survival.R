# Expression-like data with a censored survival outcome: the benchmark of the
# Cox score test and of kernel dependence under censoring
# (inst/bench/bench-survival.R) and the survival tests draw their data here.

#' Censored survival times driven by a few genes
#'
#' Draws `p` standard normal genes and a right-censored survival outcome whose
#' hazard depends on a few planted genes: `n_linear` genes with a log-linear
#' effect (a Cox model, hazard ratio \eqn{e^{\beta}} per standard deviation),
#' `n_u` genes with a U-shaped effect on the log hazard,
#' \eqn{\beta (x^2 - 1) / \sqrt 2} (high and low expression both raise the
#' hazard: a non-monotone effect, which the Cox score test misses; the
#' \eqn{\sqrt 2} gives it variance \eqn{\beta^2}, as for a log-linear gene),
#' and null genes. Event times are exponential with rate
#' \eqn{\exp(\eta)}, \eqn{\eta} the sum of the planted effects (baseline
#' hazard 1: the time scale is arbitrary).
#'
#' Censoring times are exponential and, given the genes and `z`, independent
#' of the event times. Their base rate is set so that the expected fraction
#' censored, averaged over the `n` samples drawn, is `censoring`. With
#' `censoring_effect = 0` they are independent of everything; otherwise
#' their log rate rises by `censoring_effect` per standard deviation of a
#' covariate `z` (standard normal, returned), and `n_z` null genes are
#' correlated with `z` (correlation `rho_z`): genes without any effect on
#' survival whose censoring pattern differs, the case in which tests that
#' assume censoring independent of the features can mislead (given `z`,
#' censoring is independent again: a Cox model that includes `z` as a
#' covariate is valid).
#'
#' @param n number of samples, a whole number of at least 4.
#' @param p number of genes in all, a whole number of at least `n_linear +
#'   n_u + n_z` and at least 1.
#' @param n_linear,n_u number of genes with a log-linear and with a U-shaped
#'   effect on the hazard.
#' @param effect \eqn{\beta}, the log hazard ratio of a planted gene (per
#'   standard deviation for the log-linear genes), a non-negative number.
#' @param censoring expected fraction of censored samples, in \[0, 0.95\];
#'   0: no censoring.
#' @param censoring_effect log censoring-rate ratio per standard deviation of
#'   the covariate `z`; 0 (the default): censoring independent of the genes.
#' @param n_z number of null genes correlated with `z` (used when
#'   `censoring_effect` is not 0).
#' @param rho_z their correlation with `z`, in \[0, 1).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A list with
#' \describe{
#'   \item{`x`}{numeric matrix, `n` samples x `p` genes, column names `X1`
#'     to `Xp`.}
#'   \item{`y`}{the outcome, `survival::Surv(time, event)`.}
#'   \item{`z`}{the covariate on which censoring depends (standard normal).}
#'   \item{`truth`}{list of the names of the planted genes: `linear`, `u`,
#'     and `z` (the null genes correlated with `z`; none when
#'     `censoring_effect = 0`).}
#' }
#' @family simulate
#' @examplesIf requireNamespace("survival", quietly = TRUE)
#' set.seed(1)
#' sim <- simulate_survival(100, p = 200, n_linear = 1, n_u = 1, censoring = 0.3)
#' sim$truth
#' mean(sim$y[, "status"] == 0)  # fraction censored
#' @export
simulate_survival <- function(n, p = 1000, n_linear = 1, n_u = 1, effect = 1,
                              censoring = 0.3, censoring_effect = 0, n_z = 10, rho_z = 0.5,
                              ...) {
  check_dots(...)
  if (!requireNamespace("survival", quietly = TRUE)) {
    stop("simulate_survival() returns a survival::Surv outcome: install the survival package.",
         call. = FALSE)
  }
  n <- check_sim_n(n)
  n_linear <- check_sim_count(n_linear, "n_linear", 0, "the number of log-linear genes")
  n_u <- check_sim_count(n_u, "n_u", 0, "the number of U-shaped genes")
  dependent <- check_sim_number(censoring_effect, "censoring_effect") != 0
  n_z <- if (dependent) check_sim_count(n_z, "n_z", 0, "the genes correlated with z") else 0L
  p <- check_sim_count(p, "p", max(1L, n_linear + n_u + n_z), "the number of genes")
  check_sim_sd(effect, "effect", allow_zero = TRUE)
  censoring <- check_sim_fraction(censoring, "censoring", 0.95)
  rho_z <- check_sim_fraction(rho_z, "rho_z", 1 - 1e-9)
  x <- matrix(stats::rnorm(as.double(n) * p), n, p, dimnames = list(NULL, paste0("X", seq_len(p))))
  planted <- sample.int(p, n_linear + n_u + n_z)
  lin <- planted[seq_len(n_linear)]
  u <- planted[n_linear + seq_len(n_u)]
  zg <- planted[n_linear + n_u + seq_len(n_z)]
  z <- stats::rnorm(n)
  if (n_z) x[, zg] <- sqrt(rho_z) * z + sqrt(1 - rho_z) * x[, zg]
  eta <- effect * (rowSums(x[, lin, drop = FALSE]) + rowSums(x[, u, drop = FALSE]^2 - 1) / sqrt(2))
  hazard <- exp(eta)
  time <- stats::rexp(n, hazard)
  event <- rep(1, n)
  if (censoring > 0) {
    tilt <- exp(censoring_effect * z)
    rate <- censoring_rate(hazard, tilt, censoring)
    cens <- stats::rexp(n, rate * tilt)
    event <- as.double(time <= cens)
    time <- pmin(time, cens)
  }
  nm <- colnames(x)
  list(x = x, y = survival::Surv(time, event), z = z,
       truth = list(linear = nm[lin], u = nm[u], z = nm[zg]))
}

# The base censoring rate c for which the expected fraction censored given the
# hazards h_i is `target`: mean(c t_i / (c t_i + h_i)) = target (exponential
# event and censoring times).
censoring_rate <- function(hazard, tilt, target) {
  f <- function(lc) mean(exp(lc) * tilt / (exp(lc) * tilt + hazard)) - target
  exp(stats::uniroot(f, c(-50, 50), tol = 1e-10)$root)
}

check_sim_number <- function(value, arg) {
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value)) {
    stop(sprintf("'%s' must be a single finite number.", arg), call. = FALSE)
  }
  value
}

check_sim_fraction <- function(value, arg, hi) {
  if (!is.numeric(value) || length(value) != 1L || !is.finite(value) || value < 0 || value > hi) {
    stop(sprintf("'%s' must be a single number in [0, %s].", arg, format(hi, digits = 3)),
         call. = FALSE)
  }
  value
}
