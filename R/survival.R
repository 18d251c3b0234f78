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
#' Fernandez, Gretton, Rindt and Sejdinovic (2023, section 3) with a constant kernel on
#' the times: with a linear data kernel, the square of the Cox score at
#' \eqn{\beta = 0} (Breslow's ties); with a Gaussian kernel it also sees
#' effects on the hazard that are not monotone. When censoring is independent
#' of the features, the pairs (time, event) are exchangeable across samples
#' under independence, so the permutation null of HSIC, and its gamma
#' approximation, apply.
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
