#' Simulated single-cell counts with planted marker genes
#'
#' Draws a cells x genes matrix of negative binomial counts in which a few
#' genes (`n_informative`) depend on the cell type and the rest do not: a
#' benchmark for gene selection at single-cell sample sizes (see the "Large
#' data" section of `vignette("gene-selection", package = "bahsic")`). All
#' draws come from R's random number generator, so [set.seed()] reproduces
#' a data set.
#'
#' Cell types are balanced (`sample(rep_len(1:n_types, n_cells))`). Gene
#' \eqn{g} has a base mean \eqn{\mu_g} drawn from a log-normal distribution
#' (`meanlog = 0`, `sdlog = 1.5`; informative genes `meanlog = 1`,
#' `sdlog = 0.5`, so that they are expressed), and cell \eqn{i} a size factor
#' \eqn{s_i} (log-normal, `sdlog = 0.3`). An informative gene is up by
#' `fold_change` in a random non-empty proper subset of the types (in one
#' type for two types), so some genes mark one type and others separate
#' groups of types. The count is negative binomial with mean
#' \eqn{s_i \mu_g} (times the gene's fold change where it is up) and dispersion
#' `size` (variance \eqn{\mu + \mu^2/\mathrm{size}}). `x` is the usual
#' log-normalised expression, \eqn{\log(1 + 10^4 c_{ig} / \sum_g c_{ig})}.
#'
#' @param n_cells number of cells (samples), at least 4.
#' @param n_genes number of genes (features), at least `n_informative`.
#' @param n_informative number of genes that depend on the cell type.
#' @param n_types number of cell types, at least 2.
#' @param fold_change mean of an informative gene in the types where it is
#'   up, relative to the others (> 1): one number for every informative gene,
#'   or a range `c(low, high)`, spread evenly over the informative genes (in
#'   column order), for markers from subtle to strong.
#' @param size dispersion of the negative binomial (smaller: noisier).
#' @param ... not used: an argument that is none of the above is an error that
#'   names it and suggests the closest name.
#' @return A list with `counts` (integer matrix, cells x genes, row names
#'   `cell1`, ..., column names `gene00001`, ...), `x` (the log-normalised
#'   matrix, same shape and names), `y` (factor of cell types `type1`, ...)
#'   and `informative` (the names of the informative genes, in column
#'   order), `fold_change` (their fold changes, named) and `mean` (the base
#'   mean count of every gene).
#' @family simulate
#' @examples
#' set.seed(1)
#' sim <- simulate_counts(300, 200, n_informative = 5)
#' dim(sim$x)
#' table(sim$y)
#' fit <- bahsic(sim$x, sim$y, kernel = kernel_linear())
#' sim$informative %in% selected(fit, 10)
#' @export
simulate_counts <- function(n_cells = 2000L, n_genes = 2000L, n_informative = 20L,
                            n_types = 3L, fold_change = 3, size = 2, ...) {
  check_dots(...)
  n_cells <- check_whole(n_cells, "n_cells", 4L)
  n_informative <- check_whole(n_informative, "n_informative", 0L)
  n_genes <- check_whole(n_genes, "n_genes", max(1L, n_informative))
  n_types <- check_whole(n_types, "n_types", 2L)
  # the means, the counts, x and a temporary: about 25 bytes a count at the
  # peak (measured with gc()); the larger of the two names the argument
  cells <- n_cells >= n_genes
  check_size(32 * as.double(n_cells) * n_genes, if (cells) "n_cells" else "n_genes",
             if (cells) n_cells else n_genes,
             sprintf("the %d x %d counts, about 32 bytes each", n_cells, n_genes))
  if (!is.numeric(fold_change) || !length(fold_change) %in% 1:2 || any(!is.finite(fold_change)) ||
      any(fold_change <= 1)) {
    stop("'fold_change' must be one number above 1, or a range c(low, high) above 1.", call. = FALSE)
  }
  check_positive_number(size, "size")

  type <- sample(rep_len(seq_len(n_types), n_cells))
  informative <- sort(sample.int(n_genes, n_informative))
  mu <- stats::rlnorm(n_genes, 0, 1.5)
  mu[informative] <- stats::rlnorm(n_informative, 1, 0.5)
  fc <- if (length(fold_change) == 2L) {
    seq(fold_change[1L], fold_change[2L], length.out = n_informative)
  } else {
    rep(fold_change, n_informative)
  }
  # the fold change of every gene in every type: 1, or the gene's where it
  # is up (in a non-empty proper subset of the types)
  effect <- matrix(1, n_types, n_genes)
  for (i in seq_along(informative)) {
    k <- if (n_types == 2L) 1L else sample.int(n_types - 1L, 1L)
    effect[sample.int(n_types, k), informative[i]] <- fc[i]
  }
  sf <- stats::rlnorm(n_cells, 0, 0.3)
  mean <- outer(sf, mu) * effect[type, , drop = FALSE]
  counts <- matrix(stats::rnbinom(length(mean), size = size, mu = mean), n_cells, n_genes)
  genes <- sprintf(paste0("gene%0", max(5L, nchar(n_genes)), "d"), seq_len(n_genes))
  dimnames(counts) <- list(paste0("cell", seq_len(n_cells)), genes)
  lib <- rowSums(counts)
  lib[lib == 0] <- 1
  rm(mean)
  x <- log1p(counts / lib * 1e4)
  list(counts = counts, x = x, y = factor(paste0("type", type), paste0("type", seq_len(n_types))),
       informative = genes[informative], fold_change = stats::setNames(fc, genes[informative]),
       mean = stats::setNames(mu, genes))
}
