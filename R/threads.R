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
#' * otherwise the cores this R process may use that no other process keeps
#'   busy when the call starts: the cores of `parallelly::availableCores()`,
#'   which respects CPU affinity, the CPU quota of a container (cgroups), the
#'   allocation of Slurm and other schedulers and `mc.cores`, less the other
#'   processes that are running on the machine at that moment (read from
#'   `/proc/loadavg` on Linux, less this process's own threads; elsewhere
#'   the load is not read), at least 1. Under `R CMD check --as-cran`
#'   (environment variable `_R_CHECK_LIMIT_CORES_`) it is at most 2, and at
#'   most `OMP_THREAD_LIMIT` / `OMP_NUM_THREADS` when those are set;
#' * with `parallel =` (a future or BiocParallel back end), 1 per worker
#'   unless `threads` is given; and 1 in any call inside such a worker, in a
#'   socket worker on the same machine (`parallel::makePSOCKcluster()`,
#'   future's multisession, `BiocParallel::SnowParam()`) or in a forked
#'   child (`parallel::mclapply()`, `BiocParallel::MulticoreParam()`): the
#'   workers share the cores already.
#'
#' On an idle machine this is every core, the fastest choice for every
#' function measured by `inst/bench/bench-threads.R` (in the sources): on a
#' 2-core machine two threads ranked the 12,625 genes of the ALL data by
#' BAHSIC 1.74 times faster than one, and sped up [hsic()] (1.29x),
#' [hsic_test()] (1.42x) and [kernel_matrix()] (1.43x) at 2,000 samples,
#' [randsel()] (1.43x), BAHSIC on the 38 Golub arrays (1.33x) and per-gene
#' HSIC on them (1.79x) and on ALL (1.97x). On a busy machine the OpenMP
#' threads of a call wait for each other at the end of every parallel region
#' while a competing process holds their core: with one busy process per
#' core, two threads ran BAHSIC on ALL
#' 1.6 to 2.7 times slower than one, and the block estimator of [hsic()]
#' (m = 50,000, a parallel region per small Gram matrix) 25 times slower;
#' so a call takes only the cores that are free when it starts, and a region
#' with less than about a million operations runs on one thread. The
#' selection loop of [bahsic()] and [fohsic()] runs several small regions
#' per iteration (the candidates scored exactly after the series screen, the
#' screen, the update of the set), so there a region goes parallel from some
#' twenty microseconds of work when starting the threads takes a few
#' microseconds (timed when the loop starts); a region whose threads cost
#' more time than one thread would have taken raises that threshold above
#' its own size (a clear gain lowers it again), and once three regions have
#' lost and the threads have cost more time than they saved over all of them
#' (the machine has become busy) it is the million for the rest of the loop.
#' The larger regions are watched the same way: once three of them have
#' lost and their threads have cost more than they saved, the rest of the
#' loop runs on one thread, and the loops of the next second start from
#' there (and from the timing of the threads' start) without timing it
#' again. So an explicit `threads` on a busy machine costs about what one
#' thread does: with one busy process per core on 2 cores (the C core
#' without R, `tools/harness.sh`), two threads ranked ALL by BAHSIC at 0.91
#' and 0.95 times the speed of one thread, and golub no slower, where they
#' ran at 0.46 to 0.82 and 0.24 to 0.37 times before.
#' `inst/bench/bench-oversubscription.R` times the default against one thread
#' and every core, idle and with one busy process per core: under that load
#' the default chose one thread for every function, so it runs as
#' `threads = 1` does (reading the load takes under half a millisecond),
#' where two threads per worker ran BAHSIC inside two future workers 2 to 2.5
#' times slower than one.
#'
#' A forked child never starts threads, even when `threads` asks for them:
#' the OpenMP run-time (libgomp) cannot start them in a child forked after
#' its parent has run a parallel region, and would wait forever.
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
  n <- auto_threads()
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

# The threads of a call when neither `threads` nor the option says: the
# cores this process may use (parallelly::availableCores(): CPU affinity,
# cgroup quotas, Slurm and other schedulers, mc.cores) that no other process
# keeps busy now; 1 in a worker (parallel_worker()).
auto_threads <- function() {
  pick_threads(available_cores(), machine_cores(), busy_elsewhere(), parallel_worker())
}

# The rule of auto_threads() on its inputs: `available` cores for this
# process, `cores` of the machine, `busy` of them taken by other processes
# (NA where unknown), `worker`: TRUE inside a back end's worker.
pick_threads <- function(available, cores, busy, worker = FALSE) {
  if (isTRUE(worker)) return(1L)
  n <- min(available, cores)
  if (!is.na(busy)) n <- min(n, cores - busy)
  max(1L, as.integer(n))
}

# parallelly::availableCores(), once per session and value of mc.cores
# (it takes some 4 ms, as long as a t statistic of 12,625 genes).
available_cores <- function() {
  key <- paste(getOption("mc.cores"), collapse = " ")
  if (!identical(cores_cache$key, key)) {
    n <- tryCatch(parallelly::availableCores(), error = function(e) {
      if (is_time_limit(e)) stop(e)
      NA_integer_
    })
    cores_cache$available <- if (is.na(n) || n < 1L) machine_cores() else as.integer(n)
    cores_cache$key <- key
  }
  cores_cache$available
}

# How many cores other processes keep busy at this moment: the runnable
# tasks of the machine (4th field of /proc/loadavg, "runnable/total"), less
# this process's own (its main thread, and OpenMP threads still spinning
# after a parallel region), the smaller of two readings. NA off Linux.
busy_elsewhere <- function(loadavg = "/proc/loadavg", tasks = "/proc/self/task") {
  running <- runnable_tasks(loadavg)
  if (is.na(running) || running <= 1L) return(if (is.na(running)) NA_integer_ else 0L)
  own <- own_running(tasks)
  busy <- max(0L, running - own)
  if (busy > 0L) busy <- min(busy, max(0L, runnable_tasks(loadavg) - own))
  busy
}

# The runnable tasks of the machine, from a /proc/loadavg line such as
# "0.52 0.58 0.59 3/467 12345"; NA when it cannot be read.
runnable_tasks <- function(loadavg = "/proc/loadavg") {
  line <- first_line(loadavg)
  n <- suppressWarnings(as.integer(sub("^\\S+ \\S+ \\S+ ([0-9]+)/.*$", "\\1", line[1L])))
  if (length(n) != 1L || is.na(n) || n < 0L) NA_integer_ else n
}

# The first line of a /proc file, "" when it cannot be read. Every call
# reads the load, so a time limit or Ctrl-C often falls here: R raises a time
# limit once, so the limit goes on to the caller, never read as "".
first_line <- function(path) {
  tryCatch(readLines(path, n = 1L, warn = FALSE),
           error = function(e) if (is_time_limit(e)) stop(e) else "",
           warning = function(w) "")
}

# This process's threads that are runnable (state R in /proc/self/task/*/stat);
# at least 1, the one asking.
own_running <- function(tasks = "/proc/self/task") {
  files <- file.path(list.files(tasks, full.names = TRUE), "stat")
  state <- vapply(files, function(f) {
    line <- first_line(f)
    substr(sub("^.*\\) ", "", line[1L]), 1L, 1L)
  }, "", USE.NAMES = FALSE)
  max(1L, sum(state == "R"))
}

# TRUE where a call runs on one thread by default: inside a worker of a
# parallel back end (set by worker_unit(), R/parallel.R), in a socket worker
# on this machine, and in a forked child (parallel::mclapply(),
# BiocParallel::MulticoreParam(), future's multicore), whose pid differs from
# the one the package was loaded in. libgomp cannot start threads in a child
# forked after the parent has run a parallel region (it waits forever on a
# pool that was not copied), so a child runs every call on one thread.
parallel_worker <- function() {
  if (is.null(cores_cache$socket)) cores_cache$socket <- local_socket_worker()
  isTRUE(cores_cache$worker) || forked_child() || cores_cache$socket
}

# TRUE in a socket worker on this machine: an R process started by
# parallel::makePSOCKcluster() (parLapply(), future's multisession and
# cluster plans, parallelly) or BiocParallel::SnowParam(), whose arguments
# name the MASTER it reports to and its PORT, with the master on this host.
# A worker on another machine keeps that machine's cores.
local_socket_worker <- function(args = commandArgs(trailingOnly = TRUE),
                                host = Sys.info()[["nodename"]]) {
  master <- sub("^MASTER=", "", grep("^MASTER=", args, value = TRUE))
  length(master) == 1L && any(startsWith(args, "PORT=")) &&
    tolower(master) %in% tolower(c("localhost", "127.0.0.1", "::1", host))
}

forked_child <- function() {
  !is.null(cores_cache$pid) && !identical(cores_cache$pid, Sys.getpid())
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
  if (forked_child()) return(1L)
  cap_threads(threads, "threads = %s")
}

# A thread count above the cores the session may use, reduced to them with a
# warning that names where it came from (`what`: "threads = %s" for the
# argument, "options(bahsic.threads = %s)" for the option).
cap_threads <- function(n, what) {
  cap <- max_threads()
  if (n > cap) {
    warning(sprintf("%s is more than the %d core%s this session may use: using %d.",
                    sprintf(what, format(n)), cap, if (cap == 1L) "" else "s", cap),
            call. = FALSE)
    n <- cap
  }
  as.integer(n)
}
