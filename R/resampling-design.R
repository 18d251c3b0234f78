# ---- resampling that respects the study design ------------------------------------
# evaluate_selection(), stability_selection() and selection_test() resample the
# samples; with a design (R/design.R) they keep the samples of a block (a pair,
# a patient) together, stratify by the outcome's classes and the levels of the
# design's discrete covariates, hand every fit the design of its own rows as
# `covariates` and `block` (as a caller would), and permute within strata.

# The units that stay together (the blocks; each sample its own without one),
# with each unit's stratum key: the classes of a factor outcome and the levels
# of the design's discrete covariates of its samples. list(unit: the unit of
# each sample (integer), key: one string per unit, size: samples per unit).
resample_units <- function(y, design) {
  m <- NROW(y)
  unit <- if (!is.null(design$block)) as.integer(design$block) else seq_len(m)
  parts <- list()
  if (is.factor(y)) parts$y <- y
  # a censored outcome: events and censored samples each spread evenly
  if (is_surv(y)) parts$event <- factor(surv_event(y))
  f <- design$frame$frame
  for (v in names(f)) if (is.factor(f[[v]])) parts[[v]] <- f[[v]]
  key <- if (length(parts)) {
    as.character(interaction(parts, drop = TRUE, sep = "/"))
  } else {
    rep("", m)
  }
  ukey <- vapply(split(key, unit), function(k) paste(sort(k), collapse = "|"), "")
  list(unit = unit, key = unname(ukey), size = tabulate(unit, length(ukey)))
}

# Cross-validation folds that keep every unit (block) in one fold, stratified
# by the units' keys (a numeric outcome: units ordered by their mean outcome;
# a censored one: by event, then by mean time),
# dealt out in turn as cv_folds() does with samples.
design_folds <- function(y, k, design) {
  u <- resample_units(y, design)
  nu <- length(u$key)
  if (k > nu) {
    stop(sprintf(paste0("'folds' = %d is more than the %d blocks, whose samples stay in one ",
                        "fold: use folds <= %d."), k, nu, nu), call. = FALSE)
  }
  val <- if (is.factor(y)) numeric(nu) else
    vapply(split(if (is_surv(y)) surv_time(y) else y, u$unit), mean, 0)
  o <- order(u$key, val, stats::runif(nu))
  fu <- integer(nu)
  fu[o] <- sample.int(k)[rep_len(seq_len(k), nu)]
  fu[u$unit]
}

# Folds the caller gave must not split a block: an error that names one.
check_folds_blocks <- function(folds, design) {
  if (is.null(design$block)) return(invisible())
  split_blocks <- vapply(split(folds, design$block), function(f) length(unique(f)) > 1L, NA)
  if (any(split_blocks)) {
    stop(sprintf(paste0("'folds' puts the samples of %d block(s) in different folds (%s): a ",
                        "block's samples (a pair, a patient) must stay in one fold, or the ",
                        "test fold leaks into training. Give folds that keep them together, ",
                        "or a number of folds."), sum(split_blocks),
                 paste(utils::head(names(split_blocks)[split_blocks], 6L), collapse = ", ")),
         call. = FALSE)
  }
  invisible()
}

# Two complementary halves that keep every unit (block) in one half, each
# stratum of units split evenly (stab_halves() on units); list of two sorted
# sample index vectors. Their sizes differ by at most the largest block.
design_halves <- function(u) {
  h <- stab_halves(split(seq_along(u$key), u$key), length(u$key))
  lapply(h, function(units) which(u$unit %in% units))
}

# Every class must reach both halves: each needs two units (blocks) or more.
check_half_units <- function(y, u) {
  if (is_surv(y)) {
    if (length(unique(u$unit[surv_event(y) > 0])) < 2L) {
      stop(paste0("The events of 'y' are all in one block: each half of the samples keeps whole ",
                  "blocks and needs events, so events are needed in at least 2 blocks."),
           call. = FALSE)
    }
    return(invisible())
  }
  if (!is.factor(y)) return(invisible())
  per_class <- vapply(levels(y), function(cl) length(unique(u$unit[y == cl])), 0L)
  if (any(per_class < 2L)) {
    cl <- names(per_class)[which.min(per_class)]
    stop(sprintf(paste0("Class \"%s\" of 'y' is in %d block(s): each half of the samples ",
                        "keeps whole blocks and needs every class, so every class needs ",
                        "samples in at least 2 blocks."), cl, min(per_class)), call. = FALSE)
  }
  invisible()
}

# The design of a fit on the samples `rows` as a selector takes it:
# list(covariates =, block =) (either left out when there is none). The
# covariates are the design's columns (a data frame of the covariates as
# resolved, factors as factors; the model matrix where the formula has
# interactions or matrix terms), less those constant on these rows (a batch
# absent from a fold); the block is that of the rows.
design_fit_args <- function(design, rows) {
  if (is.null(design)) return(list())
  out <- list()
  frame <- design$frame
  if (!is.null(frame)) {
    cov <- if (design_frame_plain(frame)) {
      frame$frame[rows, , drop = FALSE]
    } else {
      as.data.frame(design$Z[rows, , drop = FALSE], optional = TRUE)
    }
    keep <- vapply(cov, function(v) {
      if (is.factor(v)) nlevels(droplevels(v)) > 1L else length(unique(v)) > 1L
    }, NA)
    cov <- cov[keep]
    for (k in seq_along(cov)) if (is.factor(cov[[k]])) cov[[k]] <- droplevels(cov[[k]])
    rownames(cov) <- NULL
    if (length(cov)) out$covariates <- cov
  }
  if (!is.null(design$block)) out$block <- droplevels(design$block[rows])
  out
}

# Whether the covariates' frame holds their model's columns one for one (main
# effects of plain variables), so that it can be handed on as a data frame.
design_frame_plain <- function(frame) {
  if (is.null(frame$terms)) return(TRUE)
  labels <- attr(frame$terms, "term.labels")
  all(labels %in% names(frame$frame)) &&
    !any(vapply(frame$frame, function(v) is.matrix(v), NA))
}

# The design arguments a user's selector function takes (its formals named
# `covariates` and `block`): those of design_args it can be given.
design_args_for <- function(fun, design_args) {
  design_args[intersect(names(design_args), names(formals(fun)))]
}

# A user's selector function that takes neither `covariates` nor `block`
# while a design is given: a warning (it ranks without the design; the
# resampling still keeps blocks together and strata balanced).
warn_function_design <- function(fun, label, design) {
  if (is.null(design) || any(c("covariates", "block") %in% names(formals(fun)))) {
    return(invisible())
  }
  warning(sprintf(paste0("The selector %s takes no 'covariates' or 'block' argument: it ranks ",
                         "without the design (the resampling still keeps blocks together and ",
                         "strata balanced). Give it arguments covariates = NULL, block = NULL ",
                         "to receive each subset's design."), label), call. = FALSE)
  invisible()
}

# A built-in selector or score method given a design that it cannot adjust for:
# the error of its table row, before any fit.
check_resample_design <- function(name, design) {
  if (is.null(design)) return(invisible())
  if (name %in% selector_names()) return(check_selector_design(name, design))
  if (name %in% score_methods) return(check_score_design(name, design))
  invisible()
}

# ---- stability selection's halves ------------------------------------------------

# The samples of every fit with a design: complementary halves (or single
# halves) that keep every block in one half, each stratum of blocks (their
# classes and discrete covariates) split evenly. A matrix, one column per fit,
# when all the halves have the same size (always without a block); a list
# otherwise. Halves of blocks differ by at most the largest block: the sizes
# are reported (the fits' `n_samples`) and a difference of more than a few
# samples draws a warning, since the error bound of Shah and Samworth (2013)
# assumes halves of equal size.
stab_design_subsamples <- function(y, B, sampling, design) {
  u <- resample_units(y, design)
  check_half_units(y, u)
  halves <- lapply(seq_len(B), function(b) {
    h <- design_halves(u)
    if (sampling == "complementary") h else h[1L]
  })
  halves <- unlist(halves, recursive = FALSE)
  n <- lengths(halves)
  if (length(unique(n)) == 1L) return(matrix(unlist(halves), ncol = length(halves)))
  gap <- max(n) - min(n)
  if (gap > max(2L, 0.05 * NROW(y))) {
    warning(sprintf(paste0("The halves keep blocks together and differ in size by up to %d ",
                           "samples (%d to %d of %d): the error bound assumes halves of equal ",
                           "size (Shah and Samworth 2013), so it is approximate here. Blocks of ",
                           "more equal sizes make the halves more equal."), gap, min(n), max(n),
                    NROW(y)), call. = FALSE)
  }
  halves
}

# The samples of fit i (subsamples: a matrix, one column per fit, or a list).
stab_rows <- function(subsamples, i) {
  if (is.list(subsamples)) subsamples[[i]] else subsamples[, i]
}

# A design given with a selector that cannot adjust (its table row) is an
# error before any fit; a user's function that takes no design draws a warning.
stab_check_design <- function(sel, design) {
  if (is.null(design)) return(invisible())
  if (identical(sel$name, "function")) return(warn_function_design(sel$fun, "function", design))
  check_resample_design(sel$name, design)
}

# evaluate_selection()'s selectors (functions(x, y, design_args)) for the
# training samples `train` (logical): functions(x, y) that hand each the
# design of those rows.
fold_selectors <- function(sel, design, train) {
  design_args <- design_fit_args(design, which(train))
  lapply(sel, function(f) function(x, y) f(x, y, design_args))
}
