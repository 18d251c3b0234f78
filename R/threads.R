#' Threads: the default and the limit
#'
#' Every function with a `threads` argument ([hsic()], [hsic_test()],
#' [kernel_matrix()], [feature_scores()], [bahsic()], [fohsic()],
#' [randsel()], [clinical_rfe()], [hsic_weights()], [qmi()],
#' [evaluate_selection()]) runs its C loops on that many OpenMP threads. The
#' result never depends on it: sums are reduced in a fixed order and ties
#' are broken by feature index, so 1 and 8 threads give identical numbers.
#'
#' The default, `default_threads()`, is
#' * the option `bahsic.threads`, when set (e.g. `options(bahsic.threads = 4)`
#'   in a script or `.Rprofile`);
#' * otherwise every core of the machine (`parallel::detectCores()`), but at
#'   most 2 under `R CMD check --as-cran` (environment variable
#'   `_R_CHECK_LIMIT_CORES_`, CRAN's limit for examples and tests) and at
#'   most `OMP_THREAD_LIMIT` / `OMP_NUM_THREADS` when those are set.
#'
#' All cores is the default because it was the fastest on every function
#' measured by `inst/bench/bench-threads.R` (in the sources): on a 2-core
#' machine two threads ranked the 12,625 genes of the ALL data by BAHSIC 1.74
#' times faster than one, and sped up [hsic()] (1.29x), [hsic_test()]
#' (1.42x) and [kernel_matrix()] (1.43x) at 2,000 samples, [randsel()]
#' (1.43x), BAHSIC on the 38 Golub arrays (1.33x) and per-gene HSIC
#' (1.12x). Inside
#' parallel workers that share a machine (`parallel =`, future or
#' BiocParallel, or `parallel::mclapply()`), use fewer threads per worker
#' (`threads = 1`, or the option in each worker); [evaluate_selection()]
#' with `parallel` uses 1 thread per worker unless `threads` is given.
#'
#' A request for more threads than the machine has cores (or than
#' `OMP_THREAD_LIMIT`) is reduced to that number with a warning: more threads
#' than cores only slow the loops down, and very large numbers would exhaust
#' the memory of the per-thread workspaces.
#'
#' @param ... not used (an argument given here is an error).
#' @seealso [bahsic_options] for every option of the package.
#' @return `default_threads()`: the number of threads, a whole number >= 1.
#' @examples
#' default_threads()
#' old <- options(bahsic.threads = 1)
#' default_threads()
#' options(old)
#' @name threads
#' @export
default_threads <- function(...) {
  check_dots(...)
  opt <- option_threads()
  if (!is.null(opt)) return(opt)
  n <- max_threads()
  if (nzchar(Sys.getenv("_R_CHECK_LIMIT_CORES_")) &&
      !identical(toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_")), "FALSE")) {
    n <- min(n, 2L)
  }
  omp <- suppressWarnings(as.integer(Sys.getenv("OMP_NUM_THREADS")))
  if (!is.na(omp) && omp >= 1L) n <- min(n, omp)
  n
}

# The machine's cores, counted once per session: parallel::detectCores()
# runs a shell command on Linux (3-4 ms), as long as the t statistic of
# 12,625 genes takes.
cores_cache <- new.env(parent = emptyenv())
machine_cores <- function() {
  if (is.null(cores_cache$n)) {
    n <- parallel::detectCores()
    cores_cache$n <- if (is.na(n) || n < 1L) 1L else as.integer(n)
  }
  cores_cache$n
}

# The most threads a call may use: the machine's cores, and OMP_THREAD_LIMIT.
max_threads <- function() {
  cores <- machine_cores()
  limit <- suppressWarnings(as.integer(Sys.getenv("OMP_THREAD_LIMIT")))
  if (!is.na(limit) && limit >= 1L) cores <- min(cores, limit)
  as.integer(cores)
}

# The one place a `threads` argument is checked and capped before it reaches
# OpenMP (threads = 1e6 crashed, 40000 aborted in libgomp, and randsel()'s
# per-thread workspaces asked for 43 GB).
check_threads <- function(threads) {
  if (!is.numeric(threads) || length(threads) != 1L || is.na(threads) || threads < 1 ||
      threads != round(threads)) {
    stop("'threads' must be a whole number >= 1 (see ?threads for the default).", call. = FALSE)
  }
  cap <- max_threads()
  if (threads > cap) {
    warning(sprintf("threads = %s is more than the %d core%s this session may use: using %d.",
                    format(threads), cap, if (cap == 1L) "" else "s", cap), call. = FALSE)
    threads <- cap
  }
  as.integer(threads)
}
