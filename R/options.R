#' Options of bahsic
#'
#' Four options change how bahsic runs, never what it computes. Each is read
#' by one function, where it is used, and checked there: a value outside the
#' list below is an error that names the option and its valid values (it is
#' never silently ignored, nor does it switch a check off). Set them with
#' [options()], in a script or in `.Rprofile`; `options(bahsic.threads = NULL)`
#' returns one to its default.
#'
#' * `bahsic.max_memory` (default 8 GiB): the memory budget, the most a call
#'   may hold at its peak. Valid values: a positive number of bytes
#'   (`16e9`, `2^34`), `Inf` for no budget, or one string of a number and a
#'   unit, `"B"`, `"KB"`, `"MB"`, `"GB"`, `"TB"` (powers of 1000) or
#'   `"KiB"`, `"MiB"`, `"GiB"`, `"TiB"` (powers of 1024), upper or lower case,
#'   with or without a space: `"16GB"`, `"512 MB"`, `"8 GiB"`. A string of a
#'   number alone (`"9"`) is bytes. Every function that builds large
#'   workspaces counts what it will hold at its peak and stops with an error
#'   *before allocating* when that exceeds the budget: the m x m kernel
#'   matrices (8 m^2 bytes each), in m x m double matrices: [kernel_matrix()]
#'   1 (1.5 with the median heuristic), [label_kernel_matrix()] 1.5, [hsic()]
#'   and the gamma [hsic_test()] without covariates none where the kernels
#'   are made a panel of at most 16 MiB of columns at a time (a data kernel
#'   other than a precomputed, ridge or clinical one; a label kernel on a
#'   one-column outcome), else 1.5 for K and 1.5 for a full label kernel made
#'   whole (those kernels; an outcome of several columns), the permutation test and the tests and
#'   estimates given covariates 1.5, or 3 with a full (non-linear regression)
#'   label kernel, [feature_scores()] with a kernel method 2.5 (3.5), [bahsic()] and
#'   [fohsic()] 5, [l1_hsic()] and [hsic_weights()] 5, [qmi()] as the permutation test,
#'   [clinical_rfe()] 7.5 (the SVM solver's copies), [randsel()] its label kernel and
#'   every thread's workspace (about `threads` times (q + 3) matrices of the
#'   subsample's size, q the bootstraps per batch). [lsmi()] and [l1_lsmi()]
#'   count the median heuristic's pairwise distances (0.5 matrix, 1.5 with
#'   more than one column; `lsmi()` needs them for its default grid of widths
#'   and for a numeric outcome) and their m x `n_basis` design matrices. At m
#'   = 10,000 one matrix is 0.75 GiB. Raise the option on a machine with more
#'   memory, or use an approximation (`approx =`, see [approximations]), which
#'   needs no m x m matrix; its m x r factors (the default rank of
#'   `approx_ichol()` is lowered to fit), the selectors' per-thread m x r
#'   buffers, and the pairs within blocks of the selectors' block path, count
#'   against the same budget. So do the dense samples x features matrix built
#'   from a sparse or out-of-memory input (see \link{input-classes}), the
#'   permutations of `n_perm` ([hsic_test()], [feature_scores()],
#'   [selection_test()]) and the matrices of the simulators
#'   ([simulate_counts()], [simulate_weston()], ...).
#' * `bahsic.threads` (default: unset, see \link{threads}): the default number
#'   of threads of every function with a `threads` argument. Valid values: a
#'   whole number >= 1. More than the cores the session may use is reduced to
#'   that number with a warning, as for the argument.
#' * `bahsic.simd` (default `TRUE`): let the selectors, and the Gram matrices
#'   of [hsic()] and [kernel_matrix()], use their AVX2 loops on CPUs that have
#'   them; `FALSE` forces the portable loops (same results to rounding).
#'   Valid values: `TRUE` or `FALSE`.
#' * `bahsic.series` (default `TRUE`): the series screen of [bahsic()] and
#'   [fohsic()] with the Gaussian kernel and the exact estimator (see
#'   [bahsic()], "Series screen"); `FALSE` scores every candidate exactly, with
#'   the same ranking and path. Valid values: `TRUE`, `FALSE`, or 1, 2 or 3,
#'   which fix the number of series terms of the first screen (for
#'   benchmarks).
#'
#' @examples
#' old <- options(bahsic.max_memory = "16GB", bahsic.threads = 1)
#' default_threads()
#' options(old)
#' @seealso \link{threads}, \link{input-checks}
#' @name bahsic_options
NULL

# ---- one reader per option ------------------------------------------------------

# The error of an option set to something outside its valid values: names
# the option, what it holds, and what it may hold.
option_error <- function(name, value, valid) {
  shown <- tryCatch(paste(deparse(value, width.cutoff = 60L, nlines = 1L), collapse = ""),
                    error = function(e) class(value)[1L])
  if (nchar(shown) > 60L) shown <- paste0(substr(shown, 1L, 57L), "...")
  stop(sprintf("The option %s is %s; it must be %s (see ?bahsic_options).", name, shown, valid),
       call. = FALSE)
}

# The memory budget in bytes (option bahsic.max_memory): a positive number,
# or a string such as "16GB" or "8 GiB"; 8 GiB when unset.
option_max_memory <- function() {
  v <- getOption("bahsic.max_memory")
  if (is.null(v)) return(8 * 1024^3)
  bytes <- if (is.character(v) && length(v) == 1L && !is.na(v)) {
    parse_bytes(v)
  } else if (is.numeric(v) && length(v) == 1L && !is.na(v) && is.null(dim(v))) {
    as.double(v)
  } else {
    NA_real_
  }
  if (is.na(bytes) || bytes <= 0) {
    option_error("bahsic.max_memory", v, paste0(
      "a positive number of bytes (e.g. 16e9, or Inf for no budget) or a size such as ",
      "\"16GB\", \"512MB\" or \"8 GiB\""))
  }
  bytes
}

# Bytes from "16GB", "512 MB", "8 GiB", "1e9" (units: B, KB..TB in powers of
# 1000, KiB..TiB in powers of 1024, any case); NA for anything else.
parse_bytes <- function(s) {
  pattern <- "^[[:space:]]*([0-9]*\\.?[0-9]+([eE][+-]?[0-9]+)?)[[:space:]]*([kmgt]i?)?(b)?[[:space:]]*$"
  s_low <- tolower(s)
  if (!grepl(pattern, s_low)) return(NA_real_)
  number <- as.double(sub(pattern, "\\1", s_low))
  prefix <- sub(pattern, "\\3", s_low)
  unit <- sub(pattern, "\\4", s_low)
  # a prefix needs its B ("16G" is refused: bits or bytes is not said)
  if (nzchar(prefix) && !nzchar(unit)) return(NA_real_)
  if (!nzchar(prefix)) return(number)
  power <- match(substr(prefix, 1L, 1L), c("k", "m", "g", "t"))
  base <- if (nchar(prefix) == 2L) 1024 else 1000
  number * base^power
}

# The thread count of the option bahsic.threads, NULL when unset; above the
# cores the session may use, reduced to them with a warning (as
# check_threads() for the argument).
option_threads <- function() {
  v <- getOption("bahsic.threads")
  if (is.null(v)) return(NULL)
  if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v < 1 || v != round(v)) {
    option_error("bahsic.threads", v, "a whole number >= 1, e.g. options(bahsic.threads = 2)")
  }
  cap_threads(v, "options(bahsic.threads = %s)")
}

# The option bahsic.simd (default TRUE) lets the pair loops use their AVX2
# version on CPUs that have it; FALSE forces the baseline build (for tests
# and for comparison). The Gram matrices' AVX2 loops (C_gram) give the
# baseline's values to the last bit, so for them it changes only the time.
option_simd <- function() {
  v <- getOption("bahsic.simd")
  if (is.null(v)) return(TRUE)
  if (!is.logical(v) || length(v) != 1L || is.na(v)) {
    option_error("bahsic.simd", v, "TRUE or FALSE")
  }
  v
}

# The option bahsic.series (default TRUE): the series screen of the exact
# Gaussian selectors (src/series.c), which scores exactly only the
# candidates that can reach an iteration's batch -- the same ranking,
# scores and path as scoring every candidate. FALSE scores every candidate
# (the reference); 1, 2 or 3 fix the number of series terms (benchmarks).
# The C option: 0 off, -1 terms chosen per iteration, 1-3 fixed.
option_series <- function() {
  v <- getOption("bahsic.series")
  if (is.null(v) || isTRUE(v)) return(-1L)
  if (isFALSE(v)) return(0L)
  if (is.numeric(v) && length(v) == 1L && !is.na(v) && v %in% 1:3) return(as.integer(v))
  option_error("bahsic.series", v, "TRUE, FALSE, or 1, 2 or 3 (the number of series terms)")
}

# ---- sizes: integer limits and the memory budget ---------------------------------

# A count beyond R's integers (and so beyond any vector's dimension) is an
# error that says so, not "must be a whole number" nor an NA from as.integer().
check_int_limit <- function(v, arg) {
  if (v > .Machine$integer.max) {
    stop(sprintf(paste0("'%s' = %s is more than %d (.Machine$integer.max), the largest count ",
                        "R's integers hold: use a smaller '%s'."),
                 arg, format(v), .Machine$integer.max, arg), call. = FALSE)
  }
  invisible()
}

# Stop before allocating when the count argument `arg` (= value) makes a call
# hold `need` bytes at its peak (detail: what they are), above the memory
# budget (option bahsic.max_memory).
check_size <- function(need, arg, value, detail) {
  budget <- option_max_memory()
  if (need > budget) {
    stop(sprintf(paste0("%s = %s needs %s (%s), above the memory budget of %s (option ",
                        "bahsic.max_memory). Use a smaller '%s', or raise the option if the ",
                        "machine has the memory."),
                 arg, format(value, big.mark = ","), format_gib(need), detail,
                 format_gib(budget), arg),
         call. = FALSE)
  }
  invisible()
}

# The permutations of m samples are drawn up front, an m x n_perm integer
# matrix (`copies` of it at the peak), with a statistic or two and a seed
# per permutation: refuse them above the memory budget before drawing.
check_perm_size <- function(n_perm, m, copies = 1) {
  need <- (4 * copies * as.double(m) + 16) * n_perm
  check_size(need, "n_perm", n_perm, sprintf("the permutations of %d samples", m))
}
