#' Progress bars for long runs
#'
#' **No bar shows until progressr is switched on.** In a script run by
#' `Rscript` (or `R CMD BATCH`) start with
#' `options(progressr.enable = TRUE); progressr::handlers(global = TRUE)`, or
#' wrap one call as `progressr::with_progress(fit <- bahsic(x, y), enable =
#' TRUE)`: progressr draws nothing outside an interactive session otherwise,
#' even with `handlers(global = TRUE)`. In an interactive session
#' `progressr::handlers(global = TRUE)` (once) or `progressr::with_progress()`
#' around a call is enough.
#'
#' The functions of bahsic that can run for long -- [bahsic()], [fohsic()],
#' [randsel()], [l1_lsmi()], [l1_hsic()], [clinical_rfe()], [hsic_weights()],
#' [evaluate_selection()], [hsic_test()] with `method = "permutation"`,
#' [feature_scores()] with permutation p-values or `adjust = "maxT"`,
#' [selection_test()] and [stability_selection()] -- report their progress
#' through the progressr package, which draws the bar (as above); choose how
#' the progress is shown with `progressr::handlers()` (a text bar, the default;
#' the cli or progress packages, a sound, ...).
#'
#' Each call sends at most about 100 updates (one whenever another 1% of
#' its work is done, at most ten a second, and one at the end), so a bar
#' costs next to nothing even on a short run. Only the outermost call reports: the runs of
#' [bahsic()] inside [evaluate_selection()], [stability_selection()] or
#' [selection_test()] advance the outer bar and draw none of their own.
#' Units run on parallel workers report too: through future
#' (`parallel = "future"`), progressr carries the updates from the workers
#' to this session as they come; with a BiocParallel back end, which does
#' not, the units run in consecutive chunks (at most about 20) and the bar
#' advances after each chunk. Neither changes a result. The `verbose`
#' messages of the selectors are independent of the bar, and Ctrl-C stops
#' a run with or without it.
#'
#' @name progress
#' @aliases bahsic-progress
#' @seealso [progressr::with_progress()], [progressr::handlers()].
#' @examples
#' set.seed(1)
#' x <- matrix(rnorm(40 * 30), 40, 30)
#' y <- x[, 1] + rnorm(40, sd = 0.3)
#' progressr::with_progress(
#'   fit <- bahsic(x, y, n_features = 3),
#'   handlers = progressr::handler_txtprogressbar(file = stderr()),
#'   enable = TRUE
#' )
#' selected(fit, 3)
NULL

# Who reports: the first long function to start a bar holds it until it
# returns; the long functions it calls (and the units it runs, on this
# session or on a worker: progress_muted()) find it held and report nothing.
progress_state <- new.env(parent = emptyenv())
progress_state$held <- FALSE

# A bar of `steps` units of work for the calling function, or NULL when an
# outer call holds the bar or progressr is off. The caller releases it when it returns:
#   pr <- progress_start(n)
#   on.exit(progress_end(pr), add = TRUE)
#   ... progress_tick(pr, amount) ... progress_finish(pr)
# The updates are rate-limited here: one when another 1% of the steps is
# done (`every`) and `interval` seconds have passed since the last one, and
# one when the last step is. An update of progressr costs some 0.1 to 0.4
# ms; at most 10 a second keep a bar under 0.5% of any run, however short
# (inst/bench/bench-progress.R).
progress_start <- function(steps, label = NULL) {
  # progressr off (its default outside an interactive session, unless
  # with_progress(enable = TRUE) or the option turns it on): no bar at all,
  # and the runs take their plain paths
  if (progress_state$held || !isTRUE(getOption("progressr.enable", TRUE))) return(NULL)
  steps <- max(1, as.double(steps))
  p <- progressr::progressor(steps = steps, on_exit = FALSE,
                             label = if (is.null(label)) NA_character_ else label)
  progress_state$held <- TRUE
  pr <- new.env(parent = emptyenv())
  pr$p <- p
  pr$steps <- steps
  pr$every <- steps / 100
  pr$done <- 0
  pr$sent <- 0
  pr$interval <- 0.1
  pr$last <- proc.time()[[3L]]
  class(pr) <- "bahsic_progress"
  pr
}

# Release the bar (on.exit() of the function that started it, so an error
# or an interrupt releases it too).
progress_end <- function(pr) {
  if (!is.null(pr)) progress_state$held <- FALSE
  invisible(NULL)
}

# `amount` more steps done; an update only when 1% more is done since the
# last one and pr$interval seconds have passed, or when all of it is.
progress_tick <- function(pr, amount = 1) {
  if (is.null(pr)) return(invisible(NULL))
  pr$done <- min(pr$steps, pr$done + amount)
  gain <- pr$done - pr$sent
  if (gain <= 0) return(invisible(NULL))
  if (pr$done < pr$steps) {
    if (gain < pr$every) return(invisible(NULL))
    now <- proc.time()[[3L]]
    if (now - pr$last < pr$interval) return(invisible(NULL))
    pr$last <- now
  }
  pr$sent <- pr$done
  pr$p(amount = gain)
  invisible(NULL)
}

# All steps done: a loop that stops early (convergence, a target reached)
# completes the bar.
progress_finish <- function(pr) {
  if (is.null(pr)) return(invisible(NULL))
  progress_tick(pr, pr$steps - pr$done)
}

# Steps already reported by others (the workers of a future back end):
# counted as done without another update.
progress_sent <- function(pr, amount) {
  if (is.null(pr)) return(invisible(NULL))
  pr$done <- min(pr$steps, pr$done + amount)
  pr$sent <- pr$done
  invisible(NULL)
}

# Run code with the bar held, so that long functions it calls report
# nothing; on a parallel worker, whose session has its own state, too. The
# state is put back afterwards.
progress_muted <- function(code) {
  old <- progress_state$held
  progress_state$held <- TRUE
  on.exit(progress_state$held <- old)
  code
}

# The work of BAHSIC / FOHSIC on d features down to (up to) n_target, with
# batches of floor(step * n) (at least 1, src/schedule.c): the number of
# candidates scored over all iterations, which is what the tick of the C
# loop counts (progress_select()).
select_work <- function(method, d, step, n_target) {
  batch <- function(n) max(1, floor(step * n))
  work <- 0
  if (is_backward(method)) {
    target <- if (is.null(n_target)) 0 else n_target
    ns <- d
    while (ns > target) {
      work <- work + ns
      ns <- ns - min(batch(ns), ns - target)
    }
    work + ns
  } else {
    target <- if (is.null(n_target)) d else n_target
    nsel <- 0
    while (nsel < target) {
      work <- work + (d - nsel)
      nsel <- nsel + min(batch(d - nsel), target - nsel)
    }
    work
  }
}

# The function the C loop of BAHSIC / FOHSIC calls after every iteration
# with the size of the set (bk_select_tick(), src/select_call.c), or NULL
# without a bar. BAHSIC's tick reports the set it scored, so its size is
# the work of the iteration; FOHSIC's reports the set after the batch was
# added, and the work was the candidates left before it.
progress_select <- function(pr, method, d) {
  if (is.null(pr)) return(NULL)
  if (is_backward(method)) return(function(size) progress_tick(pr, size))
  before <- 0
  function(size) {
    progress_tick(pr, d - before)
    before <<- size
  }
}

# The units of a parallel back end (check_parallel()) with the bar `pr`
# (NULL: none), unit k being amounts[k] steps of it (default 1 each). Every
# unit runs muted (progress_muted()): a long function it calls reports
# nothing, on this session or on a worker.
progress_amounts <- function(i, amounts) {
  if (is.null(amounts)) rep(1, length(i)) else as.double(amounts)
}

# A unit function that runs muted; the units of a future back end also
# carry the amount their worker signals through the progressor `p` when
# they end (progress_lapply_future()).
progress_unit <- function(f, p = NULL) {
  force(f)
  force(p)
  if (is.null(p)) return(function(unit) progress_muted(f(unit)))
  function(el) {
    value <- progress_muted(f(el[[1L]]))
    if (el[[2L]] > 0) p(amount = el[[2L]])
    value
  }
}

# Serial: an update (rate-limited) after each unit, on this session.
progress_lapply <- function(i, f, pr, amounts) {
  g <- progress_unit(f)
  if (is.null(pr)) return(lapply(i, g))
  amounts <- progress_amounts(i, amounts)
  out <- vector("list", length(i))
  for (k in seq_along(i)) {
    value <- g(i[[k]])
    if (!is.null(value)) out[[k]] <- value
    progress_tick(pr, amounts[k])
  }
  names(out) <- names(i)
  out
}

# future.apply: the workers signal, progressr relays the updates to this
# session. At most about 100 of them: the units in consecutive groups, the
# last unit of a group signalling the group's amount.
progress_lapply_future <- function(i, f, pr, amounts, lapply_fun) {
  if (is.null(pr)) return(lapply_fun(i, progress_unit(f)))
  amounts <- progress_amounts(i, amounts)
  n <- length(i)
  group <- (seq_len(n) - 1L) %/% max(1L, ceiling(n / 100))
  last <- !duplicated(group, fromLast = TRUE)
  signal <- ifelse(last, rowsum(amounts, group)[as.character(group), 1L], 0)
  units <- lapply(seq_len(n), function(k) list(i[[k]], unname(signal[k])))
  names(units) <- names(i)
  out <- lapply_fun(units, progress_unit(f, pr$p))
  progress_sent(pr, sum(amounts))
  out
}

# BiocParallel, which relays no conditions: the units in consecutive chunks
# of max(workers, n / 20), an update on this session after each chunk. The
# units and their order are those of one call, so is the result.
progress_lapply_chunks <- function(i, f, pr, amounts, parallel) {
  g <- progress_unit(f)
  if (is.null(pr)) return(BiocParallel::bplapply(i, g, BPPARAM = parallel))
  amounts <- progress_amounts(i, amounts)
  n <- length(i)
  size <- max(BiocParallel::bpnworkers(parallel), ceiling(n / 20))
  release <- hold_parallel(parallel)
  on.exit(release(), add = TRUE)
  out <- vector("list", 0L)
  for (ch in chunk_units(n, size)) {
    out <- c(out, BiocParallel::bplapply(i[ch], g, BPPARAM = parallel))
    progress_tick(pr, sum(amounts[ch]))
  }
  out
}

# The roxygen section on progress, shared by every long function
# (@eval roxygen_progress("the iterations")).
roxygen_progress <- function(units) {
  c("@section Progress:",
    paste(
      "A progress bar follows", units, "through the progressr package:",
      "wrap the call in `progressr::with_progress()` or set",
      "`progressr::handlers(global = TRUE)` once to see it (at most about 100 updates,",
      "and none from the long functions it calls). The `verbose` messages, if any,",
      "are separate; Ctrl-C stops the run with or without a bar. See [progress]."
    ))
}
