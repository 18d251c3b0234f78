# Censored survival outcomes. A right-censored survival::Surv(time, event)
# outcome is its own kind of outcome ("survival" in the method and selector
# tables), never a two-column numeric matrix. The normaliser (as_outcome(),
# check_outcome()) checks it here; the methods read its times and events
# through surv_time() / surv_event(), and the label kernel on it
# (label_kernel_survival()) is built from the log-rank scores surv_scores().
# The Surv object is kept as it is, so that a fold or a subset of samples
# (survival's `[` method) and survival's own functions can use it.

is_surv <- function(y) inherits(y, "Surv")

surv_time <- function(y) as.double(unclass(y)[, 1L])

surv_event <- function(y) as.double(unclass(y)[, 2L])

# A Surv outcome as the normaliser keeps it: right-censored, times not
# negative. Called by as_outcome() (missing values are check_outcome()'s, after
# na_action = "omit").
surv_outcome <- function(y) {
  if (!requireNamespace("survival", quietly = TRUE)) {
    stop("'y' is a Surv object: install the survival package to use it.", call. = FALSE)
  }
  type <- attr(y, "type")
  if (!identical(type, "right") || ncol(y) != 2L) {
    stop(sprintf(paste0("'y' is a Surv object with %s censoring; only right-censored outcomes ",
                        "are supported: Surv(time, event), one time and one event indicator ",
                        "(1 or TRUE: the event, 0 or FALSE: censored) per sample."),
                 if (is.null(type)) "unknown" else sprintf("\"%s\"", type)), call. = FALSE)
  }
  time <- surv_time(y)
  bad <- which(!is.na(time) & (time < 0 | !is.finite(time)))
  if (length(bad)) {
    stop(sprintf(paste0("'y' has %d negative or infinite survival time%s (first at sample %d: %s): ",
                        "times are durations from the start of follow-up, at least 0."),
                 length(bad), if (length(bad) == 1L) "" else "s", bad[1L], format(time[bad[1L]])),
         call. = FALSE)
  }
  y
}

# The checks of a Surv outcome once the samples are final (check_outcome()).
check_surv_outcome <- function(y) {
  time <- surv_time(y)
  event <- surv_event(y)
  if (anyNA(time) || anyNA(event)) {
    what <- if (anyNA(time)) "survival times" else "event indicators"
    stop(sprintf(paste0("'y' has missing %s (first at sample %d)%s: remove those samples or use ",
                        "na_action = \"omit\"."), what, which(is.na(time) | is.na(event))[1L],
                 if (anyNA(time)) "" else paste0(" (Surv() turns an event code other than 0/1, ",
                                                  "FALSE/TRUE or 1/2 into NA)")), call. = FALSE)
  }
  if (length(time) < 2L) {
    stop(sprintf("There is %d sample: dependence on the outcome needs at least 2.", length(time)),
         call. = FALSE)
  }
  if (sum(event) == 0) {
    stop(sprintf(paste0("'y' has no events: all %d survival times are censored, so they carry no ",
                        "information on survival. Check the event indicator (1 or TRUE: the event)."),
                 length(time)), call. = FALSE)
  }
  # the survival analogue of a constant outcome: at every event time all the
  # samples at risk have the event (e.g. one time for all), so every log-rank
  # score is 0 and no sample's survival can be compared with another's
  if (all(abs(surv_scores(y)) < 1e-12)) {
    stop(sprintf(paste0("'y' carries no information on survival: at each event time every ",
                        "sample still at risk has the event (%s), so no sample outlives ",
                        "another. Check that the right times were given."),
                 if (length(unique(time)) == 1L) sprintf("all %d times are %s", length(time),
                                                         format(time[1L]))
                 else "the censored times all precede the events"), call. = FALSE)
  }
  invisible()
}

# At least `need` events for `what`.
check_surv_events <- function(y, need, what) {
  k <- sum(surv_event(y))
  if (k < need) {
    stop(sprintf("%s needs at least %d events; 'y' has %d (of %d samples).", what, need, k,
                 length(surv_time(y))), call. = FALSE)
  }
  invisible()
}

# The log-rank scores of the samples: the martingale residuals of the model
# without covariates, a_i = event_i - Lambda(time_i), Lambda the Nelson-Aalen
# cumulative hazard (tied times share one risk set), within the levels of
# `strata` when given. They sum to 0 (in each stratum), and for a feature x
# sum_i x_i a_i is the Cox partial-likelihood score at beta = 0 (Breslow's
# ties), the numerator of the log-rank statistic (Therneau and Grambsch 2000,
# section 3.4; Fernandez, Gretton, Rindt and Sejdinovic 2023, section 3).
surv_scores <- function(y, strata = NULL) {
  time <- surv_time(y)
  event <- surv_event(y)
  if (!is.null(strata)) {
    a <- numeric(length(time))
    for (idx in split(seq_along(time), strata)) a[idx] <- nelson_aalen_residuals(time[idx], event[idx])
    return(a)
  }
  nelson_aalen_residuals(time, event)
}

nelson_aalen_residuals <- function(time, event) {
  ut <- sort(unique(time))
  at <- match(time, ut)
  deaths <- tabulate(at[event > 0], length(ut))
  # at risk at ut[k]: the samples with time >= ut[k]
  at_risk <- rev(cumsum(rev(tabulate(at, length(ut)))))
  event - cumsum(deaths / at_risk)[at]
}

#' Kernel on censored survival outcomes
#'
#' A label kernel for a right-censored outcome `survival::Surv(time, event)`.
#' It is the default label kernel of [hsic()], [hsic_test()], the kernel
#' methods of [feature_scores()] and the selectors ([bahsic()], [fohsic()],
#' [mrmr()]) when the outcome is a `Surv` object.
#'
#' `type = "logrank"` maps each sample to its log-rank score, the martingale
#' residual of the model without covariates, \eqn{a_i = \delta_i -
#' \hat\Lambda(T_i)} with \eqn{\hat\Lambda} the Nelson-Aalen cumulative
#' hazard, and takes \eqn{L = a a^\top}. HSIC with a data kernel \eqn{K} is
#' then \eqn{a^\top H K H a / m^2}, the kernel log-rank statistic of
#' Fernandez, Gretton, Rindt and Sejdinovic (2023, section 3) with a constant
#' kernel on the times: with a linear data kernel, the square of the Cox score
#' at \eqn{\beta = 0} (Breslow's ties, `feature_scores(method = "cox", ties =
#' "breslow")`) divided by \eqn{m^2}; with a Gaussian or a quadratic kernel it
#' also sees effects on the hazard that are not monotone. The scores depend
#' on the times only through their order, so the time unit and any increasing
#' transformation of the times change nothing. A constant kernel on the times
#' weighs all event times alike: an effect that reverses over follow-up
#' (crossing hazards) can cancel, as in the log-rank test. Under the null
#' hypothesis that survival is independent of the features, and with
#' censoring independent of the features, the pairs (time, event) are
#' exchangeable across samples, so the permutation null of HSIC, and its
#' gamma approximation (the per-feature p-values of [feature_scores()] and
#' [hsic_test()]), apply.
#'
#' **Covariates and blocks.** With a `block` or discrete `covariates` (see
#' [design]) the log-rank scores are computed within the strata they define
#' (the scores of a stratified Cox model), then the label is projected off
#' the design like any other; with a linear data kernel the score is then the
#' square of the Breslow score of `coxph(Surv ~ x + strata(batch))` at
#' \eqn{\beta = 0}, over \eqn{df^2}. With a continuous covariate the scores
#' are those of all samples, projected off it. Measured on 2,000 null genes
#' (m = 120, 30% censoring) with a batch of two levels that shifts the genes
#' by one standard deviation and multiplies the times by 0.4: P(p < 0.05) was
#' 0.262 without the batch and 0.051 with `covariates = batch` (KS distance
#' 0.027).
#'
#' **Why the log-rank scores.** Three maps were compared
#' (`inst/bench/bench-survival-kernel.R`; m = 120 samples, Gaussian data
#' kernel with the per-gene median width, the default of
#' `feature_scores(method = "hsic")` for the other outcomes): the log-rank
#' scores; four
#' Fleming-Harrington weighted log-rank score columns, weights
#' \eqn{S(t-)^\rho (1 - S(t-))^\gamma} for \eqn{(\rho, \gamma)} = (0, 0),
#' (1, 0), (0, 1), (1, 1); and an inverse-probability-of-censoring-weighted
#' Gaussian kernel on log time (weights \eqn{\delta_i / \hat G(T_i-)},
#' \eqn{\hat G} the Kaplan-Meier estimate of censoring). On 2,000 null genes
#' with censoring independent of the genes, the gamma p-values of all three
#' were calibrated: at 30% and 60% censoring the Kolmogorov-Smirnov distance
#' from the uniform was 0.035 and 0.038 (log-rank), 0.046 and 0.042
#' (Fleming-Harrington), 0.027 and 0.057 (IPCW), and P(p < 0.05) 0.049 and
#' 0.051, 0.051 and 0.054, 0.054 and 0.061. At 30% censoring (200 data sets,
#' p < 0.05) a gene with a U-shaped effect on the log hazard (effect 0.7,
#' [simulate_survival()]) was found in 93%, 90% and 52% of the data sets
#' (the Cox score test: 12%); a log-linear gene (log hazard ratio 0.3 per
#' standard deviation) in 59%, 58% and 35% (Cox: 75%), and with 0.5 in 91%,
#' 91% and 58% (Cox: 99%). The weighted columns added nothing on these
#' alternatives and the IPCW kernel lost power and, below, its calibration,
#' so only the log-rank scores are offered. A log-linear effect is found less
#' often than by the Cox score test with this Gaussian kernel (within 10
#' points at 0.5, 16 points behind at 0.3): the cost of the narrow median
#' width, which is what finds the U shape. A fixed wide width,
#' `kernel_gaussian(sigma = 0.1)` on standardised genes, found the
#' log-linear gene in 72% and 97% but the U-shaped one in 53%. The default
#' data kernel of a `Surv` outcome (next paragraph) closes that gap. For
#' log-linear effects alone use `feature_scores(method = "cox")`.
#'
#' **The data kernel.** For a `Surv` outcome, `feature_scores(method =
#' "hsic")` without `kernel` uses the polynomial kernel \eqn{(x x' + 2)^2} on
#' each gene's normal scores (\eqn{\Phi^{-1}((r_i - 1/2)/m)} of its ranks
#' \eqn{r_i}, then centred and scaled to unit variance): in effect the
#' features \eqn{(2x, x^2)}, whose linear part is the Cox score and whose
#' quadratic part sees U shapes. The normal scores make the kernel invariant
#' to any increasing transformation of a gene and give every gene the same
#' null distribution, so that the ranking by score is the ranking by
#' p-value; on the standardised values instead, a heavy-tailed gene's square
#' inflated its score (section 6a' of the bench: of 20 top-ranked null genes,
#' 18 were among the half drawn from a t distribution with 3 df, against 10
#' with the normal scores). Measured at m = 120 and 30% censoring on 500
#' data sets (section 6 of the bench), it found a log-linear gene in 73% and
#' 98% of them (effect 0.3 and 0.5; Cox score test, Efron's ties: 79% and
#' 99%; the median-width Gaussian: 57% and 91%) and a U-shaped one in 91%
#' (Gaussian 92%, Cox 11%); on 2,000 null genes its p-values had KS distance
#' 0.025 and 0.025 and P(p < 0.05) 0.054 and 0.048 at 30% and 60%
#' censoring. The offset 1 kernel found U shapes more often (98%) but the
#' log-linear gene only in 65% at 0.3; the offset was chosen among 1, 2, 3
#' and 5 on other data sets (U shapes found in 99%, 92%, 75% and 32%, the
#' log-linear gene at 0.3 in 62%, 69%, 71% and 72%; Cox 73%). A kernel given
#' as `kernel` is used as given, on the genes as they are. [hsic()] and
#' [hsic_test()], which take sets of features, keep the Gaussian default
#' (this kernel was measured on single genes).
#'
#' **Censoring that depends on a covariate.** When the censoring rate depends
#' on a covariate \eqn{z} that does not act on survival, the genes correlated
#' with \eqn{z} (correlation 0.5 or 0.8; `simulate_survival(censoring_effect
#' = 1 or 2)`, 500 such null genes per setting) were not found more often
#' than the 5% of the test's level: their rate of p < 0.05 was 0.030 to
#' 0.056 with the log-rank scores (0.038 to 0.056 with `covariates = z`),
#' against 0.026 to 0.076 for the Cox score test; the IPCW kernel, whose
#' weights come from the censoring of all samples together, found 35% to 99%
#' of them (the martingale residuals have mean 0 given \eqn{z} whatever its
#' censoring rate; the weighted event times do not). When the
#' covariate also acts on survival, the genes correlated with it are
#' associated with survival: give it as `covariates` to test given it.
#'
#' @param type the map of the outcome: `"logrank"` (the log-rank scores).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A `bahsic_label_kernel`.
#' @references Fernandez, T., Gretton, A., Rindt, D. and Sejdinovic, D.
#'   (2023). A kernel log-rank test of independence for right-censored data.
#'   *Journal of the American Statistical Association* 118, 925-936
#'   (arXiv:1912.03784). Section 3.
#'
#'   Therneau, T. M. and Grambsch, P. M. (2000). *Modeling Survival Data:
#'   Extending the Cox Model*. Springer. Section 4.2 (martingale residuals).
#' @family kernels
#' @examplesIf requireNamespace("survival", quietly = TRUE)
#' y <- survival::Surv(c(5, 8, 2, 9, 4), c(1, 0, 1, 1, 0))
#' label_kernel_survival()
#' label_kernel_matrix(label_kernel_survival(), y)
#'
#' # a gene with a U-shaped effect on the hazard: found by the kernel test,
#' # not by the Cox score test
#' set.seed(2)
#' sim <- simulate_survival(120, p = 50, n_linear = 0, n_u = 1)
#' u <- sim$truth$u
#' hsic_test(sim$x[, u], sim$y)
#' kern <- feature_scores(sim$x, sim$y, method = "hsic")
#' cox <- feature_scores(sim$x, sim$y, method = "cox")
#' rbind(kernel = kern[kern$feature == u, c("rank", "p_value")],
#'       cox = cox[cox$feature == u, c("rank", "p_value")])
#' @export
label_kernel_survival <- function(type = "logrank", ...) {
  check_dots(...)
  type <- arg_match(type, "logrank")
  new_label_kernel("survival", map = type,
                   label = "survival label kernel (log-rank scores)")
}

# label_gram() of a survival label kernel: the factor Y (m x 1) of L.
survival_label_gram <- function(kernel_y, y) {
  if (!is_surv(y)) {
    stop(paste0("label_kernel_survival() needs a censored survival outcome, ",
                "survival::Surv(time, event); 'y' is not one."), call. = FALSE)
  }
  # under a design with strata (a block, discrete covariates) the scores are
  # made within them (design_outcome(), R/design-kernel.R), then the label is
  # projected off the design
  strata <- attr(y, "bahsic_strata", exact = TRUE)
  list(L = NULL, Y = matrix(surv_scores(y, strata), ncol = 1L), kernel = kernel_y)
}
