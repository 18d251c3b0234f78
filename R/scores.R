#' Per-feature scores: the univariate special cases of HSIC
#'
#' Scores every feature on its own, in C and across all features at once.
#' Each method is a member of the HSIC family (Song et al. 2012, section 6):
#' HSIC with a particular data kernel, label kernel and preprocessing.
#'
#' @eval score_method_docs()
#' @details
#' **The default method** (`method = NULL`) follows the outcome, and a
#' message says which was used. Measured by `inst/bench/bench-defaults.R`
#' (in the sources): for two classes limma's moderated t found the most
#' truly shifted genes among the top 100 of simulated arrays with 3, 5 and 10
#' arrays per class (precision 0.67, 0.81, 0.92, against 0.52, 0.74, 0.90
#' for Welch's t and at most that for the others), and on the ALL BCR/ABL vs
#' NEG and Golub data its top 10 and 20 had cross-validated errors within a
#' sample of the best method's with more stable lists than Welch's t (Kuncheva
#' index 0.69 against 0.58, 0.48 against 0.29); for three classes pamr's
#' statistic led on simulated data (0.78-0.97 against 0.62-0.92 for
#' per-feature HSIC) and gave the most stable lists on ALL's B1-B4 stages
#' (0.61 against 0.38-0.42) at a similar error; for a numeric outcome
#' Pearson's correlation found 0.69-0.99 of linearly and 0.53-0.93 of
#' monotonically related genes against 0.25-0.87 for HSIC, which only wins
#' on relations that are not monotone (a quadratic: 0.58 against 0.16 at m
#' = 60) -- use `method = "hsic"` for those.
#' For a censored survival outcome (`survival::Surv(time, event)`) the default
#' is the Cox score test, `"cox"`, the linear method of that outcome as the
#' others are of theirs.
#'
#' The kernel methods use a Gaussian kernel by default; with `sigma = NULL`
#' each feature gets its own median-heuristic width. For a censored survival
#' outcome `"hsic"` uses by default a polynomial kernel of degree 2 on each
#' feature's normal scores (see `kernel`).
#'
#' Scale: each feature is scored in units of a power of two of its own
#' (exact), so no sum of squares underflows or overflows. The scores that do
#' not depend on the scale of a feature (`pc`, `t`, `snr`, and `mmd`, `kta`,
#' `hsic` with a median-heuristic Gaussian or Laplace kernel) are the same for
#' `x * 1e-170` or `x * 1e170` as for `x`; `mt` and `pam`, which compare
#' features, are the same when the whole matrix is rescaled; `lin` scales with
#' the data. `lods` does not, in limma either: its prior bounds the size of a
#' true difference in the data's units (`stdev.coef.lim` of
#' `limma::eBayes()`); far above those units (values of about
#' \eqn{10^{10}}{1e10} and more) every B is the log prior odds
#' \eqn{\log(0.01/0.99)}{log(0.01 / 0.99)} to the last
#' digit. Features whose B are equal are then ranked by \eqn{|t|} (the order
#' B has in exact arithmetic), and a warning says how many lost their B.
#'
#' **A feature that separates the classes perfectly** -- no spread within
#' either class, different class means (e.g. 0 in every sample of one class,
#' 1 in every sample of the other) -- is the strongest evidence of a
#' difference there is. Its t (Welch's and pooled) and signal to noise ratio
#' are infinite (`Inf` or `-Inf`, the sign of the difference), as is the
#' statistic of `"pc"` for a feature that is an exact linear function of the
#' outcome (correlation \eqn{\pm 1}{+-1}, within the rounding of its sums),
#' and pam's statistic when its offset \eqn{s_0} is 0. Such features rank
#' first (several by the spread of their class means, the largest difference
#' first -- for `"pc"` the widest range of values -- then in feature order),
#' their analytic p-value is 0 (and so their adjusted p-values); permutation
#' p-values, and those of `adjust = "maxT"`, are the smallest the
#' permutations allow; `effect` is the finite difference of the class means;
#' and a warning names them. `genefilter::rowttests()` also gives an
#' infinite t and p-value 0; [stats::t.test()] stops ("data are essentially
#' constant"). The moderated t and B (limma's prior variance), pam (with
#' \eqn{s_0 > 0}), the centroid difference and the kernel scores are finite
#' for such features and rank them by their value, the kernel methods in
#' feature order when they tie (with a median-heuristic width every
#' separating feature has the same kernel matrix). A feature constant in one
#' class only has a finite statistic. Equal scores keep the feature order.
#'
#' Constant features have no defined t, signal to noise or correlation: their
#' score is `NA`, they are ranked last, and a warning names them (as it does
#' for every method). The centroid difference, moderated t, `pam` (`NA` when
#' more than half of the features are constant), `mmd` and `hsic` score them
#' 0; `kta` gives the alignment of a constant kernel, 0 only for balanced
#' classes, and `lods` the B statistic at t = 0.
#'
#' **Statistics and p-values.** Every method gives a `statistic` and, where
#' there is one, a two-sided p-value for each feature:
#' \describe{
#'   \item{`"pc"`}{the t statistic of [stats::cor.test()],
#'     \eqn{\sqrt{m-2}\, r / \sqrt{1 - r^2}}, and its p-value from Student's
#'     t on \eqn{m - 2} degrees of freedom.}
#'   \item{`"t"`}{Welch's t and its p-value on the Welch-Satterthwaite degrees
#'     of freedom, as [stats::t.test()]; with `var_equal = TRUE` the pooled t
#'     on \eqn{m - 2} df, with the p-value of `genefilter::rowttests()` (whose
#'     statistic is minus ours: it subtracts the second class from the first).
#'     `t.test(x ~ y)` also reports the first class minus the second.}
#'   \item{`"mt"`, `"lods"`}{limma's moderated t and its p-value on the
#'     posterior degrees of freedom, the `t` and `P.Value` of
#'     `limma::topTable(limma::eBayes(limma::lmFit(t(x), model.matrix(~ y))),
#'     coef = 2, sort.by = "none")` (Smyth 2004); `"lods"` ranks by the B
#'     statistic and tests with the same moderated t. For more than two
#'     classes `"mt"` gives limma's moderated F test of all class
#'     differences, `F` and `P.Value` of `topTable(fit, coef = 2:K)`: the
#'     one-way analysis of variance F with the moderated variance; score and
#'     statistic are then F.}
#'   \item{`"lin"`, `"snr"`, `"pam"`}{no analytic null distribution: with
#'     `n_perm` the p-values come from `n_perm` permutations of the labels
#'     (drawn from R's random number generator, so `set.seed()` makes them
#'     reproducible): (1 + the number of permutations whose statistic is at
#'     least the observed one in absolute value) / (1 + `n_perm`), the class
#'     moments recomputed for each permutation. Without `n_perm` there are
#'     no p-value columns (and giving `adjust` is an error).}
#'   \item{`"mmd"`, `"kta"`, `"hsic"`}{a test of independence of each
#'     feature and the outcome by HSIC with the method's kernels (for `"mmd"`
#'     the balanced binary label kernel; for `"kta"` the same K and L, whose
#'     centred alignment \eqn{\mathrm{tr}(KHLH)} is the statistic; the
#'     `statistic` column is the score, and there is no `effect` or `mean`
#'     column). By default the biased statistic is compared with a gamma
#'     distribution with its exact mean and variance over the permutations of
#'     the samples (Kazi-Aoual et al. 1995; Josse, Pages and Husson 2008,
#'     section 2.2), in the spirit of Gretton et al. (2008, section 3), whose
#'     asymptotic moments ([hsic_test()] with `method = "gamma"`) are too
#'     liberal at small m (Kolmogorov-Smirnov distance 0.10-0.26 from the
#'     uniform on null genes at m = 10-20). Measured on 2,000 null genes
#'     (normal or log-normal) per setting, m = 10 to 200, two balanced or
#'     unbalanced classes or a numeric outcome (`inst/bench/bench-kernel-test.R`
#'     in the sources): the fraction of p < 0.05 was within 0.013 of 0.05 in
#'     every setting, and the Kolmogorov-Smirnov distance at most 0.055 with
#'     the Gaussian kernel and 0.068 with the Laplace kernel (0.030 is the 5\%
#'     point for exactly uniform p-values): accurate at the usual levels and
#'     in the bulk, less so in the far tail, and less for the Laplace kernel.
#'     With `n_perm` the p-values are permutation p-values, (1 + the number
#'     of permutations whose statistic is at least the observed one) / (1 +
#'     `n_perm`), valid at any m; they cost `n_perm` times the score pass. A
#'     constant feature has p = 1; with fewer than 4 samples the gamma
#'     p-value is `NA`, with a warning that suggests `n_perm`.}
#' }
#' The p-values are adjusted for multiple testing by [stats::p.adjust()]
#' with `adjust` (Benjamini and Hochberg's false discovery rate by default,
#' as limma's `topTable()`), over the features with a p-value: constant
#' features, whose score is `NA`, get `NA` p-values and do not count. With
#' `adjust = "maxT"` both the p-values and the adjusted p-values come from
#' `n_perm` permutations (1000 when `NULL`): Westfall and Young's (1993)
#' step-down maxT, for the methods `"t"`, `"lin"`, `"snr"`, `"mt"` (two
#' classes) and `"pc"`, with the conventions of `multtest::mt.maxT()`: the
#' observed labelling is the first of the `n_perm` labellings (so no
#' p-value is below `1 / n_perm`), and when `n_perm` is at least the number
#' of distinct labellings every one is used once (complete enumeration).
#' It is computed in C over all features for each labelling (`threads`):
#' 1,000 labellings of the ALL BCR/ABL versus NEG samples (79 x 12,625) take
#' about 0.4 s on one core, 0.06 times the time of `mt.maxT()`
#' (`inst/bench/bench-maxt.R`). With `parallel`, the labellings are drawn
#' first, in the same order, and counted in batches on the workers (the
#' counts add up exactly: the same p-values as the serial run).
#' [top_features()] picks the features at a false
#' discovery rate.
#'
#' Welch's t and the signal to noise ratio need two samples in every class;
#' the pooled t, `mt`, `lods` and `pam` only need more samples than classes,
#' `pc` 3 samples (with 2 every correlation is \eqn{\pm 1}{+-1} and its t
#' test has no degrees of freedom: an error), and the kernel methods one
#' sample per class. See \link{input-checks} for every
#' kind of bad input.
#'
#' The scores are computed a block of features at a time: the data are read,
#' made dense and checked one block at a time (for a sparse `dgCMatrix`, a
#' `DelayedMatrix` or an HDF5-backed `SingleCellExperiment`, see
#' \link{input-classes}) and the whole dense matrix is never assembled. The
#' moderated t, `lods` and `pam` borrow strength across features (limma's
#' prior, pamr's \eqn{s_0}): the blocks give each feature's class counts,
#' means and sums of squares, and the scores are made from all of them at the
#' end, so they are exact. The result does not depend on `block_size` nor on
#' `parallel`.
#'
#' @section Covariates and blocks:
#' With `covariates` or `block` (see [design]) the linear methods `"t"`,
#' `"pc"`, `"mt"` and `"lods"` fit each feature on the study design,
#' \eqn{x_j = X b_j + e_j} with `X = model.matrix(~ covariates + y)` (a block
#' enters as a fixed effect, `~ covariates + block + y`, as limma's
#' `lmFit()` does with the block in its design), all features at once (the
#' coefficients by one matrix product, the residual variances from the
#' projection; Frisch-Waugh-Lovell):
#' \describe{
#'   \item{`"mt"`, `"lods"`}{`limma::topTable(limma::eBayes(limma::lmFit(t(x),
#'     X)), coef = <y's coefficient>, sort.by = "none")`: `statistic`,
#'     `p_value`, `adj_p_value`, `effect`, `mean` and (for `"lods"`) `score`
#'     are its `t`, `P.Value`, `adj.P.Val`, `logFC` (the adjusted difference,
#'     level 2 minus level 1), `AveExpr` and `B`. For more than two classes
#'     `"mt"` is limma's moderated F of y's coefficients; for a numeric `y`
#'     the moderated t of its slope (also without covariates: limma's
#'     `~ y`). limma's users may give their own design matrix instead of `y`:
#'     `feature_scores(x, design = X, coef = "groupB")` or
#'     `contrast = <a contrast vector or matrix>` (as
#'     `limma::contrasts.fit()`); `trend = TRUE` is `eBayes(trend = TRUE)`
#'     (the prior variance a trend in the mean) and `robust = TRUE`
#'     `eBayes(robust = TRUE)` (Phipson et al. 2016), with or without a
#'     design. Equal to limma within rounding (\eqn{10^{-12}} on ALL).}
#'   \item{`"t"`}{the ordinary t of y's coefficient in `lm(x_j ~ covariates +
#'     y)`, its `summary()` t and p-value on \eqn{m - \mathrm{rank}(X)}
#'     degrees of freedom; `effect` is the coefficient (the adjusted
#'     difference of the class means). With `block` and two classes with one
#'     sample of each per block it is the paired t test, `t.test(x[y == level2],
#'     x[y == level1], paired = TRUE)`. `var_equal` is not used: the linear
#'     model has one variance.}
#'   \item{`"pc"`}{the partial correlation of each feature and `y` given the
#'     covariates and blocks (the correlation of their residuals), with the
#'     same t test as `"t"`; `effect` is the partial correlation.}
#' }
#' `"cox"` adjusts within the Cox model: with `covariates` it is the score
#' test of each feature in `survival::coxph(y ~ covariates + x_j, ties =
#' ties)` at the covariates' fitted coefficients (the model without the
#' feature is fitted once), \eqn{U_j^2 / (I_{jj} - I_{jZ} I_{ZZ}^{-1}
#' I_{Zj})}; with `block` the risk sets are within blocks, `coxph(y ~ x_j +
#' strata(block))` (a batch given as `block` is a stratum with its own
#' baseline hazard, given in `covariates` a log hazard ratio). Both: `coxph(y ~
#' covariates + x_j + strata(block))`. With covariates, `ties = "exact"` is an
#' error when deaths are tied (the exact partial likelihood at fitted
#' coefficients is not in this version).
#'
#' The other linear and rank methods refuse a design and say which to use
#' (`"lin"`, `"snr"`: `"t"` or `"mt"`; `"pam"`, `"kruskal"`: `"mt"`, the
#' moderated F; `"wilcoxon"`: `"t"` or `"mt"`).
#'
#' With `adjust = "maxT"` the permutations respect the design. With discrete
#' covariates and blocks the outcome is permuted within the strata (the
#' samples that share every covariate level and the block): the design is
#' unchanged and the test exact. With a continuous covariate the residuals
#' of the outcome on the design are permuted (Freedman and Lane 1983, with
#' the outcome as the permuted response, which the partial correlation
#' allows: it is symmetric in the feature and the outcome), within blocks
#' when there are blocks. The statistic is recomputed given the design for
#' each permutation (for `"mt"` with the prior refitted); there is no
#' complete enumeration, and the result is the same for any `threads`.
#' Measured on ALL, 128 x 12,625 (`inst/bench/bench-design.R`, one thread,
#' a shared machine): `"mt"` with a four-level covariate took 0.14 times the
#' time of limma's `lmFit()` + `eBayes()` (0.16 times its CPU time), about
#' what `"mt"` without a covariate takes; 1,000 permutations of `"t"` within
#' the batches took 0.03 to 0.05 times `multtest::mt.maxT(B = 1000)` without
#' covariates (`"mt"`, whose prior is refitted for each permutation, 0.06
#' times).
#'
#' @inheritParams hsic
#' @template design-args
#' @template design-data
#' @param design limma's design matrix (`stats::model.matrix()`, one row per
#'   sample) for `"mt"` and `"lods"`, instead of `y` and `covariates`: then
#'   give `coef` or `contrast`, and no `y` (`method = NULL` is then `"mt"`).
#'   See the section "Covariates and blocks".
#' @param coef with `design`: the coefficient to test, a column name or index
#'   (several: the moderated F of `"mt"`), as in `limma::topTable()`.
#' @param contrast with `design`: a contrast vector, or a matrix with one
#'   column per contrast and one row per column of `design`, as
#'   `limma::contrasts.fit()` takes (`limma::makeContrasts()`).
#' @param trend for `"mt"` and `"lods"`: `TRUE` lets the prior variance
#'   follow the mean of each feature, as `limma::eBayes(trend = TRUE)`.
#' @param robust for `"mt"` and `"lods"`: `TRUE` fits the prior robustly
#'   against features with outlying variances, as
#'   `limma::eBayes(robust = TRUE)` (not together with `trend = TRUE` in this
#'   version).
#' @param method which score, see Details. `NULL` (the default) chooses from
#'   the outcome and says which with a message: `"mt"` (limma's moderated t)
#'   for two classes, `"pam"` for more, `"pc"` (Pearson) for a numeric
#'   outcome, `"hsic"` for a matrix outcome: the statistics that found the
#'   most relevant genes on the measurements in Details ("The default
#'   method"). Other names users know (`"limma"`, `"welch"`, `"pearson"`)
#'   are errors that suggest the method.
#' @param kernel data kernel for `"mmd"`, `"kta"` and `"hsic"` (an error with
#'   the other methods, which do not use it). `NULL` (the default): a
#'   Gaussian kernel with the median heuristic's width per feature
#'   ([kernel_gaussian()]); for a censored survival outcome the polynomial
#'   kernel \eqn{(x x' + 2)^2} on each feature's normal scores (standardised;
#'   invariant to any increasing transformation of a feature), which found a
#'   log-linear gene within 6 points as often as the Cox score test and a
#'   U-shaped one as often as the Gaussian (measured in
#'   [label_kernel_survival()]). A kernel given is used as given.
#' @param kernel_y label kernel for `"kta"` and `"hsic"` (`NULL`: default).
#' @param estimator HSIC estimator for `method = "hsic"`; `"biased"` (HSIC0,
#'   the estimator of the selectors) by default, see [hsic()] for why
#'   [hsic()] itself defaults to the unbiased one.
#' @param var_equal for `method = "t"`: pooled variance instead of Welch.
#' @param ties for `method = "cox"`: how tied death times enter the Cox
#'   partial likelihood, as in [survival::coxph()]: `"efron"` (the default,
#'   as coxph()'s), `"breslow"` or `"exact"` (at \eqn{\beta = 0} the
#'   hypergeometric form: for a binary feature the log-rank test of
#'   [survival::survdiff()], also with tied times).
#' @param adjust how the p-values are adjusted for multiple testing: a method
#'   of [stats::p.adjust()] (`"BH"`, the default, `"BY"`, `"holm"`,
#'   `"bonferroni"`, `"none"`) or `"maxT"` (permutations, see Details).
#' @param n_perm `NULL` or the number of label permutations: gives the
#'   p-values of `"lin"`, `"snr"` and `"pam"`, permutation p-values instead
#'   of the gamma approximation for `"mmd"`, `"kta"` and `"hsic"`, and the
#'   permutations of `adjust = "maxT"` (1000 when `NULL`). An error with the
#'   other methods, whose p-values are analytic.
#' @param threads threads of the C loops: by default [default_threads()], or
#'   1 per worker with `parallel` (see \link{threads}).
#' @param block_size features per block (`NULL`: as many as fill
#'   `DelayedArray::getAutoBlockSize()` bytes, 100 MB without DelayedArray).
#' @param parallel `NULL` (the blocks one after another), `"future"` (on the
#'   back end of `future::plan()`), a future plan (e.g.
#'   `future::tweak(future::multisession, workers = 2)`, set with
#'   `future::plan()` for the call), or a BiocParallel `BiocParallelParam`:
#'   the feature blocks then run on its workers, which read their own blocks
#'   (an HDF5 file must be readable by them). The permutation p-values of
#'   `n_perm` are computed block by block too (give a `block_size` below the
#'   number of features to share them; `"pam"` is one block, its \eqn{s_0}
#'   needs every feature), and the labellings of `adjust = "maxT"` in
#'   batches. The result is the same for every back end and number of
#'   workers under the same `set.seed()`.
#' @return A data frame of class `c("bahsic_scores", "data.frame")`, one row
#'   per feature in the input feature order, with columns
#'   \describe{
#'     \item{`feature`}{the feature name, followed by the feature annotation
#'       of an `ExpressionSet` (`fData`) or `SummarizedExperiment`
#'       (`rowData`): its atomic columns, e.g. gene symbols next to probe
#'       ids (a column named like one below is prefixed `annotation_`).}
#'     \item{`score`}{the method's score, signed for `pc`, `lin`, `t`,
#'       `snr` and two-class `mt` (level 2 minus level 1 of `y`), and for
#'       `cox` (\eqn{U/\sqrt{I}}: positive when the hazard rises with the
#'       feature).}
#'     \item{`rank`}{1 = most relevant: largest absolute value for the
#'       signed scores, largest value otherwise; infinite scores (perfect
#'       separation, see Details) first, `NA` scores last, equal scores in
#'       feature order.}
#'     \item{`statistic`}{the test statistic (see Details): the t of
#'       `cor.test()` for `pc`, the (moderated) t for `t`, `mt` and `lods`,
#'       the moderated F for `mt` with more than two classes, the score test
#'       \eqn{U^2/I} (chi-square on 1 df) for `cox`, the score for the other
#'       methods.}
#'     \item{`effect`}{for the linear methods (all but `mmd`, `kta`,
#'       `hsic`) and two classes: the difference of the class means, level 2
#'       minus level 1, in the data's units (limma's `logFC`); for `pc`: the
#'       correlation; for `cox`: the one-step log hazard ratio \eqn{U/I} per
#'       unit of the feature (one Newton step of `coxph()` from 0). Absent for
#'       more than two classes and the kernel methods.}
#'     \item{`mean`}{for the linear methods: the feature's mean over all
#'       samples (limma's `AveExpr`).}
#'     \item{`p_value`, `adj_p_value`}{the two-sided p-value and its
#'       adjustment by `adjust`; `NA` for features with an `NA` score.
#'       Present only for the methods that have p-values: `pc`, `t`, `mt`,
#'       `lods`, `cox`, `mmd`, `kta`, `hsic` always, `lin`, `snr`, `pam` with
#'       `n_perm`, every method given to `adjust = "maxT"`. For the kernel
#'       methods the p-value is one-sided (large HSIC).}
#'   }
#'   and the method's own columns: `t` (the moderated t) for `lods`,
#'   `d_<class>` for `pam`. Attributes `"method"`, with p-values
#'   `"adjust"`, and with `covariates` or `block` `"design"`, the design in
#'   words (as its `print()` says it). For `"wilcoxon"` and `"kruskal"` see the section "Rank
#'   scores" (and there the marker table of `one_vs_rest = TRUE`).
#' @family scores
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the permutations (`n_perm`, `adjust = \"maxT\"`)")
#' @examples
#' x <- golub$x[, 1:500]
#' s <- feature_scores(x, golub$y, method = "t")
#' head(s[order(s$rank), ])
#' head(feature_scores(x, golub$y, method = "mt"))
#' feature_scores(x[, 1:5], golub$y, method = "hsic")
#' # the same scores, 100 features at a time
#' s100 <- feature_scores(x, golub$y, method = "t", block_size = 100)
#' identical(s, s100)
#' # limma's moderated t, Benjamini-Hochberg adjusted: the genes at 5% FDR
#' mt <- feature_scores(golub$x, golub$y, method = "mt", adjust = "BH")
#' nrow(top_features(mt, fdr = 0.05))
#' head(top_features(mt, fdr = 0.05))
#' # centroid difference with permutation p-values
#' set.seed(1)
#' head(feature_scores(x[, 1:50], golub$y, method = "lin", n_perm = 200))
#' @export
feature_scores <- function(x, ...) {
  check_generic_args("feature_scores", if (!missing(x)) x, ...names())
  UseMethod("feature_scores")
}

# The method for `method = NULL`, from the outcome (see ?feature_scores and
# inst/bench/bench-defaults.R for the measurement behind it), announced
# with a message so that nobody mistakes one statistic for another.
default_score_method <- function(y) {
  # limma's design matrix, no y: the method of its users
  if (is.null(y)) return(score_methods_with(function(r) "design" %in% r$uses)[1L])
  kind <- outcome_kind(y)
  method <- score_methods_with(function(r) kind %in% r$default_for)
  message(sprintf(paste0("feature_scores(): method = \"%s\" (%s), the default for %s. ",
                         "Give 'method' to choose another (?feature_scores)."),
                  method, score_labels[[method]], outcome_words(y)))
  method
}

# The arguments a method does not use are errors when given: a t.test() user's
# var_equal = TRUE with method = "mt" must not pass unnoticed.
check_score_arguments <- function(method, given, kernel) {
  uses <- score_row(method)$uses
  for (arg in names(given)[given]) {
    if (!arg %in% uses) {
      users <- score_methods_with(function(r) arg %in% r$uses)
      stop_unused(arg, paste0("method = \"", users, "\"", collapse = " or "),
                  sprintf("method = \"%s\"", method))
    }
  }
  if ("kernel" %in% uses && is_clinical(kernel)) {
    stop(paste0("feature_scores() does not take the clinical kernel: on one feature it is ",
                "that feature's own kernel. Use bahsic(x, y, kernel = kernel_clinical()), ",
                "whose scores are computed from the same per-feature terms."), call. = FALSE)
  }
  invisible()
}

#' @rdname feature_scores
#' @export
feature_scores.default <- function(x, y, method = NULL, kernel = NULL,
                                   kernel_y = NULL, estimator = c("biased", "unbiased"),
                                   var_equal = FALSE,
                                   adjust = c("BH", "BY", "holm", "bonferroni", "none", "maxT"),
                                   n_perm = NULL, na_action = c("fail", "omit"), assay = 1L,
                                   threads = default_threads(), block_size = NULL,
                                   parallel = NULL, one_vs_rest = FALSE,
                                   covariates = NULL, block = NULL, data = NULL, design = NULL,
                                   coef = NULL, contrast = NULL, trend = FALSE, robust = FALSE,
                                   ties = c("efron", "breslow", "exact"), ...) {
  check_dots(..., .fn = "feature_scores")
  spec <- design_spec(covariates, block, data)
  if (!is.null(design)) y <- check_design_matrix(design, if (!missing(y)) y, spec)
  given <- given_arguments(environment())
  chosen <- !is.null(method)
  if (chosen) method <- arg_match(method, score_methods, aliases = score_aliases)
  estimator <- arg_match(estimator)
  ties <- arg_match(ties)
  for (flag in c("var_equal", "trend", "robust")) check_flag(get(flag), flag)
  adjust_given <- !missing(adjust)
  adjust <- arg_match(adjust)
  if (!is.null(n_perm)) n_perm <- check_whole(n_perm, "n_perm", 1L)
  if (!is.null(parallel) && missing(threads)) threads <- 1L
  threads <- check_threads(threads)
  if (!is.null(block_size)) block_size <- check_whole(block_size, "block_size", 1L)
  run <- check_parallel(parallel)
  if (chosen) check_score_arguments(method, given, kernel)
  d <- normalise_inputs(x, y, na_action = na_action, assay = assay, blocks = TRUE,
                        require_y = is.null(design), design = spec)
  src <- d$source
  y <- d$y
  m <- src$m
  if (!chosen) {
    method <- default_score_method(y)
    check_score_arguments(method, given, kernel)
  }
  if (is.null(kernel) && "kernel" %in% score_row(method)$uses) kernel <- default_data_kernel(y)
  check_score_design(method, d$design)
  args <- score_arguments(environment(), d$design)
  if (!is.null(y)) check_score_outcome(method, y, m, var_equal, estimator, args)
  check_inference_args(method, y, adjust, adjust_given, n_perm)
  row <- score_row(method)
  if (!is.null(row$recode)) y <- row$recode(y)
  args$fit <- linear_fit_setup(method, y, d, args, adjust)
  if (!is.null(row$source)) src <- row$source(src)
  score_block <- row$scorer(y, m, method, args)
  if (is.null(block_size)) block_size <- auto_block_size(m)
  # a bar over the pass that permutes, the long part (score_progress())
  prog <- score_progress(src$d, method, adjust, n_perm, block_size)
  on.exit(progress_end(prog$bar), add = TRUE)
  parts <- run_feature_blocks(src, prog$score_size, score_block, run, prog$score_bar)
  # a result of the row's own shape (e.g. several rows per feature)
  own <- if (!is.null(row$finish)) row$finish(method, parts, y, d, args, adjust)
  if (!is.null(own)) return(own)
  constant <- part_column(parts, "constant")
  res <- combine_parts(parts, method, var_equal)
  mom <- res$mom
  score <- unname(res$score)
  if (any(constant)) {
    warn_constant(d$features, constant, method, score)
    if (row$constant_na) score[constant] <- NA_real_
  }
  ranked <- rank_features(method, score, res, src, d$features)
  score <- ranked$score
  out <- list(feature = d$features, score = score, rank = ranked$rank)
  inf <- score_inference(method, res, parts, score, m, mom)
  p <- inference_p_values(inf, src, y, method,
                          list(var_equal = var_equal, adjust = adjust, n_perm = n_perm,
                               rank = out$rank,
                               threads = threads, block_size = prog$perm_size, run = run,
                               fit = args$fit,
                               maxt_run = if (!is.null(parallel)) run, progress = prog$bar))
  progress_finish(prog$bar)
  if (adjust_given && is.null(p)) {
    stop(sprintf("'adjust' needs p-values, and method = \"%s\" gives none in this version.",
                 method), call. = FALSE)
  }
  score_frame(inference_columns(out, inf, p), res$extra, d$annotation, method,
              if (!is.null(p)) adjust, d$design)
}

# The arguments of some methods only (score_table's `uses`): whether the call
# of feature_scores() (its frame env) gave each.
given_arguments <- function(env) {
  vapply(score_method_formals(), function(a) !eval(call("missing", as.name(a)), env), NA)
}

# Those arguments among the formals of feature_scores.default(), looked up
# once (the score table is fixed when the package is built).
score_method_formals <- local({
  known <- NULL
  function() {
    if (is.null(known)) {
      known <<- intersect(names(formals(feature_scores.default)), score_method_arguments())
    }
    known
  }
})

# The arguments of the methods (score_table's `uses`) from feature_scores()'s
# frame: limma's design matrix (`design`) as design_matrix, and the resolved
# study design (covariates, block) as design.
score_arguments <- function(env, design) {
  args <- mget(c(score_method_arguments(), "threads", "n_perm"), envir = env)
  args$design_matrix <- args$design
  args$design <- design
  args
}

# A design (covariates, block) given to a method that cannot adjust: an error
# that names the method, says why (its row's `design`) and lists those that can.
check_score_design <- function(method, design) {
  if (is.null(design)) return(invisible())
  why <- score_row(method)$design
  if (identical(why, "adjusts")) return(invisible())
  can <- if (any(vapply(score_table, function(r) identical(r$design, "adjusts"), NA))) {
    design_methods_words()
  } else ""
  design_refuse(sprintf("method = \"%s\" (%s)", method, score_row(method)$label),
                paste0(why, if (nzchar(can)) sprintf(" Methods that adjust: %s.", can)))
}

# The score table from the list of its columns: its method's own columns,
# the annotation, the class and attributes (`adjust` only with p-values,
# `design` only with a design).
score_frame <- function(out, extra, annotation, method, adjust, design = NULL) {
  out <- list2DF(out)
  if (!is.null(extra)) {
    out <- cbind(out, extra)
    rownames(out) <- NULL
  }
  out <- annotate_features(out, annotation)
  class(out) <- c("bahsic_scores", "data.frame")
  attr(out, "method") <- method
  if (!is.null(adjust)) attr(out, "adjust") <- adjust
  # the design the scores were adjusted for, in words (add_feature_scores() records it)
  if (!is.null(design)) attr(out, "design") <- design$text
  out
}

# The scores of all blocks together (list(score, extra, mom, and the
# blocks' statistic and effect when they give them)): a method without
# `moments` in its row (the kernel methods, pc) scores each block alone;
# limma's prior and pamr's s0 need every feature, so the other linear methods
# are made from the moments of all blocks (`mom`, also what the inference
# columns use).
combine_parts <- function(parts, method, var_equal) {
  row <- score_row(method)
  # the linear model of each feature on a design (R/scores-design.R)
  if (!is.null(parts[[1L]]$fit)) return(linear_fit_combine(parts, method))
  if (!is.null(row$combine)) return(row$combine(parts, var_equal, method))
  moments <- row$moments
  if (is.null(moments)) {
    join <- function(what) {
      if (all(vapply(parts, function(q) !is.null(q[[what]]), NA))) part_column(parts, what)
    }
    extra <- if (all(vapply(parts, function(q) is.data.frame(q$extra), NA))) {
      do.call(rbind, lapply(parts, `[[`, "extra"))
    }
    return(list(score = join("score"), extra = extra, mom = NULL,
                statistic = join("statistic"), effect = join("effect")))
  }
  mom <- combine_moments(parts)
  res <- moments(mom, var_equal = var_equal, method = method)
  res$mom <- mom
  res
}

# The vector `what` of every block's part in feature order, without names
# (unlist()'s result; one block's own vector where it has no attributes, not
# a copy of it).
part_column <- function(parts, what) {
  if (length(parts) == 1L) {
    v <- parts[[1L]][[what]]
    if (is.null(attributes(v))) return(v)
  }
  unlist(lapply(parts, `[[`, what), use.names = FALSE)
}

# Rank 1 = the largest score (|score| for the signed methods), NA last; equal
# scores by the larger `tie` (when given), then in feature order (radix sort
# is stable).
rank_scores <- function(score, method, tie = NULL) {
  key <- if (score_row(method)$signed) abs(score) else score
  # in C (a radix sort; NULL where a score is NaN but not NA), as rank_scores_r()
  rank <- .Call(C_rank_desc, as.double(key), if (!is.null(tie)) as.double(tie))
  if (is.null(rank)) rank <- rank_scores_r(key, tie)
  rank
}

rank_scores_r <- function(key, tie = NULL) {
  ord <- if (is.null(tie)) {
    order(-key, na.last = TRUE, method = "radix")
  } else {
    order(-key, -tie, na.last = TRUE, method = "radix")
  }
  rank <- integer(length(key))
  rank[ord] <- seq_along(ord)
  rank
}

# ---- perfect separation --------------------------------------------------------
# A feature with no spread within the classes and different class means is
# the strongest evidence of a difference there is: its t, signal to noise
# ratio (and pam's statistic when s0 = 0) are infinite (ratio_or_na(),
# R/scores-linear.R), and so is the t of a correlation of +-1, a feature that
# is an exact linear function of the outcome (`pc`; the correlation computed
# in floating point is within a few ulps of 1, and is set to +-1). These
# features rank first, several by the spread of their class means (for pc:
# of their values), the largest first, then in feature order; their p-value
# is 0, their effect the finite difference of the means, and a warning names
# them. The moderated t, B, pam (s0 > 0), the centroid difference and the
# kernel scores are finite for them and rank them by value.
rank_features <- function(method, score, res, src, features) {
  row <- score_row(method)
  correlation <- row$perfect == "unit"
  sep <- separating_features(correlation, score, src$m)
  any_sep <- any(sep)
  if (correlation && any_sep) score[sep] <- sign(score[sep])
  tie <- if (any_sep) {
    warn_separating(features, sep, correlation)
    separation_spread(correlation, sep, res$mom, src, res$effect)
  } else if (!is.null(row$tie)) {
    # B ties where the data's scale leaves it no digits (warn_flat_lods())
    row$tie(res)
  }
  if (!is.null(row$check_ties)) row$check_ties(features, score, res, method)
  list(score = score, rank = rank_scores(score, method, tie))
}

# How close to +-1 a computed correlation is taken for +-1: the rounding of
# its sums over m samples.
separation_tolerance <- function(m) max(64, m) * .Machine$double.eps

separating_features <- function(correlation, score, m) {
  if (correlation) {
    # 1 - |r| falls as |r| grows: none where the largest |r| is not within
    # the tolerance (found without a vector the size of score)
    top <- max(-min(score, 0, na.rm = TRUE), max(score, 0, na.rm = TRUE))
    if (1 - top > separation_tolerance(m)) return(logical(length(score)))
    return(!is.na(score) & 1 - abs(score) <= separation_tolerance(m))
  }
  # (is.infinite() is FALSE for NA)
  is.infinite(score)
}

# The order among separating features: the spread of the class means in the
# data's units (two classes: |difference|, times a constant; more: their root
# mean square deviation from the overall mean), for pc the range of the
# values (the slope times the range of the outcome); 0 for the others.
separation_spread <- function(correlation, sep, mom, src, effect = NULL) {
  key <- numeric(length(sep))
  j <- which(sep)
  # a fit on a design: the size of the coefficient
  if (!correlation && is.null(mom)) {
    key[j] <- abs(effect[j])
    return(key)
  }
  if (correlation) {
    b <- as.matrix(read_block(src, j, check = FALSE, names = FALSE))
    # halves: no overflow at any finite scale
    key[j] <- apply(b, 2L, function(v) max(v) / 2 - min(v) / 2)
    return(key)
  }
  n <- mom$n
  overall <- colSums(mom$mean[, j, drop = FALSE] * n) / sum(n)
  dev <- sqrt(colSums(t(t(mom$mean[, j, drop = FALSE]) - overall)^2 * n) / sum(n))
  key[j] <- .Call(C_scale_pow2, dev, mom$expo[j], 1L)
  key
}

warn_separating <- function(features, sep, correlation) {
  n <- sum(sep)
  what <- if (correlation) {
    c("is an exact linear function", "are exact linear functions")
  } else {
    c("separates", "separate")
  }
  warning(sprintf(paste0("%d feature%s %s%s (%s%s): %s; infinite statistic, smallest possible ",
                         "p-value, ranked first%s."),
                  n, if (n > 1L) "s" else "", what[1L + (n > 1L)],
                  if (correlation) " of the outcome" else " the classes perfectly",
                  paste(utils::head(features[sep], 3L), collapse = ", "),
                  if (n > 3L) ", ..." else "",
                  if (correlation) {
                    "correlation +-1"
                  } else {
                    "no spread within the classes, different class means"
                  },
                  if (n == 1L) "" else if (correlation) {
                    ", the widest range of values first"
                  } else {
                    ", the largest difference of class means first"
                  }), call. = FALSE)
}

# B (lods) depends on the data's units: limma's prior bounds the size of a
# true difference in them (stdev.coef.lim of limma::eBayes()), and far beyond
# (values of about 1e10 and more) every B is the log prior odds
# log(0.01 / 0.99) to the last digit, so B no longer orders the features.
# Equal B are ranked by |t| (rank_features()); a warning says so.
warn_flat_lods <- function(features, lods, t, method) {
  ok <- which(!is.na(lods) & !is.na(t))
  o <- ok[order(lods[ok], abs(t[ok]), method = "radix")]
  flat <- diff(lods[o]) == 0 & diff(abs(t[o])) != 0
  if (!any(flat)) return(invisible())
  tied <- sort(unique(c(o[-1L][flat], o[-length(o)][flat])))
  n <- length(tied)
  warning(sprintf(paste0("B (method = \"%s\") is the same number for %d features whose ",
                         "moderated t differ (%s%s): limma's prior bounds a true difference in ",
                         "the data's units (stdev.coef.lim = c(0.1, 4)), and at the scale of ",
                         "these data B has no digits left to tell them apart. They are ranked ",
                         "by |t|; rescale x (e.g. log2 expression values), or use method = ",
                         "\"mt\", which does not depend on the scale."),
                  method, n, paste(utils::head(features[tied], 3L), collapse = ", "),
                  if (n > 3L) ", ..." else ""), call. = FALSE)
}

#' @rdname feature_scores
#' @export
feature_scores.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("feature_scores", match.call(), parent.frame(), NULL, ...)
}

# The outcome and the samples a method needs (its row of score_table), with
# the methods that would take them in the message; `args`, the arguments of
# the methods, for the row's own check.
check_score_outcome <- function(method, y, m, var_equal = FALSE, estimator = "biased",
                                args = list()) {
  row <- score_row(method)
  if (!outcome_kind(y) %in% row$outcomes) stop_score_outcome(row, y, m)
  # a correlation or a slope with a constant outcome is undefined
  if ((row$perfect == "unit" || !is.null(row$fit)) && !is.factor(y)) check_varying_outcome(y)
  need <- row$min_samples
  if (m < need$n) {
    check_min_samples(m, need$n, sprintf("method = \"%s\" (%s)", method, need$why),
                      sprintf("Use method = %s, which needs 2.",
                              quoted_list(variance_free_methods(y, need$n - 1L))))
  }
  if (is.factor(y)) check_class_sizes(row, y, m, var_equal)
  if ("estimator" %in% row$uses) {
    check_min_samples(m, if (estimator == "unbiased") 4L else 2L,
                      sprintf("Per-feature HSIC with the %s estimator", estimator),
                      if (estimator == "unbiased") "Use estimator = \"biased\", which needs 2.")
  }
  if (!is.null(row$check)) row$check(method, y, m, args)
  invisible()
}

# The methods that take the outcome y, the default first.
methods_for_outcome <- function(y) {
  kind <- outcome_kind(y)
  takes <- score_methods_with(function(r) kind %in% r$outcomes)
  first <- score_methods_with(function(r) kind %in% r$default_for)
  c(first, setdiff(takes, first))
}

# Those of them that need no spread within the classes, with m samples.
variance_free_methods <- function(y, m) {
  intersect(methods_for_outcome(y),
            score_methods_with(function(r) r$variance == "none" && r$min_samples$n <= m))
}

stop_score_outcome <- function(row, y, m) {
  kind <- outcome_kind(y)
  takes <- row$outcomes
  what <- if (kind == "matrix") {
    "needs a single outcome"
  } else if (identical(takes, "survival")) {
    "needs a censored survival outcome, survival::Surv(time, event)"
  } else if (identical(takes, "two classes")) {
    "compares two classes"
  } else if (!"numeric" %in% takes) {
    "compares classes, so it needs class labels (a factor)"
  } else {
    "needs a numeric or two-class outcome"
  }
  classes <- kind == "numeric" && any(c("two classes", "several classes") %in% takes)
  stop(sprintf("method = \"%s\" %s; 'y' has %s. Use method = %s%s.", row$name, what, outcome_words(y), quoted_list(methods_for_outcome(y)),
               if (classes) ", or factor(y) if the numbers code classes" else ""),
       call. = FALSE)
}

# Welch's t and the signal to noise ratio need a variance in every class;
# the pooled t, moderated t, B and pam pool the classes' sums of squares
# (as genefilter, limma and pamr do), so a class of one sample is enough.
check_class_sizes <- function(row, y, m, var_equal) {
  pools <- var_equal && "var_equal" %in% row$uses
  counts <- tabulate(y, nlevels(y))
  if (row$variance == "within" && !pools) {
    if (any(counts < 2L)) {
      pooled <- intersect(methods_for_outcome(y),
                          score_methods_with(function(r) r$variance == "pooled"))
      stop(sprintf(paste0("method = \"%s\" needs a variance within each class, so at least 2 ",
                          "samples per class; class \"%s\" has 1. Use %smethod = %s (pooled ",
                          "variance), or %s (no variance)."),
                   row$name, levels(y)[counts < 2L][1L],
                   if (pools || !"var_equal" %in% row$uses) "" else "var_equal = TRUE, ",
                   quoted_list(pooled), quoted_list(variance_free_methods(y, m))),
           call. = FALSE)
    }
  } else if ((row$variance == "pooled" || pools) && m <= nlevels(y)) {
    stop(sprintf(paste0("method = \"%s\" pools the variance within classes, so it needs more ",
                        "samples (%d) than classes (%d). Use %s (no variance)."),
                 row$name, m, nlevels(y), quoted_list(variance_free_methods(y, m))),
         call. = FALSE)
  }
  invisible()
}

constant_features <- function(x) .Call(C_constant_columns, x)

warn_constant <- function(features, constant, method, score) {
  warning(sprintf(paste0("%d constant feature%s (%s%s): %s. Remove them before scoring ",
                         "to silence this warning."),
                  sum(constant), if (sum(constant) > 1) "s" else "",
                  paste(utils::head(features[constant], 3), collapse = ", "),
                  if (sum(constant) > 3) ", ..." else "",
                  if (score_row(method)$constant_na || anyNA(score[constant])) {
                    "score NA, ranked last"
                  } else {
                    "no dependence on the outcome"
                  }), call. = FALSE)
}

# ---- inference: statistics, effects, p-values ------------------------------------
# Which p-value each method has (?feature_scores, Details; the row's
# `p_values`): an analytic null, permutations of the labels (when n_perm is
# given), the kernel scorer's own (a block part with `p_value`), or maxT
# (the row's `maxt`).

# The methods whose row passes keep, as words: "a", "b" and "c".
methods_words <- function(keep, last = " and ") quoted_list(score_methods_with(keep), last)

check_inference_args <- function(method, y, adjust, adjust_given, n_perm) {
  row <- score_row(method)
  # limma's design matrix, no y
  if (adjust == "maxT" && is.null(y)) stop_maxt_design_matrix()
  if (adjust == "maxT") {
    if (is.null(row$maxt) || !outcome_kind(y) %in% row$maxt$outcomes) {
      stop(sprintf(paste0("adjust = \"maxT\" is available for method = %s, not method = ",
                          "\"%s\"%s. Use adjust = \"BH\" or \"holm\" instead."),
                   maxt_methods_words(), method,
                   if (is.null(row$maxt)) "" else paste(" with", outcome_words(y))),
           call. = FALSE)
    }
    return(invisible())
  }
  permuted <- function(r) r$p_values %in% c("permutation", "kernel test")
  if (!is.null(n_perm) && !permuted(row)) {
    stop(sprintf(paste0("'n_perm' is not used with method = \"%s\"%s; it applies to method = ",
                        "%s and to adjust = \"maxT\". Remove it, or ",
                        "use adjust = \"maxT\" for permutation-based adjusted p-values."),
                 method, if (row$p_values == "analytic") ", whose p-values are analytic" else "",
                 methods_words(permuted)),
         call. = FALSE)
  }
  if (adjust_given && row$p_values == "permutation" && is.null(n_perm)) {
    stop(sprintf(paste0("method = \"%s\" has no analytic null distribution: its p-values come ",
                        "from permutations of the labels. Give 'n_perm' (e.g. n_perm = 1000) to ",
                        "get them, or remove 'adjust'."), method), call. = FALSE)
  }
  invisible()
}

# "a", "b" (two classes) and "c": the methods of maxT and their outcomes.
maxt_methods_words <- function() {
  maxt <- score_methods_with(function(r) !is.null(r$maxt))
  words <- vapply(maxt, function(method) {
    row <- score_row(method)
    some <- !all(row$outcomes %in% row$maxt$outcomes)
    paste0("\"", method, "\"", if (some) paste0(" (", row$maxt$outcomes, ")", collapse = ""))
  }, "")
  paste0(paste(words[-length(words)], collapse = ", "), " and ", words[length(words)])
}

# The statistic behind each score, the effect (two classes: difference of
# the class means, level 2 minus level 1, in the data's units; pc: the
# correlation), the mean of each feature over all samples and the analytic
# p-values (NULL for a method without).
score_inference <- function(method, res, parts, score, m, mom) {
  mean <- part_column(parts, "average")
  effect <- res$effect
  p <- res$p_value
  statistic <- if (is.null(res$statistic)) score else unname(res$statistic)
  row <- score_row(method)
  if (!is.null(row$statistic) && !isTRUE(res$fitted)) {
    test <- row$statistic(score, m)
    statistic <- test$statistic
    p <- test$p_value
    effect <- test$effect
  } else if (!is.null(mom) && length(mom$n) == 2L) {
    effect <- .Call(C_mean_diff, mom$mean, mom$expo)
  }
  # the p-values of the blocks (the kernel methods' tests)
  if (is.null(p) && all(vapply(parts, function(q) !is.null(q$p_value), NA))) {
    p <- part_column(parts, "p_value")
  }
  if (anyNA(score)) statistic[is.na(score)] <- NA_real_
  list(statistic = statistic, effect = effect, mean = mean,
       p_value = if (!is.null(p)) unname(p), score = score)
}

# stats::cor.test() of correlations r of m samples: t = sqrt(m - 2) r /
# sqrt(1 - r^2) on m - 2 df; the effect is r. In one pass in C with R's own
# pt(): the numbers of correlation_test_r(), its oracle.
correlation_test <- function(r, m) {
  df <- m - 2
  if (df <= 0) return(correlation_test_r(r, m))
  test <- .Call(C_cor_test, as.double(r), as.double(df))
  list(statistic = test$statistic, p_value = test$p_value, effect = r)
}

correlation_test_r <- function(r, m) {
  df <- m - 2
  statistic <- sqrt(df) * r / sqrt(1 - r^2)
  list(statistic = statistic,
       p_value = if (df > 0) two_sided_t_r(statistic, df) else rep(NA_real_, length(r)),
       effect = r)
}

# p-values and adjusted p-values: list(p_value, adj_p_value), or NULL when
# the method has none. Features with an NA score (constant ones) get NA and
# do not count in the adjustment (stats::p.adjust() leaves NAs out of n).
inference_p_values <- function(inf, src, y, method, opts) {
  na <- if (anyNA(inf$score)) is.na(inf$score)
  if (opts$adjust == "maxT") {
    # Westfall and Young (1993) step-down maxT, from the permutations of
    # maxt_run(), the work of permutation_pvalues() (R/permutation.R), in
    # about 100 batches under a bar
    n_perm <- if (is.null(opts$n_perm)) 1000L else opts$n_perm
    x <- source_matrix(src, check = FALSE)
    res <- maxt_run(x, y, method, opts$var_equal, n_perm, opts$threads,
                    batch = maxt_progress_batch(opts$progress, n_perm, ncol(x)),
                    run = opts$maxt_run, progress = opts$progress,
                    fit = if (!is.null(opts$fit$study)) opts$fit)
    p <- list(p_value = res$p_value, adj_p_value = res$adj_p_value)
    if (!is.null(na)) p$p_value[na] <- p$adj_p_value[na] <- NA_real_
    return(p)
  }
  raw <- inf$p_value
  kind <- score_row(method)$p_values
  if (kind == "kernel test" && is.null(opts$n_perm) && src$m < 4L) {
    warning(sprintf(paste0("With %d samples the gamma approximation of the p-values of ",
                           "method = \"%s\" is undefined (it needs 4): p_value and ",
                           "adj_p_value are NA. Give 'n_perm' for permutation p-values, or ",
                           "use more samples."), src$m, method), call. = FALSE)
  }
  if (is.null(raw) && kind == "permutation" && !is.null(opts$n_perm)) {
    raw <- permutation_p_values(src, y, method, opts)
  }
  if (is.null(raw)) return(NULL)
  if (!is.null(na)) raw[na] <- NA_real_
  list(p_value = raw, adj_p_value = adjust_p_values(raw, opts$adjust, opts$rank))
}

# stats::p.adjust(p, adjust); Benjamini-Hochberg's, the default, in C (a
# radix sort instead of order(), the same numbers; none where the p-values
# are in the order of the features' `rank`, as those of one df are).
adjust_p_values <- function(p, adjust, rank = NULL) {
  if (adjust != "BH") return(stats::p.adjust(p, adjust))
  .Call(C_p_adjust_bh, as.double(p), if (is.integer(rank)) rank)
}

# Permutation p-values of lin, snr and pam (permutation_scorer(),
# R/scores-linear.R): the permutations are drawn once, here, from the
# caller's RNG, so the p-values depend on neither the blocks nor the back end.
permutation_p_values <- function(src, y, method, opts) {
  m <- src$m
  perms <- vapply(seq_len(opts$n_perm), function(i) sample.int(m), integer(m))
  dim(perms) <- c(m, opts$n_perm)
  # pam's s0 is a median over all features: one block
  size <- if (score_row(method)$borrows) src$d else opts$block_size
  scorer <- permutation_scorer(y, method, opts$var_equal, perms)
  parts <- run_feature_blocks(src, size, scorer, opts$run, opts$progress)
  part_column(parts, "p_value")
}

# The inference columns after `rank` (out a list of columns); p-values only
# when there are some. Without names, as `$<-` on a data frame stores them.
inference_columns <- function(out, inf, p) {
  add <- c(list(statistic = inf$statistic, effect = inf$effect, mean = inf$mean),
           if (!is.null(p)) list(p_value = p$p_value, adj_p_value = p$adj_p_value))
  for (nm in names(add)) {
    v <- add[[nm]]
    if (is.null(v)) next
    # (only where there are names: `names<-` copies a vector the list `add` holds too)
    if (is.atomic(v) && !is.null(names(v))) names(v) <- NULL
    out[[nm]] <- v
  }
  out
}

# ---- feature blocks -----------------------------------------------------------
# Every score is per feature, so feature_scores() reads the features a block
# at a time (read_block(), R/inputs.R) and never holds the whole dense matrix
# (nor copies it: a dense matrix in memory, one block when it fits, is read
# in place). Each block gives its part -- the scores, or for the methods that
# borrow across features the class moments -- whether its features are
# constant and where its first missing or infinite value is (`bad`, 0 for
# none): the linear statistics find both in the one pass over the data that
# computes them (src/scores.c); the parts are joined in feature order. A
# block runs on the main thread or on a worker (check_parallel()); its result
# does not depend on where, nor on how the features are cut into blocks (the
# C routines work column by column).

run_feature_blocks <- function(src, block_size, score_block, run, progress = NULL) {
  blocks <- feature_blocks(src$d, block_size)
  one <- function(j) {
    # an error (a missing value, say) comes back as a value: the first in
    # feature order is raised on the main thread, whatever the back end
    tryCatch({
      b <- read_block(src, j, check = FALSE, names = FALSE)
      part <- score_block(b)
      if (part$bad > 0) nonfinite_error(b, part$bad, src$features[j], src$samples)
      part
    }, error = function(e) e)
  }
  parts <- run(blocks, one, progress = progress)
  for (p in parts) if (inherits(p, "error")) stop(conditionMessage(p), call. = FALSE)
  parts
}

# The correlation of each feature with the numeric outcome y.
correlation_block_scorer <- function(y) {
  function(b) {
    part <- .Call(C_feature_cor, b, y)
    if (anyNA(part$score)) part$score[is.nan(part$score)] <- NA_real_
    part
  }
}

# The moments of all blocks, each feature in its own units (its exponent).
combine_moments <- function(parts) {
  mom <- parts[[1L]]
  if (length(parts) > 1L) {
    mom$mean <- do.call(cbind, lapply(parts, `[[`, "mean"))
    mom$ss <- do.call(cbind, lapply(parts, `[[`, "ss"))
    mom$expo <- part_column(parts, "expo")
  }
  mom$constant <- NULL
  mom$average <- NULL
  mom$bad <- NULL
  mom
}

#' The top features of a score table, by rank or at a false discovery rate
#'
#' Picks rows of a [feature_scores()] table as `limma::topTable()` does with
#' `number`, `p.value`, `lfc` and `sort.by` (here `n`, `fdr`, `lfc` and
#' `sort_by`): the features with an adjusted p-value at most `fdr` and an
#' absolute effect at least `lfc`, ordered by `sort_by` (by rank unless asked
#' otherwise), then the first `n` of them.
#'
#' With `adjust = "BH"` (the default of [feature_scores()]) the adjusted
#' p-values are Benjamini and Hochberg's (1995), and the features kept at
#' `fdr = 0.05` are a list whose expected false discovery rate is at most 5%.
#' Features with an `NA` adjusted p-value (constant ones) are never kept by
#' `fdr`, nor features with an `NA` effect by `lfc`. A feature that separates
#' the classes perfectly (infinite statistic, p-value 0) is ranked first and
#' kept by every cut.
#'
#' As in limma, `lfc` is applied with `fdr` (both must hold) and does not
#' change the adjusted p-values, which count every feature.
#'
#' A marker table (`feature_scores(method = "wilcoxon", one_vs_rest =
#' TRUE)`, one row per feature and class) is cut class by class: `n`, `fdr`
#' and `sort_by` apply within each class (the top `n` markers of every
#' class), and `lfc` cuts by its column `log_fc`.
#'
#' @param scores a data frame returned by [feature_scores()].
#' @param n `NULL` (all) or the largest number of features to return.
#' @param fdr `NULL` (no cut) or a number in \[0, 1\]: keep the features with
#'   `adj_p_value <= fdr`. Needs the `adj_p_value` column, which
#'   [feature_scores()] gives for the methods with p-values (see its Details).
#' @param lfc `NULL` (no cut) or a number \eqn{\ge 0}: keep the features with
#'   `abs(effect) >= lfc`, limma's minimum absolute log-fold change when the
#'   data are log expression values. Needs the `effect` column (the
#'   difference of the class means of the linear methods for two classes;
#'   for `"pc"` the correlation): an error for the other methods, and for
#'   the rank methods, whose effect is the AUC.
#' @param sort_by the order of the rows: `"rank"` (the default, the method's
#'   ranking; `"score"` is the same), `"p_value"` (smallest first),
#'   `"effect"`, `"statistic"` (largest absolute value first), `"mean"`
#'   (largest first) or `"none"` (the order of the features in the data).
#'   limma's names are accepted: `"P"` and `"p"` for `"p_value"`, `"logFC"`
#'   for `"effect"`, `"t"` and `"F"` for `"statistic"`, `"AveExpr"` for
#'   `"mean"`, `"B"` for the rank of `method = "lods"`. A column the scores
#'   do not have is an error that lists those they have. Equal values keep
#'   the order of the rank.
#' @param ... not used: an unknown argument is an error.
#' @return The rows of `scores` kept, in the order of `sort_by` (unranked and
#'   `NA` values last), with all their columns; row names are reset. Zero rows
#'   when none passes.
#' @family scores
#' @examples
#' s <- feature_scores(golub$x[, 1:500], golub$y, method = "mt")
#' top_features(s, n = 5)
#' nrow(top_features(s, fdr = 0.01))
#' # limma's topTable(fit, number = 10, p.value = 0.05, lfc = 1, sort.by = "logFC")
#' top_features(s, n = 10, fdr = 0.05, lfc = 1, sort_by = "logFC")
#' # the smallest p-values first
#' head(top_features(s, sort_by = "p_value"), 3)
#' # the two best markers of each class, up or down by at least 0.5
#' y3 <- factor(rep(c("a", "b", "c"), length.out = nrow(golub$x)))
#' mk <- feature_scores(golub$x[, 1:300], y3, method = "wilcoxon", one_vs_rest = TRUE)
#' top_features(mk, n = 2, lfc = 0.5)
#' @export
top_features <- function(scores, n = NULL, fdr = NULL, lfc = NULL, sort_by = "rank", ...) {
  check_limma_names(...names())
  check_dots(..., .fn = "top_features")
  if (!is.data.frame(scores) || !all(c("feature", "rank") %in% names(scores))) {
    stop("'scores' must be a data frame from feature_scores() (with columns feature and rank).",
         call. = FALSE)
  }
  method <- attr(scores, "method")
  if (!is.null(n)) n <- check_whole(n, "n", 0L)
  if (inherits(scores, "bahsic_markers")) return(top_markers(scores, n, fdr, lfc, sort_by))
  sort_by <- check_sort_by(sort_by, scores, method)
  keep <- rep(TRUE, nrow(scores))
  if (!is.null(fdr)) {
    if (!is.numeric(fdr) || length(fdr) != 1L || is.na(fdr) || fdr < 0 || fdr > 1) {
      stop("'fdr' must be one number between 0 and 1, e.g. fdr = 0.05.", call. = FALSE)
    }
    if (!"adj_p_value" %in% names(scores)) {
      stop(sprintf(paste0("'fdr' needs adjusted p-values, and these scores%s have none: use a ",
                          "method with p-values or give 'n_perm' to feature_scores() (see ",
                          "?feature_scores), or choose by 'n'."), method_words(method)),
           call. = FALSE)
    }
    keep <- !is.na(scores$adj_p_value) & scores$adj_p_value <= fdr
  }
  if (!is.null(lfc)) keep <- keep & lfc_keep(scores, lfc, method)
  idx <- which(keep)
  idx <- idx[top_order(scores, idx, sort_by)]
  if (!is.null(n)) idx <- utils::head(idx, n)
  out <- scores[idx, , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "method") <- method
  attr(out, "adjust") <- attr(scores, "adjust")
  out
}

# A marker table (one row per feature and class): the top of each class, the
# classes in their order; lfc cuts by log_fc.
top_markers <- function(scores, n, fdr, lfc, sort_by) {
  cls <- factor(scores$class, levels = unique(scores$class))
  parts <- lapply(split(seq_len(nrow(scores)), cls), function(i) {
    part <- scores[i, , drop = FALSE]
    class(part) <- "data.frame"
    attr(part, "method") <- attr(scores, "method")
    top_features(part, n = n, fdr = fdr, lfc = lfc, sort_by = sort_by)
  })
  out <- do.call(rbind, parts)
  rownames(out) <- NULL
  class(out) <- class(scores)
  attr(out, "method") <- attr(scores, "method")
  attr(out, "adjust") <- attr(scores, "adjust")
  out
}

method_words <- function(method) {
  if (is.null(method)) "" else sprintf(" (method = \"%s\")", method)
}

# limma::topTable()'s argument names, given to top_features(): what they are
# called here.
check_limma_names <- function(names) {
  ours <- c(number = "n", p.value = "fdr", sort.by = "sort_by")
  hit <- intersect(names, names(ours))
  if (length(hit)) {
    stop(sprintf(paste0("top_features() takes limma's '%s' as '%s': write %s = ... (see ",
                        "?top_features)."), hit[1L], ours[[hit[1L]]], ours[[hit[1L]]]),
         call. = FALSE)
  }
  invisible()
}

# The columns sort_by may name, limma's names for them, and how each sorts:
# "rank" ascending (the rank already orders the score), the others by their
# absolute value (signed columns) or value, largest first, p-values smallest
# first.
sort_by_choices <- c("rank", "score", "p_value", "effect", "statistic", "mean", "none")
sort_by_limma <- c(P = "p_value", p = "p_value", logFC = "effect", t = "statistic",
                   F = "statistic", AveExpr = "mean", B = "score")

check_sort_by <- function(sort_by, scores, method) {
  if (is.character(sort_by) && length(sort_by) == 1L && sort_by %in% names(sort_by_limma)) {
    # a limma column that names a method's score (B): only for that method
    named <- score_methods_with(function(r) sort_by %in% r$limma)
    if (length(named) && !isTRUE(method %in% named)) {
      stop(sprintf(paste0("sort_by = \"%s\" is %s, the score of method = %s; these ",
                          "scores%s have none. Use sort_by = \"rank\" (their own order) or ",
                          "\"p_value\"."), sort_by, score_labels[[named[1L]]],
                   quoted_list(named), method_words(method)), call. = FALSE)
    }
    sort_by <- sort_by_limma[[sort_by]]
  }
  sort_by <- arg_match(sort_by, sort_by_choices, aliases = sort_by_limma)
  if (sort_by == "score") sort_by <- "rank"
  if (!sort_by %in% c(names(scores), "none")) {
    has <- intersect(sort_by_choices, c(names(scores), "none"))
    stop(sprintf(paste0("sort_by = \"%s\" needs the column '%s', and these scores%s have ",
                        "none: sort by %s."), sort_by, sort_by, method_words(method),
                 paste0("\"", has, "\"", collapse = ", ")), call. = FALSE)
  }
  sort_by
}

# limma's lfc: |effect| >= lfc, for the scores with an effect column.
lfc_keep <- function(scores, lfc, method) {
  if (!is.numeric(lfc) || length(lfc) != 1L || !is.finite(lfc) || lfc < 0) {
    stop("'lfc' must be one number >= 0 (the smallest |effect|), e.g. lfc = 1.", call. = FALSE)
  }
  # a marker table's fold change
  if ("log_fc" %in% names(scores)) return(!is.na(scores$log_fc) & abs(scores$log_fc) >= lfc)
  if (!is.null(method) && method %in% score_methods && score_row(method)$family == "rank") {
    stop(sprintf(paste0("'lfc' keeps the features whose |effect| (the difference of the class ",
                        "means) is at least lfc, and the effect of these scores%s is the AUC, ",
                        "not a difference of means. Cut by 'fdr' or 'n', or use the marker ",
                        "table's log_fc (one_vs_rest = TRUE)."), method_words(method)),
         call. = FALSE)
  }
  if (!"effect" %in% names(scores)) {
    stop(sprintf(paste0("'lfc' keeps the features whose |effect| (the difference of the class ",
                        "means, limma's logFC) is at least lfc, and these scores%s have no ",
                        "effect column: it is given by the linear methods (%s for two ",
                        "classes; %s: the correlation). Remove 'lfc', or cut by 'fdr' or 'n'."),
                 method_words(method),
                 methods_words(function(r) r$family == "linear" && !is.null(r$moments), ", "),
                 methods_words(function(r) r$family == "linear" && !is.null(r$statistic))),
         call. = FALSE)
  }
  !is.na(scores$effect) & abs(scores$effect) >= lfc
}

# The order of the rows idx by sort_by; equal values (and NA, last) by rank,
# then by row.
top_order <- function(scores, idx, sort_by) {
  rank <- scores$rank[idx]
  if (sort_by == "none") return(seq_along(idx))
  if (sort_by == "rank") return(order(rank, idx, na.last = TRUE))
  v <- scores[[sort_by]][idx]
  key <- switch(sort_by, p_value = v, mean = -v, -abs(v))
  order(key, rank, idx, na.last = TRUE)
}

# The bar of feature_scores() (R/progress.R) when it permutes: over the
# blocks of the pass that permutes (the scores of the kernel methods, the
# permutation p-values of lin, snr, pam) or over the labellings of maxT.
# With a bar, the features are cut into about 100 blocks, which changes no
# result (run_feature_blocks()). Returns the bar (NULL for none), the block
# sizes of the two passes and the bar of the scoring pass.
score_progress <- function(d, method, adjust, n_perm, block_size) {
  out <- list(bar = NULL, score_size = block_size, perm_size = block_size, score_bar = NULL)
  if (adjust != "maxT" && is.null(n_perm)) return(out)
  small <- min(block_size, max(1L, ceiling(d / 100)))
  steps <- if (adjust == "maxT") {
    if (is.null(n_perm)) 1000L else n_perm
  } else if (score_row(method)$borrows) {
    1L # e.g. pam's s0 is a median over all features: one block
  } else {
    length(feature_blocks(d, small))
  }
  bar <- progress_start(steps)
  if (is.null(bar)) return(out)
  out$bar <- bar
  if (adjust != "maxT") {
    if (score_row(method)$p_values == "kernel test") {
      out$score_size <- small
      out$score_bar <- bar
    } else {
      out$perm_size <- small
    }
  }
  out
}
