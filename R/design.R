# ---- study designs: covariates and blocks ------------------------------------------
# A study's design is the variables the comparison must be adjusted for (batch,
# array, sex, age: `covariates`) and the units whose samples belong together (the
# patient of paired or repeated samples: `block`, limma's name). Every entry point
# takes both, captures them with design_spec() and hands the spec to the one
# normaliser (normalise_inputs(design = )), which resolves it once the samples
# are known (resolve_design()): the covariates' model matrix Z, the block, an
# orthonormal basis Q of span{1, Z, block indicators} and the strata within
# which samples are exchangeable under the null. Everything after reads the
# resolved design (class "bahsic_design"):
#   m            samples
#   Z            numeric m x q model matrix of the covariates without its intercept
#   block        factor, or NULL
#   Q            m x r orthonormal basis of span{1, Z, block indicators}
#   df           m - r
#   strata       factor of the exchangeable sets: the discrete covariates' levels
#                crossed with the block (with a continuous covariate, the block
#                alone), or NULL for all samples
#   permutation  "strata" (labels permuted within strata: exact for discrete
#                covariates) or "residuals" (a continuous covariate: residuals
#                permuted, Freedman and Lane 1983)
#   vars         the sample-data variables used (not features in a formula call)
#   text         one line for print()
#   frame        the covariates as a data frame (for the design's model matrix)

#' Study designs: covariates and blocks
#'
#' Every score, test and selector of the package takes the design of a study:
#' `covariates`, the variables to adjust for (processing batch, array, sex,
#' age), and `block`, the unit whose samples belong together (the patient of
#' paired or repeated samples; limma's name).
#'
#' @section Covariates:
#' `covariates` is a one-sided formula such as `~ batch + age`, evaluated in the
#' samples' annotation: the `pData()` or `colData()` of a Bioconductor object,
#' the `data` of a formula call, or a data frame given as `data`; the names of
#' its columns, `c("batch", "age")`, say the same. It may also be a data frame,
#' a matrix, a factor or a numeric vector with one row per sample.
#' Character and logical covariates are factors. In a formula call the
#' covariates' columns are not features: `bahsic(group ~ ., data = d,
#' covariates = ~ batch + age)` selects among the other columns.
#'
#' @section Blocks:
#' `block` is a factor (or a vector) naming the pair, patient or
#' repeated-measures unit of each sample, or the name of a column of the
#' samples' annotation. The linear scores treat it as a fixed effect, as limma
#' does with `~ block + y`; with two classes and one sample of each per block,
#' the t score is the paired t test.
#'
#' @section What is checked:
#' A covariate with a missing value, a covariate that is constant or has one
#' level, more covariate columns than the samples allow, a block with one
#' sample, and an outcome that the covariates or blocks determine (all samples
#' of a class in batches of their own) are errors that name the samples
#' concerned and say what can be estimated. Blocks that hold one class only
#' draw a warning: they inform the variance, not the class difference.
#'
#' @eval design_docs()
#' @examples
#' # normal and tumour samples in three batches, the first mostly normal
#' set.seed(1)
#' pheno <- data.frame(group = factor(rep(c("normal", "tumour"), each = 20)),
#'                     batch = factor(rep(c("b1", "b2", "b3", "b2", "b3"), c(15, 3, 2, 5, 15))))
#' x <- matrix(rnorm(40 * 200), 40, 200, dimnames = list(NULL, paste0("g", 1:200)))
#' x[, 1:20] <- x[, 1:20] + 2 * (pheno$batch == "b1")        # genes of the batch alone
#' x[, 21:25] <- x[, 21:25] + 1.5 * (pheno$group == "tumour") # genes of the comparison
#' plain <- feature_scores(x, pheno$group, method = "mt")
#' # limma's moderated t of group in ~ batch + group
#' adjusted <- feature_scores(x, pheno$group, method = "mt", covariates = ~ batch, data = pheno)
#' sum(plain$rank[1:20] <= 25)     # batch genes among the top 25 without the batch
#' sum(adjusted$rank[1:20] <= 25)  # and with it
#' fit <- bahsic(x, pheno$group, covariates = ~ batch, data = pheno, threads = 1)
#' fit
#' # ten patients, a normal and a tumour sample each: the paired t test
#' patient <- rep(1:10, 2)
#' tissue <- factor(rep(c("normal", "tumour"), each = 10))
#' xp <- matrix(rnorm(20 * 50), 20, 50) + rnorm(10)[patient]
#' xp[tissue == "tumour", 1] <- xp[tissue == "tumour", 1] + 1
#' feature_scores(xp, tissue, method = "t", block = patient)[1, ]
#' t.test(xp[tissue == "tumour", 1], xp[tissue == "normal", 1], paired = TRUE)$statistic
#' # what a confounded design cannot estimate
#' try(feature_scores(x, pheno$group, method = "mt", covariates = pheno$group == "normal"))
#' @name design
#' @aliases covariates block
NULL

# The section of ?design that says, from the method and selector tables, which
# score methods and selectors adjust and why the others cannot (roxygen's @eval).
design_docs <- function() {
  item <- function(name, why) {
    sprintf("  \\item{%s}{%s}", name, if (identical(why, "adjusts")) "adjusts." else
      paste("does not adjust:", why))
  }
  methods <- vapply(unname(score_table), function(r) {
    item(sprintf("`feature_scores(method = \"%s\")`", r$name), r$design)
  }, "")
  selectors <- vapply(names(selector_table), function(n) {
    item(sprintf("[%s()]", n), selector_table[[n]]$design)
  }, "")
  c("@section Which functions adjust:",
    paste("[hsic()] and [hsic_test()], the score methods and the selectors below; the resampling",
          "functions [stability_selection()], [selection_test()] and [evaluate_selection()]",
          "pass the design to what they run, keep blocks together and permute within them.",
          "Functions without the arguments (e.g. [pair_scores()], [qmi()]) refuse a design",
          "by name."),
    "\\describe{", methods, unname(selectors), "}")
}

# The design as the caller gave it, checked for its type; NULL when there is none.
design_spec <- function(covariates = NULL, block = NULL, data = NULL) {
  if (is.null(covariates) && is.null(block)) {
    if (!is.null(data)) {
      stop(paste0("'data' is the samples' annotation in which a 'covariates' formula (or a ",
                  "'block' given by name) is evaluated, and neither is given. With a formula ",
                  "interface, write the formula first: f(y ~ ., data = d)."), call. = FALSE)
    }
    return(NULL)
  }
  if (inherits(covariates, "formula")) {
    if (length(covariates) != 2L) {
      stop(paste0("'covariates' must be a one-sided formula such as ~ batch + age (the ",
                  "outcome is 'y'), or a data frame, matrix, factor or vector with one row ",
                  "per sample."), call. = FALSE)
    }
  } else if (!is.null(covariates) && !is.data.frame(covariates) &&
             !(is.atomic(covariates) && (is.null(dim(covariates)) || is.matrix(covariates)))) {
    stop(sprintf(paste0("'covariates' must be a one-sided formula (~ batch + age), a data ",
                        "frame, a matrix, a factor or a vector with one row per sample, not ",
                        "an object of class \"%s\"."), class(covariates)[1L]), call. = FALSE)
  }
  if (!is.null(block) && !(is.atomic(block) && is.null(dim(block)))) {
    stop(paste0("'block' must be a factor or vector with one value per sample (the pair, ",
                "patient or unit of each sample), or the name of a column of the samples' ",
                "annotation."), call. = FALSE)
  }
  if (!is.null(data) && !is.data.frame(data)) {
    data <- tryCatch(as.data.frame(data), error = function(e) {
      stop("'data' must be a data frame of the samples' annotation, one row per sample.",
           call. = FALSE)
    })
  }
  structure(list(covariates = covariates, block = block, data = data),
            class = "bahsic_design_spec")
}

# The design resolved on the samples: m0 samples before na_action = "omit" kept
# `rows` (NULL: all); sample_data, the annotation of a Bioconductor object (or
# NULL); samples, their names.
resolve_design <- function(spec, m0, rows = NULL, sample_data = NULL, samples = NULL) {
  if (is.null(spec)) return(NULL)
  annotation <- if (!is.null(spec$data)) spec$data else sample_data
  frame <- design_frame(spec$covariates, annotation, m0)
  block <- design_block(spec$block, annotation, m0)
  if (!is.null(rows)) {
    if (!is.null(frame)) frame$frame <- frame$frame[rows, , drop = FALSE]
    if (!is.null(block)) block <- block[rows]
  }
  if (is.null(samples)) samples <- as.character(seq_len(length(rows %||% seq_len(m0))))
  if (!is.null(frame)) check_covariates(frame$frame, samples)
  if (!is.null(block)) check_block(block, samples)
  design_build(frame, block, samples)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# The covariates as a model frame (frame) with its terms and variables; NULL for none.
design_frame <- function(covariates, annotation, m0) {
  if (is.null(covariates)) return(NULL)
  covariates <- covariate_names(covariates, annotation, m0)
  if (inherits(covariates, "formula")) {
    # the variables a formula finds in its environment (or those it inherits),
    # as model.frame() does; functions are not variables
    env <- environment(covariates) %||% emptyenv()
    in_env <- vapply(all.vars(covariates), function(v) {
      o <- get0(v, envir = env)
      !is.null(o) && !is.function(o)
    }, NA)
    if (is.null(annotation) && !all(in_env)) {
      stop(sprintf(paste0("'covariates' = %s needs the samples' annotation: give data = <a ",
                          "data frame with one row per sample and columns %s>, or x as an ",
                          "ExpressionSet or SummarizedExperiment whose sample data has them."),
                   deparse1(covariates), paste(all.vars(covariates), collapse = ", ")),
           call. = FALSE)
    }
    missing_vars <- setdiff(all.vars(covariates)[!in_env], names(annotation))
    if (length(missing_vars)) {
      stop(sprintf("'covariates': %s not a column of the samples' annotation; columns are: %s.",
                   paste0("'", missing_vars, "'", collapse = ", "),
                   paste(utils::head(names(annotation), 20), collapse = ", ")), call. = FALSE)
    }
    mf <- stats::model.frame(covariates, data = annotation, na.action = stats::na.pass)
    vars <- all.vars(covariates)
    terms <- stats::delete.response(attr(mf, "terms"))
  } else {
    mf <- if (is.data.frame(covariates)) covariates else if (is.matrix(covariates)) {
      as.data.frame(covariates, optional = TRUE)
    } else {
      data.frame(covariate = covariates)
    }
    if (is.null(names(mf)) || any(!nzchar(names(mf)))) {
      names(mf) <- paste0("covariate", seq_along(mf))
    }
    names(mf) <- make.names(names(mf), unique = TRUE)
    vars <- character()
    terms <- NULL
  }
  if (nrow(mf) != m0) {
    stop(sprintf(paste0("'covariates' has %d rows but x has %d samples: give one row per ",
                        "sample, in the samples' order%s."), nrow(mf), m0,
                 if (ncol(mf) == m0) " (it has one column per sample: transpose it with t())"
                 else ""), call. = FALSE)
  }
  for (k in seq_along(mf)) {
    if (is.character(mf[[k]]) || is.logical(mf[[k]])) mf[[k]] <- factor(mf[[k]])
    warn_coded_covariate(names(mf)[k], mf[[k]])
  }
  list(frame = mf, terms = terms, vars = vars, text = if (is.null(terms)) {
    paste("~", paste(names(mf), collapse = " + "))
  } else {
    deparse1(covariates)
  })
}

# A numeric covariate of a few whole numbers is more often a code (batch 1 to 5)
# than a measurement: it is taken as a linear trend, which the user should know.
warn_coded_covariate <- function(name, v) {
  if (!is.numeric(v) || is.matrix(v) || anyNA(v)) return(invisible())
  u <- unique(v)
  if (length(u) > 2L && length(u) <= 10L && all(u == round(u))) {
    warning(sprintf(paste0("covariate '%s' is numeric with %d distinct whole values: it is ",
                           "taken as one linear trend. If it codes groups (batch 1 to %d), ",
                           "write factor(%s) in 'covariates' for one effect per group."),
                    name, length(u), length(u), name), call. = FALSE)
  }
  invisible()
}

# Covariates given as the names of annotation columns (c("batch", "age")), as
# a block may be: the formula ~ batch + age. Other character vectors are
# values, one per sample.
covariate_names <- function(covariates, annotation, m0) {
  if (!is.character(covariates) || !is.null(dim(covariates)) || length(covariates) == m0) {
    return(covariates)
  }
  bad <- setdiff(covariates, names(annotation))
  if (length(bad)) {
    stop(sprintf(paste0("'covariates' names %s, not %s of the samples' annotation%s. Give ",
                        "column names of 'data' (or of the sample data), a one-sided formula, ",
                        "or one value per sample."),
                 paste0("\"", bad, "\"", collapse = ", "),
                 if (length(bad) == 1L) "a column" else "columns",
                 if (is.null(annotation)) " (there is none)" else ""), call. = FALSE)
  }
  stats::reformulate(sprintf("`%s`", covariates), env = baseenv())
}

# The block as a factor, from a vector or the name of an annotation column.
design_block <- function(block, annotation, m0) {
  if (is.null(block)) return(NULL)
  if (is.character(block) && length(block) == 1L && m0 != 1L) {
    if (is.null(annotation) || !block %in% names(annotation)) {
      stop(sprintf(paste0("'block' = \"%s\" is not a column of the samples' annotation: give ",
                          "a vector with one value per sample, or data = <the annotation>."),
                   block), call. = FALSE)
    }
    block <- annotation[[block]]
  }
  if (length(block) != m0) {
    stop(sprintf(paste0("'block' has %d values but x has %d samples: give the pair, patient or ",
                        "unit of every sample, in the samples' order."), length(block), m0),
         call. = FALSE)
  }
  block
}

# Samples named in a message (at most 6 of them).
sample_words <- function(samples, which) {
  s <- samples[which]
  paste0(paste(utils::head(s, 6L), collapse = ", "), if (length(s) > 6L) ", ..." else "")
}

check_covariates <- function(frame, samples) {
  for (v in names(frame)) {
    col <- frame[[v]]
    bad <- if (is.matrix(col)) rowSums(is.na(col)) > 0 else is.na(col)
    if (any(bad)) {
      stop(sprintf(paste0("covariate '%s' is missing for %d sample(s) (%s): fill it in, or drop ",
                          "those samples from x, y and the annotation."), v, sum(bad),
                   sample_words(samples, which(bad))), call. = FALSE)
    }
    if (is.factor(col)) col <- droplevels(col)
    if (is.factor(col) && nlevels(col) < 2L) {
      stop(sprintf(paste0("covariate '%s' has one level (\"%s\") in these samples: there is ",
                          "nothing to adjust for; drop it from 'covariates'."), v, levels(col)),
           call. = FALSE)
    }
    if (is.numeric(col) && any(!is.finite(col))) {
      stop(sprintf("covariate '%s' is infinite for sample(s) %s.", v,
                   sample_words(samples, which(!is.finite(col)))), call. = FALSE)
    }
    if (is.numeric(col) && !is.matrix(col) && length(unique(col)) < 2L) {
      stop(sprintf(paste0("covariate '%s' is constant (%g) in these samples: there is nothing ",
                          "to adjust for; drop it from 'covariates'."), v, col[1L]), call. = FALSE)
    }
  }
}

check_block <- function(block, samples) {
  if (anyNA(block)) {
    stop(sprintf("'block' is missing for sample(s) %s: name the unit of every sample.",
                 sample_words(samples, which(is.na(block)))), call. = FALSE)
  }
  b <- factor(block)
  n <- tabulate(b, nlevels(b))
  if (any(n < 2L)) {
    stop(sprintf(paste0("%d block(s) have one sample (%s): a block needs two or more samples ",
                        "(a pair, a patient's repeated samples). Drop those samples, or leave ",
                        "'block' out for unpaired samples."), sum(n < 2L),
                 paste(utils::head(levels(b)[n < 2L], 6L), collapse = ", ")), call. = FALSE)
  }
  if (nlevels(b) < 2L) {
    stop("'block' has one level: all samples are in one block, so there is nothing to adjust for.",
         call. = FALSE)
  }
}

# The resolved design from the covariate frame and the block (see the top).
design_build <- function(frame, block, samples, Z = NULL, text = NULL) {
  m <- length(samples)
  if (is.null(Z) && !is.null(frame)) Z <- covariate_matrix(frame)
  if (is.null(Z)) Z <- matrix(0, m, 0L)
  if (!is.null(block)) block <- droplevels(factor(block))
  B <- block_indicators(block, m)
  basis <- qr(cbind(1, Z, B))
  r <- basis$rank
  if (r >= m - 1L) {
    stop(sprintf(paste0("The design has %d independent columns (intercept, covariates, blocks) ",
                        "for %d samples: at least %d samples are needed to estimate anything ",
                        "beyond it. Use fewer covariates (or levels), or more samples."),
                 r, m, r + 2L), call. = FALSE)
  }
  Q <- qr.Q(basis)[, seq_len(r), drop = FALSE]
  discrete <- if (is.null(frame)) logical() else vapply(frame$frame, is.factor, NA)
  continuous <- length(discrete) && !all(discrete)
  parts <- c(if (length(discrete)) unname(as.list(frame$frame[discrete])), list(block))
  parts <- parts[!vapply(parts, is.null, NA)]
  strata <- if (length(parts)) droplevels(interaction(parts, drop = TRUE, lex.order = TRUE))
  if (is.null(text)) {
    text <- paste(c(if (!is.null(frame)) frame$text,
                    if (!is.null(block)) sprintf("block (%d blocks)", nlevels(block))),
                  collapse = "; ")
  }
  structure(list(m = m, Z = Z, block = block, Q = Q, df = m - r, strata = strata,
                 permutation = if (continuous) "residuals" else "strata",
                 vars = if (is.null(frame)) character() else frame$vars, text = text,
                 frame = frame, samples = samples),
            class = "bahsic_design")
}

covariate_matrix <- function(frame) {
  mm <- if (is.null(frame$terms)) {
    stats::model.matrix(~ ., frame$frame)
  } else {
    stats::model.matrix(frame$terms, frame$frame)
  }
  Z <- mm[, colnames(mm) != "(Intercept)", drop = FALSE]
  attr(Z, "assign") <- NULL
  attr(Z, "contrasts") <- NULL
  storage.mode(Z) <- "double"
  Z
}

# Treatment-coded indicators of the blocks (the first block the reference).
block_indicators <- function(block, m) {
  if (is.null(block)) return(matrix(0, m, 0L))
  B <- outer(as.integer(block), seq_len(nlevels(block))[-1L], `==`) * 1
  colnames(B) <- paste0("block", levels(block)[-1L])
  B
}

#' @export
print.bahsic_design <- function(x, ...) {
  check_dots(...)
  cat(sprintf("Design: %s; %d samples, %d residual degrees of freedom before the outcome\n",
              x$text, x$m, x$df))
  invisible(x)
}

# P v, with P = I - Q Q' (the residuals after the intercept, the covariates and
# the blocks; P also centres).
design_residuals <- function(design, v) {
  if (is.null(design)) stop("design_residuals() needs a design.", call. = FALSE)
  if (is.null(dim(v))) {
    # (v - Q %*% crossprod(Q, v) is an m x 1 matrix without v's names)
    if (is.double(v)) return(drop(project_out(matrix(v), design$Q)))
    return(drop(v - design$Q %*% crossprod(design$Q, v)))
  }
  project_out(v, design$Q)
}

# v - Q %*% crossprod(Q, v) for a matrix v (samples x columns) and Q
# (samples x r), with v's columns first centred (sweep(v, 2, colMeans(v)))
# or bounded and centred (the same on tanh(1.5 * v)) as `transform` says: in
# one pass in C (src/screen.c), its columns on `threads`, where v is a
# double matrix, with the reference BLAS's sums in their order (the
# expression's bits with the reference BLAS, and the same bits whatever BLAS
# R is linked to) and without its two m x ncol(v) temporaries; the
# expression itself where R's products might take their own loops (a
# non-finite sum of neighbouring values, which finite data reach only near
# the largest doubles).
project_out <- function(v, Q, transform = "none", threads = 1L) {
  code <- switch(transform, none = 0L, centre = 1L, bounded = 2L)
  if (is.double(v) && is.matrix(v) && is.double(Q) && is.matrix(Q)) {
    out <- .Call(C_project_out, v, Q, code, threads)
    if (!is.null(out)) return(out)
  }
  if (transform == "bounded") v <- .Call(C_bounded_columns, v, threads)
  if (transform != "none") v <- .Call(C_centre_columns, v)
  v - Q %*% crossprod(Q, v)
}

# The outcome's columns in a linear model: the indicators of levels 2..k of a
# factor (treatment coding, as model.matrix(~ y)), a numeric vector, or a matrix.
outcome_columns <- function(y) {
  # a censored outcome by its log-rank scores (R/survival.R)
  if (is_surv(y)) return(matrix(surv_scores(y), ncol = 1L, dimnames = list(NULL, "y")))
  if (is.factor(y)) {
    lv <- levels(y)
    Y <- outer(as.integer(y), seq_along(lv)[-1L], `==`) * 1
    colnames(Y) <- paste0("y", lv[-1L])
    return(Y)
  }
  Y <- as.matrix(y)
  storage.mode(Y) <- "double"
  if (is.null(colnames(Y))) colnames(Y) <- if (ncol(Y) == 1L) "y" else paste0("y", seq_len(ncol(Y)))
  Y
}

# The limma / lm design, model.matrix(~ covariates [+ block] + y): the intercept,
# the covariates' columns, the block indicators (columns the others determine
# dropped, as lm() reports them NA) and the outcome's; attribute "coef": the
# indices of the outcome's columns.
design_model <- function(design, y) {
  Y <- outcome_columns(y)
  if (is.null(design)) {
    X <- cbind(`(Intercept)` = 1, Y)
  } else {
    A <- cbind(`(Intercept)` = 1, design$Z, block_indicators(design$block, design$m))
    qa <- qr(A)
    keep <- sort(qa$pivot[seq_len(qa$rank)])
    X <- cbind(A[, keep, drop = FALSE], Y)
  }
  attr(X, "coef") <- ncol(X) - ncol(Y) + seq_len(ncol(Y))
  X
}

# One permutation of the samples within the strata (of all samples without strata).
design_shuffle <- function(design) {
  m <- design$m
  if (is.null(design$strata)) return(sample.int(m))
  idx <- seq_len(m)
  for (g in split(idx, design$strata)) idx[g] <- g[sample.int(length(g))]
  idx
}

# The design of a subset of the samples (a resampling fold): the rows of Z and the
# block, columns the subset determines absorbed by the basis's rank.
design_subset <- function(design, rows) {
  if (is.null(design)) return(NULL)
  frame <- design$frame
  if (!is.null(frame)) frame$frame <- frame$frame[rows, , drop = FALSE]
  if (!is.null(frame)) {
    for (k in seq_along(frame$frame)) {
      if (is.factor(frame$frame[[k]])) frame$frame[[k]] <- droplevels(frame$frame[[k]])
    }
  }
  block <- if (!is.null(design$block)) design$block[rows]
  design_build(frame, block, design$samples[rows], Z = design$Z[rows, , drop = FALSE],
               text = design$text)
}

# The error of an entry point or a method that cannot adjust.
design_refuse <- function(what, why) {
  stop(sprintf("%s cannot adjust for covariates or blocks: %s", what, why), call. = FALSE)
}

# The outcome against the design, once both are known: an outcome the design
# determines (all samples of a class in batches of their own) is an error that
# says which samples and what can be estimated; blocks that hold one class draw
# a warning. y: a factor, a numeric vector or matrix, or NULL (unsupervised).
design_check_outcome <- function(design, y) {
  if (is.null(design) || is.null(y)) return(invisible())
  Y <- outcome_columns(y)
  R <- design_residuals(design, Y)
  Yc <- sweep(Y, 2L, colMeans(Y))
  tol <- 1e-8 * pmax(sqrt(colSums(Yc^2)), 1e-300)
  lost <- sqrt(colSums(R^2)) <= tol
  rank_ok <- qr(R, tol = 1e-8)$rank == ncol(Y)
  if (any(lost) || !rank_ok) stop(confounded_message(design, y, lost), call. = FALSE)
  if (ncol(Y) + ncol(design$Q) >= design$m) {
    stop(sprintf(paste0("The design and the outcome use all %d samples' degrees of freedom: ",
                        "no residual is left to estimate the variance. Use fewer covariates or ",
                        "more samples."), design$m), call. = FALSE)
  }
  if (is.factor(y) && !is.null(design$block)) {
    one <- vapply(split(y, design$block), function(v) length(unique(v)) < 2L, NA)
    if (any(one)) {
      warning(sprintf(paste0("%d of %d blocks hold one class only (%s): they inform the ",
                             "variance, not the class difference."), sum(one), length(one),
                      paste(utils::head(names(one)[one], 6L), collapse = ", ")), call. = FALSE)
    }
  }
  invisible()
}

# Which pairs of classes share a level of the design's grouping (so their
# difference can be estimated within it), in words.
shared_levels_words <- function(tab) {
  cls <- colnames(tab)
  if (length(cls) < 2L) return("")
  pairs <- utils::combn(cls, 2L, simplify = FALSE)
  words <- vapply(pairs, function(pr) {
    both <- rownames(tab)[tab[, pr[1L]] > 0 & tab[, pr[2L]] > 0]
    if (length(both)) {
      sprintf("\"%s\" vs \"%s\" (within %s)", pr[1L], pr[2L], paste(both, collapse = ", "))
    } else ""
  }, "")
  none <- vapply(pairs, function(pr) sprintf("\"%s\" vs \"%s\"", pr[1L], pr[2L]), "")[!nzchar(words)]
  paste0(if (any(nzchar(words))) {
    sprintf(" What can be estimated: %s (subset x and y to those classes).",
            paste(words[nzchar(words)], collapse = "; "))
  } else " No two classes share a batch or block.",
  if (length(none)) sprintf(" Not estimable given the design: %s.", paste(none, collapse = "; ")))
}

# The design's discrete variables, for a message.
names_of_grouping <- function(design) {
  f <- if (!is.null(design$frame)) names(Filter(is.factor, design$frame$frame)) else character()
  paste(c(f, if (!is.null(design$block)) "block"), collapse = ", ")
}

# Why the outcome cannot be told from the design, with the samples concerned.
confounded_message <- function(design, y, lost) {
  head <- "The outcome is confounded with the design (covariates or blocks):"
  if (is.factor(y) && !is.null(design$block) &&
      all(vapply(split(y, design$block), function(v) length(unique(v)) == 1L, NA))) {
    return(paste0(head, " every block holds one class (a patient's repeated samples of one ",
                  "class), so the class difference lies between blocks and a block effect ",
                  "takes it all: it cannot be estimated with the block as a fixed effect (as ",
                  "limma's ~ block + y). Leave 'block' out (the samples of a block are then ",
                  "taken as independent); to keep each block's samples together in ",
                  "cross-validation, give evaluate_selection() folds that do, e.g. folds = ",
                  "as.integer(factor(block)) %% 5 + 1."))
  }
  tail <- paste0(" Its effect cannot be told apart from theirs, so it cannot be estimated ",
                 "with this adjustment. What can be estimated: the comparison among the ",
                 "classes that share a batch or block (subset x and y to those samples), or, ",
                 "without the adjustment, the difference that includes the batch's.")
  if (!is.factor(y)) {
    return(paste0(head, " the numeric outcome is a combination of the covariates", tail))
  }
  g <- design$strata %||% design$block
  if (is.null(g) && !is.null(design$frame)) {
    f <- Filter(is.factor, design$frame$frame)
    if (length(f)) g <- droplevels(interaction(f, drop = TRUE))
  }
  if (is.null(g)) {
    return(paste0(head, " a class is a combination of the covariates", tail))
  }
  tab <- table(g, y)
  if (all(rowSums(tab > 0) == 1L) && all(colSums(tab > 0) == 1L)) {
    return(paste0(head, " the classes and the levels of the design (", names_of_grouping(design),
                  ") are the same partition of the samples: a covariate or block is the ",
                  "outcome itself, or a copy of it. Drop it from the design."))
  }
  only <- lapply(levels(y), function(cl) {
    own <- rownames(tab)[tab[, cl] > 0 & rowSums(tab) == tab[, cl]]
    if (sum(tab[own, cl]) == sum(tab[, cl])) own
  })
  names(only) <- levels(y)
  hit <- Filter(length, only)
  if (!length(hit)) return(paste0(head, " a class is a combination of the covariates", tail))
  cl <- names(hit)[1L]
  rows <- which(y == cl)
  tail <- paste0(" Its effect cannot be told apart from theirs, so it cannot be estimated ",
                 "with this adjustment.", shared_levels_words(tab),
                 " Without the adjustment the difference includes the batch's.")
  paste0(head, sprintf(paste0(" every sample of class \"%s\" (%d: %s) is in %s (%s), which ",
                              "%s no other class."), cl, length(rows),
                       sample_words(design$samples, rows),
                       if (length(hit[[1L]]) == 1L) "a batch of its own" else "batches of their own",
                       paste(hit[[1L]], collapse = ", "),
                       if (length(hit[[1L]]) == 1L) "holds" else "hold"), tail)
}
