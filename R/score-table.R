# ---- the table of score methods ---------------------------------------------------
# What the package knows about each method of feature_scores(), one row per
# method. Everything else reads the rows: the argument checks, the outcome
# checks and their suggestions, the block scorer, where the p-values come
# from, maxT, the ranking, top_features(), the caret, recipes and mlr3
# adapters, stability_selection(), evaluate_selection(), the method list of
# ?feature_scores (score_method_docs()) and the bad-input test. No other file
# of R/ spells a method's name (tests/testthat/test-score-table.R checks).
#
# To add a method: a row here (score_method() says what each field means), its
# block scorer (a function of a block of features, samples x features, that
# returns list(score, constant, bad, ...), see run_feature_blocks()), its
# tests, and its paragraph in the row's `doc`.

# The kinds of outcome a method may take (outcome_kind()).
score_outcomes <- c("two classes", "several classes", "numeric", "matrix", "survival")

# Where a method's p-values come from: an analytic null distribution, the
# test of independence by HSIC of each feature (the kernel scorer's own, by
# the gamma approximation or n_perm permutations), permutations of the labels
# (with n_perm), or none.
score_p_sources <- c("analytic", "kernel test", "permutation", "none")

# One row. Fields:
#   name, label    the method's name (`method = `) and its words in messages,
#                  plots and the adapters
#   family         "linear" (a linear kernel on the data: effect and mean
#                  columns), "kernel" (the data kernel `kernel`), or another
#                  family's name
#   outcomes       the kinds of outcome it takes (score_outcomes)
#   scorer         function(y, m, method, args) -> the block scorer;
#                  args: kernel, kernel_y, estimator, threads, n_perm
#   p_values       where its p-values come from (score_p_sources)
#   doc            its item in the method list of ?feature_scores (markdown)
#   aliases        other names users give it (an error that suggests the
#                  method, arg_match())
#   signed         the score has a sign (ranked by its absolute value)
#   default_for    the outcomes for which it is the default (method = NULL)
#   uses           the arguments of feature_scores() only it and others that
#                  list them use (an error when given to another method)
#   check          NULL or function(method, y, m, args): checks of its own, after
#                  those the table makes (outcomes, samples, class sizes)
#   recode         NULL or function(y): the outcome as the method reads it,
#                  for its scorer and its permutations
#   source         NULL or function(src): the feature source as its scorer
#                  reads it (e.g. a sparse matrix kept sparse)
#   moments        NULL (each block is scored alone) or function(mom,
#                  var_equal, method) -> list(score, extra, statistic,
#                  p_value): the scores from the class moments of all blocks
#   combine        NULL or function(parts, var_equal, method): the result
#                  of all blocks, list(score, extra, statistic, effect,
#                  p_value), where the default (join the blocks' columns, or
#                  `moments`) does not do
#   finish         NULL or function(method, parts, y, d, args, adjust): a result of
#                  its own shape (e.g. one row per feature and class), or
#                  NULL for the one table per feature
#   borrows        the score borrows strength across features (limma's
#                  prior, pamr's s0): no feature is scored alone
#   variance       what it needs of the spread within classes: "within" (a
#                  variance in every class: 2 samples each; var_equal, where
#                  it uses it, pools), "pooled" (more samples than classes),
#                  "none"
#   min_samples    list(n, why): the fewest samples and why
#   constant_na    a constant feature's score is NA (no defined statistic)
#   statistic      NULL or function(score, m) -> list(statistic, p_value,
#                  effect): the test statistic made from the score alone
#   perfect        how a perfect separation shows: "infinite" (an infinite
#                  statistic: no spread within the classes, different class
#                  means) or "unit" (a correlation of +-1, which also needs
#                  an outcome that varies)
#   tie, check_ties  NULL or function(res): the key that breaks equal scores;
#                  function(features, score, res, method): a warning about them
#   kernel         NULL or list(label, weights, permuted): the label kernel
#                  ("balanced": the balanced binary one; "two classes": the
#                  binary one for two classes, the default otherwise;
#                  "default"), the weights a block is scored against ("W" or
#                  "gram") and the statistic its permutations recompute
#                  ("score" or "centred": tr(K HLH))
#   maxt           NULL or list(outcomes, mode, pooled_mode, unit_norm, post):
#                  adjust = "maxT" applies (for those outcomes), the C mode of
#                  the statistic (R/permutation.R), that of the pooled
#                  variance, whether the statistic is invariant to a
#                  feature's scale, and a function(stats, n) that finishes it
#   limma          the limma column names its score answers to (sort_by)
#   design         "adjusts": it takes a study design (covariates, block;
#                  R/design.R), through `args$design` of its scorer; or a
#                  sentence saying why it cannot (feature_scores() refuses the
#                  design by the method's name with it)
#   fit            NULL, or what the method computes from the linear model of
#                  each feature on the design (R/scores-design.R): "ols" (lm's
#                  t of y's coefficient), "partial" (the partial
#                  correlation), "eb" (limma's moderated t or F),
#                  "eb_lods" (limma's B); its scorer is then fit_or()'s
#   reshape        NULL or function(args): the words of the argument that
#                  makes the result other than one row per feature (e.g. one
#                  row per feature and class), or NULL; the callers that rank
#                  features refuse it (check_one_row_per_feature())
score_method <- function(name, label, family, outcomes, scorer, p_values, doc, ...) {
  more <- list(...)
  stopifnot(is.character(name), length(name) == 1L, all(outcomes %in% score_outcomes),
            p_values %in% score_p_sources, all(names(more) %in% names(score_method_defaults)))
  row <- c(list(name = name, label = label, family = family, outcomes = outcomes,
                scorer = scorer, p_values = p_values, doc = doc), score_method_defaults)
  row[names(more)] <- more
  stopifnot(all(row$default_for %in% outcomes), row$variance %in% c("within", "pooled", "none"),
            row$perfect %in% c("infinite", "unit"))
  row
}

# The optional fields of a row and their values when not given.
score_method_defaults <- list(
  aliases = character(), signed = FALSE, default_for = character(), uses = character(),
  check = NULL, recode = NULL, source = NULL, moments = NULL, combine = NULL, finish = NULL,
  borrows = FALSE, variance = "none",
  min_samples = list(n = 2L, why = NULL), constant_na = FALSE, statistic = NULL,
  perfect = "infinite", tie = NULL, check_ties = NULL, kernel = NULL, maxt = NULL,
  limma = character(), reshape = NULL, fit = NULL,
  design = "it has no form adjusted for covariates or blocks in this version."
)

# The methods that adjust for a study design, in words (for the refusals).
design_methods_words <- function() methods_words(function(r) identical(r$design, "adjusts"), " or ")

# The linear methods read each block's class moments (class_moments(), with
# each feature's mean over all samples); the functions are looked up when
# called (R/scores-linear.R is collated later).
moments_scorer <- function(y, m, method, args) function(b) class_moments(b, y)
# A row's scorer, or that of the linear model of each feature on the design
# when feature_scores() set one up (args$fit, linear_fit_setup()).
fit_or <- function(scorer) {
  function(y, m, method, args) {
    if (!is.null(args$fit)) linear_fit_scorer(args$fit) else scorer(y, m, method, args)
  }
}
kernel_scorer <- function(y, m, method, args) {
  kernel_block_scorer(y, m, method, args$kernel, args$kernel_y, args$estimator, args$threads,
                      args$n_perm, args$design)
}
maxt_spec <- function(outcomes, mode, unit_norm, pooled_mode = NULL, post = NULL) {
  list(outcomes = outcomes, mode = mode, pooled_mode = pooled_mode, unit_norm = unit_norm,
       post = post)
}
two_classes <- "two classes"
class_outcomes <- c("two classes", "several classes")

score_table <- list(
  pc = score_method(
    "pc", "Pearson correlation", "linear", c("two classes", "numeric"),
    scorer = fit_or(function(y, m, method, args) correlation_block_scorer(y)),
    p_values = "analytic", signed = TRUE, default_for = "numeric", constant_na = TRUE,
    fit = "partial", design = "adjusts",
    aliases = c("pearson", "cor", "correlation"),
    # the second class indicator of a two-class factor
    recode = function(y) if (is.factor(y)) as.double(as.integer(y) == 2L) else y,
    min_samples = list(n = 3L, why = "a correlation and its t test on m - 2 df"),
    statistic = function(score, m) correlation_test(score, m), perfect = "unit",
    maxt = maxt_spec(c("two classes", "numeric"), "pc", unit_norm = TRUE),
    doc = paste("Pearson correlation with a numeric outcome (or the second class indicator",
                "of a two-class factor); eq. 21-23: with unit-norm features and outcome and",
                "linear kernels, HSIC0 \\eqn{(m-1)^2} is the squared correlation.")),
  lin = score_method(
    "lin", "centroid (mean difference)", "linear", two_classes, scorer = moments_scorer,
    p_values = "permutation", signed = TRUE, aliases = c("centroid", "meandiff"),
    design = paste("a difference of raw class means has no adjusted form with a test; use",
                   "method = \"t\" (lm's t of the adjusted difference) or \"mt\"."),
    moments = function(mom, var_equal, method) score_lin(mom, method),
    maxt = maxt_spec(two_classes, "lin", unit_norm = FALSE),
    doc = paste("centroid: mean difference, second class minus first; its square is HSIC0",
                "\\eqn{(m-1)^2} with a linear kernel and [label_kernel_binary()] (balanced).")),
  t = score_method(
    "t", "Welch's t", "linear", two_classes, scorer = fit_or(moments_scorer),
    p_values = "analytic", fit = "ols", design = "adjusts",
    signed = TRUE, uses = "var_equal", variance = "within", constant_na = TRUE,
    aliases = c("welch", "ttest", "t.test", "student", "rowttests"),
    moments = function(mom, var_equal, method) score_t(mom, var_equal, method),
    maxt = maxt_spec(two_classes, "t", unit_norm = TRUE, pooled_mode = "t_pooled"),
    doc = paste("Welch t with the paper's \\eqn{\\bar s} (eq. 24), as [stats::t.test()];",
                "`var_equal = TRUE` gives the pooled t of `genefilter::rowttests()` (which",
                "reports first minus second class).")),
  snr = score_method(
    "snr", "signal to noise", "linear", two_classes, scorer = moments_scorer,
    p_values = "permutation", signed = TRUE, variance = "within", constant_na = TRUE,
    design = paste("its spread is that of each class, which covariates do not enter; use",
                   "method = \"t\" or \"mt\"."),
    aliases = c("s2n", "signal_to_noise"),
    moments = function(mom, var_equal, method) score_snr(mom, method),
    maxt = maxt_spec(two_classes, "snr", unit_norm = TRUE),
    doc = "signal to noise, \\eqn{(\\bar x_+ - \\bar x_-)/(s_+ + s_-)}."),
  mt = score_method(
    "mt", "limma's moderated t", "linear", c(class_outcomes, "numeric"),
    scorer = fit_or(moments_scorer), p_values = "analytic", signed = TRUE,
    default_for = "two classes", borrows = TRUE, variance = "pooled", fit = "eb",
    design = "adjusts", uses = c("design", "coef", "contrast", "trend", "robust"),
    aliases = c("limma", "moderated", "moderated_t", "modt", "ebayes", "eBayes"),
    moments = function(mom, var_equal, method) score_mt(mom, method),
    maxt = maxt_spec(two_classes, "moments", unit_norm = FALSE,
                     post = function(stats, n) moderated_t_columns(stats, n)),
    doc = paste("limma's moderated t for a two-group design,",
                "`eBayes(lmFit(t(x), model.matrix(~ y)))` (eq. 25); for more than two",
                "classes limma's moderated F of the same fit (below).")),
  lods = score_method(
    "lods", "limma's B statistic (log odds)", "linear", c(two_classes, "numeric"),
    scorer = fit_or(moments_scorer), p_values = "analytic", borrows = TRUE,
    variance = "pooled", fit = "eb_lods", design = "adjusts",
    uses = c("design", "coef", "contrast", "trend", "robust"),
    aliases = c("B", "b", "lod"),
    moments = function(mom, var_equal, method) score_lods(mom, method),
    tie = function(res) abs(res$extra$t), limma = "B",
    check_ties = function(features, score, res, method) {
      warn_flat_lods(features, score, res$extra$t, method)
    },
    doc = paste("limma's B statistic (log odds of differential expression) of the same fit",
                "as the moderated t, for two classes.")),
  pam = score_method(
    "pam", "pamr's shrunken-centroid statistic", "linear", class_outcomes,
    scorer = moments_scorer, p_values = "permutation", default_for = "several classes",
    borrows = TRUE, variance = "pooled", aliases = c("pamr", "shrunken"),
    design = paste("pamr's centroids and their offset have no form adjusted for covariates;",
                   "use method = \"mt\" (limma's moderated F for several classes)."),
    moments = function(mom, var_equal, method) score_pam(mom, method),
    doc = paste("pamr's standardised centroid differences at threshold 0, for two or more",
                "classes; the score is their sum of squares over the classes, and columns",
                "`d_<class>` hold each one. It is HSIC0 \\eqn{(m-1)^2} with a linear kernel",
                "on the features scaled by \\eqn{1/(s_j + s_0)} and",
                "`label_kernel_pam(standardize = TRUE)` (eq. 27-28).")),
  mmd = score_method(
    "mmd", "maximum mean discrepancy", "kernel", two_classes, scorer = kernel_scorer,
    p_values = "kernel test", uses = "kernel",
    kernel = list(label = "balanced", weights = "gram", permuted = "score"),
    design = "adjusts",
    doc = paste("biased squared maximum mean discrepancy between the two classes with the",
                "data kernel `kernel`, equal to HSIC0 \\eqn{(m-1)^2} with",
                "[label_kernel_binary()] (eq. 26).")),
  kta = score_method(
    "kta", "kernel target alignment", "kernel", c(class_outcomes, "numeric"),
    scorer = kernel_scorer, p_values = "kernel test", uses = c("kernel", "kernel_y"),
    aliases = "alignment",
    kernel = list(label = "two classes", weights = "gram", permuted = "centred"),
    design = "adjusts",
    doc = paste("unnormalised kernel target alignment \\eqn{\\mathrm{tr}(K L)} (section",
                "6.4), with \\eqn{L = y y^\\top}, \\eqn{y = \\pm 1}, for two classes, or",
                "`kernel_y`.")),
  hsic = score_method(
    "hsic", "per-feature HSIC", "kernel", score_outcomes, scorer = kernel_scorer,
    p_values = "kernel test", default_for = "matrix",
    uses = c("kernel", "kernel_y", "estimator"),
    kernel = list(label = "default", weights = "W", permuted = "score"),
    design = "adjusts",
    doc = paste("HSIC of each feature alone (estimator `estimator`) with `kernel` and",
                "`kernel_y`.")),
  cox = score_method(
    "cox", "Cox score test", "linear", "survival",
    scorer = function(y, m, method, args) cox_block_scorer(y, args$ties, args$design),
    p_values = "analytic", signed = TRUE, default_for = "survival", uses = "ties",
    constant_na = TRUE, design = "adjusts", aliases = c("coxph", "log_rank", "score_test"),
    check = function(method, y, m, args) check_cox_outcome(method, y, m, args),
    doc = paste("the Cox partial-likelihood score test of each feature alone at",
                "\\eqn{\\beta = 0}, `coxph(y ~ x_j, ties = ties)`'s score test (Therneau",
                "and Grambsch 2000, sections 3.2-3.4): `score` is \\eqn{U/\\sqrt{I}}, the",
                "signed root of `statistic` \\eqn{U^2/I} (chi-square on 1 df), `effect` the",
                "one-step log hazard ratio \\eqn{U/I} per unit of the feature. `ties` is",
                "that of [survival::coxph()], `\"efron\"` by default as there; with",
                "`ties = \"exact\"` the score test of a binary feature is the log-rank test",
                "of [survival::survdiff()], also with tied times (Efron's and Breslow's",
                "differ from it when deaths are tied). With `covariates`, the score test",
                "of \\eqn{x_j} in `coxph(y ~ covariates + x_j)` at the covariates' fitted",
                "coefficients; with `block`, the risk sets are within blocks, as",
                "`coxph(y ~ x_j + strata(block))`. Needs 2 events.")),
  wilcoxon = score_method(
    "wilcoxon", "Wilcoxon rank-sum", "rank", class_outcomes,
    scorer = function(y, m, method, args) {
      rank_block_scorer(y, function(part, n) wilcoxon_stats(part, n), args$threads,
                        keep_sums = isTRUE(args$one_vs_rest))
    },
    p_values = "analytic", signed = TRUE, uses = "one_vs_rest", constant_na = TRUE,
    design = paste("ranks of raw values carry the batches' shifts, and the stratified or",
                   "signed-rank forms are not in this version; use method = \"t\" or",
                   "\"mt\" (or stats::wilcox.test(paired = TRUE) for pairs)."),
    aliases = c("mann_whitney", "wilcox", "wilcox.test", "ranksum", "rank_sum"),
    # two classes, or each class against the rest: the marker table
    check = function(method, y, m, args) check_one_vs_rest(method, y, m, args),
    source = function(src) rank_source(src),
    finish = function(method, parts, y, d, args, adjust) {
      if (isTRUE(args$one_vs_rest)) rank_markers(parts, y, d$features, adjust, method)
    },
    reshape = function(args) if (isTRUE(args$one_vs_rest)) "one_vs_rest = TRUE",
    doc = paste("the Wilcoxon rank-sum (Mann-Whitney) test of two classes, level 2 against",
                "level 1, normal approximation with ties corrected; `effect` is the AUC.",
                "With `one_vs_rest = TRUE`, each class against the rest: the marker table",
                "(section \"Rank scores\").")),
  kruskal = score_method(
    "kruskal", "Kruskal-Wallis", "rank", class_outcomes,
    scorer = function(y, m, method, args) {
      rank_block_scorer(y, function(part, n) kruskal_stats(part, n), args$threads)
    },
    p_values = "analytic", constant_na = TRUE, aliases = c("kruskal.test", "kruskal_wallis"),
    design = paste("ranks of raw values carry the batches' shifts, and Friedman's blocked",
                   "form is not in this version; use method = \"mt\" (limma's moderated F)."),
    source = function(src) rank_source(src),
    doc = paste("the Kruskal-Wallis test of two or more classes, as [stats::kruskal.test()]",
                "(section \"Rank scores\")."))
)

# ---- what the rows say, for the rest of the package --------------------------------

score_methods <- names(score_table)
stopifnot(identical(score_methods, unname(vapply(score_table, `[[`, "", "name"))))
# what users call the methods elsewhere (arg_match() suggests the method)
score_aliases <- unlist(lapply(unname(score_table), function(r) {
  stats::setNames(rep(r$name, length(r$aliases)), r$aliases)
}))
score_labels <- vapply(score_table, `[[`, "", "label")

score_row <- function(method) score_table[[method]]

# stability_selection() and the adapters rank the features: an argument that
# gives another shape of result (the row's `reshape`) is an error there,
# before any data are read.
check_one_row_per_feature <- function(method, args, caller) {
  reshape <- score_row(method)$reshape
  what <- if (!is.null(reshape)) reshape(args)
  if (!is.null(what)) {
    stop(sprintf(paste0("%s ranks the features and needs one score per feature; %s gives ",
                        "a table of another shape (one row per feature and class, see ",
                        "?feature_scores). Leave it out here, or call feature_scores() ",
                        "itself."), caller, what), call. = FALSE)
  }
  invisible()
}

# The methods whose row passes `keep` (a function of the row).
score_methods_with <- function(keep) score_methods[vapply(score_table, keep, NA)]

signed_methods <- score_methods_with(function(r) r$signed)

# The arguments of feature_scores() that only some methods use.
score_method_arguments <- local({
  uses <- NULL
  # (the table is fixed when the package is built: looked up once)
  function() {
    if (is.null(uses)) uses <<- unique(unlist(lapply(score_table, `[[`, "uses")))
    uses
  }
})

# The kind of an outcome, as the rows name it.
outcome_kind <- function(y) {
  if (is_surv(y)) return("survival")
  if (is.matrix(y)) return("matrix")
  if (is.factor(y)) return(if (nlevels(y) == 2L) "two classes" else "several classes")
  "numeric"
}

# The outcome in the words of a message: 'y' has ...
outcome_words <- function(y) {
  switch(outcome_kind(y), matrix = "a matrix outcome", numeric = "a numeric outcome",
         survival = "a censored survival outcome",
         `two classes` = "two classes", sprintf("%d classes", nlevels(y)))
}

# "a", "b" or "c", each quoted.
quoted_list <- function(x, last = " or ") {
  x <- paste0("\"", x, "\"")
  if (length(x) < 2L) return(x)
  paste0(paste(x[-length(x)], collapse = ", "), last, x[length(x)])
}

# The method list of ?feature_scores, from the rows (roxygen's @eval).
score_method_docs <- function() {
  p_words <- c(analytic = "analytic", `kernel test` = "the HSIC test of each feature",
               permutation = "from permutations (`n_perm`)", none = "none")
  items <- vapply(unname(score_table), function(r) {
    sprintf("  \\item{`\"%s\"`}{%s Outcomes: %s; p-values: %s%s.}", r$name, r$doc,
            paste(r$outcomes, collapse = ", "), p_words[[r$p_values]],
            maxt_doc(r))
  }, "")
  c("@details", "\\describe{", items, "}")
}

maxt_doc <- function(r) {
  if (is.null(r$maxt)) return("")
  paste0("; `adjust = \"maxT\"`",
         if (!all(r$outcomes %in% r$maxt$outcomes)) {
           paste0(" for ", paste(r$maxt$outcomes, collapse = ", "))
         })
}

# The per-gene test of bahsic()'s screen (R/select-screen.R): HSIC of each
# gene with the outcome, with its gamma p-value.
screen_score_method <- "hsic"
