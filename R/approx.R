#' Approximate HSIC for many samples
#'
#' Exact HSIC needs the \eqn{m \times m} kernel matrices: \eqn{O(m^2)} time
#' and memory, 20 GB per matrix at \eqn{m = 50{,}000}. These constructors
#' choose an approximation for the `approx` argument of [hsic()],
#' [bahsic()] and [fohsic()]; a string (`"exact"`, `"ichol"`, `"rff"`,
#' `"block"`) gives the defaults below.
#'
#' * `approx_ichol()`: pivoted incomplete Cholesky factorisation
#'   \eqn{K \approx GG^\top} with \eqn{G} of size \eqn{m \times r} (Song et
#'   al. 2012, section 2.6; Fine and Scheinberg 2001), computed from the data
#'   one kernel column per pivot, never forming \eqn{K}. The pivot is the
#'   sample with the largest residual diagonal; the factorisation stops when
#'   that is at most `tol` times the largest diagonal of \eqn{K} (so the
#'   residual trace \eqn{\mathrm{tr}(K - GG^\top) / \mathrm{tr}(K)} is at
#'   most `tol` too), or at `max_rank` columns: by default 500, or fewer when
#'   the memory budget (option `bahsic.max_memory`) holds fewer than
#'   \eqn{16 m r} bytes. HSIC0 and HSIC1 then cost \eqn{O(m r^2)} time and
#'   \eqn{O(m r)} memory (Lemmas 6-7 of section 2.6).
#' * `approx_rff()`: random Fourier features (Rahimi and Recht 2007) for the
#'   Gaussian and Laplace kernels, \eqn{K \approx ZZ^\top} with `n_features`
#'   columns; the frequencies are drawn from R's random number generator, so
#'   `set.seed()` makes the result reproducible.
#' * `approx_block()`: the block estimator (Zaremba, Gretton and Blaschko
#'   2013): the samples are split at random into disjoint blocks of `size`
#'   samples, HSIC is estimated within each block and averaged, optionally
#'   over `n_partitions` independent partitions; \eqn{O(m B)} time.
#'
#' **Accuracy of `"ichol"`** (measured by `inst/bench/bench-ichol.R` on
#' Gaussian kernels with the median heuristic, m = 2000 and 10,000): HSIC0
#' and HSIC1 from the factors fall short of the exact values by at most 1.7
#' times the residual trace \eqn{\mathrm{tr}(K - GG^\top) / \mathrm{tr}(K)}
#' (about once it, typically), so the default `tol = 1e-3` keeps them within
#' about 0.05%. The rank that takes depends on the kernel's spectrum, that is
#' on the data's dimension more than on m: 16 columns for one feature, 500 to
#' 750 for five; for 20 or 50 independent features no affordable rank
#' reaches it (at m = 10,000 the residual trace is still 1.7% and 7% at rank
#' 3000), and 50 features driven by 5 latent ones reach 1% at about rank 1000
#' (m = 2000) to 2000 (m = 10,000). The time grows as \eqn{m r^2}: at m =
#' 10,000 1 to 1.7 s for r = 500, 4 to 5.5 s for r = 1000 and 17 to 25 s for
#' r = 2000 (one core, 5 to 50 features, on a shared machine). When a
#' factor's residual trace is above 1% (an error that may reach 2%), [hsic()]
#' and [bahsic()] warn once per call with the residual; raise `max_rank`
#' then, or use `"block"` or `"rff"`, whose cost does not depend on the
#' spectrum. At larger m (`inst/bench/bench-ichol-large.R`: 50 independent
#' standard normal features, binary labels that depend on two of them,
#' errors against the exact HSIC with the same widths, CPU time on one core
#' of a shared machine) no `max_rank` is both within 10% of the exact HSIC
#' and within twice the time of `approx_block()` at its defaults; the error
#' falls about as the residual trace, and the time grows as \eqn{m r^2}:
#'
#' | `max_rank` | residual trace, m = 30,000 / 100,000 | HSIC1 vs exact | CPU time / block's |
#' |---|---|---|---|
#' | 50 | 52% / 54% | -68% / -70% | 1.2 / 1.2 |
#' | 100 | 44% / 45% | -53% / -53% | 2.6 / 3.2 |
#' | 200 | 35% / 37% | -36% / -37% | 7.1 / 7.5 |
#' | 500 (default) | 26% / 27.5% | -20% / -22% | 35 / 32 |
#' | 1000 | 20% / 22% | -12% / -14% | 115 / 118 |
#' | 2000 | 14% / - | -6.5% / - | 418 / - |
#'
#' (block: 0.10 s and 0.25 s, its HSIC1 3% below and 14% above the exact
#' value with standard errors of 15% and 8.5% of it). The defaults stay: a
#' lower cap is faster but further off, a higher one little closer for its
#' time, and 500 is what five features need at `tol = 1e-3` (above). When
#' the cap leaves more than 10% of the trace the warning says that raising
#' it helps slowly and names `"block"`.
#'
#' In [hsic()]:
#'
#' * Costs, for \eqn{m} samples, \eqn{d} features, a data factor of rank
#'   \eqn{r} (`max_rank` at most, or `n_features` = \eqn{D}) and a label
#'   factor of rank \eqn{s}: `"ichol"` \eqn{O(m r (d + r) + m r s)} time,
#'   \eqn{O(m (r + s))} memory (at \eqn{m = 100{,}000}, \eqn{r = 200}:
#'   about 5 s and 0.5 GB on one core, `inst/bench/bench-hsic-large.R`);
#'   the result holds the residual traces of both factors (`residual`);
#'   `"rff"` \eqn{O(m D (d + s))} time and \eqn{O(m (c + s))} memory
#'   besides the data: the \eqn{m \times D} feature matrix is never held,
#'   its columns are made \eqn{c = 32} at a time and each chunk leaves only
#'   the sums HSIC needs (at \eqn{m = 10^6}, \eqn{d = 50}, \eqn{D = 500}:
#'   4.5 to 8 s and a peak of 1.3 GB for the whole R process, whose data
#'   take 0.4 GB, where the whole feature matrix took 37 s and 4.8 GB, and
#'   `"ichol"` at rank 500 140 to 180 s and 6.8 GB;
#'   `inst/bench/bench-hsic-large.R`, 2 threads on a shared machine). With
#'   a numeric outcome and a Gaussian or Laplace regression label kernel the
#'   label side is \eqn{S} = `n_features` random features too, and neither
#'   feature matrix is held: the samples are taken 256 at a time, in three
#'   passes that make each block's features afresh, \eqn{O(m (D + S) d +
#'   m D S)} time and \eqn{O(m + D S)} memory besides the data (at \eqn{m =
#'   200{,}000}, \eqn{d = 5}: 13 s of CPU and 29 MB above the data, where the
#'   whole label feature matrix took 43 s and 1.6 GB; at \eqn{m = 10^6}: 65 s
#'   and 50 MB, where it took 238 s and 7.9 GB; 1 thread,
#'   `inst/bench/bench-rff-label.R`). Its statistics are those of the whole
#'   matrices to about \eqn{10^{-13}} relative (the sums over the samples
#'   run in another order) and the same for any number of threads; `"block"`
#'   \eqn{O(m B d)} time per partition, \eqn{O(B^2)} memory.
#' * HSIC0, HSIC1 and the variance of HSIC1 come from the factors exactly as
#'   from the matrices they stand for (Lemmas 6-7, section 2.6.3); the
#'   standard error is that variance's square root. For `"block"` the
#'   estimate is the mean of the block estimates (HSIC1 is unbiased within a
#'   block, HSIC0 has a bias of order \eqn{1/B}) and the standard error the
#'   standard deviation of the block estimates over the square root of the
#'   number of blocks per partition (with a single block, the exact standard
#'   error of that block).
#' * The kernels are fixed before any approximation: a width left to the
#'   median heuristic is the median over at most 1000 evenly spaced samples
#'   (rows `round(seq(1, m, length.out = 1000))`), deterministic and without
#'   \eqn{O(m^2)} memory; for `"block"` the class weights of the label kernel
#'   are those of all samples.
#' * The label side: classification label kernels and the linear regression
#'   kernel are exactly low rank (rank = number of classes, or the outcome's
#'   columns) and used as they are; other regression label kernels are
#'   factored like the data kernel (with `"rff"`, those that are not Gaussian
#'   or Laplace by `approx_ichol()`'s defaults).
#' * `"rff"` draws `n_features` x `d` normal numbers for the frequencies, then
#'   for the Laplace kernel `n_features` more (the Cauchy scale), then the
#'   phases \eqn{U(0, 2\pi)}; `"block"` draws each partition with
#'   [sample.int()] (nothing when `size` is at least m: one block of all
#'   samples, the exact estimate). Both are reproducible under [set.seed()];
#'   [bahsic()] and [fohsic()] draw the same way, so under the same seed they
#'   use the same frequencies or blocks as [hsic()].
#' * Precomputed kernels can only be used with `"exact"` or `"block"`, the
#'   clinical kernel likewise (neither is computed from data rows on demand).
#'
#' @param tol for `approx_ichol()`: stop when the largest residual diagonal
#'   is at most `tol` times the largest diagonal of the kernel matrix.
#' @param max_rank for `approx_ichol()`: the largest number of columns;
#'   `NULL` for 500, or what the memory budget allows if that is fewer.
#' @param n_features for `approx_rff()`: the number of random features.
#' @param size for `approx_block()`: the number of samples per block
#'   (at least 4); the last block takes the remainder when `m` is not a
#'   multiple.
#' @param n_partitions for `approx_block()`: the number of random
#'   partitions averaged.
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return An object of class `bahsic_approx`.
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#'
#'   Rahimi, A. and Recht, B. (2007). Random features for large-scale kernel
#'   machines. NIPS 20.
#'
#'   Zaremba, W., Gretton, A. and Blaschko, M. (2013). B-tests: low variance
#'   kernel two-sample tests. NIPS 26.
#' @name approximations
#' @family hsic
#' @examples
#' approx_ichol(tol = 1e-4, max_rank = 1000)
#' approx_block(size = 50)
#' set.seed(1)
#' x <- matrix(rnorm(600), 300, 2)
#' y <- x[, 1]^2 + rnorm(300, sd = 0.2)
#' hsic(x, y)$estimate
#' hsic(x, y, approx = approx_ichol(max_rank = 50))$estimate
#' hsic(x, y, approx = approx_rff(n_features = 200))$estimate
#' hsic(x, y, approx = approx_block(size = 100, n_partitions = 3))$estimate
#' @export
approx_exact <- function(...) {
  check_dots(...)
  new_approx("exact", list(), "exact (m x m kernel matrices)")
}

#' @rdname approximations
#' @export
approx_ichol <- function(tol = 1e-3, max_rank = NULL, ...) {
  check_dots(...)
  check_positive_number(tol, "tol")
  if (!is.null(max_rank)) max_rank <- check_whole(max_rank, "max_rank", 1L)
  new_approx("ichol", list(tol = tol, max_rank = max_rank),
             sprintf("incomplete Cholesky (tol = %g, max_rank = %s)", tol,
                     if (is.null(max_rank)) sprintf("%d or what the memory budget allows",
                                                    ichol_default_rank)
                     else max_rank))
}

#' @rdname approximations
#' @export
approx_rff <- function(n_features = 500L, ...) {
  check_dots(...)
  n_features <- check_whole(n_features, "n_features", 1L)
  new_approx("rff", list(n_features = n_features),
             sprintf("random Fourier features (n_features = %d)", n_features))
}

#' @rdname approximations
#' @export
approx_block <- function(size = 100L, n_partitions = 1L, ...) {
  check_dots(...)
  size <- check_whole(size, "size", 4L)
  n_partitions <- check_whole(n_partitions, "n_partitions", 1L)
  new_approx("block", list(size = size, n_partitions = n_partitions),
             sprintf("block estimator (size = %d, n_partitions = %d)", size, n_partitions))
}

new_approx <- function(name, params, label) {
  structure(list(name = name, params = params, label = label), class = "bahsic_approx")
}

#' @export
print.bahsic_approx <- function(x, ...) {
  check_dots(..., .fn = "print", .allow = print_dot_args)
  cat("HSIC approximation: ", x$label, "\n", sep = "")
  invisible(x)
}

approx_names <- c("exact", "ichol", "rff", "block")

# The approximation an entry point uses: a bahsic_approx, or one of
# approx_names for its defaults.
resolve_approx <- function(approx, arg = "approx") {
  if (inherits(approx, "bahsic_approx")) return(approx)
  if (is.character(approx) && length(approx) == 1L && !is.na(approx) &&
      approx %in% approx_names) {
    return(switch(approx, exact = approx_exact(), ichol = approx_ichol(), rff = approx_rff(),
                  block = approx_block()))
  }
  stop(sprintf(paste0("'%s' must be one of \"exact\", \"ichol\", \"rff\", \"block\", or an ",
                      "approximation from approx_ichol(), approx_rff() or approx_block()."), arg),
       call. = FALSE)
}

check_positive_number <- function(v, arg) {
  if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v <= 0) {
    stop(sprintf("'%s' must be one positive number.", arg), call. = FALSE)
  }
  invisible(v)
}

# The median-heuristic width 1 / median(distance) (squared distances for the
# Gaussian kernel), from at most n_max evenly spaced samples, so that it
# needs no O(m^2) memory on the approximate paths; on all samples when
# m <= n_max (the rows of median_rows(), R/kernels.R). The median follows the
# rule for ties in C (?kernels, "Ties and numerical residue"), so it is 0
# only when all these samples coincide: then 1 (the kernel is then constant
# on them whatever the width).
median_sigma <- function(x, squared, n_max = 1000L, arg = "x") {
  m <- nrow(x)
  if (m > n_max) x <- x[median_rows(m, n_max), , drop = FALSE]
  med <- pairwise_median(x, squared, arg)
  if (is.finite(med) && med > 0) 1 / med else 1
}

# ---- the approximate paths of hsic() ------------------------------------------

# hsic() with approx "ichol", "rff" or "block": the problem as hsic_prepare()
# prepares it, without the m x m matrices (prepare_problem(), labels "kernel").
# inputs: na_action, assay, threads and design (design_spec()) as hsic() got them.
hsic_approx <- function(x, y, kernel_x, kernel_y, estimator, approx, call, inputs) {
  check_kernel(kernel_x, "kernel",
               where = "with an approximation (approx other than \"exact\")")
  threads <- check_threads(inputs$threads)
  na_action <- inputs$na_action
  assay <- inputs$assay
  design <- inputs$design
  unbiased <- estimator == "unbiased"
  d <- prepare_problem(x, y, list(
    kernel = kernel_x, kernel_y = kernel_y, na_action = na_action, assay = assay,
    threads = threads, min_first = TRUE, min_m = if (unbiased) 4L else 2L,
    min_what = sprintf("The %s HSIC estimator", estimator),
    min_hint = if (unbiased) "Use estimator = \"biased\", which needs 2.",
    outcome_what = "hsic()", labels = "kernel", design = design))
  m <- d$m
  kernel_y <- d$kernel_y
  extra <- list()
  if (approx$name == "block") {
    b <- hsic_block(d$x, d$y, kernel_x, kernel_y, approx, threads)
    ok1 <- b$min_block >= 4L
    hsic0 <- mean(b$est[1L, ])
    hsic1 <- if (ok1) mean(b$est[2L, ]) else NA_real_
    k <- if (unbiased) 2L else 1L
    # the spread of the block estimates; with one block per partition the
    # variance of HSIC1 within it (eq. 15), as the exact estimate has
    se <- if (b$n_blocks > 1L) {
      stats::sd(b$est[k, ]) / sqrt(b$n_blocks)
    } else if (ok1) {
      sqrt(max(mean(b$est[3L, ]), 0))
    } else {
      NA_real_
    }
    kx <- b$kernel_x
    ky <- b$kernel_y
    extra$n_blocks <- b$n_blocks
  } else {
    lr <- hsic_lowrank(d$x, d$y, kernel_x, kernel_y, approx, threads, d$design)
    st <- lr$stats
    # under a design the label factor is P F: HSIC0 = ||G' P F||^2 / df^2
    # (R/design-kernel.R); HSIC1 and its variance have no such form
    if (!is.null(d$design)) st <- c(st[1L] * (m - 1)^2 / d$design$df^2, NA_real_, NA_real_)
    hsic0 <- st[1L]
    hsic1 <- if (m >= 4L) st[2L] else NA_real_
    se <- if (m >= 4L) sqrt(max(st[3L], 0)) else NA_real_
    kx <- lr$kernel_x
    ky <- lr$kernel_y
    extra$rank <- lr$rank
    if (approx$name == "ichol") extra$residual <- lr$residual
  }
  extra$design <- d$design
  structure(c(list(estimate = if (unbiased) hsic1 else hsic0, estimator = estimator, se = se,
                   hsic0 = hsic0, hsic1 = hsic1, m = m, kernel = kx, kernel_y = ky,
                   call = call, approx = approx), extra),
            class = "bahsic_hsic")
}


# A kernel with its width resolved without any m x m matrix: the
# median heuristic on at most 1000 evenly spaced samples (median_sigma()).
resolve_width_approx <- function(kernel, x, arg = "x") {
  if (kernel_has(kernel, "width") && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- median_sigma(x, squared = kernel_has(kernel, "squared"), arg = arg)
    kernel$label <- paste0(kernel$label, " (sigma by the median heuristic",
                           if (nrow(x) > 1000L) " on 1000 samples" else "", ")")
  }
  kernel
}

# Approximations build their own kernel values from the data.
check_kernel_approximable <- function(kernel, arg, approx) {
  if (kernel$name %in% c("precomputed", "clinical")) {
    stop(sprintf(paste0("approx = \"%s\" needs a kernel computed from the data; '%s' is a %s ",
                        "kernel. Use approx = \"exact\"%s, or a kernel such as kernel_gaussian()."),
                 approx$name, arg, kernel$name,
                 if (kernel$name == "precomputed") "" else " or approx = \"block\""),
         call. = FALSE)
  }
  invisible()
}

# The factor Z (m x r) with K ~ Z Z' of `kernel` (width resolved) on x (m x d)
# for approx "ichol" or "rff"; list(Z, kernel, fit: ichol_fit()'s, NULL for
# "rff"). warn = FALSE leaves the residual warning to the caller.
kernel_factor <- function(kernel, x, approx, arg, warn = TRUE) {
  check_kernel_approximable(kernel, arg, approx)
  kernel <- resolve_width_approx(kernel, x, if (arg == "kernel_y") "y" else "x")
  if (approx$name == "rff") {
    check_kernel_rff(kernel, arg)
    check_factor_memory(nrow(x), approx$params$n_features, approx)
    return(list(Z = rff_features(kernel, x, approx$params$n_features), kernel = kernel))
  }
  f <- ichol_fit(x, kernel_code(kernel), kernel_param(kernel), approx,
                 if (arg == "kernel_y") "label kernel" else "data kernel")
  if (warn) ichol_residual_warning(list(f$fit))
  list(Z = f$G, kernel = kernel, fit = f$fit)
}

check_kernel_rff <- function(kernel, arg) {
  if (!kernel_has(kernel, "rff")) {
    stop(sprintf(paste0("approx = \"rff\" (random Fourier features) needs %s; '%s' is a %s ",
                        "kernel. Use approx = \"ichol\"."),
                 kernels_phrase("rff"), arg, kernel$name), call. = FALSE)
  }
  invisible()
}

# ---- the incomplete Cholesky's rank and its residual --------------------------

# approx_ichol(max_rank = NULL): at most this many columns, fewer when the
# memory budget allows fewer (ichol_cap()). Measured (inst/bench/bench-ichol.R,
# Gaussian kernels, median heuristic): tol = 1e-3 stops at rank 16 for one
# feature and 485 for five at m = 2000; for five at m = 10,000 rank 500
# leaves 0.2% of the trace (HSIC within 0.3%); on 20 or more independent
# features no affordable rank reaches 1% (7% is left at rank 3000, m =
# 10,000, 50 features), which the warning below reports. Time O(m r^2):
# 1 to 1.7 s at m = 10,000 and r = 500, 4 to 5.5 s at r = 1000. At m =
# 30,000 and 100,000 on 50 independent features (inst/bench/bench-ichol-large.R,
# ranks 50 to 2000) no rank is within 10% of exact HSIC at twice block's CPU
# time: rank 500 leaves 26-27.5% (HSIC 20-22% low) in 32-35 times block's
# time, rank 100 53% low in 3 times, rank 2000 6.5% low in 418 times; so the
# cap stays what the low-dimensional kernels need and the warning points to
# "block" (ichol_slow_residual).
ichol_default_rank <- 500L

# The residual trace, trace(K - G G') / trace(K), above which a factor earns
# a warning. Measured (inst/bench/bench-ichol.R): HSIC0 and HSIC1 fall short
# of the exact values by at most 1.7 times this fraction (median 1.0 over
# 136 factors with a residual of at least 0.5%), so 1% keeps them within
# about 2% (0.4% at most over the factors measured with a residual <= 1%).
ichol_warn_residual <- 0.01

# The residual trace above which a factor stopped by its rank cap is told
# that raising the cap helps slowly. Measured (inst/bench/bench-ichol-large.R,
# 50 independent features, m = 30,000): 26% left at rank 500, 20% at 1000
# and 14% at 2000 (HSIC1 20%, 12% and 6.5% low) in 3.3 and 12 times rank
# 500's CPU time; where so much is left the spectrum is flat, and the block
# estimator (unbiased HSIC1) is the cheaper way to an estimate.
ichol_slow_residual <- 0.1

# The rank cap of an ichol factor with m rows: max_rank as given, refused
# above the memory budget (check_factor_memory(); C_ichol holds at most 2 m
# max_rank doubles); or, for max_rank = NULL, ichol_default_rank lowered to
# what the budget allows. list(cap, budget = TRUE when the budget lowered it).
ichol_cap <- function(m, approx) {
  r <- approx$params$max_rank
  if (!is.null(r)) {
    check_factor_memory(m, 2 * min(r, m), approx)
    return(list(cap = min(r, m), budget = FALSE))
  }
  budget <- option_max_memory()
  fits <- floor(budget / (16 * as.double(max(m, 1L))))
  cap <- min(ichol_default_rank, m)
  if (fits < 1) check_factor_memory(m, 2, approx)
  list(cap = as.integer(min(cap, fits)), budget = fits < cap)
}

# C_ichol on x (or a precomputed matrix, code bk_codes$kernel["precomputed"]) with the approximation's tol
# and rank cap: list(G, fit), fit = what ichol_residual_warning() reads (the
# factor's name, rank, cap, whether the budget set the cap, and the residual
# trace as a fraction of trace(K), NA when trace(K) is not positive).
ichol_fit <- function(x, code, par, approx, what) {
  cap <- ichol_cap(nrow(x), approx)
  # the options of C_ichol, read by name in C (src/lowrank_call.c)
  f <- .Call(C_ichol, x, list(kernel = code, p1 = as.double(par[1L]), p2 = as.double(par[2L]),
                              tol = as.double(approx$params$tol), max_rank = cap$cap))
  rho <- if (is.finite(f$trace) && f$trace > 0) max(f$residual_trace, 0) / f$trace else NA_real_
  list(G = f$G, fit = list(what = what, rank = ncol(f$G), cap = cap$cap, budget = cap$budget,
                           tol = approx$params$tol, residual = rho))
}

# One warning for the factors of a call (fits: ichol_fit()$fit entries, NULL
# for exact or random-feature factors) whose residual trace is above
# ichol_warn_residual: how much is left, what stopped the factorisation, and
# what to do.
ichol_residual_warning <- function(fits) {
  fits <- Filter(function(f) !is.null(f) && is.finite(f$residual) &&
                   f$residual > ichol_warn_residual, fits)
  if (!length(fits)) return(invisible(FALSE))
  parts <- vapply(fits, function(f) {
    sprintf("%.1f%% at rank %d in the %s", 100 * f$residual, f$rank, f$what)
  }, character(1))
  capped <- vapply(fits, function(f) f$rank >= f$cap, logical(1))
  budget <- vapply(fits, function(f) isTRUE(f$budget), logical(1)) & capped
  fix <- if (!all(capped)) {
    "Lower 'tol' in approx_ichol()"
  } else if (any(budget)) {
    sprintf(paste0("Rank %d is what the memory budget (option bahsic.max_memory) allows: ",
                   "raise the option"), min(vapply(fits[budget], `[[`, 0L, "rank")))
  } else {
    "Raise 'max_rank' in approx_ichol()"
  }
  slow <- if (all(capped) && !any(budget) &&
              max(vapply(fits, `[[`, 0, "residual")) > ichol_slow_residual) {
    paste0(" Above 10% left at the cap the rank needed grows fast (the table in ",
           "?approximations: 26% at rank 500 fell to 14% at rank 2000 in 12 times the time): ",
           "approx = \"block\" is the cheaper estimate.")
  } else {
    ""
  }
  warning(sprintf(paste0("approx = \"ichol\" left a residual trace(K - GG') / trace(K) of %s: ",
                         "HSIC is then too low by up to about twice that fraction ",
                         "(see ?approximations). %s (time O(m r^2), memory 16 m r bytes), ",
                         "or use approx = \"block\" or \"rff\".%s"),
                  paste(parts, collapse = " and "), fix, slow), call. = FALSE)
  invisible(TRUE)
}

# The factors are m x r: refuse one above the memory budget (option
# bahsic.max_memory, as check_memory() for the exact path) before allocating.
# cols: the factor's columns at its peak (ichol: its buffer and the result).
check_factor_memory <- function(m, cols, approx) {
  budget <- option_max_memory()
  need <- 8 * as.double(m) * cols
  if (need > budget) {
    what <- if (approx$name == "rff") "n_features" else "max_rank"
    stop(sprintf(paste0("approx = \"%s\" needs %.3g GiB for %d samples x %g factor columns, ",
                        "above the memory budget of %.3g GiB (option bahsic.max_memory). ",
                        "Use a smaller '%s', approx = \"block\", or raise the option."),
                 approx$name, need / 1024^3, m, cols, budget / 1024^3, what), call. = FALSE)
  }
  invisible()
}

# bahsic(approx = "ichol"): the rank cap of the C loop, which runs
# bk_ichol() on the surviving set at every round. The set of all p features,
# at the width of the first round (policy "dimension": 1 / (2 p) for the
# Gaussian kernel, 1 / sqrt(2 p) for the Laplace kernel, as choose_sigma() in
# src/select.c; "fixed": the kernel's own), is factored here first with the
# approximation's tol and cap: its rank caps the later rounds, whose sets are
# smaller and whose kernels are smoother, and its residual (with the label
# factor's, fy$fit) gives the call's one warning, before the loop. Refuses a
# loop whose buffers (check_select_factor_memory()) exceed the memory budget.
ichol_select_rank <- function(xs, kernel, policy, approx, fy, threads) {
  p <- ncol(xs)
  if (kernel_has(kernel, "width") && policy == "dimension") {
    kernel$params$sigma <- dimension_width(kernel, p)
  }
  f <- ichol_fit(xs, kernel_code(kernel), kernel_param(kernel), approx, "data kernel")
  r <- max(1L, ncol(f$G))
  check_select_factor_memory(nrow(xs), p, r, ncol(fy$F), threads, approx)
  ichol_residual_warning(list(f$fit, fy$fit))
  r
}

# The low-rank paths of bahsic() and fohsic() (select_call.c) hold besides the
# data: for "ichol" a copy of the set (m x p), the set's factor and the sums to
# its pivots (m x r each) and per thread two m x r buffers and
# bk_lowrank_hsic()'s workspace ((8 + min(r, s)) m); for "rff" the
# projections (m x D) and per thread the features (m x D) and that workspace.
# Refuse them above the memory budget (option bahsic.max_memory) before
# allocating.
check_select_factor_memory <- function(m, p, cols, s, threads, approx) {
  m <- as.double(m)
  per_thread <- if (approx$name == "ichol") 2 * m * cols else m * cols
  per_thread <- per_thread + (8 + min(cols, s)) * m + 2 * (cols * s + cols + s)
  shared <- if (approx$name == "ichol") m * p + 2 * m * cols + 2 * m else m * cols + 2 * m
  need <- 8 * (shared + max(1L, threads) * per_thread)
  budget <- option_max_memory()
  if (need > budget) {
    what <- if (approx$name == "rff") "n_features" else "max_rank"
    stop(sprintf(paste0("approx = \"%s\" needs %s for %.0f samples with %g factor columns ",
                        "on %d thread%s, above the memory budget of %s (option ",
                        "bahsic.max_memory). Use a smaller '%s', fewer threads, ",
                        "approx = \"block\", or raise the option."),
                 approx$name, format_gib(need), m, cols, threads, if (threads == 1L) "" else "s",
                 format_gib(budget), what), call. = FALSE)
  }
  invisible()
}

# The selectors' block path holds, per pair of samples within a block, the
# set's distances, a candidate's and the weights (about 4 doubles), and the
# blocks' B x B weight matrices: refuse a partition above the memory budget
# (option bahsic.max_memory) before allocating. Also catches size >= m at
# large m, where the block path is the exact one.
check_block_memory <- function(blocks, size) {
  b <- as.double(lengths(blocks$list))
  need <- 8 * (4 * sum(b * (b - 1) / 2) + sum(b^2))
  budget <- option_max_memory()
  if (need > budget) {
    stop(sprintf(paste0("approx_block(size = %d) needs %.3g GiB for the pairs of samples within ",
                        "blocks, above the memory budget of %.3g GiB (option ",
                        "bahsic.max_memory). Use a smaller block size, or raise the option."),
                 size, need / 1024^3, budget / 1024^3), call. = FALSE)
  }
  invisible()
}

# ---- the memory budget of the entry points without m x m kernel matrices ----

# Stop when `need` bytes, what `what` (e.g. "lsmi()") holds at its peak for m
# samples (`detail`: of what), exceed the memory budget (option
# bahsic.max_memory), as check_memory() does for the m x m matrices; fix:
# what to do. Called before the first large allocation.
check_budget <- function(need, m, what, detail, fix) {
  budget <- option_max_memory()
  if (need > budget) {
    stop(sprintf(paste0("%s needs %s for %.0f samples (%s), above the memory budget of %s ",
                        "(option bahsic.max_memory). %s"),
                 what, format_gib(need), as.double(m), detail, format_gib(budget), fix),
         call. = FALSE)
  }
  invisible()
}

# As check_memory() writes sizes (one decimal), with three digits below 0.1 GiB.
format_gib <- function(bytes) {
  gib <- bytes / 1024^3
  if (gib >= 0.1) sprintf("%.1f GiB", gib) else sprintf("%.3g GiB", gib)
}

# The doubles C_median_pairwise() holds for the median heuristic on n rows
# of d columns: the packed distances (BK_MEDIAN_WORK(n), allocated whatever
# d) and, for d > 1, the n x n cross products.
median_pairwise_doubles <- function(n, d) {
  n <- as.double(n)
  if (n < 2) return(0)
  n * (n - 1) / 2 + 65536 + if (d > 1) n^2 else 0
}

# Random Fourier features (Rahimi and Recht 2007) of a kernel with random
# features (kernel_has(kernel, "rff")), such as the Gaussian
# exp(-sigma ||d||^2) and Laplace exp(-sigma ||d||) kernels: Z = sqrt(2 / D)
# cos(x W' + b) with E[Z Z'] = K. The frequencies follow the kernel's
# spectral measure (its row of the kernel table, rff_frequencies()).
rff_features <- function(kernel, x, n_features) {
  dr <- rff_draw(kernel, ncol(x), n_features)
  .Call(C_rff, x, dr$W, dr$b)
}

# The frequencies W (n_features x d), at the kernel's width, and phases b of
# rff_features(), drawn in its order: the frequencies, then the phases.
rff_draw <- function(kernel, d, n_features) {
  check_rff_size(n_features, d)
  scale <- rff_spectra[[kernel_spectrum(kernel)]]$scale(kernel$params$sigma)
  W <- rff_frequencies(kernel, n_features, d, scale)
  list(W = W, b = stats::runif(n_features, 0, 2 * pi))
}

# The spectral measures of the kernel table (BK_SPECTRUM_TABLE in
# src/codes.h) as R draws them, from R's generator so that set.seed() fixes
# them: frequencies scale(sigma) z / u, z ~ N(0, I) per frequency and u a
# mixing draw per frequency (mix(n): NULL for none), drawn after z. scale is
# the C table's, which the selectors apply to the standard draws (scale 1)
# in C; test-codes.R checks that every measure of a kernel with random
# features is here. N(0, 2 sigma I) of the Gaussian kernel; the
# multivariate Cauchy sigma z / |u|, u ~ N(0, 1), of the Laplace kernel.
rff_spectra <- list(
  normal = list(scale = function(sigma) sqrt(2 * sigma), mix = function(n) NULL),
  cauchy = list(scale = function(sigma) sigma, mix = function(n) abs(stats::rnorm(n)))
)

# n x d frequencies of the kernel's spectral measure times scale (1: the
# standard draws, scaled by the width in C in the selectors).
rff_frequencies <- function(kernel, n, d, scale = 1) {
  spectrum <- rff_spectra[[kernel_spectrum(kernel)]]
  if (is.null(spectrum)) {
    stop(sprintf("the %s kernel has no spectral measure to draw random features from",
                 kernel$name), call. = FALSE)
  }
  W <- scale * matrix(stats::rnorm(as.double(n) * d), n, d)
  u <- spectrum$mix(n)
  if (is.null(u)) W else W / u
}

# The n_features x d frequencies, drawn and scaled (two copies), refused
# above the memory budget before they are drawn (the features themselves are
# counted by their callers).
check_rff_size <- function(n_features, d) {
  check_size(16 * as.double(n_features) * d, "n_features", n_features,
             sprintf("the %s x %d random frequencies", format(n_features, big.mark = ","), d))
}

# Random features made at a time by hsic(approx = "rff") (rff_hsic()): an
# m x rff_chunk block besides the data, 256 MB at m = 1e6.
rff_chunk <- 32L

# HSIC0, HSIC1 and the variance of HSIC1 (C_lowrank_hsic()'s) from the
# random features of x with the draws dr (rff_draw()) and the label factor F,
# without the m x n_features feature matrix: C_rff_hsic() makes `chunk`
# features at a time (the same numbers for any chunk, threads and simd; tests
# set a small chunk to cross its boundaries). Refuses above the memory budget.
rff_hsic <- function(x, F, dr, approx, threads = 1L, chunk = rff_chunk, simd = option_simd()) {
  chunk <- min(as.integer(chunk), nrow(dr$W))
  check_factor_memory(nrow(x), chunk + 7 + ncol(F), approx)
  .Call(C_rff_hsic, x, F, list(W = dr$W, b = dr$b, chunk = chunk, threads = as.integer(threads),
                               simd = simd))
}

# Samples taken at a time by hsic(approx = "rff") when both kernels are
# random features (rff_hsic2()): blocks of rff_rows x (3 D + 2 S) doubles,
# 5 MB for D = S = 500, whatever m.
rff_rows <- 256L

# HSIC0, HSIC1 and the variance of HSIC1 from the random features of x (draws
# dr) and of the regression outcome ymat (draws dry): C_rff_hsic2() takes
# `rows` samples at a time and holds neither m x n_features matrix, only 7
# doubles per sample and the n_features^2 cross-products (the same numbers
# for any rows, threads and simd; tests set small rows to cross the block
# boundaries). Refuses above the memory budget.
rff_hsic2 <- function(x, ymat, dr, dry, approx, threads = 1L, rows = rff_rows,
                      simd = option_simd()) {
  m <- nrow(x)
  rows <- max(1L, min(as.integer(rows), m))
  D <- nrow(dr$W)
  S <- nrow(dry$W)
  doubles <- 7 * as.double(m) + 2 * D * S + 2 * (D + S) +
    rows * (ncol(x) + ncol(ymat) + 3 * D + 2 * S)
  check_factor_memory(m, doubles / m, approx)
  .Call(C_rff_hsic2, x, ymat, list(W = dr$W, b = dr$b, Wy = dry$W, by = dry$b, rows = rows,
                                   threads = as.integer(threads), simd = simd))
}

# hsic(approx = "rff") with a regression label kernel that has random features
# and no design: list(kernel_y, ymat, dry), the label kernel resolved and its
# draws made as label_factor() would make them (after the data side's), for
# rff_hsic2(); NULL for every other label.
rff_label_draws <- function(kernel_y, y, approx, design) {
  kern <- kernel_y$params$kernel
  if (!is.null(design) || kernel_y$type != "regression" ||
      kern$name %in% c("linear", "precomputed") || !kernel_has(kern, "rff")) {
    return(NULL)
  }
  check_kernel_approximable(kern, "kernel_y", approx)
  ymat <- regression_outcome(y)
  kern <- resolve_width_approx(kern, ymat, "y")
  dry <- rff_draw(kern, ncol(ymat), approx$params$n_features)
  kernel_y$params$kernel <- kern
  kernel_y$label <- paste("regression label kernel:", kern$label)
  storage.mode(ymat) <- "double"
  list(kernel_y = kernel_y, ymat = ymat, dry = dry)
}

# The label factor F (m x s) with L ~ F F': classification label kernels and
# the linear regression kernel are exactly low rank (label_gram()); other
# regression kernels are factored like the data kernel (rff falls back to
# ichol's defaults for kernels without random features).
label_factor <- function(kernel_y, y, approx, warn = TRUE) {
  kern <- kernel_y$params$kernel
  if (kernel_y$type != "regression" || kern$name == "linear") {
    lab <- label_gram(kernel_y, y)
    return(list(F = lab$Y, kernel = lab$kernel))
  }
  if (kern$name == "precomputed") {
    # the caller's L is in memory already: factor it as it is
    if (approx$name != "ichol") approx <- approx_ichol()
    f <- pivoted_cholesky_fit(kern$params$K, approx)
    if (warn) ichol_residual_warning(list(f$fit))
    return(list(F = f$G, kernel = kernel_y, fit = f$fit))
  }
  check_kernel_approximable(kern, "kernel_y", approx)
  ymat <- regression_outcome(y)
  if (approx$name == "rff" && !kernel_has(kern, "rff")) approx <- approx_ichol()
  f <- kernel_factor(kern, ymat, approx, "kernel_y", warn = warn)
  kernel_y$params$kernel <- f$kernel
  kernel_y$label <- paste("regression label kernel:", f$kernel$label)
  list(F = f$Z, kernel = kernel_y, fit = f$fit)
}

# Pivoted incomplete Cholesky of a given symmetric matrix L (a precomputed
# label kernel): bk_ichol() on the matrix itself (kernel code BK_PRECOMPUTED),
# with the stopping rule of every other kernel (tol relative to the largest
# diagonal, at most max_rank columns); one zero column when L is 0.
pivoted_cholesky <- function(L, tol, max_rank) {
  pivoted_cholesky_fit(L, approx_ichol(tol, max_rank))$G
}

# pivoted_cholesky() with the approximation's rank cap (ichol_cap()) and the
# fit ichol_residual_warning() reads.
pivoted_cholesky_fit <- function(L, approx) {
  storage.mode(L) <- "double"
  f <- ichol_fit(L, bk_codes$kernel[["precomputed"]], c(0, 0), approx, "label kernel")
  if (ncol(f$G) == 0L) f$G <- matrix(0, nrow(L), 1L)
  f
}

# hsic() with approx "ichol" or "rff": HSIC0, HSIC1 and the variance of HSIC1
# from the two factors in O(m r s) (bk_lowrank_hsic()); one warning for both
# factors when their residual is large (ichol_residual_warning()).
hsic_lowrank <- function(x, y, kernel_x, kernel_y, approx, threads = 1L, design = NULL) {
  if (approx$name == "rff") {
    # the draws first, then the label factor, as kernel_factor() would; the
    # features themselves only in chunks (rff_hsic())
    check_kernel_approximable(kernel_x, "kernel", approx)
    kernel_x <- resolve_width_approx(kernel_x, x)
    check_kernel_rff(kernel_x, "kernel")
    dr <- rff_draw(kernel_x, ncol(x), approx$params$n_features)
    fx <- list(kernel = kernel_x, r = approx$params$n_features)
  } else {
    fx <- kernel_factor(kernel_x, x, approx, "kernel", warn = FALSE)
    fx$r <- ncol(fx$Z)
  }
  both <- if (approx$name == "rff") rff_label_draws(kernel_y, y, approx, design)
  if (!is.null(both)) {
    # both sides random features: neither feature matrix is made (rff_hsic2())
    st <- rff_hsic2(x, both$ymat, dr, both$dry, approx, threads)
    return(list(stats = st, kernel_x = fx$kernel, kernel_y = both$kernel_y,
                rank = c(x = fx$r, y = nrow(both$dry$W)), residual = c(x = NA_real_, y = NA_real_)))
  }
  fy <- label_factor(kernel_y, y, approx, warn = FALSE)
  fy$F <- design_factor(design, fy$F)
  ichol_residual_warning(list(fx$fit, fy$fit))
  st <- if (approx$name == "rff") {
    rff_hsic(x, fy$F, dr, approx, threads)
  } else {
    .Call(C_lowrank_hsic, fx$Z, fy$F)
  }
  list(stats = st, kernel_x = fx$kernel, kernel_y = fy$kernel,
       rank = c(x = fx$r, y = ncol(fy$F)),
       residual = c(x = if (is.null(fx$fit)) NA_real_ else fx$fit$residual,
                    y = if (is.null(fy$fit)) NA_real_ else fy$fit$residual))
}

# hsic() with approx "block" (Zaremba et al. 2013): the exact estimates within
# every block of block_partition(), with the kernels fixed beforehand (widths
# by median_sigma() on all the data, the label kernel by
# block_label_source()); the same blocks and weights as the selectors'. Returns the block
# estimates (3 x blocks: HSIC0, HSIC1, variance) and the resolved kernels.
hsic_block <- function(x, y, kernel_x, kernel_y, approx, threads) {
  m <- nrow(x)
  kernel_x <- resolve_width_approx(kernel_x, x)
  if (kernel_x$name == "clinical") kernel_x$params <- attr(x, "clinical")
  if (kernel_x$name == "precomputed" && nrow(kernel_x$params$K) != m) {
    stop(sprintf("The precomputed kernel is %d x %d but the data have %d samples.",
                 nrow(kernel_x$params$K), nrow(kernel_x$params$K), m), call. = FALSE)
  }
  lab <- block_label_source(kernel_y, y, threads)
  blocks <- block_partition(m, approx$params$size, approx$params$n_partitions)
  est <- vapply(blocks$list, function(idx) {
    l <- lab$block(idx)
    .Call(C_hsic_stats, block_gram(kernel_x, x, idx, threads), label_arg(l))[1:3]
  }, numeric(3))
  # blocks per partition (size >= m: one block, the exact estimate, whatever n_partitions)
  nb <- max(1L, m %/% min(approx$params$size, m))
  list(est = unname(est), n_blocks = nb, kernel_x = kernel_x, kernel_y = lab$kernel,
       min_block = min(lengths(blocks$list)))
}

# The block estimator's partitions (Zaremba et al. 2013): each a random
# permutation of the m samples (sample.int, R's RNG) cut into floor(m / size)
# blocks of `size`, the last one taking the remainder; with size >= m one
# block of all samples in their order (the exact estimate, no draw). rows:
# the samples of the stacked partitions (n_partitions * m); row0: the row
# offsets of the blocks in that stack (0-based, for C); list: the samples of
# every block.
block_partition <- function(m, size, n_partitions) {
  if (size >= m) {
    rows <- seq_len(m)
    sizes <- m
  } else {
    nb <- m %/% size
    # the stacked permutations, their blocks and the blocks' estimates
    check_size(n_partitions * (16 * as.double(m) + 120 * nb), "n_partitions", n_partitions,
               sprintf("the partitions of %d samples into %d blocks", m, nb))
    one <- c(rep(size, nb - 1L), size + m %% size)
    rows <- unlist(lapply(seq_len(n_partitions), function(i) sample.int(m)))
    sizes <- rep(one, n_partitions)
  }
  row0 <- as.integer(c(0L, cumsum(sizes)))
  list(rows = rows, row0 = row0,
       list = unname(split(rows, rep(seq_along(sizes), sizes))))
}

# The label kernel of the block estimator, fixed on all samples first (class
# weights from all samples; a regression kernel's width by the median
# heuristic on at most 1000 outcomes, resolve_width_approx()), and then
# restricted to a block: list(kernel = the resolved label kernel, block =
# function(i) list(L, Y) for the samples i, as label_gram() returns them).
# Never an m x m matrix (but the caller's precomputed one).
block_label_source <- function(kernel_y, y, threads) {
  kern <- kernel_y$params$kernel
  if (kernel_y$type != "regression" || kern$name == "linear") {
    lab <- label_gram(kernel_y, y, threads)
    return(list(kernel = lab$kernel, block = function(i) list(Y = lab$Y[i, , drop = FALSE])))
  }
  if (kern$name == "precomputed") {
    L <- kern$params$K
    if (nrow(L) != NROW(y)) {
      stop(sprintf("The precomputed label kernel is %d x %d but the data have %d samples.",
                   nrow(L), nrow(L), NROW(y)), call. = FALSE)
    }
    return(list(kernel = kernel_y, block = function(i) list(L = L[i, i, drop = FALSE])))
  }
  ymat <- regression_outcome(y)
  kern <- resolve_width_approx(kern, ymat, "y")
  kernel_y$params$kernel <- kern
  kernel_y$label <- paste("regression label kernel:", kern$label)
  list(kernel = kernel_y, block = function(i) {
    L <- gram(kern, ymat[i, , drop = FALSE], threads, arg = "y")
    attr(L, "kernel") <- NULL
    list(L = L)
  })
}

block_gram <- function(kernel, x, idx, threads) {
  if (kernel$name == "precomputed") return(kernel$params$K[idx, idx, drop = FALSE])
  if (kernel$name == "clinical") {
    # the encoding (ranges from all samples) stays that of the whole data
    z <- x[idx, , drop = FALSE]
    attr(z, "clinical") <- attr(x, "clinical")
    K <- clinical_gram(kernel, z, threads)
    attr(K, "kernel") <- NULL
    return(unname(K))
  }
  K <- gram(kernel, x[idx, , drop = FALSE], threads)
  attr(K, "kernel") <- NULL
  unname(K)
}
