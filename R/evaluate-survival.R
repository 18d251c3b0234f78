# evaluate_selection() with a censored survival outcome (survival::Surv): the
# folds are stratified by event (R/evaluate.R, cv_folds(); with a design,
# R/resampling-design.R), every selector ranks the training fold as for any
# outcome, and in place of the SVM a Cox model with a ridge penalty is fitted
# on the top genes of the training fold; its linear predictor on the test
# fold is scored by its concordance with the test fold's survival times
# (Harrell's C and Uno's C). Higher is better.

# The model of the evaluation: the SVM for classes and numbers, the ridge Cox
# model ("ridge_cox") for a censored outcome; an SVM asked for by name with a
# Surv outcome (or the Cox model without one) is an error that says what fits.
evaluate_classifier <- function(y, classifier, given, tune, tune_given, inner_given) {
  if (!is_surv(y)) {
    if (classifier == "ridge_cox") {
      stop(paste0("classifier = \"ridge_cox\" needs a censored survival outcome, ",
                  "survival::Surv(time, event); for classes or numbers use classifier = ",
                  "\"svm\" or \"none\"."),
           call. = FALSE)
    }
    return(classifier)
  }
  if (!given) classifier <- "ridge_cox"
  if (classifier == "svm") {
    stop(paste0("classifier = \"svm\" does not apply to a censored survival outcome (an SVM ",
                "would read the censored times as observed): use classifier = \"ridge_cox\" ",
                "(a ridge Cox model scored by concordance, the default for a Surv outcome) ",
                "or \"none\"."),
         call. = FALSE)
  }
  if (classifier == "ridge_cox" && inner_given) {
    stop_unused("inner_folds", "classifier = \"svm\"", "classifier = \"ridge_cox\"")
  }
  if (classifier == "ridge_cox" && tune_given) cox_theta(tune)
  classifier
}

# The ridge penalty of the Cox model: list(theta = ) given as `tune`, 1 by
# default (see ?evaluate_selection).
cox_theta <- function(tune) {
  if (is.null(tune)) return(1)
  theta <- if (is.list(tune)) tune$theta
  if (!is.list(tune) || !identical(names(tune), "theta") || !is.numeric(theta) ||
      length(theta) != 1L || !is.finite(theta) || theta <= 0) {
    stop(paste0("With a censored outcome 'tune' must be list(theta = <one positive number>): the ",
                "ridge penalty of the Cox model on the standardised genes (default 1)."),
         call. = FALSE)
  }
  as.double(theta)
}

# The default selectors for a censored outcome: the first default selector of
# evaluate_selection() (BAHSIC) and the default score method of a Surv outcome
# (the score table's `default_for`).
surv_default_selectors <- function() {
  c(eval(formals(evaluate_selection)$selectors)[1L],
    score_methods_with(function(r) "survival" %in% r$default_for)[1L])
}

# Every test fold needs events: with k folds stratified by event at least 2k
# events (2 per test fold); folds given as a vector must each hold one. `fo`:
# evaluate_folds()'s list (folds, given, labels).
check_fold_events <- function(y, fo) {
  folds <- fo$folds
  given <- fo$given
  event <- surv_event(y)
  if (!is.null(given)) {
    none <- which(tabulate(given[event > 0], folds) == 0L)
    if (length(none)) {
      stop(sprintf(paste0("'folds' gives %d fold(s) without an event (%s): the concordance of a ",
                          "test fold needs events. Merge those folds with others or give a ",
                          "number of folds (they are then stratified by event)."), length(none),
                   paste(utils::head(fo$labels[none], 6L), collapse = ", ")),
           call. = FALSE)
    }
    return(invisible())
  }
  k <- sum(event)
  if (k < 2 * folds) {
    stop(sprintf(paste0("evaluate_selection() with %d folds needs at least %d events (2 in every ",
                        "test fold, for its concordance); 'y' has %d (of %d samples): use folds ",
                        "<= %d."), folds, 2 * folds, k, length(event), max(2L, k %/% 2L)),
         call. = FALSE)
  }
  invisible()
}

# The concordance of the ridge Cox model fitted on the training fold's top
# genes (standardised with the training fold's mean and standard deviation),
# its linear predictor on the test fold: Harrell's and Uno's C.
cox_evaluate <- function(xtr, ytr, xte, yte, theta) {
  z <- fold_standardise(xtr, xte)
  lp <- drop(z$test %*% cox_ridge_coef(z$train, ytr, theta))
  c(concordance = surv_concordance(yte, lp, "n"),
    concordance_uno = surv_concordance(yte, lp, "n/G2"))
}

# coxph() with the penalty theta / 2 * sum(beta^2) on the columns of x as they
# are (scale = FALSE: they are standardised already), Efron's ties.
cox_ridge_coef <- function(x, y, theta) {
  fit <- survival::coxph(y ~ survival::ridge(x, theta = theta, scale = FALSE), ties = "efron")
  beta <- unname(stats::coef(fit))
  beta[is.na(beta)] <- 0
  beta
}

# survival::concordance() of a risk score (higher: shorter survival, so
# reverse = TRUE); timewt "n" is Harrell's C, "n/G2" Uno's. NA for a test
# fold without events (folds given by the caller).
surv_concordance <- function(y, lp, timewt) {
  if (sum(surv_event(y)) == 0) return(NA_real_)
  unname(survival::concordance(y ~ lp, reverse = TRUE, timewt = timewt)$concordance)
}

evaluation_outcome <- function(y) {
  if (is_surv(y)) "survival" else if (is.factor(y)) "classification" else "regression"
}

surv_evaluation_settings <- function(y, theta) {
  list(censored = mean(surv_event(y) == 0), theta = theta)
}

# A result row of a censored outcome: the concordances in place of the errors.
surv_evaluation_row <- function(row) {
  row$error <- NULL
  row$balanced_error <- NULL
  row$concordance <- NA_real_
  row$concordance_uno <- NA_real_
  row
}

# summary()'s columns of a censored outcome: mean and sd over the folds (a
# fold without a concordance, NA, left out).
surv_summary_columns <- function(e, sdv) {
  mu <- function(v) if (all(is.na(v))) NA_real_ else mean(v, na.rm = TRUE)
  list(concordance = mu(e$concordance), concordance_sd = sdv(e$concordance),
       concordance_uno = mu(e$concordance_uno), concordance_uno_sd = sdv(e$concordance_uno))
}

surv_print_header <- function(st) {
  sprintf(paste0("concordance (higher is better) of a ridge Cox model (theta = %s) on the top ",
                 "genes: Harrell's C and Uno's C; %.0f%% censored, plot() shows %s's\n"),
          format(st$theta), 100 * st$censored, if (st$censored >= 0.5) "Uno" else "Harrell")
}

# The quantity plot() draws: for a censored outcome Harrell's C, or Uno's when
# half the samples or more are censored (unless `type` is given); an error
# for a type of the other kind of outcome.
evaluation_plot_type <- function(settings, type, given) {
  surv <- identical(settings$outcome, "survival")
  if (surv && !given) return(if (settings$censored >= 0.5) "concordance_uno" else "concordance")
  if (surv && !startsWith(type, "concordance")) {
    stop(sprintf(paste0("A censored survival outcome is scored by concordance, not by %s: use ",
                        "type = \"concordance\" (Harrell's C) or \"concordance_uno\" (Uno's C)."),
                 if (type == "error") "an error" else "a balanced error"), call. = FALSE)
  }
  if (!surv && startsWith(type, "concordance")) {
    stop(sprintf(paste0("type = \"%s\" is for a censored survival outcome; this evaluation has ",
                        "an error: use type = \"error\"%s."), type,
                 if (settings$outcome == "regression") "" else " or \"balanced_error\""),
         call. = FALSE)
  }
  type
}

concordance_label <- function(type) {
  sprintf("concordance (%s C; higher is better)",
          if (type == "concordance_uno") "Uno's" else "Harrell's")
}
