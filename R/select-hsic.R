#' Feature selection by HSIC: BAHSIC and FOHSIC
#'
#' `bahsic()` is backward elimination (Algorithm 1 of Song et al. 2012):
#' starting from all features it repeatedly removes the features whose
#' removal leaves the largest HSIC between the remaining features and the
#' outcome, so the features that survive longest rank first. `fohsic()` is
#' forward selection (Algorithm 2): it repeatedly adds the features that
#' make the HSIC of the selected set largest. Both rank every feature (or
#' stop at `n_features`) and return a [`bahsic_selection`][selected] object.
#'
#' **Kernel widths** (section 4.1, step 3 of the algorithms) are set at the
#' start of every iteration:
#' * `"dimension"`: for standardised features the expected squared distance
#'   between two samples is twice the number of features s, so the Gaussian
#'   width is \eqn{\sigma = 1/(2s)} (Laplace: \eqn{1/\sqrt{2s}}); s is the
#'   size of the surviving set for BAHSIC and of the selected set plus the
#'   candidate for FOHSIC.
#' * `"optimize"`: the width in `sigma_grid` that maximises HSIC of the
#'   current set (BAHSIC: the surviving features; FOHSIC: the selected ones,
#'   or all features in the first iteration); by default the grid is the
#'   median-heuristic width of that set times \eqn{2^{-3}, \ldots, 2^3}.
#' * `"fixed"`: the kernel's own `sigma` throughout (with `sigma = NULL`, the
#'   median heuristic on all standardised features, once).
#' Kernels without a width (linear, polynomial, inverse distance, clinical)
#' are used as given (`"fixed"`): `"dimension"` and `"optimize"` are errors
#' with them, as `sigma_grid` is with a policy other than `"optimize"`.
#'
#' **Linear kernel**: HSIC then decomposes over features (section 5.1.1),
#' BAHSIC and FOHSIC both reduce to ranking the features by their own
#' contribution \eqn{x_j^\top W x_j}, and that is what is done, in one pass;
#' the scores and path are those the algorithm would report.
#'
#' **Cost**: each iteration scores every candidate with one pass over the
#' \eqn{m(m-1)/2} pairs of samples, from the squared distances of the
#' current set, which are updated (not recomputed) as features leave or
#' join. With `drop = 0.1` the total is about \eqn{10 d} candidate passes.
#' `drop = 0` (one feature at a time) costs about \eqn{d^2 / 2}.
#'
#' **Series screen** (Gaussian kernel, exact estimator, the default): most
#' candidates of an iteration cannot be in its batch, and they need not be
#' scored exactly. Removing feature \eqn{j} multiplies each pair's kernel value
#' by \eqn{\exp(\sigma (x_{aj} - x_{bj})^2)} (adding it, by
#' \eqn{\exp(-\sigma (x_{aj} - x_{bj})^2)}); with the iteration's
#' \eqn{M = W \circ K} formed once, one to three terms of the exponential
#' series give every candidate's HSIC from a few quadratic forms in its powers
#' (multiply-adds instead of exponentials), with a bound on the truncation and
#' on the rounding of both computations. A candidate whose interval cannot
#' reach the batch is set aside; the others get a three-term interval, and
#' those still in doubt are scored exactly. The ranking, the iterations and the
#' path are those of scoring every candidate, and the scores agree with its
#' to \eqn{10^{-11}} (relative; tested, and asserted in the benchmark). On the
#' ALL data (128 x 12,625) this takes BAHSIC from 1.73 s to 0.42 s on one core
#' and FOHSIC from 1.79 s to 0.59 s (`inst/bench/bench-bahsic.R`). The screen
#' stops where the series would not pay (\eqn{\sigma} times a candidate's squared
#' range above 0.5, late in a run). `options(bahsic.series = FALSE)` scores every
#' candidate exactly (the reference the tests compare with).
#'
#' **Screen** (`screen = "nonlinear"`, the default with the Gaussian or
#' Laplace kernel, `approx = "exact"`, the biased estimator and an outcome;
#' elsewhere `"none"`). *Why:* with many features left the width
#' \eqn{1/(2|S|)} of the surviving set makes the kernel matrix nearly
#' constant (squared distances over \eqn{2|S|} concentrate near 1: at 2,000
#' standardised genes and m = 100 the off-diagonal kernel values vary by 3%
#' around their mean), so a candidate's contribution reduces to its linear
#' score and early elimination is linear: genes that act jointly (an XOR pair)
#' or non-monotonically (a U-shaped gene) leave in the first iterations. Other
#' widths do not keep them: among 2,000 N(0, 1) genes, m = 100, 5 repeats
#' (`inst/bench/bench-screen.R widths`), an XOR pair's worse member ranked
#' 804 to 1,835 with `"dimension"`, 308 to 1,479 with `"optimize"`, 789 to
#' 1,835 with `"fixed"` (median heuristic) and 734 to 1,781 with a fixed
#' narrow width (sigma = 1/20, whose kernel on all genes is the identity); a
#' U-shaped gene ranked 267 to 1,470 with `"dimension"` and, with
#' `"optimize"`, 1 in 3 repeats but 1,546 and 1,968 in the others.
#'
#' *What the screen does:* before the elimination it tests every gene alone
#' (HSIC with the kernel's family at the gene's median-heuristic width, the
#' gamma p-values of [feature_scores()]) and every pair of genes for an
#' interaction. For standardised genes i and j, each less its part along the
#' outcome's label features (its class means; a numeric outcome's linear
#' trend), the second-order part of the product of their linear kernels is
#' the linear kernel of the product gene \eqn{z = x_i \circ x_j}, whose HSIC
#' with the outcome, \eqn{z^\top W z}, is tested as a gene's is (the gamma
#' approximation with the exact permutation moments; classes through the
#' selector's label kernel, a numeric outcome through its linear kernel, as
#' the median-width Gaussian one flattens the tails where a product's signal
#' lies); so is the product of the bounded genes \eqn{\tanh(1.5 x)} (an XOR's
#' product has heavy tails, which the bounded one drops), and a pair's p-value
#' is the smaller of the two, doubled. All \eqn{p(p-1)/2} pairs are
#' screened by the first with the leading eigenvectors of \eqn{W} (the
#' linear screen of [pair_scores()]: float32 register-blocked products in C,
#' \eqn{p^2 m r / 2} multiply-adds for r eigenvectors), the 5,000 with the
#' largest statistic relative to a per-gene scale are tested exactly, and
#' their p-values are adjusted (Benjamini-Hochberg) as among all pairs; the
#' genes' among the genes. The genes of every hit with
#' adjusted p-value at most 0.05 are the seeds: BAHSIC ranks them first
#' (BAHSIC on the seeds alone) and the other genes after them (BAHSIC on the
#' others alone; the path lists that run first, and its `n_features` counts
#' the run's own set; `n_features` stops the seeds' run when smaller than
#' their number, the others' run otherwise). Seeds are significant hits, not a
#' top-k, so that noise does not push out linear genes. Without a seed the
#' ranking, scores and path are exactly those of `screen = "none"`.
#' `settings$screen` says what seeded (one line of `print()`), and the
#' result's element `screen` holds the seeds, the gene hits and the pairs
#' with their statistics and p-values.
#'
#' *What it finds and costs* (m = 100, planted signal among N(0, 1) genes,
#' `inst/bench/bench-screen.R`, one thread, on a shared machine):
#' at 2,000 genes (10 repeats) an XOR pair (class
#' \eqn{\mathrm{sign}(x_1)\mathrm{sign}(x_2)}) ranked 2nd in 10 of 10
#' (`"none"`: 1,029th to 1,911th), a continuous one (\eqn{y = x_1 x_2 +
#' N(0, 1)}) in the top 5 in 8 of 10 (`"none"`: 289th at best), a U-shaped
#' gene (log survival time, hazard \eqn{\exp(1.5 x^2)}) 1st or 2nd in 10 of
#' 10 (`"none"`: 38th to 1,336th) and a ring's genes in the top 3 in 6 of 10;
#' at 12,625 genes the XOR pair ranked 2nd or 3rd in 10 of 10 (`"none"`:
#' 3,403rd to 12,540th) and the U-shaped gene 1st or 2nd in 4 of 4. Ten linear
#' genes (two classes, shift 0.8 sd, 2,000 genes, 40 repeats) were recalled in
#' the top 20 at 0.870 with the screen and without it, limma's moderated t at
#' 0.900. In `inst/bench/bench-nonlinear.R targets` (other seeds; 20 repeats at
#' 2,000 genes, 5 at 12,625) the XOR pair was in the top 20 in every repeat at
#' both sizes (ranks 2 to 6), the U-shaped gene ranked 1st to 9th among
#' 12,625, and ten genes shifted by 1 sd were recalled in the top 10 at 84%
#' against 88% without the screen and 94% for limma: noise genes that the
#' per-gene test calls significant by chance (about one per data set there)
#' are seeded and rank above them. On null data 4 of 40 data sets had a seed (a false hit, 1 gene in
#' 3 of them, 4 in one, never a pair); the other 36 gave exactly the result of
#' `"none"`. Time on the ALL data (128 x 12,625, B against T; idle 2-core
#' machine, median of 3): 2.0 s instead of 0.37 s on one thread, 1.3 s
#' instead of 0.24 s with `threads = 2` (the per-gene tests 0.7 s, the pair
#' screen of the 8e7 pairs 0.4 s, the exact tests of its 5,000 candidates
#' 0.4 s, the two BAHSIC runs 0.5 s); there 2,576 genes and 1,313 pairs are
#' significant, seeding 2,922 genes, and the top 20 are those of `"none"`.
#' Inside a resampling loop (cross-validation, [stability_selection()],
#' [selection_test()]) the screen runs in every fit: `screen = "none"` is the
#' fast path there when only linear signal is sought.
#' The linear pair statistic finds a product (an XOR, binary or continuous),
#' not a ring (class by \eqn{x_1^2 + x_2^2}); the ring's genes are found
#' alone when each carries enough signal. The Gaussian product-kernel
#' interaction (\eqn{\sum_{ab} W_{ab} K^i_{ab} K^j_{ab}} with doubly centred
#' one-gene kernels) ranked the XOR pairs alike at 200 genes (binary: first in
#' 10 of 10 as the linear one; continuous: first in 9 of 10, the linear one 8),
#' put a ring's pair no higher than 566th of 19,900 (the linear one 1,651st)
#' and costs \eqn{m/2} times the multiply-adds (50 times as long at 200
#' genes in plain R; in C, all pairs of 12,625 genes at m = 128 take about 17
#' s of processor time against 0.4 s for the linear screen): [pair_scores()]
#' computes it for a user who wants it. `screen = "none"` is BAHSIC without the screen, as
#' in earlier versions, and the fast path. [fohsic()] has no screen: its
#' first iteration scores every gene alone, so it finds a non-monotone gene
#' but never a pair whose genes carry nothing alone.
#'
#' **Study designs** (`covariates`, `block`; see [design]): the selection
#' ranks by dependence given the design, as [hsic()] measures it ("Covariates
#' and blocks" there says why this adjustment). With \eqn{P = I - QQ^\top} the
#' projection off the intercept, the covariates and the block indicators (it
#' centres, too), every feature is residualised, \eqn{Px}, before it is
#' standardised (a numeric outcome too, \eqn{Py}), and the label kernel
#' matrix \eqn{L} is replaced by \eqn{PLP}: the weights \eqn{HLH/(m-1)^2}
#' become \eqn{PLP/(m-1)^2} and the HSIC of a set is \eqn{\mathrm{tr}(KPLP)}
#' with \eqn{K} the kernel of the residualised features (the path's `hsic`
#' keeps the scale \eqn{(m-1)^2}, where [hsic()] divides by the residual
#' degrees of freedom squared). With the linear kernel a feature's score is
#' its squared partial covariance with the label features. The screen tests
#' every residualised gene and every pair against \eqn{PLP} (the gamma
#' moments of all permutations; on 2,000 null genes confounded with the
#' class through 4 batches, Kolmogorov-Smirnov D = 0.034 and P(p < 0.05) =
#' 0.050). Within small strata those moments are far too liberal (2,000 null
#' genes in 20 pairs: 27 to 52 seeded at BH 5%), so under a design whose null
#' permutes within strata of median size 10 or less (pairs, a patient's
#' samples, small cells of discrete covariates) the tests that pass
#' the screen are tested again with the moments of 200 permutations within
#' the strata, as `feature_scores()` tests under a design (from a fixed seed:
#' the result does not depend on, nor change, R's random number stream); none
#' of those null genes is then seeded. The
#' clinical kernel, whose columns cannot be residualised, is refused with a
#' design. With `approx = "ichol"` or `"rff"` the label factor \eqn{F} becomes
#' \eqn{PF}; with `"block"` each block's label is projected off the
#' covariates of its own samples (a `block` is refused there: the random
#' partitions would split its pairs or patients). The unbiased estimator has
#' no such form (it sums the label kernel over distinct samples) and is
#' refused with a design. `settings$design` records the design (a line of
#' `print()`). On a simulated study where 20 of 300 genes follow the batch
#' alone and the batch is correlated with the class (120 samples, 10 data
#' sets, `inst/bench/bench-select-design.R`), with `covariates = ~ batch` a
#' within-batch XOR pair and a within-batch linear gene were the top 3 in 9
#' of 10 (in the other the pair's second gene was 4th), and the batch genes'
#' median rank was 117th to 190th, as the noise genes' (about 150th);
#' without, 7 to 9 of the top 10 were batch genes. On the ALL data (128 x
#' 12,625, a four-level batch, one thread, a shared machine, median of 7)
#' BAHSIC with its screen took 1.94 s with the covariates and 1.94 s
#' without.
#'
#' **Censored survival outcomes**: a right-censored `y =
#' survival::Surv(time, event)`, given directly, as a formula
#' `Surv(time, status) ~ .` (time and status are then not features) or as a
#' column of a Bioconductor object's sample data, is selected on through its
#' default label kernel [label_kernel_survival()] (the log-rank scores). The
#' screen tests each gene with that label and the Gaussian kernel, so a gene
#' with a U-shaped effect on the hazard can seed; under a design the label is
#' projected off it, as for classes. On [simulate_survival()] data (one
#' log-linear and one U-shaped gene, effect 1, one seed) both ranked 1st and
#' 2nd of 2,000 genes at 200 samples with 30% and with 60% censoring (1.8 s
#' on one thread, a shared machine) and of 5,000 at 500 samples (22 s); at 100
#' samples and 200 genes (effect 1.5, seeds 1 to 8) the log-linear gene
#' ranked 1st in 8 and the U-shaped one in the top 2 in 5 (when the screen
#' does not seed it, BAHSIC alone ranks it far down).
#'
#' **Ties** in the criterion are broken by column order: the feature that
#' comes first in `x` ranks better.
#'
#' **Unsupervised selection** (section 10 of Song et al. 2012: "using the
#' full data set X as the labels"): with `unsupervised = TRUE` (and no `y`),
#' or a one-sided formula `~ .`, the labels are the data themselves, standardised (every feature
#' centred and scaled to unit variance, a constant one kept at 0), with a
#' Gaussian label kernel whose width is the median heuristic
#' (`label_kernel_regression(kernel_gaussian())`; `kernel_y` overrides it,
#' e.g. `label_kernel_regression(kernel_linear())`). The selected features
#' are those whose kernel keeps the most dependence with the whole data: on
#' data driven by a few latent factors, features that cover the factors.
#' Everything else (width policies, `approx`) is as with an outcome, and
#' `settings$unsupervised` is `TRUE`. Memory: the labels are a second \eqn{m
#' \times d} copy of the data, and on the exact path their Gaussian kernel
#' is an \eqn{m \times m} matrix (with `approx = "block"` only its blocks,
#' with `"ichol"` and `"rff"` a factor of it). With
#' `kernel_y = `[label_kernel_precomputed()]`(L)` and `y = NULL`, \eqn{L}
#' is the labels instead of the data. A `y` that is `NULL` otherwise is an
#' error, not unsupervised selection: it is more often a column that is not
#' in the data (`pheno$class` for a column `Class`) than a wish.
#'
#' **Many samples** (`approx`): the exact loop keeps \eqn{m(m-1)/2} squared
#' distances and weights, so its memory grows as \eqn{m^2} (20,000 samples:
#' 8 GB). With `approx = "block"` (or [approx_block()]) HSIC of every
#' candidate set is the block estimate: the samples are split at random
#' (`sample.int()`, so `set.seed()` fixes it) into blocks of `size`, the last
#' one taking the remainder, and the HSIC estimates within the blocks are
#' averaged. The same loop then runs over the pairs within blocks only: a
#' candidate costs \eqn{O(mB)} instead of \eqn{O(m^2)} and the memory is
#' \eqn{O(mB)} besides the data. With `n_partitions > 1` the blocks of all
#' partitions are averaged; the data are then copied once per partition
#' (`n_partitions` times \eqn{m \times d} doubles). As in [hsic()] with
#' `approx = "block"` (the same blocks under the same seed), the kernels are
#' fixed on all samples before the blocks are formed: the label kernel's
#' class weights from all samples, a regression label kernel's width and a
#' `"fixed"` width without `sigma` by the median heuristic on at most 1000
#' samples. The blocks used are returned in `settings$blocks` (sample indices
#' per block). With `size >= m` the block estimate is the exact one, and the
#' result is that of `approx = "exact"`.
#'
#' With `approx = "rff"` (or [approx_rff()], Gaussian and Laplace kernels,
#' `sigma = "dimension"` or `"fixed"`) the kernel of every set is replaced by
#' \eqn{D} random Fourier features (Rahimi and Recht 2007): \eqn{D}
#' standard frequencies per feature are drawn once (R's RNG, as [hsic()]
#' draws them), the projections of the current set on them (\eqn{m \times
#' D}) are updated as features leave or join, a candidate's features
#' \eqn{\sqrt{2/D}\cos(\cdot + b)} are formed at the iteration's width and
#' HSIC0 or HSIC1 is computed from them and the label factor as in
#' [hsic()] (section 2.6): \eqn{O(m D s)} per candidate (s the rank of the
#' label kernel), \eqn{O(m D)} memory per thread. Each candidate evaluates
#' \eqn{mD} cosines, so for a full ranking `"block"` is much faster; `"rff"`
#' suits fewer candidates (`n_features`, or FOHSIC with few features to add).
#'
#' With `approx = "ichol"` (or [approx_ichol()], `bahsic()` only, any kernel
#' but the linear and clinical ones; widths by `"dimension"` or `"fixed"`)
#' every iteration factors the kernel of the surviving set by pivoted
#' incomplete Cholesky (section 2.6; `tol`, `max_rank` r) and keeps its
#' pivots: a candidate's kernel is the Nystrom approximation on those
#' pivots, its columns at the pivots updated from the set's
#' (\eqn{O(m r)}), factored in the same pivot order (\eqn{O(m r^2)}) and
#' scored with the label factor as in [hsic()]; \eqn{O(m r)} memory per
#' thread besides a copy of the data. The rank cap of every iteration is the
#' rank of the factor of all features at the first iteration's width, which
#' is computed first: when its residual trace is above 1% of the kernel's
#' trace, `bahsic()` warns once (see [approximations]). No approximation is
#' available with [kernel_clinical()].
#'
#' @inheritParams hsic
#' @template design-args
#' @param data for the formula interface, the data of the formula, as in
#'   [stats::lm()] (a `covariates` formula is evaluated in it too, and its
#'   variables are not features); for the default method, a data frame of the
#'   samples' annotation, one row per sample, in which a `covariates` formula
#'   (and a `block` given by name) is evaluated.
#' @param formula,subset,na.action formula interface, as in [stats::lm()].
#' @param kernel kernel on the features, see [kernels]; not a precomputed
#'   kernel (features are removed and added, so the kernel must be a function
#'   of them). With [kernel_clinical()], `x` may be a data frame with factor
#'   columns, and every candidate is scored in O(1) from per-feature terms
#'   (see [kernel_clinical()]).
#' @param estimator `"biased"` (HSIC0, the paper's choice for selection) or
#'   `"unbiased"` (HSIC1; not with `covariates` or `block`).
#' @param sigma width policy for Gaussian and Laplace kernels: `"dimension"`,
#'   `"optimize"` or `"fixed"`, see Details.
#' @param sigma_grid for `sigma = "optimize"`: positive widths to choose from;
#'   `NULL` for a grid around the median heuristic.
#' @param drop fraction of the surviving features removed per iteration, in
#'   \[0, 1); at least one feature is removed; 0 removes one at a time.
#' @param add for `fohsic()`: fraction of the remaining features added per
#'   iteration, in \[0, 1); 0 adds one at a time.
#' @param n_features stop when this many features remain (`bahsic()`) or are
#'   selected (`fohsic()`); `NULL` ranks all features.
#' @param standardize centre and scale every feature to unit variance first
#'   (the `"dimension"` policy assumes it).
#' @param threads number of threads for the candidate loop; the result does
#'   not depend on it. Default and limit: see \link{threads}.
#' @param verbose report every iteration (size of the set, HSIC, width) as a message.
#' @param approx `"exact"`, `"block"`, `"rff"` or `"ichol"` (`bahsic()`
#'   only), or an approximation from [approx_block()], [approx_rff()] or
#'   [approx_ichol()]; see Details and [approximations].
#' @param unsupervised `TRUE` to select without an outcome, the data being
#'   their own labels (see Details); `y` is then left out (or `NULL`). A `y`
#'   that is `NULL` without it is an error.
#' @param screen for `bahsic()`: `"nonlinear"` (the default where it
#'   applies) tests every gene and every pair of genes first and ranks the
#'   significant ones first; `"none"` skips it (BAHSIC alone, faster). See
#'   Details, "Screen".
#' @return An object of class `bahsic_selection`, see [selected()] and
#'   [selection]; its `features$contribution` is the share of HSIC lost
#'   when the feature was eliminated (`bahsic()`) or gained when it was
#'   added (`fohsic()`), see [selection].
#' @references Song, L., Smola, A., Gretton, A., Bedo, J. and Borgwardt, K.
#'   (2012). Feature selection via dependence maximization. JMLR 13,
#'   1393-1434.
#' @family selection
#' @seealso \link{input-checks} for what each kind of bad input gives.
#' @eval roxygen_progress("the candidate features scored by the selection loop")
#' @examples
#' fit <- bahsic(golub$x[, 1:200], golub$y)
#' fit
#' selected(fit, 5)
#' set.seed(1)
#' sim <- simulate_xor(100)
#' bahsic(sim$x, sim$y, n_features = 2)
#' fohsic(sim$x, sim$y, n_features = 5, kernel = kernel_gaussian())
#' # the block estimator: O(m B) per candidate instead of O(m^2)
#' set.seed(2)
#' sim <- simulate_xor(400)
#' fit <- bahsic(sim$x, sim$y, approx = approx_block(size = 50))
#' selected(fit, 2)
#' # unsupervised: two latent factors, each behind 3 of the 8 features
#' set.seed(3)
#' f <- matrix(rnorm(120), 60, 2)
#' x <- cbind(f[, 1] + matrix(rnorm(180, sd = 0.3), 60, 3),
#'            f[, 2] + matrix(rnorm(180, sd = 0.3), 60, 3), matrix(rnorm(120), 60, 2))
#' bahsic(x, unsupervised = TRUE)
#' @export
bahsic <- function(x, ...) {
  check_generic_args("bahsic", if (!missing(x)) x, ...names())
  UseMethod("bahsic")
}

#' @rdname bahsic
#' @export
bahsic.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                           estimator = c("biased", "unbiased"),
                           sigma = c("dimension", "optimize", "fixed"), sigma_grid = NULL,
                           drop = 0.1, n_features = NULL, standardize = TRUE, threads = default_threads(),
                           verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                           approx = "exact", unsupervised = FALSE,
                           screen = c("nonlinear", "none"), covariates = NULL, block = NULL,
                           data = NULL, ...) {
  check_dots(..., .fn = "bahsic")
  hsic_select("bahsic", x, y, select_args(environment(), "drop", arg_match(estimator),
                                        if (!missing(sigma)) arg_match(sigma)),
              match.call())
}

#' @rdname bahsic
#' @export
bahsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("bahsic", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

#' @rdname bahsic
#' @export
fohsic <- function(x, ...) {
  check_generic_args("fohsic", if (!missing(x)) x, ...names())
  UseMethod("fohsic")
}

#' @rdname bahsic
#' @export
fohsic.default <- function(x, y, kernel = kernel_gaussian(), kernel_y = NULL,
                           estimator = c("biased", "unbiased"),
                           sigma = c("dimension", "optimize", "fixed"), sigma_grid = NULL,
                           add = 0.1, n_features = NULL, standardize = TRUE, threads = default_threads(),
                           verbose = FALSE, na_action = c("fail", "omit"), assay = 1L,
                           approx = "exact", unsupervised = FALSE, covariates = NULL,
                           block = NULL, data = NULL, ...) {
  check_dots(..., .fn = "fohsic")
  hsic_select("fohsic", x, y, select_args(environment(), "add", arg_match(estimator),
                                        if (!missing(sigma)) arg_match(sigma)),
              match.call())
}

#' @rdname bahsic
#' @export
fohsic.formula <- function(formula, data, subset, na.action, ...) {
  formula_method("fohsic", match.call(), parent.frame(), list(...)[["kernel"]], ...)
}

# The one path of both selectors: the arguments checked, the problem
# prepared (prepare_problem(), R/problem.R), the C loop (or the one-pass
# linear case, or the ridge loop) run on it, then the shared result class.
# `args`: the default method's arguments (kernel, kernel_y, estimator,
# sigma (NULL: not given), sigma_grid, step, step_arg, n_features,
# standardize, threads, verbose, na_action, assay, approx, unsupervised,
# screen, design: design_spec() of covariates, block and data).
hsic_select <- function(method, x, y, args, call) {
  check_flag(args$unsupervised, "unsupervised")
  if (args$unsupervised && missing(y)) y <- NULL
  args <- check_select_args(method, args)
  pr <- prepare_problem(x, y, select_spec(method, args))
  k <- problem_kernel(pr, args$kernel, args$sigma)
  run <- run_screened(method, pr, k, args)
  select_result(method, pr, k, run$res, args, call, run$screen)
}

# The arguments of bahsic.default() or fohsic.default() (their frame env) as
# one list; estimator and sigma (NULL: not given) matched by the method.
select_args <- function(env, step_arg, estimator, sigma) {
  get_arg <- function(name) get(name, envir = env, inherits = FALSE)
  list(kernel = get_arg("kernel"), kernel_y = get_arg("kernel_y"), estimator = estimator,
       sigma = sigma, sigma_grid = get_arg("sigma_grid"), step = get_arg(step_arg),
       step_arg = step_arg, n_features = get_arg("n_features"),
       standardize = get_arg("standardize"), threads = get_arg("threads"),
       verbose = get_arg("verbose"), na_action = get_arg("na_action"),
       assay = get_arg("assay"), approx = get_arg("approx"),
       unsupervised = get_arg("unsupervised"),
       # bahsic() only; NULL for a selector without a screen
       screen = get0("screen", envir = env, inherits = FALSE),
       # the study design as given (NULL: none)
       design = selector_design_spec(if (step_arg == "drop") "bahsic" else "fohsic",
                                     get0("covariates", envir = env, inherits = FALSE),
                                     get0("block", envir = env, inherits = FALSE),
                                     get0("data", envir = env, inherits = FALSE)))
}

# The selectors' own arguments, checked against each other before any data
# are read; returns args with the width policy and the approximation resolved.
check_select_args <- function(method, args) {
  kernel <- args$kernel
  check_kernel(kernel, "kernel", ridge = TRUE)
  args["sigma"] <- list(check_select_sigma(kernel, args$sigma, args$sigma_grid))
  if (kernel$name == "precomputed") {
    stop(paste0("'kernel' cannot be a precomputed kernel: ", method, "() removes and adds ",
                "features, so the kernel must be computed from them."), call. = FALSE)
  }
  args$approx <- check_select_approx(method, kernel, args$sigma, resolve_approx(args$approx))
  check_selector_design(method, args$design)
  check_design_estimator(args$design, args$estimator, sprintf("%s()", method), args$approx)
  args$screen <- check_select_screen(method, args)
  step <- args$step
  if (!is.numeric(step) || length(step) != 1L || !is.finite(step) || step < 0 || step >= 1) {
    stop(sprintf("'%s' must be a fraction in [0, 1): 0.1 %s 10%% of the features per iteration, 0 one at a time.",
                 args$step_arg, if (args$step_arg == "drop") "removes" else "adds"), call. = FALSE)
  }
  sigma_grid <- args$sigma_grid
  if (!is.null(sigma_grid) && (!is.numeric(sigma_grid) || length(sigma_grid) == 0L ||
                               any(!is.finite(sigma_grid)) || any(sigma_grid <= 0))) {
    stop("'sigma_grid' must be a vector of positive widths, or NULL for a grid around the median heuristic.",
         call. = FALSE)
  }
  check_flag(args$standardize, "standardize")
  check_flag(args$verbose, "verbose")
  args$threads <- check_threads(args$threads)
  args$na_action <- arg_match(args$na_action, c("fail", "omit"), arg_name = "na_action")
  args
}

# The width policy (NULL: not given) applies to kernels with a width, also
# as the base of kernel_ridge(); a Parzen window keeps its bandwidth (R/qmi.R).
check_select_sigma <- function(kernel, sigma, sigma_grid) {
  parzen <- inherits(kernel, "bahsic_parzen")
  base <- if (is_ridge(kernel)) kernel$params$base else kernel
  if (is.null(sigma)) {
    sigma <- if (parzen) "fixed" else "dimension"
  } else if (sigma != "fixed" && !kernel_has(base, "width")) {
    # "fixed" (the kernel as given) holds for every kernel; a policy that
    # changes a width needs a kernel that has one
    stop_unused(sprintf("sigma = \"%s\"", sigma), kernels_phrase("width"),
                sprintf("%s kernel", kernel_noun(base$name)))
  } else if (parzen && sigma != "fixed") {
    stop(sprintf(paste0("sigma = \"%s\" would change the bandwidth of a Parzen window: ",
                        "kernel_parzen() keeps its own (sigma = \"fixed\")."), sigma),
         call. = FALSE)
  }
  if (!is.null(sigma_grid) && sigma != "optimize") {
    stop_unused("sigma_grid", "sigma = \"optimize\"", sprintf("sigma = \"%s\"", sigma))
  }
  sigma
}

# The approximation against the kernel, the selector and the width policy.
check_select_approx <- function(method, kernel, sigma, approx) {
  if (is_ridge(kernel)) ridge_check_approx(approx)
  if (is_clinical(kernel) && approx$name != "exact") {
    stop(sprintf(paste0("approx = \"%s\" is not available with kernel_clinical(), which scores ",
                        "every feature from per-feature kernel matrices: use approx = \"exact\"."),
                 approx$name), call. = FALSE)
  }
  rff <- approx$name == "rff"
  ichol <- approx$name == "ichol"
  if (rff && !kernel_has(kernel, "rff")) {
    stop(sprintf(paste0("approx = \"rff\" (random Fourier features) needs %s; 'kernel' is ",
                        "a %s kernel. Use approx = \"block\"."), kernels_phrase("rff"),
                 kernel$name), call. = FALSE)
  }
  if (ichol && !is_backward(method)) {
    stop(paste0("approx = \"ichol\" is available in bahsic() only (its pivots come from the ",
                "surviving set; fohsic() starts from the empty set): use approx = \"rff\" or ",
                "\"block\"."), call. = FALSE)
  }
  if (ichol && kernel$name == "linear") {
    stop(paste0("approx = \"ichol\" is not needed with the linear kernel, whose selection ",
                "costs one pass over the samples per feature: use approx = \"exact\"."),
         call. = FALSE)
  }
  if ((rff || ichol) && sigma == "optimize" && kernel_has(kernel, "width")) {
    stop(sprintf(paste0("sigma = \"optimize\" is not available with approx = \"%s\": use sigma = ",
                        "\"dimension\" or \"fixed\", or approx = \"block\"."), approx$name),
         call. = FALSE)
  }
  approx
}

# The problem of BAHSIC and FOHSIC (see prepare_problem()): W on the exact
# path, block weights or a label factor on the approximate ones.
select_spec <- function(method, args) {
  estimator <- args$estimator
  unbiased <- estimator == "unbiased"
  n_features <- args$n_features
  list(na_action = args$na_action, assay = args$assay, kernel = args$kernel, check_range = TRUE,
       kernel_y = args$kernel_y, unsupervised = args$unsupervised,
       min_m = if (unbiased) 4L else 3L,
       min_what = sprintf("%s() with the %s estimator", method, estimator),
       min_hint = if (unbiased) "Use estimator = \"biased\", which needs 3.",
       check_inputs = function(pr) check_select_n(n_features, pr$p),
       # the clinical kernel scales by range itself
       standardize = args$standardize && !is_clinical(args$kernel),
       estimator = estimator, threads = args$threads, approx = args$approx,
       labels = if (args$approx$name == "exact") "W" else args$approx$name,
       memory = function(pr) check_memory(pr$m, 5, approximable = TRUE), design = args$design,
       selector = method)
}

check_select_n <- function(n_features, p) {
  if (!is.null(n_features)) {
    if (!is.numeric(n_features) || length(n_features) != 1L || !is.finite(n_features) ||
        n_features < 1 || n_features > p || n_features != round(n_features)) {
      stop(sprintf("'n_features' must be a whole number from 1 to %d (the number of features), or NULL.",
                   p), call. = FALSE)
    }
  }
}

# The selection on a prepared problem, with the kernel and policy `k`
# (problem_kernel()): the ridge loop, the one-pass linear case, or C_select.
run_select <- function(method, pr, k, args, outer = NULL) {
  # the bar counts the candidates scored (select_work()); NULL inside an
  # outer long function, which holds the bar (R/progress.R); `outer`: the
  # bar of a seeded selection's two runs (run_seeded())
  bar <- if (is.null(outer)) {
    progress_start(select_work(method, pr$p, args$step, args$n_features))
  } else {
    outer
  }
  if (is.null(outer)) on.exit(progress_end(bar), add = TRUE)
  tick <- progress_select(bar, method, pr$p)
  kernel <- k$kernel
  res <- if (is_ridge(kernel)) {
    # section 6.6: RFE / forward selection with ridge regression (kernel-ridge.R)
    ridge_select(method, pr$x, pr$W, kernel, args$sigma, args$sigma_grid, args$step,
                 args$n_features, args$verbose, progress = tick)
  } else if (kernel$name == "linear") {
    s <- if (pr$mode == "block") {
      block_feature_dot(pr$x, pr$bw, pr$threads)
    } else {
      .Call(C_feature_dot, pr$x, pr$W, linear_dot_opts(pr$threads))
    }
    linear_select(method, s, args$step, args$n_features)
  } else {
    .Call(C_select, pr$x, c(select_opts(method, pr, k, args),
                            if (!is.null(tick)) list(progress = tick)))
  }
  if (is.null(outer)) progress_finish(bar)
  res
}

# The options of C_select, read by name in C (src/select_call.c): the
# common ones, then the mode's own.
select_opts <- function(method, pr, k, args) {
  kernel <- k$kernel
  par <- kernel_param(kernel)
  sigma_grid <- args$sigma_grid
  opts <- list(mode = mode_code(pr$mode), kernel = kernel_code(kernel),
               p1 = as.double(par[1L]), p2 = as.double(par[2L]),
               direction = direction_code(method), policy = policy_code(k$policy),
               grid = if (is.null(sigma_grid)) 2^(-3:3) else sort(as.double(sigma_grid)),
               grid_relative = is.null(sigma_grid), step = as.double(args$step),
               n_target = if (is.null(args$n_features)) 0L else args$n_features,
               threads = pr$threads, verbose = args$verbose, simd = option_simd(),
               series = option_series())
  unbiased <- pr$estimator == "unbiased"
  c(opts, switch(pr$mode,
    exact = c(list(W = pr$W), if (is_clinical(kernel)) list(categorical = clinical_flags(pr$x))),
    block = list(blocks = pr$blocks$row0, W = pr$bw$Wb),
    rff = list(omega = pr$omega, phase = pr$phase, F = pr$fy$F, unbiased = unbiased),
    ichol = list(tol = as.double(args$approx$params$tol),
                 max_rank = ichol_select_rank(pr$x, kernel, k$policy, args$approx, pr$fy,
                                              pr$threads),
                 F = pr$fy$F, unbiased = unbiased)
  ))
}

# The shared result class from the loop's ranks, scores and path.
select_result <- function(method, pr, k, res, args, call, screen = NULL) {
  kernel <- if (is_ridge(k$kernel)) res$kernel else k$kernel
  # (the loop's 0 and NaN for "none" made NA; by index, without ifelse()'s copies)
  na_where <- function(v, none) {
    v[none] <- NA
    v
  }
  # (list2DF(): data.frame()'s table of these unnamed columns, without its
  # per-column deparse())
  features <- list2DF(list(feature = pr$features, rank = na_where(res$rank, res$rank <= 0L),
                           score = na_where(res$score, is.nan(res$score)),
                           iteration = na_where(res$iteration, res$iteration <= 0L)))
  path <- as.data.frame(res$path)
  names(path) <- c("iteration", "n_features", "hsic", "sigma")
  path$sigma[is.nan(path$sigma)] <- NA_real_
  path$iteration <- as.integer(path$iteration)
  path$n_features <- as.integer(path$n_features)
  features$contribution <- if (is_backward(method)) {
    bahsic_contribution(features, path)
  } else {
    fohsic_contribution(features, path, pr, kernel, res$base)
  }
  settings <- list(kernel = kernel, kernel_y = pr$kernel_y, estimator = pr$estimator,
                   sigma = if (k$width) args$sigma else NA_character_,
                   sigma_grid = args$sigma_grid, step = args$step, n_features = args$n_features,
                   standardize = pr$standardize, n_samples = pr$m, threads = pr$threads,
                   approx = args$approx$label)
  # the blocks of samples (indices into the rows of x), to reproduce the estimate
  if (pr$mode == "block") settings$blocks <- pr$blocks$list
  if (pr$unsupervised) settings$unsupervised <- TRUE
  # what the screen found (R/select-screen.R); nothing with screen = "none"
  if (!is.null(screen)) settings$screen <- screen_summary(screen)
  settings <- design_settings(settings, pr$design)
  names(settings)[names(settings) == "step"] <- args$step_arg
  # report the call as the user wrote it: bahsic(...), not bahsic.default(...)
  call[[1L]] <- as.name(method)
  fit <- new_selection(method, features, path, settings, call, annotation = pr$annotation,
                       outcome = selection_outcome(pr))
  if (!is.null(screen)) fit$screen <- screen[c("seeds", "genes", "pairs", "level", "n_pairs")]
  fit
}

# BAHSIC (Song et al. 2012, Algorithm 1): the share of HSIC lost when the
# feature left, (HSIC(S) - HSIC(S \ {j})) / HSIC(S), S the surviving set of
# that iteration and both at its width (the path's hsic and the score). The
# final survivors are scored the same way against their own set; the last
# feature of a full ranking leaves a set of one and scores 1. NA where
# HSIC(S) is not positive (the unbiased estimator can be negative).
bahsic_contribution <- function(features, path) {
  h <- path$hsic[match(features$iteration, path$iteration)]
  safe_ratio(h - features$score, h)
}

# FOHSIC (Algorithm 2): the share of HSIC gained when the feature was added,
# (HSIC(S+ U {j}) - HSIC(S+)) / HSIC(S+ U {j}), S+ the set selected before
# that iteration, both at the iteration's width: the mirror of BAHSIC's,
# the set holding j in the denominator. The first iteration starts from the
# empty set (HSIC 0), so its features score 1. HSIC(S+) is the previous
# path row when the width did not change (always for kernels without one);
# otherwise it is computed at the new width (fohsic_base()). (A batch's
# own HSIC, the path row, is no denominator: at the single-feature width of
# the first iteration it is below each member's.)
fohsic_contribution <- function(features, path, pr, kernel, base_c = NULL) {
  base <- vapply(seq_len(nrow(path)), function(t) {
    if (t == 1L) return(0)
    if (identical(path$sigma[t], path$sigma[t - 1L])) return(path$hsic[t - 1L])
    # the loop's own value at the new width (exact and block estimators)
    if (length(base_c) >= t && !is.na(base_c[t])) return(base_c[t])
    fohsic_base(pr, kernel, which(features$iteration < path$iteration[t]), path$sigma[t])
  }, numeric(1))
  row <- match(features$iteration, path$iteration)
  safe_ratio(features$score - base[row], features$score)
}

# HSIC of the features `set` at width sigma, as the loop computes it: the
# exact weights W, or the block weights on the stacked blocks. NA on the
# random-feature path, whose set kernel is not kept.
fohsic_base <- function(pr, kernel, set, sigma) {
  if (pr$mode %in% c("exact", "block")) {
    if (is_ridge(kernel)) {
      kernel$params$base$params$sigma <- sigma
    } else {
      kernel$params$sigma <- sigma
    }
  }
  xs <- pr$x[, set, drop = FALSE]
  switch(pr$mode,
    exact = sum(gram(kernel, xs, pr$threads) * pr$W),
    block = {
      start <- 0L
      total <- 0
      for (w in pr$bw$Wb) {
        rows <- start + seq_len(nrow(w))
        total <- total + sum(gram(kernel, xs[rows, , drop = FALSE], pr$threads) * w)
        start <- start + nrow(w)
      }
      total
    },
    NA_real_)
}

standardize_columns <- function(x, features, threads = 1L) {
  # in C, one pass per column (the columns on `threads`): the same numbers as
  # sweep() with colMeans() and colSums(), without their m x d temporaries
  res <- .Call(C_standardize_columns, x, threads)
  constant <- res[[2L]]
  if (any(constant)) {
    warning(sprintf(paste0("%d constant feature%s (%s%s) cannot be standardised: ",
                           "kept at 0, they carry no information about the outcome."),
                    sum(constant), if (sum(constant) > 1) "s" else "",
                    paste(utils::head(features[constant], 3), collapse = ", "),
                    if (sum(constant) > 3) ", ..." else ""), call. = FALSE)
  }
  res[[1L]]
}

# Section 5.1.1: with a linear kernel HSIC(T) = sum_{j in T} s_j with
# s_j = x_j' W x_j, so HSIC(S \ {j}) = HSIC(S) - s_j and HSIC(S+ U {j}) =
# HSIC(S+) + s_j: the elimination (or addition) order is the order of s_j,
# whatever the schedule. Walk the schedule to report the same scores and
# path as Algorithm 1 or 2 would.
linear_select <- function(method, s, step, n_features) {
  p <- length(s)
  rank <- integer(p)
  score <- rep(NA_real_, p)
  iteration <- integer(p)
  path <- matrix(numeric(0), 0L, 4L)
  batch_size <- function(n) max(1L, floor(step * n))
  if (is_backward(method)) {
    # eliminate the smallest s_j first; ties: the higher index first
    elim <- order(s, -seq_len(p))
    target <- if (is.null(n_features)) 0L else n_features
    left <- p
    pos <- 0L
    it <- 0L
    while (left > target) {
      it <- it + 1L
      surv <- elim[(pos + 1L):p]
      h <- sum(s[surv])
      k <- min(batch_size(left), left - target)
      out <- elim[pos + seq_len(k)]
      score[out] <- h - s[out]
      iteration[out] <- it
      path <- rbind(path, c(it, left, h, NA))
      pos <- pos + k
      left <- left - k
    }
    if (left > 0L) {
      it <- it + 1L
      surv <- elim[(pos + 1L):p]
      h <- sum(s[surv])
      score[surv] <- h - s[surv]
      iteration[surv] <- it
      path <- rbind(path, c(it, left, h, NA))
    }
    ranked <- rev(elim)
    rank[ranked] <- seq_len(p)
  } else {
    # add the largest s_j first; ties: the lower index first
    add <- order(-s, seq_len(p))
    target <- if (is.null(n_features)) p else n_features
    nsel <- 0L
    it <- 0L
    while (nsel < target) {
      it <- it + 1L
      h <- sum(s[add[seq_len(nsel)]])
      k <- min(batch_size(p - nsel), target - nsel)
      new <- add[nsel + seq_len(k)]
      score[new] <- h + s[new]
      iteration[new] <- it
      rank[new] <- nsel + seq_len(k)
      nsel <- nsel + k
      path <- rbind(path, c(it, nsel, sum(s[add[seq_len(nsel)]]), NA))
    }
  }
  list(rank = rank, score = score, iteration = iteration, path = path)
}

# The block estimator's weights: HSIC of the stacked data is
# sum_b sum(K_b o W_b) / n_blocks, W_b = weight_matrix() of the label kernel
# on block b. The label kernel is fixed on all samples first, as hsic() does
# with approx = "block" (hsic_block()): class weights from all samples, a
# regression kernel's width by the median heuristic on at most 1000 outcomes
# (resolve_width_approx()), a precomputed label kernel restricted to the
# block; never an m x m matrix. Under a design each block's label is projected
# off the design of its own samples (design_block_label()). Returns list(Wb =
# the list of W_b / n_blocks, kernel = the resolved label kernel); C_select
# packs them.
block_weights <- function(kernel_y, y, blocks, estimator, threads, design = NULL) {
  lab <- block_label_source(kernel_y, y, threads)
  nb <- length(blocks$list)
  Wb <- lapply(blocks$list, function(i) {
    weight_matrix(design_block_label(design, i, lab$block(i)), length(i), estimator) / nb
  })
  list(Wb = Wb, kernel = lab$kernel)
}

# The options of C_feature_dot (read by name in C, src/gram_call.c) for the
# linear kernel: s_j = x_j' W x_j.
linear_dot_opts <- function(threads) {
  list(kernel = bk_codes$kernel[["linear"]], p1 = 0, p2 = 0, threads = threads,
       simd = option_simd())
}

# Linear kernel on the block path: s_j = sum_b x_jb' W_b x_jb (x stacked).
block_feature_dot <- function(x, bw, threads) {
  s <- numeric(ncol(x))
  start <- 0L
  for (w in bw$Wb) {
    rows <- start + seq_len(nrow(w))
    s <- s + .Call(C_feature_dot, x[rows, , drop = FALSE], w, linear_dot_opts(threads))
    start <- start + nrow(w)
  }
  s
}
