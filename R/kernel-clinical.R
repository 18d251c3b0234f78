# The clinical kernel (eq. 3-4 of Paul and Dupont (2014); Daemen and De
# Moor 2009) for mixed continuous and categorical data. Its data path: the
# normaliser (normalise_inputs(clinical = TRUE)) turns the data frame into
# level codes and raw values (clinical_columns()), drops or rejects samples
# with NA as for every kernel, then divides the continuous columns by their
# range (clinical_scale()). The encoded matrix carries the attribute
# "clinical" (column types, minima, ranges, levels) and is what every C
# routine of src/clinical.c reads.

#' The clinical kernel for mixed continuous and categorical data
#'
#' `kernel_clinical()` is the kernel of Daemen and De Moor (2009) used by
#' Paul and Dupont for mixed feature selection (their eq. 3-4): the average
#' over the p features of one kernel per feature,
#' \deqn{k(x, x') = \frac{1}{p} \sum_{f=1}^p k_f(x_f, x'_f),}
#' with \eqn{k_f(a, b) = (r_f - |a - b|) / r_f} for a continuous feature of
#' range \eqn{r_f} (max minus min in the data the kernel is computed on, the
#' training data) and \eqn{k_f(a, b) = 1[a = b]} for a categorical one. Every
#' feature counts the same whatever its scale or number of levels, the
#' kernel lies in \[0, 1\] with 1 on the diagonal, and it is positive
#' semi-definite (for values scaled to \[0, 1\], \eqn{1 - |a - b| = \min(a, b)
#' + \min(1 - a, 1 - b)}, a sum of two Brownian-motion kernels).
#'
#' **Column types.** In a data frame, factor, character and logical columns
#' are categorical; numeric columns are continuous; an **ordered factor** is
#' treated as continuous on its level codes 1, 2, ..., with the range of the
#' codes present, as Daemen and De Moor do for ordinal variables (Paul and
#' Dupont only distinguish continuous from categorical). A numeric matrix is
#' all continuous. Categorical variables stored as numbers (e.g. a 1/2/3
#' code) must be made factors first, or they are taken as continuous; a
#' two-valued numeric column gives the same kernel either way.
#'
#' **Constant columns** (a single value, or a single level) have range 0: they
#' get \eqn{k_f = 1} for every pair, the value of two equal values (the limit
#' of the continuous formula and the categorical rule alike), so they are kept
#' and ranked but carry no information and only dilute the average; a warning
#' names them. Missing values follow `na_action` as for every kernel.
#'
#' **Where it works.** [kernel_matrix()], [hsic()], [hsic_test()],
#' [bahsic()], [fohsic()] and [clinical_rfe()] accept data frames with factor or
#' character columns with this kernel (and only with it), in the default and
#' the formula interface (where the variables are taken as they are, not
#' expanded into dummy columns). Because the kernel is an average of
#' per-feature kernels, HSIC of a feature set is the mean of per-feature
#' terms: [bahsic()] and [fohsic()] compute those once in C and score every
#' candidate exactly in O(1), so with this kernel (as with the linear one)
#' both reduce to ranking the per-feature terms; `standardize` is ignored
#' (the kernel scales by range). [feature_scores()] and [randsel()] do not
#' take it.
#'
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_kernel`. The kernel attached to a
#'   [kernel_matrix()] result has the column types, minima and ranges it used
#'   in `params`.
#' @references Daemen, A. and De Moor, B. (2009). Development of a kernel
#'   function for clinical data. Proc. IEEE EMBC, 5913-5917.
#'
#'   Paul, J. and Dupont, P. Kernel methods for mixed feature selection.
#'   ESANN 2014, eq. 3-4.
#' @family kernels
#' @examples
#' df <- data.frame(age = c(23, 35, 51, 44), sex = factor(c("f", "m", "m", "f")),
#'                  stage = factor(c("I", "II", "III", "II"), ordered = TRUE))
#' K <- kernel_matrix(kernel_clinical(), df)
#' K
#' # sample 1 vs 2: age 1 - 12/28, sex 0, stage 1 - 1/2
#' (1 - 12 / 28 + 0 + 0.5) / 3
#' hsic(df, factor(c("a", "b", "b", "a")), kernel = kernel_clinical(),
#'      estimator = "biased")
#' @export
kernel_clinical <- function(...) {
  check_dots(...)
  new_kernel("clinical",
             label = "clinical kernel: mean over features of 1 - |a - b| / range or 1[a = b]")
}

is_clinical <- function(kernel) {
  inherits(kernel, "bahsic_kernel") && identical(kernel$name, "clinical")
}

# data.frame or matrix -> double matrix with the raw values of continuous
# columns and the level codes of categorical ones (NA kept), with attributes
# "categorical" (logical per column) and "levels" (NULL for continuous
# columns). ref: the "clinical" attribute of a previous encoding, whose types
# and levels are reused (a level it does not know gets code 0, which equals no
# known level).
clinical_columns <- function(x, ref = NULL) {
  if (is.data.frame(x)) {
    ok <- vapply(x, function(col) {
      is.null(dim(col)) && (is.numeric(col) || is.logical(col) || is.character(col) ||
                              is.factor(col))
    }, logical(1))
    if (!all(ok)) {
      stop(sprintf(paste0("'x' has columns the clinical kernel cannot use (%s): give numbers, ",
                          "factors, characters or logicals."),
                   paste(utils::head(names(x)[!ok], 5), collapse = ", ")), call. = FALSE)
    }
    categorical <- vapply(x, function(col) !is.numeric(col) && !is.ordered(col), logical(1))
    if (!is.null(ref)) {
      if (length(ref$categorical) != ncol(x)) {
        stop(sprintf("'x' has %d columns but the kernel was computed on %d.", ncol(x),
                     length(ref$categorical)), call. = FALSE)
      }
      categorical <- ref$categorical
    }
    lev <- vector("list", ncol(x))
    for (f in seq_along(x)) {
      col <- x[[f]]
      if (categorical[f]) {
        ch <- as.character(col)
        lev[[f]] <- if (!is.null(ref)) {
          ref$levels[[f]]
        } else if (is.factor(col)) {
          levels(col)
        } else {
          sort(unique(ch[!is.na(ch)]))
        }
        code <- match(ch, lev[[f]])
        code[is.na(code) & !is.na(ch)] <- 0L
        x[[f]] <- as.double(code)
      } else {
        x[[f]] <- as.double(if (is.factor(col)) as.integer(col) else col)
      }
    }
    x <- as_feature_matrix(x)
  } else {
    x <- as_feature_matrix(x)
    categorical <- if (is.null(ref)) rep(FALSE, ncol(x)) else ref$categorical
    lev <- vector("list", ncol(x))
  }
  names(categorical) <- colnames(x)
  attr(x, "categorical") <- categorical
  attr(x, "levels") <- lev
  x
}

# Codes and raw values (finite, from clinical_columns()) -> the encoding the C
# code reads: continuous columns shifted and divided by their range, so that
# k_f = 1 - |a - b|; with ref, by the training minima and ranges, and clamped
# to [0, 1] (a new sample beyond the training range is as far as the extreme).
clinical_scale <- function(x, ref = NULL, warn = TRUE) {
  categorical <- attr(x, "categorical")
  lev <- attr(x, "levels")
  attr(x, "categorical") <- NULL
  attr(x, "levels") <- NULL
  p <- ncol(x)
  if (is.null(ref)) {
    lo <- apply(x, 2L, min)
    range <- apply(x, 2L, max) - lo
    constant <- range == 0
    lo[categorical] <- NA_real_
    range[categorical] <- NA_real_
    if (warn && any(constant)) {
      warning(sprintf(paste0("%d constant feature%s (%s%s): the clinical kernel is 1 for every ",
                             "pair on %s, which carries no information and dilutes the ",
                             "average; kept, so that every feature is ranked."),
                      sum(constant), if (sum(constant) > 1L) "s" else "",
                      paste(utils::head(colnames(x)[constant], 3L), collapse = ", "),
                      if (sum(constant) > 3L) ", ..." else "",
                      if (sum(constant) > 1L) "them" else "it"), call. = FALSE)
    }
  } else {
    lo <- ref$min
    range <- ref$range
  }
  for (f in which(!categorical)) {
    v <- if (range[f] > 0) (x[, f] - lo[f]) / range[f] else 0
    if (!is.null(ref)) v <- pmin(pmax(v, 0), 1)
    x[, f] <- v
  }
  attr(x, "clinical") <- list(categorical = categorical, min = lo, range = range,
                              levels = lev)
  x
}

clinical_flags <- function(z) {
  enc <- attr(z, "clinical")
  if (is.null(enc)) stop("internal: data not encoded for the clinical kernel", call. = FALSE)
  as.integer(enc$categorical)
}

# The clinical kernel of the encoded matrix z (flags: clinical_flags()):
# between z's rows and train's if given (the same columns), else the Gram
# matrix of z; the weighted sum of the per-feature kernels if weight is given
# (one per column, eq. 8 of Paul and Dupont 2014), else their average.
clinical_matrix <- function(z, flags, threads = 1L, train = NULL, weight = NULL) {
  opts <- list(threads = threads)
  if (!is.null(train)) opts$train <- train
  if (!is.null(weight)) opts$weight <- weight
  .Call(C_clinical, z, flags, opts)
}

# Gram matrix of an encoded matrix; the kernel is returned with the encoding.
clinical_gram <- function(kernel, z, threads = 1L) {
  K <- clinical_matrix(z, clinical_flags(z), threads)
  if (!is.null(rownames(z))) dimnames(K) <- list(rownames(z), rownames(z))
  kernel$params <- attr(z, "clinical")
  attr(K, "kernel") <- kernel
  K
}

# The clinical kernel between new samples (rows of `newdata`, the same
# columns) and the training samples `x` as encoded with their own ranges and
# levels: what a classifier trained on the clinical kernel predicts from.
# Internal; used by inst/bench/bench-clinical.R and the tests.
clinical_cross <- function(newdata, x) {
  train <- normalise_inputs(x, NULL, require_y = FALSE, clinical = TRUE)$x
  enc <- attr(train, "clinical")
  new <- clinical_columns(newdata, ref = enc)
  check_finite_x(new)
  new <- clinical_scale(new, ref = enc)
  clinical_matrix(new, as.integer(enc$categorical), train = train)
}
