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
#'   that is at most `tol` times the largest diagonal of \eqn{K}, or at
#'   `max_rank` columns. HSIC0 and HSIC1 then cost \eqn{O(m r^2)} time and
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
#' In [hsic()]:
#'
#' * Costs, for \eqn{m} samples, \eqn{d} features, a data factor of rank
#'   \eqn{r} (`max_rank` at most, or `n_features` = \eqn{D}) and a label
#'   factor of rank \eqn{s}: `"ichol"` \eqn{O(m r (d + r) + m r s)} time,
#'   \eqn{O(m (r + s))} memory (at \eqn{m = 100{,}000}, \eqn{r = 200}:
#'   about 5 s and 0.5 GB on one core, `inst/bench/bench-hsic-large.R`);
#'   `"rff"` \eqn{O(m D d + m D s)} time, \eqn{O(m D)} memory; `"block"`
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
#' @param max_rank for `approx_ichol()`: the largest number of columns.
#' @param n_features for `approx_rff()`: the number of random features.
#' @param size for `approx_block()`: the number of samples per block
#'   (at least 4); the last block takes the remainder when `m` is not a
#'   multiple.
#' @param n_partitions for `approx_block()`: the number of random
#'   partitions averaged.
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
#' approx_ichol(tol = 1e-4)
#' approx_block(size = 50)
#' set.seed(1)
#' x <- matrix(rnorm(600), 300, 2)
#' y <- x[, 1]^2 + rnorm(300, sd = 0.2)
#' hsic(x, y)$estimate
#' hsic(x, y, approx = approx_ichol(max_rank = 50))$estimate
#' hsic(x, y, approx = approx_rff(n_features = 200))$estimate
#' hsic(x, y, approx = approx_block(size = 100, n_partitions = 3))$estimate
#' @export
approx_exact <- function() {
  new_approx("exact", list(), "exact (m x m kernel matrices)")
}

#' @rdname approximations
#' @export
approx_ichol <- function(tol = 1e-6, max_rank = 200L) {
  check_positive_number(tol, "tol")
  max_rank <- check_whole(max_rank, "max_rank", 1L)
  new_approx("ichol", list(tol = tol, max_rank = max_rank),
             sprintf("incomplete Cholesky (tol = %g, max_rank = %d)", tol, max_rank))
}

#' @rdname approximations
#' @export
approx_rff <- function(n_features = 500L) {
  n_features <- check_whole(n_features, "n_features", 1L)
  new_approx("rff", list(n_features = n_features),
             sprintf("random Fourier features (n_features = %d)", n_features))
}

#' @rdname approximations
#' @export
approx_block <- function(size = 100L, n_partitions = 1L) {
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
# m <= n_max. 1 when the distances are all 0 (the kernel is then constant
# whatever the width).
median_sigma <- function(x, squared, n_max = 1000L) {
  m <- nrow(x)
  if (m > n_max) x <- x[unique(round(seq(1, m, length.out = n_max))), , drop = FALSE]
  med <- pairwise_median(x, squared)
  if (is.finite(med) && med > 0) 1 / med else 1
}

# ---- the approximate paths of hsic() ------------------------------------------

# hsic() with approx "ichol", "rff" or "block": the inputs as hsic_prepare()
# takes them, then no m x m matrix.
hsic_approx <- function(x, y, kernel_x, kernel_y, estimator, na_action, assay, threads, approx,
                        call) {
  check_kernel(kernel_x, "kernel_x",
               where = "with an approximation (approx other than \"exact\")")
  threads <- check_threads(threads)
  unbiased <- estimator == "unbiased"
  d <- normalise_inputs(x, y, na_action = na_action, assay = assay,
                        clinical = is_clinical(kernel_x), require_y = FALSE)
  m <- nrow(d$x)
  check_min_samples(m, if (unbiased) 4L else 2L,
                    sprintf("The %s HSIC estimator", estimator),
                    if (unbiased) "Use estimator = \"biased\", which needs 2.")
  d <- resolve_outcome(d, kernel_y, unsupervised = FALSE, what = "hsic()")
  kernel_y <- resolve_label_kernel(d$kernel_y, d$y)
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
    lr <- hsic_lowrank(d$x, d$y, kernel_x, kernel_y, approx)
    st <- lr$stats
    hsic0 <- st[1L]
    hsic1 <- if (m >= 4L) st[2L] else NA_real_
    se <- if (m >= 4L) sqrt(max(st[3L], 0)) else NA_real_
    kx <- lr$kernel_x
    ky <- lr$kernel_y
    extra$rank <- lr$rank
  }
  structure(c(list(estimate = if (unbiased) hsic1 else hsic0, estimator = estimator, se = se,
                   hsic0 = hsic0, hsic1 = hsic1, m = m, kernel_x = kx, kernel_y = ky,
                   call = call, approx = approx), extra),
            class = "bahsic_hsic")
}


# A kernel with its width resolved without any m x m matrix: the
# median heuristic on at most 1000 evenly spaced samples (median_sigma()).
resolve_width_approx <- function(kernel, x) {
  if (kernel$name %in% c("gaussian", "laplace") && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- median_sigma(x, squared = kernel$name == "gaussian")
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
# for approx "ichol" or "rff"; list(Z, kernel).
kernel_factor <- function(kernel, x, approx, arg) {
  check_kernel_approximable(kernel, arg, approx)
  kernel <- resolve_width_approx(kernel, x)
  if (approx$name == "rff") {
    if (!kernel$name %in% c("gaussian", "laplace")) {
      stop(sprintf(paste0("approx = \"rff\" (random Fourier features) needs a Gaussian or Laplace ",
                          "kernel; '%s' is a %s kernel. Use approx = \"ichol\"."),
                   arg, kernel$name), call. = FALSE)
    }
    check_factor_memory(nrow(x), approx$params$n_features, approx)
    return(list(Z = rff_features(kernel, x, approx$params$n_features), kernel = kernel))
  }
  check_factor_memory(nrow(x), 2 * min(approx$params$max_rank, nrow(x)), approx)
  p <- kernel_param(kernel)
  f <- .Call(C_ichol, x, kernel_code(kernel), p[1L], p[2L], approx$params$tol,
             approx$params$max_rank)
  list(Z = f$G, kernel = kernel)
}

# The factors are m x r: refuse one above the memory budget (option
# bahsic.max_memory, as check_memory() for the exact path) before allocating.
# cols: the factor's columns at its peak (ichol: its buffer and the result).
check_factor_memory <- function(m, cols, approx) {
  budget <- getOption("bahsic.max_memory", 8 * 1024^3)
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

# The selectors' block path holds, per pair of samples within a block, the
# set's distances, a candidate's and the weights (about 4 doubles), and the
# blocks' B x B weight matrices: refuse a partition above the memory budget
# (option bahsic.max_memory) before allocating. Also catches size >= m at
# large m, where the block path is the exact one.
check_block_memory <- function(blocks, size) {
  b <- as.double(lengths(blocks$list))
  need <- 8 * (4 * sum(b * (b - 1) / 2) + sum(b^2))
  budget <- getOption("bahsic.max_memory", 8 * 1024^3)
  if (need > budget) {
    stop(sprintf(paste0("approx_block(size = %d) needs %.3g GiB for the pairs of samples within ",
                        "blocks, above the memory budget of %.3g GiB (option ",
                        "bahsic.max_memory). Use a smaller block size, or raise the option."),
                 size, need / 1024^3, budget / 1024^3), call. = FALSE)
  }
  invisible()
}

# Random Fourier features (Rahimi and Recht 2007) of the Gaussian
# exp(-sigma ||d||^2) and Laplace exp(-sigma ||d||) kernels: Z = sqrt(2 / D)
# cos(x W' + b) with E[Z Z'] = K. The frequencies follow the kernels'
# spectral densities: N(0, 2 sigma I) for the Gaussian; for the Laplace
# kernel the multivariate Cauchy sigma z / |u|, z ~ N(0, I), u ~ N(0, 1).
# Drawn from R's RNG in this order: W (column-major), u (Laplace), b.
rff_features <- function(kernel, x, n_features) {
  d <- ncol(x)
  sigma <- kernel$params$sigma
  W <- matrix(stats::rnorm(n_features * d), n_features, d)
  W <- if (kernel$name == "gaussian") sqrt(2 * sigma) * W else sigma * W / abs(stats::rnorm(n_features))
  b <- stats::runif(n_features, 0, 2 * pi)
  .Call(C_rff, x, W, b)
}

# The label factor F (m x s) with L ~ F F': classification label kernels and
# the linear regression kernel are exactly low rank (label_gram()); other
# regression kernels are factored like the data kernel (rff falls back to
# ichol's defaults for kernels other than Gaussian and Laplace).
label_factor <- function(kernel_y, y, approx) {
  kern <- kernel_y$params$kernel
  if (kernel_y$type != "regression" || kern$name == "linear") {
    lab <- label_gram(kernel_y, y)
    return(list(F = lab$Y, kernel = lab$kernel))
  }
  if (kern$name == "precomputed") {
    # the caller's L is in memory already: factor it as it is
    if (approx$name != "ichol") approx <- approx_ichol()
    check_factor_memory(nrow(kern$params$K), min(approx$params$max_rank, nrow(kern$params$K)),
                        approx)
    return(list(F = pivoted_cholesky(kern$params$K, approx$params$tol, approx$params$max_rank),
                kernel = kernel_y))
  }
  check_kernel_approximable(kern, "kernel_y", approx)
  ymat <- regression_outcome(y)
  if (approx$name == "rff" && !kern$name %in% c("gaussian", "laplace")) approx <- approx_ichol()
  f <- kernel_factor(kern, ymat, approx, "kernel_y")
  kernel_y$params$kernel <- f$kernel
  kernel_y$label <- paste("regression label kernel:", f$kernel$label)
  list(F = f$Z, kernel = kernel_y)
}

# Pivoted incomplete Cholesky of a given symmetric matrix L (a precomputed
# label kernel): bk_ichol() on the matrix itself (kernel code BK_PRECOMPUTED),
# with the stopping rule of every other kernel (tol relative to the largest
# diagonal, at most max_rank columns); one zero column when L is 0.
pivoted_cholesky <- function(L, tol, max_rank) {
  storage.mode(L) <- "double"
  G <- .Call(C_ichol, L, 6L, 0, 0, tol, max_rank)$G
  if (ncol(G) == 0L) G <- matrix(0, nrow(L), 1L)
  G
}

# hsic() with approx "ichol" or "rff": HSIC0, HSIC1 and the variance of HSIC1
# from the two factors in O(m r s) (bk_lowrank_hsic()).
hsic_lowrank <- function(x, y, kernel_x, kernel_y, approx) {
  fx <- kernel_factor(kernel_x, x, approx, "kernel_x")
  fy <- label_factor(kernel_y, y, approx)
  st <- .Call(C_lowrank_hsic, fx$Z, fy$F)
  list(stats = st, kernel_x = fx$kernel, kernel_y = fy$kernel,
       rank = c(x = ncol(fx$Z), y = ncol(fy$F)))
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
    .Call(C_hsic_stats, block_gram(kernel_x, x, idx, threads), l$L, l$Y)[1:3]
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
  kern <- resolve_width_approx(kern, ymat)
  kernel_y$params$kernel <- kern
  kernel_y$label <- paste("regression label kernel:", kern$label)
  list(kernel = kernel_y, block = function(i) {
    L <- gram(kern, ymat[i, , drop = FALSE], threads)
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
