#' Bad input: what each function does with it
#'
#' Every entry point, \code{\link{hsic}()}, \code{\link{hsic_test}()},
#' \code{\link{feature_scores}()}, \code{\link{bahsic}()},
#' \code{\link{fohsic}()}, \code{\link{mrmr}()}, \code{\link{randsel}()}, \code{\link{lsmi}()},
#' \code{\link{l1_lsmi}()}, \code{\link{l1_hsic}()}, \code{\link{hsic_weights}()},
#' \code{\link{qmi}()}, \code{\link{pair_scores}()} (and \code{bahsic()} with
#' \code{\link{kernel_ridge}()}) and
#' \code{\link{stability_selection}()} (which runs a selector on halves of the
#' samples),
#' for a matrix, data frame, formula,
#' \code{ExpressionSet} or \code{SummarizedExperiment} (and the sparse and
#' out-of-memory classes of \link{input-classes}), passes its input
#' through one normaliser, so bad input meets the same checks everywhere. Each
#' kind of bad input has one decided outcome: an error whose message says what
#' to do, a warning and a defined result, or a defined result. The table gives
#' the outcome per function, the list below it the details. The test file
#' \file{tests/testthat/test-bad-input.R} asserts every entry of the table for
#' every function.
#'
#' @details
#' \tabular{lllll}{
#'   \strong{Input} \tab \strong{hsic(), hsic_test()} \tab \strong{feature_scores()}
#'     \tab \strong{the selectors, lsmi()} \tab \strong{stability_selection()} \cr
#'   NA or NaN in x \tab error \tab error \tab error \tab error \cr
#'   NA in y \tab error \tab error \tab error \tab error \cr
#'   Inf in x or y \tab error \tab error \tab error \tab error \cr
#'   a constant feature \tab value \tab warning; NA or 0 \tab warning; value
#'     \tab warning; probability 0 \cr
#'   a single class \tab error \tab error \tab error \tab error \cr
#'   a constant numeric y \tab error \tab error \tab error \tab error \cr
#'   one sample in a class \tab value \tab error (Welch t, snr); value \tab value
#'     \tab error \cr
#'   fewer than 4 samples \tab error below the minimum \tab error below the minimum;
#'     warning (gamma p-values) \tab error below the minimum \tab error below 6 \cr
#'   unused factor levels \tab warning; value \tab warning; value \tab warning; value
#'     \tab warning; value \cr
#'   character columns \tab error \tab error \tab error \tab error \cr
#'   duplicated or missing feature names \tab warning; value \tab warning; value
#'     \tab warning; value \tab warning; value \cr
#'   an integer or logical matrix \tab value \tab value \tab value \tab value \cr
#'   zero columns (or rows) \tab error \tab error \tab error \tab error \cr
#'   d much larger than m \tab value \tab value \tab value \tab value \cr
#'   length mismatch \tab error \tab error \tab error \tab error \cr
#'   a transposed gene matrix \tab error \tab error \tab error \tab error \cr
#'   y is NULL \tab error \tab error \tab error (unless unsupervised)
#'     \tab error \cr
#'   data of extreme scale \tab value, or error \tab value \tab value \tab value \cr
#'   data of large scale (lods) \tab value \tab warning (lods); value \tab value
#'     \tab value \cr
#'   a perfectly separating feature \tab value \tab warning (t, snr, pc); ranked first
#'     \tab value \tab warning (t); probability 1 \cr
#'   an overflowing polynomial kernel \tab error \tab error \tab error \tab error \cr
#'   a sparse or out-of-memory matrix \tab value \tab value \tab value \tab value \cr
#'   a misspelt or unknown argument \tab error \tab error \tab error \tab error \cr
#'   an argument the call does not use \tab error \tab error \tab error \tab error \cr
#'   a choice outside its list \tab error \tab error \tab error \tab error \cr
#'   more threads than cores \tab warning; value \tab warning; value
#'     \tab warning; value \tab warning; value \cr
#'   more memory than the budget \tab error \tab error \tab error \tab error \cr
#'   an option set to a value it does not take \tab error \tab error where read
#'     \tab error \tab error \cr
#'   option bahsic.threads above the cores \tab warning; value \tab warning; value
#'     \tab warning; value (lsmi(): value) \tab warning; value \cr
#'   a feature of zeros and numerical residue \tab value \tab value \tab value
#'     \tab value \cr
#'   NA in a covariate, or one level \tab error \tab error \tab error \tab error \cr
#'   an outcome the covariates or blocks determine \tab error \tab error \tab error
#'     \tab error \cr
#'   a block with one sample \tab error \tab error \tab error \tab error \cr
#'   blocks that do not cross the outcome \tab warning; value \tab warning; value
#'     \tab warning; value \tab warning; value \cr
#'   a design where the function cannot adjust \tab error \tab error (by method)
#'     \tab error (lsmi(), l1_lsmi(), clinical_rfe()) \tab error \cr
#'   a survival outcome censored other than on the right \tab error \tab error
#'     \tab error \tab error \cr
#'   a survival outcome with negative times or no events \tab error \tab error
#'     \tab error \tab error \cr
#' }
#'
#' \describe{
#'   \item{A study design (covariates, block)}{Checked with the data (see
#'     \link{design}): a missing covariate, a covariate with one level or
#'     constant, more covariate columns than the samples allow, a block with
#'     one sample and an outcome that the covariates or blocks determine
#'     (all samples of a class in batches of their own) are errors that name
#'     the samples and say what can be estimated; blocks that hold one class
#'     draw a warning (they inform the variance only). A function or method
#'     without a form adjusted for a design refuses it by name: the
#'     \code{feature_scores()} methods after the data's checks, the others
#'     before.}
#'   \item{A censored survival outcome (\code{survival::Surv})}{Only
#'     right-censored \code{Surv(time, event)} is supported: left, interval
#'     and counting-process outcomes are errors that say so. Negative or
#'     infinite times, a missing time or event indicator (\code{Surv()} turns
#'     an event code other than 0/1, FALSE/TRUE or 1/2 into NA; na_action =
#'     "omit" drops those samples), an outcome without events and one in
#'     which no sample outlives another (one time for all) are errors.
#'     A method that needs a minimum number of events says how many. A
#'     \code{Surv} outcome is never read as a two-column numeric matrix: a
#'     function or method that cannot use it refuses it by name.}
#'   \item{NA or NaN in x}{An error names the feature and the sample of the
#'     first one. Impute them, drop the feature, or give
#'     \code{na_action = "omit"}, which drops the samples with missing values
#'     (in x or y) with a warning that counts them; the result is that of the
#'     remaining samples.}
#'   \item{NA in y}{An error; \code{na_action = "omit"} drops those samples.
#'     The formula interface follows \code{na.action} instead, as
#'     \code{\link[stats]{lm}()} does: by default (\code{na.omit}) it drops the
#'     incomplete samples without a warning.}
#'   \item{Inf in x or y}{An error naming the feature and the sample of the
#'     first infinite value of x. Finite values beyond \eqn{10^{150}}{1e150} in
#'     absolute value are refused too, as their squared distances overflow:
#'     rescale them (log or \code{scale()}). \code{feature_scores()} takes
#'     them, except with a kernel of fixed parameters (\code{"mmd"},
#'     \code{"kta"}, \code{"hsic"} with a given \code{sigma}, a linear,
#'     polynomial or inverse-distance kernel): it scores each feature in units
#'     of a power of two of its own, where nothing overflows.}
#'   \item{Data of extreme scale}{Values near \eqn{10^{-170}}{1e-170}, whose
#'     squares are below the smallest double: the standardisation of the
#'     selectors and \code{feature_scores()} (but for a kernel of fixed
#'     parameters, which sees the data's own scale) rescale each feature by a
#'     power of two first (exact), so a feature is constant only when its
#'     values are all equal, and the scores that do not depend on the scale
#'     of the data are the same as for the data times any constant.}
#'   \item{A constant feature}{\code{hsic()} and \code{hsic_test()}: no
#'     warning; a constant feature adds nothing to any distance between
#'     samples, so the result is that of the other features. The selectors
#'     (with \code{standardize = TRUE}, the default) warn, keep it as a zero
#'     column and rank it like any other feature (with a linear kernel and the
#'     biased estimator its contribution, 0, is the least possible, so it ranks
#'     last). \code{feature_scores()} warns and names it: the score
#'     is NA, ranked last, for \code{"pc"}, \code{"t"}, \code{"snr"},
#'     \code{"wilcoxon"} and \code{"kruskal"} (every rank ties: no test) (and
#'     for \code{"pam"} when more than half of the features are constant, as
#'     its offset \eqn{s_0} is then 0); it is 0 for \code{"lin"}, \code{"mt"},
#'     \code{"pam"}, \code{"mmd"} and \code{"hsic"}; for \code{"kta"} it is the
#'     alignment of a constant kernel, \eqn{(m_2 - m_1)^2} for two classes
#'     with the default \eqn{\pm 1}{+-1} labels (0 when they are balanced); for
#'     \code{"lods"} it is the
#'     B statistic at \eqn{t = 0}. When every feature is constant, HSIC is 0,
#'     the gamma test warns that its approximation is undefined (p-value NA),
#'     the permutation test gives p = 1 and the selectors rank the features in
#'     column order. \code{l1_lsmi()} and \code{l1_hsic()} leave constant
#'     features out of the optimisation (weight 0), and stop when fewer
#'     features vary than \code{n_features}; \code{hsic_weights()} gives a
#'     constant feature weight 0 and stops when none varies; \code{qmi()}
#'     counts a constant feature in its Parzen normaliser; \code{lsmi()} warns and
#'     estimates the dependence of the others (about 0 when none varies).}
#'   \item{A perfectly separating feature}{A feature with no spread within
#'     the classes and different class means (0 in every sample of one class,
#'     1 in every sample of the other): the strongest evidence of a difference
#'     there is, ranked first by \code{feature_scores()}. Its t (Welch's and
#'     pooled) and signal to noise ratio are infinite, its p-value 0 (and its
#'     adjusted p-values; permutation and maxT p-values are the smallest the
#'     permutations allow), its effect the finite difference of the means, and
#'     a warning names it; \code{"pc"} does the same for an exact linear
#'     function of the outcome (correlation \eqn{\pm 1}{+-1}), and
#'     \code{"pam"} when its offset \eqn{s_0} is 0. Several such features are
#'     ordered by the difference of their class means, then in feature order.
#'     The moderated t, B, the kernel scores and pam (\eqn{s_0 > 0}) are finite
#'     and rank it by value (first in practice), as do the rank scores
#'     (\code{"wilcoxon"}: the largest \eqn{|z|} of the class sizes, AUC 1 or
#'     0; \code{"kruskal"}); the centroid difference
#'     (\code{"lin"}) is in the data's units and ranks it by the size of its
#'     difference. \code{top_features()}, \code{stability_selection(selector
#'     = "t")} (probability 1, with the warning of its fits counted once) and
#'     \code{step_select_hsic(method = "t")} keep it first. The selectors and
#'     \code{hsic()} need no variance: a value.}
#'   \item{Data of large scale (lods)}{limma's B statistic (\code{"lods"})
#'     depends on the data's units, as in limma: its prior bounds the size of
#'     a true difference in them. Far above them (values of about
#'     \eqn{10^{10}}{1e10} and more) every B is the same number to the last
#'     digit: a warning counts the features whose B are equal although their
#'     moderated t differ, and ranks them by \eqn{|t|} (as the moderated t
#'     ranks them). Rescale x (log2 expression values) or use \code{"mt"}.}
#'   \item{A single class}{An error: dependence on the outcome needs at least
#'     two classes (a one-level factor, or one left after dropping unused
#'     levels or missing values).}
#'   \item{A constant numeric y}{An error, the regression analogue of a single
#'     class: a kernel on a constant outcome is constant and a correlation with
#'     it undefined. (With a precomputed label kernel, y only gives the number
#'     of samples and is not checked.) A numeric y given to a two-class method
#'     (\code{"lin"}, \code{"t"}, \code{"snr"}, \code{"mt"}, \code{"lods"},
#'     \code{"mmd"}) or to \code{"pam"}, \code{"wilcoxon"} or
#'     \code{"kruskal"} is an error that suggests \code{factor(y)}.}
#'   \item{More than two classes}{The methods of two classes (\code{"lin"},
#'     \code{"t"}, \code{"snr"}, \code{"lods"}, \code{"mmd"}, \code{"pc"})
#'     are an error that names the methods of several classes;
#'     \code{"wilcoxon"} suggests \code{"kruskal"} or \code{one_vs_rest =
#'     TRUE}; \code{"mt"} gives the moderated F; \code{clinical_rfe()} takes
#'     two classes. The other functions take them.}
#'   \item{One sample in a class}{HSIC needs no variance: \code{hsic()},
#'     \code{hsic_test()}, the selectors and the scores \code{"pc"},
#'     \code{"lin"}, \code{"mmd"}, \code{"kta"} and \code{"hsic"} give their
#'     usual result. Welch's t and the signal to noise ratio need a variance in
#'     each class: an error names the class and suggests \code{var_equal =
#'     TRUE}, \code{"mt"}, or a method without a variance. The pooled t
#'     (\code{var_equal = TRUE}), \code{"mt"}, \code{"lods"} and \code{"pam"}
#'     pool the classes' sums of squares and are defined, as in genefilter,
#'     limma and pamr, as long as there are more samples than classes.}
#'   \item{Fewer than 4 samples}{The minimum number of samples m: the unbiased
#'     estimator 4 (\code{hsic()}, \code{feature_scores(method = "hsic",
#'     estimator = "unbiased")}, the selectors and the permutation test with
#'     \code{estimator = "unbiased"}); the gamma test 6; the selectors with the
#'     biased estimator 3 (\code{randsel()} 3; \code{lsmi()},
#'     \code{l1_lsmi()} and \code{l1_hsic()} 4, for their
#'     cross-validation); the biased \code{hsic()}, per-feature biased HSIC
#'     and the biased permutation test 2; \code{"mt"}, \code{"lods"},
#'     \code{"pam"} and the pooled t more samples than classes; Welch's t and
#'     \code{"snr"} 2 per class; \code{"lin"}, \code{"mmd"} and
#'     \code{"kta"} 2, \code{"pc"} 3 (with 2 samples every correlation is
#'     \eqn{\pm 1}{+-1} and its t test has no degrees of freedom). The gamma
#'     p-values of \code{"mmd"}, \code{"kta"} and \code{"hsic"} need 4
#'     samples: below, the scores come with \code{NA} p-values and a warning
#'     that suggests \code{n_perm} (permutation p-values, defined at any m).
#'     Below its minimum a function stops with an error that
#'     says what the alternative needs, e.g. \code{estimator = "biased"} or
#'     \code{method = "permutation"}. With a single sample every function
#'     stops.}
#'   \item{Unused factor levels}{A warning names them and they are dropped;
#'     the result is that of \code{droplevels(y)}. The formula interface drops
#'     them without a warning, as \code{\link[stats]{model.frame}()} does.}
#'   \item{Character columns}{A data frame with character (or factor) columns:
#'     an error names them and suggests converting them to numbers or the
#'     formula interface, which codes factors as dummy columns. With
#'     \code{\link{kernel_clinical}()} (and in \code{\link{clinical_rfe}()}) such
#'     columns are categorical features and pass. A character
#'     matrix: an error suggesting \code{storage.mode(x) <- "double"} when the
#'     text holds numbers, or row names when a column holds sample names.}
#'   \item{Duplicated or missing feature names}{A warning; duplicated names are
#'     made unique with \code{\link{make.unique}()} (\code{"g"},
#'     \code{"g.1"}), and empty or NA names become \code{"V"} followed by the
#'     column number. The result is that of the renamed matrix, so every
#'     feature can be found in it by name. A matrix without column names gets
#'     \code{"V1"}, \code{"V2"}, \ldots without a warning. The row names of
#'     an \code{ExpressionSet} or \code{SummarizedExperiment} are its
#'     feature names: a missing one becomes \code{"V"} followed by the row
#'     number, with a warning, and \code{\link{add_feature_scores}()} writes
#'     the results back by position.}
#'   \item{An integer or logical matrix}{Converted to double: the same result
#'     as the double matrix.}
#'   \item{Zero columns (or rows)}{An error: \code{'x' has no features (zero
#'     columns)} (or samples).}
#'   \item{d much larger than m}{Works (10 samples x 5000 features in the
#'     tests): every feature appears exactly once in the result, in the input
#'     order (\code{mrmr()} ranks its \code{n_features}, 50 by default). The memory needed grows with \eqn{m^2} (see the option
#'     \code{bahsic.max_memory} in \link{bahsic_options}), not with d.}
#'   \item{Length mismatch}{An error that gives the length of y and the number
#'     of rows of x: one value of y per row (sample) of x, in the same order.
#'     For an \code{ExpressionSet} or \code{SummarizedExperiment} the error
#'     counts its columns (samples) and asks for one value per column, or
#'     the name of a column of its sample data.}
#'   \item{A transposed gene matrix}{A genes x samples matrix with y of one
#'     value per sample (so that y matches the columns, not the rows): an error
#'     saying that x looks like features x samples and to pass \code{t(x)}.
#'     This cannot be detected when x is square. \code{ExpressionSet} and
#'     \code{SummarizedExperiment} objects are genes x samples by design and
#'     are turned around automatically.}
#'   \item{y is NULL}{An error, whatever the function: a \code{NULL} outcome
#'     is more often a column that is not there (\code{pheno$class} for a
#'     column \code{Class}) than a choice. The selectors select without an
#'     outcome only when asked, with \code{unsupervised = TRUE} or a
#'     one-sided formula; with a precomputed label kernel
#'     (\code{\link{label_kernel_precomputed}()}) \code{y} may be \code{NULL}.}
#'   \item{Data of extreme scale in the kernels}{The Gaussian and Laplace
#'     kernels with the median heuristic do not depend on the scale of the
#'     data: \code{hsic()}, \code{hsic_test()} and \code{kernel_matrix()}
#'     compute them on a copy rescaled by a power of two when the largest
#'     value is beyond \eqn{2^{\pm 256}}{2^+-256}, so the result is that of
#'     the data at an ordinary scale. Where the width itself cannot be written
#'     in the data's units (beyond about \eqn{10^{\pm 154}}{1e+-154}), an
#'     error says so and to rescale x. Kernels that do depend on the scale
#'     (linear, polynomial, inverse distance, a given \code{sigma}) give their
#'     value, tiny or large, never \code{NaN}.}
#'   \item{An overflowing polynomial kernel}{A polynomial (or linear) kernel
#'     whose values would overflow the sums of HSIC, e.g.
#'     \code{kernel_polynomial(degree = 200)}: an error before any m x m work
#'     that gives the degree and the size of the largest value and suggests a
#'     lower degree or rescaling x.}
#'   \item{A sparse or out-of-memory matrix}{The same result as the dense
#'     matrix (see \link{input-classes}), \code{kernel_matrix()} included.}
#'   \item{A misspelt or unknown argument}{An error that names it and suggests
#'     the closest argument, e.g. \code{bahsic(x, y, dorp = 0.2)}: "bahsic()
#'     has no argument 'dorp'. Did you mean 'drop'?". Names from other
#'     packages are recognised (\code{var.equal}, \code{nperm},
#'     \code{nboot}, \code{kernel_x}). A unique prefix of an argument is
#'     accepted, as everywhere in R; a prefix of several is an error that
#'     lists them.}
#'   \item{An argument the call does not use}{An error: \code{var_equal}
#'     with a method other than \code{"t"}, \code{n_perm} with the gamma
#'     test, \code{sigma_grid} without \code{sigma = "optimize"}, a width
#'     policy with a kernel that has no width, \code{j_svm} with
#'     \code{importance = "mkl"}, \code{screen = "nonlinear"} in
#'     \code{bahsic()} with a kernel other than the Gaussian or Laplace, an
#'     approximation, the unbiased estimator or no outcome (the error says
#'     which and suggests \code{screen = "none"}), \ldots}
#'   \item{A choice outside its list}{An error that names the argument, lists
#'     the choices and suggests the closest, e.g. \code{method = "limma"}:
#'     "'method' = "limma" is not one of ... Did you mean "mt"?". The
#'     same for \code{na_action = "drop"}: "'na_action' = "drop" is not one
#'     of "fail", "omit"".}
#'   \item{A precomputed kernel}{\code{\link{kernel_precomputed}()} takes a
#'     matrix or a \code{Matrix} (made dense). One that cannot be positive
#'     semi-definite, such as \code{-tcrossprod(x)} (a negative diagonal, or
#'     an entry beyond the Cauchy-Schwarz bound), is an error; up to 500
#'     samples a negative eigenvalue is a warning. \code{n_perm} of
#'     \code{hsic_test()} must be a whole number, as in
#'     \code{feature_scores()}: 2.5 is an error.}
#'   \item{More threads than cores}{A warning, and the number of cores is
#'     used (see \link{threads}); a very large number would otherwise
#'     exhaust the memory of the per-thread workspaces. In a child forked by
#'     \code{parallel::mclapply()} or \code{BiocParallel::MulticoreParam()},
#'     every call runs on one thread whatever \code{threads} says, without
#'     a word: OpenMP cannot start threads there.}
#'   \item{Stability selection}{\code{stability_selection()} checks its input
#'     once, as the selectors do, and then fits the selector on halves of the
#'     samples: each half must hold every class, so it needs at least 6
#'     samples and 2 per class (an error that says so, also for one sample in
#'     a class). A feature constant over all the samples is left out of the
#'     fits with one warning (selection probability 0, and the error bound
#'     counts the features that vary); when every feature is constant it
#'     stops. A warning of the selector in some fits (e.g. a feature constant
#'     within a half) is given once, saying in how many fits. A score
#'     selector's outcome is checked before the fits, e.g. \code{selector =
#'     "t"} with a numeric y. \code{na_action = "omit"} drops the incomplete
#'     samples before the halves are drawn.}
#'   \item{Resampling with blocks}{\code{evaluate_selection()},
#'     \code{stability_selection()} and \code{selection_test()} keep each
#'     block's samples together: more folds than blocks, \code{folds} given
#'     that split a block, and (for the halves) a class whose samples lie in
#'     one block only are errors that name the blocks or the class. A
#'     selector or score method that cannot adjust is an error by its name
#'     before any fit; a selector function without arguments
#'     \code{covariates} and \code{block} draws a warning (it ranks without
#'     the design). \code{selection_test()} with a continuous covariate is
#'     an error that asks for a discrete version (\code{~ cut(age, 4)}).
#'     Halves of blocks that differ in size by more than 2 samples (or 5\%)
#'     draw a warning: the error bound assumes halves of equal size.}
#'   \item{Resampling a censored outcome}{With a \code{Surv} outcome the
#'     folds of \code{evaluate_selection()} and the halves of
#'     \code{stability_selection()} are stratified by event. Fewer than 2
#'     events per fold (an error that says how many folds the events allow),
#'     folds given as a vector with a fold without events, fewer than 4
#'     events for the halves, or (with blocks) events in one block only are
#'     errors. \code{classifier = "svm"} with a \code{Surv} outcome is an
#'     error that points to \code{"cox"} (the default there), and
#'     \code{"cox"} without one an error too. caret's \code{rfe()} and
#'     \code{sbf()} functions and the mlr3 filters refuse a censored outcome
#'     by name.}
#'   \item{Pairs of features}{\code{pair_scores()} meets every case as the
#'     selectors do (column "the selectors"), except two: a constant
#'     feature, or every feature constant, is an error that names them (its
#'     kernel is constant, so its pairs have no test: remove it first); and
#'     fewer than 6 samples is an error (the gamma approximation of the
#'     pairs' tests needs them). A single feature, \code{top}
#'     above the number of pairs, a kernel other than the Gaussian and the
#'     linear, and a screen of all pairs above the memory budget (its kernel
#'     vectors, 4 bytes per feature and pair of samples) are errors that say
#'     what to do.}
#'   \item{More memory than the budget}{An error before allocating that says
#'     how much is needed and what to do (option \code{bahsic.max_memory},
#'     see \link{bahsic_options}). So is a count that would allocate beyond
#'     it (\code{n_perm}, \code{n_boot}, \code{n_subsamples}, \code{repeats},
#'     \code{n_features} of \code{approx_rff()}, \code{n_partitions}, the
#'     simulators' sizes), and a count beyond R's integers is an error that
#'     says so.}
#'   \item{An option set to a value it does not take}{An error that names the
#'     option, its value and its valid values, e.g.
#'     \code{options(bahsic.max_memory = "a")}, where the option is read: the
#'     per-gene statistics (\code{"pc"}, \code{"lin"}, \code{"t"},
#'     \code{"snr"}, \code{"mt"}, \code{"lods"}, \code{"pam"}) hold no
#'     m x m matrix and do not read the memory budget. \link{bahsic_options}
#'     lists every option and its valid values.}
#'   \item{Option bahsic.threads above the cores}{A warning, as for the
#'     argument \code{threads}, and the number of cores is used.}
#'   \item{A feature of zeros and numerical residue}{A gene that is 0 in most
#'     samples, a numerical residue (1e-134 to 1e-8, as quantification leaves
#'     in single-cell data) in others and expressed in a few: every median
#'     heuristic counts distances of at most 1.5e-8 times the largest as ties
#'     and, when the middle distance is one, takes the median over the pairs
#'     that do not tie (see "Ties and numerical residue" in \link{kernels}),
#'     so the width is set by the expressed samples. The widths of all other
#'     features are those of the plain median.}
#' }
#'
#' @seealso \code{\link{hsic}()}, \code{\link{hsic_test}()},
#'   \code{\link{feature_scores}()}, \code{\link{bahsic}()},
#'   \code{\link{fohsic}()} and \code{\link{stability_selection}()};
#'   \code{\link{kernel_matrix}()} and
#'   \code{\link{label_kernel_matrix}()} use the same checks on their
#'   inputs.
#' @name input-checks
NULL
