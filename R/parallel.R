# Parallel back ends for the independent units of a run (cross-validation
# folds, permutations, bootstraps, feature blocks). Every entry point that
# takes `parallel` accepts NULL (serial), "future" (future.apply, on the
# back end of future::plan()), a future plan (a strategy such as
# future::multisession or future::tweak(future::cluster, workers = cl),
# set with future::plan() for the call) or a BiocParallelParam;
# check_parallel() turns it into one function(i, f, progress = NULL,
# amounts = NULL) with lapply()'s contract; `progress`, a bar of
# progress_start() (R/progress.R), advances by amounts[k] (default 1) when
# unit k ends. Units that draw random numbers run from seeds drawn
# beforehand on the main thread (with_seed()), so the result does not
# depend on the back end.

# `frame`: the frame of the entry point, where a future plan given as
# `parallel` is put back on exit (check_parallel() is called from the
# function whose run uses the back end, so the plan holds for the whole call
# and its workers start once).
check_parallel <- function(parallel, frame = parent.frame()) {
  if (is.null(parallel)) {
    return(function(i, f, progress = NULL, amounts = NULL) {
      progress_lapply(i, f, progress, amounts)
    })
  }
  if (is_future_plan(parallel)) {
    run <- check_parallel("future")
    use_future_plan(parallel, frame)
    return(run)
  }
  if (identical(parallel, "future")) {
    if (!requireNamespace("future.apply", quietly = TRUE)) {
      stop(paste0("A future back end (parallel = \"future\" or a future plan) needs the ",
                  "future.apply package: install.packages(\"future.apply\")."),
           call. = FALSE)
    }
    # every unit sets its own seed or draws none: future's streams are not
    # used, and the caller's stream, which future.seed = TRUE advances, is
    # put back where the serial run leaves it
    return(function(i, f, progress = NULL, amounts = NULL) {
      keep_rng(progress_lapply_future(i, worker_unit(f), progress, amounts, function(units, g) {
        future.apply::future_lapply(units, g, future.seed = TRUE)
      }))
    })
  }
  if (methods::is(parallel, "BiocParallelParam")) {
    if (!requireNamespace("BiocParallel", quietly = TRUE)) {
      stop("A BiocParallelParam needs the BiocParallel package.", call. = FALSE)
    }
    return(function(i, f, progress = NULL, amounts = NULL) {
      progress_lapply_chunks(i, worker_unit(f), progress, amounts, parallel)
    })
  }
  stop(parallel_error(parallel), call. = FALSE)
}

# f for the workers of a back end: where it runs in another process, the
# calls it makes that leave `threads` to its default run on 1 thread
# (default_threads(), R/threads.R): the workers share the machine's cores,
# and a thread more per worker only makes them wait for each other. A
# sequential plan runs f in this process, with the usual default.
worker_unit <- function(f) {
  force(f)
  home <- Sys.getpid()
  function(unit) {
    if (!identical(Sys.getpid(), home)) {
      old <- cores_cache$worker
      cores_cache$worker <- TRUE
      on.exit(cores_cache$worker <- old)
    }
    f(unit)
  }
}

# A future plan: what future::plan() takes and returns -- a strategy
# (future::multisession, future::cluster: functions of class "future"), a
# tweaked one (future::tweak()), or the "FutureStrategy" that plan() returns.
is_future_plan <- function(parallel) {
  inherits(parallel, "FutureStrategy") || (is.function(parallel) && inherits(parallel, "future"))
}

# Set the plan for the rest of the call that owns `frame`, and put the
# caller's plan back when it exits (as withr::defer() does). Neither
# switching plans nor starting or stopping workers may move the caller's
# random number stream.
use_future_plan <- function(plan, frame) {
  old <- keep_rng(future::plan(plan))
  restore <- function() keep_rng(future::plan(old))
  do.call(base::on.exit, list(as.call(list(restore)), TRUE, FALSE), envir = frame)
  invisible()
}

# What `parallel` accepts, and what was given instead.
parallel_error <- function(parallel) {
  given <- if (is.character(parallel) && length(parallel) == 1L && !is.na(parallel)) {
    hint <- switch(parallel,
                   multisession = , multicore = , cluster = , sequential = ,
                   batchtools_slurm = sprintf(" (for a plan, pass the function: future::%s)",
                                              parallel),
                   snow = , SnowParam = , MulticoreParam = ,
                   BatchtoolsParam = " (pass a param object, e.g. BiocParallel::SnowParam(2))",
                   "")
    sprintf("\"%s\"%s", parallel, hint)
  } else if (is.numeric(parallel)) {
    paste0("a number (for n workers, use e.g. future::tweak(future::multisession, workers = n) ",
           "or BiocParallel::SnowParam(n))")
  } else {
    sprintf("an object of class %s", paste(class(parallel), collapse = "/"))
  }
  paste0("'parallel' must be NULL, \"future\" or a BiocParallel BiocParallelParam ",
         "(e.g. BiocParallel::SnowParam(2)), or a future plan ",
         "(e.g. future::tweak(future::multisession, workers = 2)); it is ", given, ".")
}

# A BiocParallelParam that is not up is started for a run that calls the
# back end many times (randsel(): once per iteration), or bplapply() would
# start and stop its workers at every call. Returns what undoes it, for
# on.exit().
hold_parallel <- function(parallel) {
  if (methods::is(parallel, "BiocParallelParam") && !BiocParallel::bpisup(parallel)) {
    BiocParallel::bpstart(parallel)
    return(function() BiocParallel::bpstop(parallel))
  }
  function() invisible(NULL)
}

# The random number state of the session (generator and .Random.seed), and
# putting it back.
rng_state <- function() {
  env <- globalenv()
  list(kinds = RNGkind(),
       seed = if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env))
}

rng_restore <- function(state) {
  env <- globalenv()
  RNGkind(state$kinds[1L], state$kinds[2L], state$kinds[3L])
  if (is.null(state$seed)) {
    if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env)
  } else {
    assign(".Random.seed", state$seed, envir = env)
  }
}

# Run code from a seed, with the generator `kinds` (RNGkind() of the caller:
# parallel workers may run another one), and put the random number state back.
with_seed <- function(seed, kinds, code) {
  state <- rng_state()
  on.exit(rng_restore(state))
  set.seed(seed, kind = kinds[1L], normal.kind = kinds[2L], sample.kind = kinds[3L])
  code
}

# Run code and put the random number state back.
keep_rng <- function(code) {
  state <- rng_state()
  on.exit(rng_restore(state))
  code
}

# function(unit) fun(unit, ...) for check_parallel()'s function, carrying
# only fun and the (evaluated) further arguments to the workers: fun's
# enclosure becomes the package namespace, so a function written inline does
# not take the caller's frame, which may hold the data several times over,
# along (nor, from a script, its source). Arguments that are the same for
# every unit travel once per task.
ship <- function(fun, ...) ship_closure(fun, list(...))

ship_closure <- function(fun, args) {
  force(args) # a promise would carry ship()'s frame, with the arguments again
  fun <- utils::removeSource(fun) # a srcref carries the lines of its whole file
  environment(fun) <- environment(ship_closure)
  function(unit) do.call(fun, c(list(unit), args), quote = TRUE)
}

# The units 1..n in consecutive chunks of `size` (the last one shorter): a
# split fixed by n and size alone, never by the back end or its workers.
chunk_units <- function(n, size) {
  unname(split(seq_len(n), (seq_len(n) - 1L) %/% size))
}

# The roxygen text of the `parallel` argument, shared by every entry point
# that takes it (@eval roxygen_parallel("the folds")); `serial`: where they
# run with `NULL`.
roxygen_parallel <- function(units, serial = "one after another in this R session") {
  paste(
    "@param parallel where", units, "run:",
    sprintf("`NULL` (default) %s;", serial),
    "`\"future\"` through future.apply, on the back end set by `future::plan()`",
    "(e.g. `plan(multisession)`, `plan(cluster, workers = )`, future.batchtools);",
    "a future plan itself, e.g. `future::multisession`,",
    "`future::tweak(future::multisession, workers = 2)`,",
    "`future::tweak(future::cluster, workers = cl)` for a `parallel::makePSOCKcluster()`",
    "or `future::tweak(future.batchtools::batchtools_slurm, template = )`, which is",
    "set with `future::plan()` for the call and the caller's plan put back on exit;",
    "or a BiocParallel `BiocParallelParam` (e.g. `BiocParallel::SnowParam(2)`,",
    "`MulticoreParam()`, `BatchtoolsParam()` for a SLURM cluster).",
    "The workers must be able to load bahsic (installed in a library on their",
    "`.libPaths()`). The result is the same for every back end and any number",
    "of workers under the same `set.seed()`, and the caller's random numbers",
    "continue where the serial run leaves them (see the vignette",
    "`vignette(\"large-data\", package = \"bahsic\")`, \"On a cluster\")."
  )
}

# How many forked workers run the independent fits of one call that was
# given `threads` and no back end (stability_selection()): the fits, each on
# 1 thread, across `threads` workers, at most one per unit. 1 (the fits one
# after another, the threads inside each) where R cannot fork (Windows), inside
# a worker of a back end or a forked child (its cores are shared already),
# and for fewer than 2 threads or units. Small fits do not feed many threads:
# BAHSIC on halves of 39 samples of ALL ran 1.56 times faster on 16 threads
# inside each fit, 9.3 times faster with the fits across 16 threads.
fork_workers <- function(threads, n) {
  if (.Platform$OS.type != "unix" || parallel_worker()) return(1L)
  limit <- toupper(Sys.getenv("_R_CHECK_LIMIT_CORES_"))
  if (nzchar(limit) && limit != "FALSE") threads <- min(threads, 2L) # mclapply()'s check
  as.integer(max(1L, min(threads, n)))
}

# check_parallel()'s function for `workers` forked children of this session
# (parallel::mclapply(), prescheduled: each child forks once and runs every
# workers-th unit; the data are shared with this session copy-on-write). A
# unit that fails stops the run with its own error (the first in unit order
# among the children that failed); a child that ends without a result (killed,
# e.g. out of memory) is an error that says so. With a bar the units run in
# at most 10 consecutive chunks of a multiple of `workers` units, at least 4
# a worker, a chunk's tick after it: a child cannot signal the bar, and each
# chunk forks the workers again (each child copies the pages of the
# session's small R objects that its garbage collector marks: some 100 MB
# and tens of milliseconds in a session with ALL loaded). Ctrl-C stops the
# children (mclapply() kills them on exit). The caller's random numbers are
# not touched: units draw theirs from their own seeds.
fork_parallel <- function(workers) {
  force(workers)
  function(i, f, progress = NULL, amounts = NULL) {
    g <- progress_unit(f)
    budget <- option_max_memory()
    # a delivered result is never NULL
    unit <- function(u) list(budget_share(g(u), budget, workers))
    if (is.null(progress)) return(keep_rng(fork_lapply(i, unit, workers)))
    amounts <- progress_amounts(i, amounts)
    size <- workers * max(4, ceiling(length(i) / (10 * workers)))
    out <- vector("list", 0L)
    for (ch in chunk_units(length(i), size)) {
      out <- c(out, keep_rng(fork_lapply(i[ch], unit, workers)))
      progress_tick(progress, sum(amounts[ch]))
    }
    names(out) <- names(i)
    out
  }
}

# Evaluate expr within a worker's share of the memory budget: the workers
# run at once, so each checks its workspace against budget / workers (option
# bahsic.max_memory set for the evaluation); an error over that share says
# so and what to do.
budget_share <- function(expr, budget, workers) {
  old <- options(bahsic.max_memory = budget / workers)
  on.exit(options(old))
  withCallingHandlers(expr, error = function(e) {
    msg <- conditionMessage(e)
    if (workers > 1L && grepl("bahsic.max_memory", msg, fixed = TRUE)) {
      stop(sprintf(paste0("%s (%d forked workers run the fits at once, each within %s, ",
                          "its share of the budget of %s: give fewer threads, or raise the ",
                          "option.)"),
                   msg, workers, format_gib(budget / workers), format_gib(budget)),
           call. = FALSE)
    }
  })
}

# parallel::mclapply() of `unit` (which wraps its value in a list) over i,
# the values unwrapped; a unit's error raised again here, a lost result an
# error. mclapply()'s own warnings about them are muffled: the error says it.
fork_lapply <- function(i, unit, workers) {
  # mclapply() runs fewer than 2 units in this session: their warnings stay
  if (length(i) < 2L) return(lapply(lapply(i, unit), `[[`, 1L))
  res <- withCallingHandlers(
    parallel::mclapply(i, unit, mc.cores = workers, mc.preschedule = TRUE,
                       mc.set.seed = FALSE, mc.silent = FALSE, mc.cleanup = TRUE),
    warning = function(w) invokeRestart("muffleWarning"))
  failed <- vapply(res, inherits, NA, "try-error")
  if (any(failed)) {
    cond <- attr(res[[which(failed)[1L]]], "condition")
    if (inherits(cond, "condition")) stop(cond)
    stop(as.character(res[[which(failed)[1L]]]), call. = FALSE)
  }
  lost <- !vapply(res, is.list, NA)
  if (any(lost)) {
    stop(sprintf(paste0("%d of %d runs got no result from their forked worker (the process ",
                        "ended: killed, e.g. out of memory?). Give fewer threads (each ",
                        "worker holds its own copy of the session's small objects), or ",
                        "threads = 1."), sum(lost), length(res)), call. = FALSE)
  }
  lapply(res, `[[`, 1L)
}
