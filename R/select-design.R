# ---- the selectors under a study design -----------------------------------------------
# A selector given `covariates` or `block` ranks by conditional dependence: the
# label side of every HSIC it computes is projected off the design (R/design.R,
# R/design-kernel.R). The label kernel matrix L becomes P L P and a label
# factor F (L ~ F F') becomes P F, with P = I - Q Q' the projection off the
# intercept, the covariates and the block indicators; the data kernel is
# unchanged, so tr(K P L P) = tr(PKP PLP), the HSIC of both residualised
# kernels. The biased weights HLH / (m - 1)^2 become P L P / (m - 1)^2 (P H =
# P). It is done where the problem's labels are made (problem_labels(),
# R/problem.R), so the exact path (W), the label Gram matrix of randsel(), the
# label factor of the ichol and rff paths and the per-gene and pair tests of
# bahsic()'s screen all take the projected label.

# The design as a selector's default method was given it (design_spec());
# `data` without covariates or a block is an error (the formula interface's
# data given to the matrix one, most often).
selector_design_spec <- function(name, covariates, block, data) {
  if (!is.null(data) && is.null(covariates) && is.null(block)) {
    stop(sprintf(paste0("'data' belongs to the formula interface, %s(y ~ ., data = d); in ",
                        "the default method it is the samples' annotation in which a ",
                        "'covariates' formula (or a 'block' given by name) is evaluated, and ",
                        "neither is given."), name), call. = FALSE)
  }
  design_spec(covariates, block, data)
}

# The refusal of a selector that cannot adjust (its row's `design` sentence,
# check_selector_design()) when it is given a design.
refuse_design <- function(name, covariates, block, data) {
  check_selector_design(name, selector_design_spec(name, covariates, block, data))
}

# The label (label_gram(): list(L, Y, kernel)) projected off the design: Y
# becomes P Y (its Gram matrix P Y Y' P), L becomes P L P (design_label(),
# R/design-kernel.R); the other fields kept. Unchanged without a design.
project_label <- function(design, lab) {
  if (is.null(design)) return(lab)
  utils::modifyList(lab, design_label(design, lab))
}

# The block estimator under a design: the label of partition block `rows`
# projected off the design of those samples (its own intercept and
# covariates), so that every block's HSIC is a conditional one. A partition
# whose design leaves fewer than two residual degrees of freedom is an error.
design_block_label <- function(design, rows, lab) {
  if (is.null(design)) return(lab)
  A <- cbind(1, design$Z[rows, , drop = FALSE])
  qa <- qr(A)
  if (qa$rank >= length(rows) - 1L) {
    stop(sprintf(paste0("approx = \"block\": a block of %d samples cannot be adjusted for a ",
                        "design of %d columns (intercept and covariates). Use larger blocks ",
                        "(approx_block(size = )), or approx = \"ichol\" or \"rff\"."),
                 length(rows), qa$rank), call. = FALSE)
  }
  part <- list(Q = qr.Q(qa)[, seq_len(qa$rank), drop = FALSE])
  class(part) <- "bahsic_design"
  project_label(part, lab)
}

# The design's arguments against a selector's others, before any data: the
# unbiased estimator has no design form (its U-statistic sums the label kernel
# over distinct samples, which P L P does not keep), and the block estimator's
# random partitions would split the units of a `block`.
check_design_estimator <- function(design, estimator, what, approx = NULL) {
  if (is.null(design)) return(invisible())
  if (identical(estimator, "unbiased")) {
    design_refuse(sprintf("%s with estimator = \"unbiased\"", what), paste0(
      "the unbiased estimator (HSIC1) sums the label kernel over pairs of distinct samples, ",
      "and its projection off the covariates (P L P) has no such form. Use estimator = ",
      "\"biased\" (the default), whose weights become P L P."))
  }
  if (!is.null(approx) && identical(approx$name, "block") && !is.null(design$block)) {
    design_refuse(sprintf("%s with approx = \"block\" and a block", what), paste0(
      "its random partitions of the samples would split the pairs or patients of 'block'. ",
      "Use approx = \"ichol\" or \"rff\" (the label factor is projected off the design), or ",
      "give the units as a covariate."))
  }
  invisible()
}

# The resolved design in a selector's settings: its one line, which print()
# shows (NULL without a design, so that the settings stay as they were).
design_settings <- function(settings, design) {
  if (!is.null(design)) settings$design <- design$text
  settings
}

# ---- a simulated confounded study --------------------------------------------------------

# A study whose batches are confounded with the outcome (the check of the
# selectors under a design, tests/testthat/test-select-design.R and
# inst/bench/bench-select-design.R): n samples in `n_batch` batches; the class
# ("a" or "b") is "b" with probability 1 - `balance` in the odd batches and
# `balance` in the even ones, so batch and class are correlated but every batch
# holds both classes. Genes (columns, all N(0, 1) noise but):
#   batch1..    `n_batch_genes` genes shifted by `shift` sd per batch (batch
#               effect alone: independent of the class within a batch)
#   xor1, xor2  a within-batch XOR pair: class "b" when sign(xor1) sign(xor2) > 0
#   linear      shifted by `effect` sd between the classes within every batch
# Returns list(x, y, batch, data = data.frame(batch), truth, batch_genes).
simulate_confounded <- function(n = 120L, p = 300L, n_batch = 4L, n_batch_genes = 20L,
                                shift = 1.5, balance = 0.2, effect = 2) {
  batch <- factor(rep_len(seq_len(n_batch), n), labels = paste0("B", seq_len(n_batch)))
  prob_b <- ifelse(as.integer(batch) %% 2L == 1L, 1 - balance, balance)
  cls <- stats::runif(n) < prob_b
  y <- factor(ifelse(cls, "b", "a"), levels = c("a", "b"))
  x <- matrix(stats::rnorm(n * p), n, p)
  colnames(x) <- paste0("g", seq_len(p))
  # the batch genes: a random shift per batch and gene
  bg <- seq_len(n_batch_genes)
  mu <- matrix(stats::rnorm(n_batch * n_batch_genes), n_batch) * shift
  x[, bg] <- x[, bg] + mu[as.integer(batch), , drop = FALSE]
  colnames(x)[bg] <- paste0("batch", bg)
  # the XOR pair: xor2's sign makes sign(xor1) sign(xor2) the class
  j <- n_batch_genes + 1:3
  s <- ifelse(cls, 1, -1)
  x[, j[2L]] <- abs(x[, j[2L]]) * sign(x[, j[1L]]) * s
  x[, j[3L]] <- x[, j[3L]] + effect * (s / 2)
  colnames(x)[j] <- c("xor1", "xor2", "linear")
  list(x = x, y = y, batch = batch, data = data.frame(batch = batch),
       truth = c("xor1", "xor2", "linear"), batch_genes = colnames(x)[bg])
}
