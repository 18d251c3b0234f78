# Parallel back ends for the independent units of a run (cross-validation
# folds, permutations, bootstraps, feature blocks). Every entry point that
# takes `parallel` accepts NULL (serial), "future" (future.apply, on the
# back end of future::plan()) or a BiocParallelParam; check_parallel() turns
# it into one function(i, f) with lapply()'s contract. Units that draw random
# numbers run from seeds drawn beforehand on the main thread (with_seed()),
# so the result does not depend on the back end.

check_parallel <- function(parallel) {
  if (is.null(parallel)) return(function(i, f) lapply(i, f))
  if (identical(parallel, "future")) {
    if (!requireNamespace("future.apply", quietly = TRUE)) {
      stop("parallel = \"future\" needs the future.apply package: install.packages(\"future.apply\").",
           call. = FALSE)
    }
    # every fold sets its own seed: future's streams are not used
    return(function(i, f) future.apply::future_lapply(i, f, future.seed = TRUE))
  }
  if (methods::is(parallel, "BiocParallelParam")) {
    if (!requireNamespace("BiocParallel", quietly = TRUE)) {
      stop("A BiocParallelParam needs the BiocParallel package.", call. = FALSE)
    }
    return(function(i, f) BiocParallel::bplapply(i, f, BPPARAM = parallel))
  }
  stop("'parallel' must be NULL, \"future\" or a BiocParallel BiocParallelParam.", call. = FALSE)
}

# Run code from a seed, with the generator `kinds` (RNGkind() of the caller:
# parallel workers may run another one), and put the random number state back.
with_seed <- function(seed, kinds, code) {
  env <- globalenv()
  old_kinds <- RNGkind()
  old <- if (exists(".Random.seed", envir = env, inherits = FALSE)) get(".Random.seed", envir = env)
  on.exit({
    RNGkind(old_kinds[1L], old_kinds[2L], old_kinds[3L])
    if (is.null(old)) {
      if (exists(".Random.seed", envir = env, inherits = FALSE)) rm(".Random.seed", envir = env)
    } else {
      assign(".Random.seed", old, envir = env)
    }
  })
  set.seed(seed, kind = kinds[1L], normal.kind = kinds[2L], sample.kind = kinds[3L])
  code
}

