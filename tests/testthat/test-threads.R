# The default number of threads (R/threads.R): the rule on injected inputs,
# the readers of /proc on fake files, the worker and fork cases, and a forked
# child that runs a parallel region after its parent did.

test_that("pick_threads() takes the available cores that no other process keeps busy", {
  pick <- bahsic:::pick_threads
  # an idle machine: every available core
  expect_identical(pick(available = 2L, cores = 2L, busy = 0L), 2L)
  expect_identical(pick(16L, 16L, 0L), 16L)
  # one busy process per core, or more: one thread
  expect_identical(pick(2L, 2L, 1L), 1L)
  expect_identical(pick(2L, 2L, 2L), 1L)
  expect_identical(pick(2L, 2L, 40L), 1L)
  # part of a large machine taken
  expect_identical(pick(16L, 16L, 10L), 6L)
  # a quota (cgroup, Slurm, mc.cores) below the free cores
  expect_identical(pick(4L, 16L, 2L), 4L)
  expect_identical(pick(1L, 16L, 0L), 1L)
  # the load unknown (no /proc/loadavg): the available cores
  expect_identical(pick(8L, 8L, NA_integer_), 8L)
  # never more than the machine has
  expect_identical(pick(32L, 8L, 0L), 8L)
  # a worker of a back end or a forked child: one
  expect_identical(pick(16L, 16L, 0L, worker = TRUE), 1L)
  expect_identical(pick(16L, 16L, NA_integer_, worker = TRUE), 1L)
})

# A fake /proc: a loadavg line and a task folder whose threads have the
# given states.
fake_proc <- function(loadavg, states) {
  dir <- tempfile("proc")
  dir.create(file.path(dir, "task"), recursive = TRUE)
  writeLines(loadavg, file.path(dir, "loadavg"))
  for (k in seq_along(states)) {
    task <- file.path(dir, "task", 100 + k)
    dir.create(task)
    # a command name with ") " in it, as a thread may have
    writeLines(sprintf("%d (R) x) %s 1 %d 0 0", 100 + k, states[k], 100 + k), file.path(task, "stat"))
  }
  dir
}

test_that("busy_elsewhere() counts the runnable tasks of the machine less this process's", {
  busy <- function(dir) {
    bahsic:::busy_elsewhere(file.path(dir, "loadavg"), file.path(dir, "task"))
  }
  idle <- fake_proc("0.08 0.10 0.09 1/312 4242", c("R", "S", "S"))
  on.exit(unlink(idle, recursive = TRUE))
  expect_identical(busy(idle), 0L)
  expect_identical(bahsic:::runnable_tasks(file.path(idle, "loadavg")), 1L)
  expect_identical(bahsic:::own_running(file.path(idle, "task")), 1L)
  # two other processes busy; this one runs its main thread and a thread
  # still spinning after a parallel region
  loaded <- fake_proc("2.01 1.50 0.90 4/312 4242", c("R", "R", "S"))
  on.exit(unlink(loaded, recursive = TRUE), add = TRUE)
  expect_identical(bahsic:::own_running(file.path(loaded, "task")), 2L)
  expect_identical(busy(loaded), 2L)
  # only this process runs (its two threads): nothing busy elsewhere
  own <- fake_proc("1.00 1.00 1.00 2/312 4242", c("R", "R"))
  on.exit(unlink(own, recursive = TRUE), add = TRUE)
  expect_identical(busy(own), 0L)
  # unreadable or malformed: unknown
  expect_identical(bahsic:::runnable_tasks(tempfile()), NA_integer_)
  expect_identical(bahsic:::busy_elsewhere(tempfile(), tempfile()), NA_integer_)
  bad <- fake_proc("not a loadavg line", "R")
  on.exit(unlink(bad, recursive = TRUE), add = TRUE)
  expect_identical(busy(bad), NA_integer_)
  # an empty task folder: the asking thread still counts
  expect_identical(bahsic:::own_running(tempfile()), 1L)
})

test_that("the default is 1 inside a back end's worker and follows mc.cores", {
  old <- options(bahsic.threads = NULL)
  on.exit(options(old))
  n <- default_threads()
  expect_true(is.integer(n) && n >= 1L && n <= bahsic:::max_threads())
  cache <- bahsic:::cores_cache
  was <- cache$worker
  cache$worker <- TRUE
  on.exit(cache$worker <- was, add = TRUE)
  expect_identical(default_threads(), 1L)
  cache$worker <- was
  # the option still rules inside a worker
  options(bahsic.threads = 1)
  expect_identical(default_threads(), 1L)
  options(bahsic.threads = NULL)
  # mc.cores = 1 (as future sets in its workers): 1 thread
  old_mc <- options(mc.cores = 1L)
  on.exit(options(old_mc), add = TRUE)
  expect_identical(default_threads(), 1L)
  # a unit run by a back end in this process (a sequential plan) is no worker
  unit <- bahsic:::worker_unit(function(i) bahsic:::parallel_worker())
  expect_false(unit(1L))
})

test_that("local_socket_worker() knows the socket workers on this machine", {
  local <- bahsic:::local_socket_worker
  # parallel::makePSOCKcluster(), future's multisession, parallelly
  psock <- c("MASTER=localhost", "PORT=11420", "OUT=/dev/null", "SETUPTIMEOUT=120",
             "TIMEOUT=2592000", "XDR=TRUE", "SETUPSTRATEGY=parallel")
  expect_true(local(psock, host = "node7"))
  # BiocParallel::SnowParam()
  expect_true(local(c("MASTER=localhost", "PORT=11098", "OUT=/dev/null",
                      "SNOWLIB=/usr/lib/R/site-library/BiocParallel"), host = "node7"))
  expect_true(local(c("MASTER=Node7", "PORT=1"), host = "node7"))
  expect_true(local(c("MASTER=127.0.0.1", "PORT=1"), host = "node7"))
  # a worker of a master on another machine keeps its cores
  expect_false(local(c("MASTER=login1", "PORT=11098"), host = "node7"))
  # an ordinary session
  expect_false(local(character(), host = "node7"))
  expect_false(local(c("MASTER=localhost"), host = "node7"))
  expect_false(local(c("--file=x.R", "PORT=1"), host = "node7"))
})

test_that("a forked child runs on one thread, whatever it asks for", {
  skip_on_os("windows")
  old <- options(bahsic.threads = NULL)
  on.exit(options(old))
  got <- parallel::mclapply(1:2, function(i) {
    c(default_threads(), bahsic:::check_threads(bahsic:::max_threads()))
  }, mc.cores = 2L)
  expect_identical(got, list(c(1L, 1L), c(1L, 1L)))
  unit <- bahsic:::worker_unit(function(i) bahsic:::cores_cache$worker)
  expect_identical(parallel::mclapply(1:2, unit, mc.cores = 2L), list(TRUE, TRUE))
})

test_that("a child forked after the parent ran a parallel region selects as the parent", {
  skip_on_os("windows")
  skip_on_cran()
  skip_if(bahsic:::max_threads() < 2L, "one core: no parallel region")
  # in a fresh R process, with a time limit: libgomp waits forever in a child
  # that starts threads after a fork, and a hang must not hang the tests
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c(
    "suppressPackageStartupMessages(library(bahsic))",
    "set.seed(1)",
    "x <- matrix(rnorm(40 * 300), 40)",
    "y <- factor(rep(c('a', 'b'), 20))",
    "z <- matrix(rnorm(2000 * 5), 2000)",
    "k <- kernel_matrix(kernel_gaussian(), z, threads = 2)", # a parallel region here
    "ref <- bahsic(x, y, threads = 2)$rank",
    "kids <- parallel::mclapply(1:2, function(i) {",
    "  list(rank = bahsic(x, y, threads = 2)$rank,",
    "       gram = kernel_matrix(kernel_gaussian(), z, threads = 2))",
    "}, mc.cores = 2)",
    "same <- vapply(kids, function(r) identical(r$rank, ref) && identical(r$gram, k), NA)",
    "cat('children', length(kids), 'same', all(same), '\\n')"
  ), script)
  timeout <- Sys.which("timeout") # coreutils
  skip_if(!nzchar(timeout), "no timeout command")
  out <- suppressWarnings(system2(
    timeout, c("120", shQuote(file.path(R.home("bin"), "Rscript")), "--vanilla", shQuote(script)),
    stdout = TRUE, stderr = FALSE,
    env = paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = .Platform$path.sep)))))
  expect_null(attr(out, "status"))
  expect_identical(out, "children 2 same TRUE ")
})

test_that("above the work below which a region runs on one thread, 2 threads give the bits of 1", {
  skip_if(bahsic:::max_threads() < 2L, "one core")
  set.seed(29)
  same <- function(f) expect_identical(f(2L), f(1L))
  # the Gram matrix: distances and kernel map (m^2 / 2 pairs times the cost)
  x <- matrix(rnorm(700 * 5), 700)
  same(function(t) kernel_matrix(kernel_gaussian(), x, threads = t))
  # per-feature HSIC and its tests (features times pairs)
  xf <- matrix(rnorm(120 * 40), 120)
  yf <- factor(rep(c("a", "b"), 60))
  same(function(t) feature_scores(xf, yf, method = "hsic", threads = t))
  # random features (samples times features times their sums)
  xr <- matrix(rnorm(6000 * 4), 6000)
  yr <- xr[, 1]^2 + rnorm(6000)
  same(function(t) {
    set.seed(1) # the frequencies
    hsic(xr, yr, approx = approx_rff(200), threads = t)
  })
  # the clinical kernel (pairs times features)
  df <- as.data.frame(matrix(rnorm(300 * 12), 300))
  df$site <- factor(sample(c("a", "b", "c"), 300, replace = TRUE))
  same(function(t) kernel_matrix(kernel_clinical(), df, threads = t))
  # the weight gradient (m^2 exponentials)
  xw <- matrix(rnorm(400 * 6), 400)
  yw <- factor(xw[, 1] > 0)
  same(function(t) hsic_weights(xw, yw, lambda = 0, max_iter = 3L, threads = t)$weights)
})
