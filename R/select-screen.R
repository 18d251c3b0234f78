# The screen of bahsic() (see ?bahsic, "Screen"): before the elimination,
# every gene is tested alone (per-gene HSIC, the gamma test of
# feature_scores()) and every pair of genes for an interaction (below); the
# genes of the hits that are significant after adjustment (BH, level
# screen_level) are the seeds. BAHSIC then ranks the seeds first (BAHSIC on
# the seeds alone) and the other genes after them (BAHSIC on the others
# alone). Without a seed, the run is that of screen = "none".
#
# The interaction of genes i and j (standardised) under the linear kernel:
# with Kc^i = x_i x_i', the second-order part Kc^i o Kc^j of the product
# kernel is z z' with z = x_i o x_j, so its HSIC with the outcome is
# T_ij = z' W z (W = HLH / (m - 1)^2, the selectors' weights): the linear
# HSIC of the product gene, tested like any gene (the gamma approximation
# with the exact permutation moments); the same for the bounded genes
# tanh(1.5 x), the smaller p-value doubled. All p(p - 1)/2 pairs are
# screened by the first with W's leading eigenvectors, T_ij ~ sum_k lambda_k
# (x_i' D_{v_k} x_j)^2 (one matrix product per eigenvector and block of
# genes), relative to a bound on its null mean's scale sum_a z_a^2; the
# screen_candidates pairs with the largest ratio are tested exactly (both
# statistics), and adjusted as among all p(p - 1)/2 pairs.
#
# Under a study design (pr$design) the genes are residualised on it
# (prepare_problem()) and the label is the projected one (P L P,
# R/select-design.R), in the per-gene tests (screen_label()) and in the
# pairs' W; the genes of the pair step are projected (P x) where they are
# otherwise only centred, before their part along the label is removed.

screen_levels <- c("nonlinear", "none")
# the adjusted p-value at or below which a gene or a pair seeds BAHSIC
screen_level <- 0.05
# the pairs tested exactly, the rest of the p(p - 1)/2 being counted in the adjustment
screen_candidates <- 5000L

# The screen asked for against the selector's other arguments: "nonlinear"
# or "none". NULL: the selector has no screen (fohsic(), mrmr()). Not given
# (the formal's default), "nonlinear" where it applies and "none" elsewhere;
# "nonlinear" given where it does not apply is an error that says why.
check_select_screen <- function(method, args) {
  screen <- args$screen
  if (is.null(screen)) return("none")
  given <- !identical(screen, screen_levels)
  if (given) {
    if (!is.character(screen) || length(screen) != 1L || is.na(screen)) {
      stop("'screen' must be \"nonlinear\" (the default) or \"none\" (no screen).",
           call. = FALSE)
    }
    screen <- arg_match(screen, screen_levels, arg_name = "screen")
  }
  why <- screen_unavailable(args)
  if (is.null(why)) return(if (given) screen else "nonlinear")
  if (given && screen == "nonlinear") {
    stop(sprintf("screen = \"nonlinear\" %s: use screen = \"none\".", why), call. = FALSE)
  }
  "none"
}

# Why the screen does not apply (NULL: it does): it needs the per-gene
# Gaussian or Laplace kernel and the exact weights W of the biased estimator.
screen_unavailable <- function(args) {
  kernel <- args$kernel
  # (a Parzen window is a Gaussian kernel: screened as one)
  if (is_ridge(kernel) || !kernel$name %in% c("gaussian", "laplace")) {
    return(sprintf("needs the Gaussian or Laplace kernel ('kernel' is a %s kernel)",
                   kernel$name))
  }
  if (args$approx$name != "exact") {
    return(sprintf("needs approx = \"exact\" (approx is \"%s\")", args$approx$name))
  }
  if (args$estimator != "biased") return("needs estimator = \"biased\"")
  if (isTRUE(args$unsupervised)) return("needs an outcome (unsupervised = TRUE has none)")
  NULL
}

# The selection with the screen: the screen, then BAHSIC on the seeds and on
# the others (run_seeded()), or the plain run where nothing seeds. Returns
# list(res = the loop's result, screen = NULL or the screen's findings).
run_screened <- function(method, pr, k, args) {
  if (!identical(args$screen, "nonlinear")) {
    return(list(res = run_select(method, pr, k, args), screen = NULL))
  }
  scr <- screen_problem(pr, args$kernel)
  res <- if (length(scr$seed_index)) {
    run_seeded(method, pr, k, args, scr$seed_index)
  } else {
    run_select(method, pr, k, args)
  }
  list(res = res, screen = scr)
}

# The seeds and what found them: per-gene hits and pairs, on the
# standardised genes.
screen_problem <- function(pr, kernel) {
  x <- pr$x
  if (!pr$standardize) x <- suppressWarnings(standardize_columns(x, pr$features, pr$threads))
  genes <- screen_genes(pr, x, kernel)
  pairs <- screen_pairs(pr, x)
  seeds <- sort(unique(c(genes$index, pairs$index1, pairs$index2)))
  list(method = "nonlinear", seeds = pr$features[seeds], seed_index = seeds, genes = genes,
       pairs = pairs, level = screen_level, n_pairs = pr$p * (pr$p - 1) / 2)
}

# Per-gene HSIC with the kernel's family at each gene's median-heuristic
# width, as feature_scores() tests it; the genes with BH-adjusted p-value at
# most screen_level.
screen_genes <- function(pr, x, kernel) {
  base <- if (kernel$name == "laplace") kernel_laplace() else kernel_gaussian()
  scorer <- kernel_block_scorer(pr$y, pr$m, screen_score_method, base,
                                screen_label(pr, pr$kernel_y), "biased", pr$threads)
  out <- scorer(x)
  out$p_value <- screen_recheck(pr, x, base, pr$y, pr$kernel_y, out$p_value)
  adj <- stats::p.adjust(out$p_value, "BH")
  hit <- which(!is.na(adj) & adj <= screen_level)
  # (list2DF(): data.frame()'s table of these unnamed columns, without its
  # per-column deparse())
  list2DF(list(feature = pr$features[hit], index = hit, hsic = out$score[hit],
               p_value = out$p_value[hit], adj_p_value = adj[hit]))
}

# The pairs whose interaction is significant after adjustment across all
# p(p - 1)/2 pairs, sorted by it. Two statistics per pair, with the
# smaller p-value doubled (Bonferroni): the product of the genes, and the
# product of their bounded versions tanh(1.5 x) (an XOR's product is
# heavy-tailed; the bounded one keeps its sign pattern and loses the tails).
screen_pairs <- function(pr, x) {
  p <- ncol(x)
  # a numeric outcome is compared with the product gene linearly (its Gaussian
  # label kernel at the median width flattens the tails, where a product's
  # signal is); classes and a censored survival outcome (its log-rank scores,
  # linear already) by the selectors' own label kernel
  numeric_y <- is.numeric(pr$y) && !is_surv(pr$y)
  kernel_y <- if (numeric_y) label_kernel_regression(kernel_linear()) else pr$kernel_y
  # W = F F' / (m - 1)^2 with F the centred outcome or label features where
  # there are such (its eigenvectors from F's singular vectors: an m x m
  # eigen-decomposition takes seconds, uninterruptibly, at m = 2,000)
  # (under a design, projected off it: pr$label is, R/select-design.R)
  centred <- function(v) {
    if (!is.null(pr$design)) return(design_residuals(pr$design, as.matrix(v)) / (pr$m - 1))
    scale(as.matrix(v), scale = FALSE) / (pr$m - 1)
  }
  f <- if (numeric_y) {
    screen_label_factor(factor = centred(pr$y))
  } else if (!is.null(pr$label$Y)) {
    screen_label_factor(factor = centred(pr$label$Y))
  } else {
    screen_label_factor(pr$W)
  }
  if (p < 2L || is.null(f)) return(screen_no_pairs())
  # each gene without its part along the outcome's label features (class
  # means, a numeric outcome's linear trend): otherwise the product of two
  # genes that each differ between the classes differs too, and every pair
  # of strong genes would be an "interaction"; under a design, also without
  # its part along the covariates and blocks (P g: P centres too)
  # (the column passes in C, src/screen.c: sweep(), the part along the
  # label features, tanh(1.5 * g) and the products of pairs in their very
  # operations, without their temporaries)
  less <- function(g, transform) {
    if (is.null(pr$design)) return(project_out(g, f$vectors, transform, pr$threads))
    if (transform == "bounded") g <- .Call(C_bounded_columns, g, pr$threads)
    project_out(design_residuals(pr$design, g), f$vectors, threads = pr$threads)
  }
  xl <- less(x, "centre")
  n <- min(screen_candidates, p * (p - 1) / 2)
  # the candidates by the product's screen alone (the 5,000th of 8e7 null
  # pairs is near chi-square 16, far below an XOR's, about 40 at m = 100):
  # half the cost of screening both
  cand <- screen_candidate_pairs(xl, f, n, pr$threads)
  scorer <- kernel_block_scorer(pr$y, pr$m, screen_score_method, kernel_linear(),
                                screen_label(pr, kernel_y), "biased", pr$threads)
  # the product genes x_i o x_j of the candidates (as xl[, i] * xl[, j])
  zl <- .Call(C_column_products, xl, cand$i, cand$j, pr$threads)
  lin <- scorer(zl)
  lin$p_value <- screen_recheck(pr, zl, kernel_linear(), pr$y, kernel_y, lin$p_value,
                                n = p * (p - 1) / 2)
  # the bounded genes of the candidates only (each column's numbers are its
  # own: those of the whole matrix; on ALL 1,861 of 12,625 genes)
  used <- which(tabulate(c(cand$i, cand$j), p) > 0L)
  xb <- less(xl[, used, drop = FALSE], "bounded")
  zb <- .Call(C_column_products, xb, match(cand$i, used), match(cand$j, used), pr$threads)
  bnd <- scorer(zb)
  bnd$p_value <- screen_recheck(pr, zb, kernel_linear(), pr$y, kernel_y, bnd$p_value,
                                n = p * (p - 1) / 2)
  pv <- pmin(1, 2 * pmin(lin$p_value, bnd$p_value))
  adj <- stats::p.adjust(pv, "BH", n = p * (p - 1) / 2)
  hit <- which(!is.na(adj) & adj <= screen_level)
  if (!length(hit)) return(screen_no_pairs())
  hit <- hit[order(adj[hit], pv[hit], cand$i[hit], cand$j[hit])]
  list2DF(list(feature1 = pr$features[cand$i[hit]], feature2 = pr$features[cand$j[hit]],
               index1 = cand$i[hit], index2 = cand$j[hit], interaction = lin$score[hit],
               interaction_bounded = bnd$score[hit], p_value = pv[hit], adj_p_value = adj[hit]))
}

# The pairs' table without a row (made only when needed: a data frame costs
# more than the screen's other steps on small data).
screen_no_pairs <- function() {
  list2DF(list(feature1 = character(), feature2 = character(), index1 = integer(),
               index2 = integer(), interaction = numeric(), interaction_bounded = numeric(),
               p_value = numeric(), adj_p_value = numeric()))
}

# Within small strata (pairs, a patient's samples; screen_recheck_size) the screen's one-pass gamma
# (the moments of all permutations, screen_label()) is far too liberal: on
# 2,000 null genes in 20 pairs it seeded 27 to 52 genes at BH 5%, none without
# the block. So under a design whose null permutes within strata the tests
# that pass the screen's level (BH over n tests) are re-tested with the
# moments of permutations within the strata (feature_scores()' kernel test
# under a design, design_feature_gamma(); seconds per thousand genes, here
# only for those few), and their p-values replace the one-pass ones. The
# others keep theirs: the one-pass p-values are the smaller ones there.
screen_recheck <- function(pr, x, kernel, y, kernel_y, p_value, n = length(p_value)) {
  design <- pr$design
  if (is.null(design) || design$permutation != "strata" || is.null(design$strata) ||
      stats::median(table(design$strata)) > screen_recheck_size) {
    return(p_value)
  }
  adj <- stats::p.adjust(p_value, "BH", n = n)
  redo <- which(!is.na(adj) & adj <= screen_level)
  if (!length(redo)) return(p_value)
  # the moments' permutations from a fixed seed, the caller's stream left as
  # it was: bahsic() stays deterministic (its selector row says so)
  p_value[redo] <- with_seed(screen_seed, RNGkind(), {
    scorer <- kernel_block_scorer(y, pr$m, screen_score_method, kernel, kernel_y, "biased",
                                  pr$threads, design = design)
    scorer(x[, redo, drop = FALSE])$p_value
  })
  p_value
}
screen_seed <- 20261127L
# The median stratum size up to which the screen's tests are re-checked. On
# 1,000 null genes with a strong stratum effect (m = 60, two classes balanced
# within the strata), the one-pass tests gave P(p < 0.05) = 0.134 in strata
# of 2, 0.058 of 4, 0.057 of 6, 0.070 of 10 and 0.053 of 20 (KS D 0.089,
# 0.045, 0.048, 0.054, 0.035); larger strata (batches) keep the one-pass test
# and its speed.
screen_recheck_size <- 10

# The label kernel of the screen's tests: `kernel_y` without a design; under
# one, the projected label P L P (L of kernel_y on the outcome, which the
# problem has residualised if numeric) as a precomputed label kernel, so that
# the tests are the one-pass C tests of the genes as they are (already
# residualised: prepare_problem()) against P L P. Their gamma moments are
# those of all permutations of H K H and P L P (the exact moments of the
# residualised pair P K P, design_feature_gamma(), would compute every gene's
# kernel in R: seconds per thousand genes): tr(H K H) >= tr(P K P), so the
# mean is a little larger and the p-values a little conservative (on 2,000
# null genes confounded with 4 batches, m = 100: KS D 0.034, P(p < 0.05)
# 0.050, the p-values 2.8% above the exact moments' on average;
# inst/bench/bench-select-design.R calibration).
screen_label <- function(pr, kernel_y) {
  if (is.null(pr$design)) return(kernel_y)
  lab <- project_label(pr$design, label_gram(kernel_y, pr$y, pr$threads))
  L <- if (is.null(lab$L)) tcrossprod(lab$Y) else lab$L
  label_kernel_precomputed((L + t(L)) / 2)
}

# W's leading eigenvectors, those that hold 99% of its trace (at most 8; a
# class outcome's W has exactly k - 1 non-zero eigenvalues). NULL: W is 0.
# Given `factor`, F with W = F F', they are F's left singular vectors.
screen_label_factor <- function(W, factor = NULL) {
  e <- if (is.null(factor)) {
    eigen(W, symmetric = TRUE)
  } else {
    sv <- svd(factor, nv = 0L)
    list(values = sv$d^2, vectors = sv$u)
  }
  lam <- pmax(e$values, 0)
  if (!(sum(lam) > 0)) return(NULL)
  r <- min(which(cumsum(lam) >= 0.99 * sum(lam))[1L], 8L)
  list(values = lam[seq_len(r)], vectors = e$vectors[, seq_len(r), drop = FALSE])
}

# The n pairs (i < j) with the largest screen ratio T_ij / (q_i q_j), q_i =
# (sum_a x_ai^4)^(1/2), which bounds sum_a z_a^2 (the scale of T_ij's null
# mean) from above by Cauchy-Schwarz at no cost per pair: the linear screen
# of all pairs in C (pair_top_lowrank(), src/pairtop.c) on the genes divided
# by q^(1/2), so that its score sum_k lambda_k (sum_a v_ak x_ai x_aj)^2 is
# the ratio. Its float32 ranking decides only which pairs are tested exactly;
# it is identical for every thread count.
screen_candidate_pairs <- function(x, f, n, threads) {
  # on x / rep(sqrt(ifelse(q > 0, q, 1)), each = nrow(x)), q = sqrt(colSums(x^4)),
  # each column divided as the screen packs it (scale = TRUE: no scaled copy
  # of x); a constant gene (q = 0) stays 0
  top <- pair_top_lowrank(x, f$vectors, f$values, n, threads, scale = TRUE)
  list(i = top$i, j = top$j, ratio = top$score)
}

# BAHSIC on the seeds (ranked first) and on the other genes (after them),
# each alone, as one result: ranks, iterations and path of the others' run
# first, then the seeds'. n_features = q stops the seeds' run at q when
# q < s seeds, else the others' at q - s.
run_seeded <- function(method, pr, k, args, seeds) {
  s <- length(seeds)
  rest <- seq_len(pr$p)[-seeds] # (seeds: sorted, unique, not empty)
  q <- args$n_features
  n_seeds <- if (!is.null(q) && q < s) q
  n_rest <- if (!is.null(q) && q > s) q - s
  # one bar for both runs
  bar <- progress_start(select_work(method, s, args$step, n_seeds) +
                          if (length(rest)) select_work(method, length(rest), args$step, n_rest) else 0)
  on.exit(progress_end(bar), add = TRUE)
  part <- function(idx, n) {
    sub <- pr
    sub$x <- pr$x[, idx, drop = FALSE]
    sub$p <- length(idx)
    sub$features <- pr$features[idx]
    a <- args
    a["n_features"] <- list(n)
    run_select(method, sub, k, a, outer = bar)
  }
  second <- part(seeds, n_seeds)
  rank <- integer(pr$p)
  score <- rep(NaN, pr$p)
  iteration <- integer(pr$p)
  path <- NULL
  offset <- 0L
  if (length(rest)) {
    first <- part(rest, n_rest)
    ranked <- first$rank > 0L
    rank[rest] <- first$rank + s * ranked
    score[rest] <- first$score
    iteration[rest] <- first$iteration
    path <- first$path # (C_select's: a double matrix, as are the seeds')
    offset <- max(path[, 1L], 0)
  }
  rank[seeds] <- second$rank
  score[seeds] <- second$score
  iteration[seeds] <- second$iteration + offset * (second$iteration > 0L)
  p2 <- second$path
  p2[, 1L] <- p2[, 1L] + offset
  progress_finish(bar)
  list(rank = rank, score = score, iteration = iteration,
       path = unname(rbind(path, unname(p2))))
}

# One line for print() (settings$screen): what seeded BAHSIC.
screen_summary <- function(scr) {
  n_pairs <- nrow(scr$pairs)
  sprintf("nonlinear, %d gene%s seeded (%d pair%s, %d gene%s alone; adj. p <= %s)",
          length(scr$seeds), if (length(scr$seeds) == 1L) "" else "s",
          n_pairs, if (n_pairs == 1L) "" else "s",
          nrow(scr$genes), if (nrow(scr$genes) == 1L) "" else "s", format(scr$level))
}
