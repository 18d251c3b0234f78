# The problem a selector (or hsic(), hsic_test(), qmi()) solves, prepared once:
# the inputs through the one normaliser, the outcome resolved, the samples
# counted, the features standardised once, the label kernel resolved and
# turned into what the computation needs (the weights W, the label Gram
# matrix, block weights or a low-rank factor), and the data kernel with its
# width policy resolved. The exported functions check their arguments,
# describe the problem in a `spec` (a list, below) and call
# prepare_problem(); what follows (the C loop, the result) reads the
# problem only.
#
# spec, the arguments as the caller checked them (read with [[ ]]: `$` would
# match kernel_y for a missing kernel):
#   na_action, assay     as normalise_inputs() takes them (na_action resolved)
#   kernel               the data kernel (NULL: the caller has none, as l1_*):
#                        a clinical kernel reads a data frame's factors
#   check_range          TRUE: check that the kernel can be computed on x
#                        (check_kernel_range())
#   gram                 TRUE: the data kernel's Gram matrix K (hsic()), a median
#                        width from at most 1000 samples (gram())
#   kernel_y             the label kernel as given (NULL: the default for y)
#   unsupervised         TRUE: the standardised data are the labels
#   outcome_what         names a caller without an unsupervised use (hsic())
#   min_m, min_what,     the fewest samples, the caller (for the message),
#   min_hint             and what to do about too few
#   min_first            TRUE: count the samples before resolving the outcome
#   check_inputs         optional function(problem), run before standardising
#   drop_constant        TRUE: record the varying columns before standardising
#   standardize          TRUE: centre and scale every column once
#   check_x              optional function(problem), run after standardising
#   estimator            "biased" or "unbiased" (for W)
#   labels               "W" (exact weights), "gram" (label Gram matrix only),
#                        "block", "ichol", "rff" (the approximate paths of the
#                        selectors), "kernel" (the label kernel resolved only)
#                        or "none" (the label kernel as given)
#   memory               optional function(problem), run before anything m x m
#   approx               a resolved approximation (resolve_approx()), for the
#                        block, ichol and rff labels
#   threads              checked thread count
#   design               the study design as given (design_spec()) or NULL
#   selector             the selector's name (its row of selector_table), whose
#                        `outcomes` the outcome must be (check_selector_outcome())
#
# The problem (class "bahsic_problem"):
#   x           samples x features, standardised if asked (on the block path
#               the partitions' samples stacked)
#   features    the feature names
#   m, p        samples and features
#   y           the outcome as the label kernel sees it (or the data,
#               unsupervised)
#   unsupervised TRUE when the data are their own labels
#   varying     the columns that vary (with drop_constant)
#   kernel_y    the label kernel resolved on y (widths filled in once the
#               labels are made)
#   label       the label Gram matrix (label_gram(): L or Y, kernel)
#   K           the data kernel's Gram matrix (spec$gram)
#   W           the weights, estimate(K) = sum(K * W) (labels "W")
#   blocks, bw  the block partition and its weights (labels "block")
#   fy          the label factor (labels "ichol", "rff")
#   omega, phase the random Fourier frequencies and phases (labels "rff")
#   design      the resolved study design (R/design.R) or NULL; with one, the
#               label, W and the label factor are projected off it
#               (R/select-design.R)
#   mode        "exact", "block", "rff" or "ichol"
#   estimator, standardize, threads   as resolved
prepare_problem <- function(x, y, spec) {
  pr <- problem_inputs(x, y, spec)
  if (!is.null(spec[["selector"]]) && !pr$unsupervised) {
    check_selector_outcome(spec[["selector"]], pr$y)
  }
  # the features and a numeric outcome residualised on the design (R/design-kernel.R)
  if (!is.null(pr$design)) {
    if (!pr$unsupervised) pr$y <- design_outcome(pr$design, pr$y)
    pr$x <- design_features(pr$design, pr$x, spec[["kernel"]])
  }
  if (!is.null(spec[["check_inputs"]])) spec[["check_inputs"]](pr)
  if (isTRUE(spec[["drop_constant"]])) pr$varying <- !.Call(C_constant_columns, pr$x)
  if (isTRUE(spec[["standardize"]])) {
    pr$x <- standardize_columns(pr$x, pr$features, spec[["threads"]] %||% 1L)
  }
  if (!is.null(spec[["check_x"]])) spec[["check_x"]](pr)
  if (isTRUE(spec[["check_range"]])) check_kernel_range(spec[["kernel"]], pr$x)
  # labels "none": the label kernel as given (a caller with its own outcome
  # basis, l1_lsmi())
  if (spec[["labels"]] != "none") pr$kernel_y <- resolve_label_kernel(pr$kernel_y, pr$y)
  pr$estimator <- spec[["estimator"]]
  pr$standardize <- isTRUE(spec[["standardize"]])
  pr$threads <- spec[["threads"]]
  pr <- problem_labels(pr, spec)
  class(pr) <- "bahsic_problem"
  pr
}

# The inputs through the one normaliser, the outcome (unsupervised, a
# precomputed label kernel, or y) and the number of samples.
problem_inputs <- function(x, y, spec) {
  kernel <- spec[["kernel"]]
  d <- normalise_inputs(x, y, na_action = spec[["na_action"]], assay = spec[["assay"]],
                        clinical = !is.null(kernel) && is_clinical(kernel), require_y = FALSE,
                        design = spec[["design"]])
  m <- nrow(d$x)
  count <- function() check_min_samples(m, spec[["min_m"]], spec[["min_what"]], spec[["min_hint"]])
  if (isTRUE(spec[["min_first"]])) count()
  d <- resolve_outcome(d, spec[["kernel_y"]], isTRUE(spec[["unsupervised"]]),
                       what = spec[["outcome_what"]])
  if (!isTRUE(spec[["min_first"]])) count()
  list(x = d$x, features = d$features, m = m, p = ncol(d$x), y = d$y,
       unsupervised = isTRUE(d$unsupervised), kernel_y = d$kernel_y,
       annotation = d$annotation, rows = d$rows, design = d$design)
}

# The outcome as the computation needs it (spec$labels): see prepare_problem().
problem_labels <- function(pr, spec) {
  labels <- spec[["labels"]]
  pr$mode <- if (labels %in% c("block", "ichol", "rff")) labels else "exact"
  if (!is.null(spec[["memory"]]) && pr$mode == "exact") spec[["memory"]](pr)
  if (isTRUE(spec[["gram"]])) {
    pr$K <- gram(spec[["kernel"]], pr$x, pr$threads, sample_median = TRUE)
  }
  if (labels %in% c("W", "gram")) {
    # under a study design the label is projected off it (R/select-design.R)
    pr$label <- project_label(pr$design, label_gram(pr$kernel_y, pr$y, pr$threads))
    pr$kernel_y <- pr$label$kernel
    if (labels == "W") pr$W <- weight_matrix(pr$label, pr$m, pr$estimator)
  } else if (labels == "block") {
    pr <- problem_block(pr, spec[["approx"]])
  } else if (labels == "ichol") {
    pr$fy <- label_factor(pr$kernel_y, pr$y, spec[["approx"]], warn = FALSE)
    pr$fy$F <- design_factor(pr$design, pr$fy$F)
    pr$kernel_y <- pr$fy$kernel
  } else if (labels == "rff") {
    pr <- problem_rff(pr, spec[["kernel"]], spec[["approx"]])
  }
  pr
}

# The block path: a random partition of the samples (sample.int(), so
# set.seed() fixes it), the partitions stacked (row i of x is sample
# blocks$rows[i]) and the weights within the blocks (block_weights()).
problem_block <- function(pr, approx) {
  pr$blocks <- block_partition(pr$m, approx$params$size, approx$params$n_partitions)
  check_block_memory(pr$blocks, approx$params$size)
  if (!identical(pr$blocks$rows, seq_len(pr$m))) pr$x <- pr$x[pr$blocks$rows, , drop = FALSE]
  pr$bw <- block_weights(pr$kernel_y, pr$y, pr$blocks, pr$estimator, pr$threads, pr$design)
  pr$kernel_y <- pr$bw$kernel
  pr
}

# Random Fourier features: the standard frequencies of the kernel's spectral
# measure (scale 1; C scales them by each iteration's width) and phases,
# drawn as rff_features() draws them (so hsic(approx = "rff") under the same
# seed uses the same ones); then the label factor.
problem_rff <- function(pr, kernel, approx) {
  n_rff <- approx$params$n_features
  check_rff_size(n_rff, pr$p)
  pr$omega <- rff_frequencies(kernel, n_rff, pr$p)
  pr$phase <- stats::runif(n_rff, 0, 2 * pi)
  pr$fy <- label_factor(pr$kernel_y, pr$y, approx)
  pr$fy$F <- design_factor(pr$design, pr$fy$F)
  pr$kernel_y <- pr$fy$kernel
  check_select_factor_memory(pr$m, pr$p, n_rff, ncol(pr$fy$F), pr$threads, approx)
  pr
}

# The width policy of the selectors' loop, resolved on the problem: the
# code of the policy ("fixed" for a kernel without a width) and, for a
# "fixed" width left to the median heuristic, the width itself (on all
# samples on the exact path, on at most 1000 on the approximate ones).
problem_kernel <- function(pr, kernel, sigma) {
  width <- kernel_has(kernel, "width")
  policy <- if (width) sigma else "fixed"
  if (width && policy == "fixed" && is.null(kernel$params$sigma)) {
    kernel$params$sigma <- median_sigma(pr$x, kernel_has(kernel, "squared"),
                                        n_max = if (pr$mode == "exact") pr$m else 1000L)
  }
  list(kernel = kernel, width = width, policy = policy)
}
