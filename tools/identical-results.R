# Results before and after a change: every selector, score and estimator on fixed data.
#
#   Rscript tools/identical-results.R save [FILE]      # with the package as it was
#   Rscript tools/identical-results.R compare [FILE]   # with the changed package installed
#
# FILE defaults to /tmp/bahsic-results.rds. `compare` prints one line per call and ends with
# "N identical, N different" (calls the saved file lacks are listed as new, not compared);
# exit status 1 if any differs. Every selector of the selector table needs a call here (the
# script stops otherwise). A restructuring must change
# nothing here. Compared: everything a result holds but its call, the thread count and the
# label of settings that name arguments (settings$threads is recorded, not a result), so a
# change of a default that does not decide an answer (threads) passes, and one that does fails.
# The calls name every argument whose default a change may decide, so they keep testing the
# same computation when a default moves.

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args)) args[1L] else "compare"
file <- if (length(args) > 1L) args[2L] else "/tmp/bahsic-results.rds"

calls <- list(
  bahsic = quote(bahsic(gx, gy, screen = "none", threads = 1L)),
  bahsic_opt = quote(bahsic(gx[, 1:60], gy, sigma = "optimize", screen = "none", threads = 1L)),
  bahsic_unb = quote(bahsic(gx, gy, estimator = "unbiased", drop = 0.2, threads = 1L)),
  bahsic_lin = quote(bahsic(gx, gy, kernel = kernel_linear(), threads = 1L)),
  bahsic_lap = quote(bahsic(gx, gy, kernel = kernel_laplace(), sigma = "fixed", screen = "none", threads = 1L)),
  bahsic_poly = quote(bahsic(gx[, 1:60], gy, kernel = kernel_polynomial(2), threads = 1L)),
  bahsic_dis = quote(bahsic(gx[, 1:60], gy, kernel = kernel_inverse_distance(), threads = 1L)),
  bahsic_reg = quote(bahsic(sr$x, sr$y, screen = "none", threads = 1L)),
  bahsic_block = quote({ set.seed(3); bahsic(sc$x, sc$y, approx = approx_block(size = 50), threads = 1L) }),
  bahsic_rff = quote({ set.seed(3); bahsic(sc$x[, 1:30], sc$y, approx = approx_rff(100), n_features = 5, threads = 1L) }),
  bahsic_ichol = quote(bahsic(sc$x[, 1:30], sc$y, approx = approx_ichol(tol = 1e-6, max_rank = 40), n_features = 5, threads = 1L)),
  bahsic_ridge = quote(bahsic(gx[, 1:60], gy, kernel = kernel_ridge(1), threads = 1L)),
  bahsic_clin = quote(bahsic(bw_x, bw_y, kernel = kernel_clinical(), threads = 1L)),
  bahsic_unsup = quote(bahsic(gx[, 1:60], NULL, unsupervised = TRUE, threads = 1L)),
  fohsic = quote(fohsic(gx, gy, n_features = 20, threads = 1L)),
  fohsic_xor = quote(fohsic(xr$x, xr$y, threads = 1L)),
  randsel = quote({ set.seed(4); randsel(xr$x, xr$y, n_boot = 100, threads = 1L) }),
  l1_lsmi = quote({ set.seed(5); l1_lsmi(xr$x[, 1:6], xr$y, n_features = 2, restarts = 1L, n_basis = 30, folds = 3) }),
  l1_hsic = quote({ set.seed(5); l1_hsic(xr$x[, 1:6], xr$y, n_features = 2, restarts = 1L) }),
  hsic_weights = quote(hsic_weights(xr$x[, 1:8], xr$y, lambda = 1e-3, threads = 1L)),
  rfe_svm = quote(clinical_rfe(bw_x, bw_y, j_svm = "paper", threads = 1L)),
  rfe_share = quote(clinical_rfe(bw_x, bw_y, j_svm = "share", threads = 1L)),
  rfe_mkl = quote(clinical_rfe(bw_x[, 1:5], bw_y, importance = "mkl", threads = 1L)),
  hsic_u = quote(hsic(gx[, 1:20], gy, estimator = "unbiased", threads = 1L)),
  hsic_b = quote(hsic(gx[, 1:20], gy, estimator = "biased", threads = 1L)),
  hsic_ichol = quote(hsic(sc$x[, 1:5], sc$y, approx = approx_ichol(tol = 1e-6, max_rank = 50), estimator = "unbiased")),
  hsic_test_g = quote(hsic_test(gx[, 1:5], gy, method = "gamma", threads = 1L)),
  hsic_test_p = quote({ set.seed(6); hsic_test(gx[, 1:5], gy, method = "permutation", n_perm = 50, threads = 1L) }),
  qmi = quote(qmi(gx[, 1:10], gy)),
  lsmi = quote({ set.seed(7); lsmi(xr$x[, 1:2], xr$y, n_basis = 30, folds = 3) })
)
for (m in c("pc", "lin", "t", "snr", "mt", "lods", "pam", "mmd", "kta", "hsic")) {
  calls[[paste0("scores_", m)]] <- bquote(feature_scores(gx, gy, method = .(m), threads = 1L))
}
calls$scores_t_pooled <- quote(feature_scores(gx, gy, method = "t", var_equal = TRUE))
calls$scores_pc_num <- quote(feature_scores(sr$x, sr$y, method = "pc"))
calls$fohsic_lap <- quote(fohsic(gx[, 1:60], gy, kernel = kernel_laplace(), n_features = 10, threads = 1L))
calls$fohsic_poly <- quote(fohsic(gx[, 1:60], gy, kernel = kernel_polynomial(3, 1), n_features = 10, threads = 1L))
calls$fohsic_lin <- quote(fohsic(gx, gy, kernel = kernel_linear(), n_features = 30, threads = 1L))
calls$fohsic_opt <- quote(fohsic(gx[, 1:40], gy, sigma = "optimize", n_features = 8, threads = 1L))
calls$fohsic_block <- quote({ set.seed(3); fohsic(sc$x[, 1:40], sc$y, approx = approx_block(size = 50), n_features = 8, threads = 1L) })
calls$fohsic_rff <- quote({ set.seed(3); fohsic(sc$x[, 1:30], sc$y, approx = approx_rff(100), n_features = 5, threads = 1L) })
calls$fohsic_ridge <- quote(fohsic(gx[, 1:40], gy, kernel = kernel_ridge(1), n_features = 8, threads = 1L))
calls$fohsic_clin <- quote(fohsic(bw_x, bw_y, kernel = kernel_clinical(), threads = 1L))
calls$bahsic_step <- quote(bahsic(gx, gy, drop = 0.3, n_features = 25, screen = "none", threads = 1L))
calls$bahsic_lap_opt <- quote(bahsic(gx[, 1:40], gy, kernel = kernel_laplace(), sigma = "optimize", screen = "none", threads = 1L))
calls$bahsic_block_lap <- quote({ set.seed(3); bahsic(sc$x[, 1:40], sc$y, kernel = kernel_laplace(), approx = approx_block(size = 60), threads = 1L) })
calls$scores_hsic_poly <- quote(feature_scores(gx[, 1:50], gy, method = "hsic", kernel = kernel_polynomial(2), threads = 1L))
calls$kmat_poly <- quote(kernel_matrix(kernel_polynomial(3, 1), gx[, 1:50], threads = 1L))
calls$kmat_lap <- quote(kernel_matrix(kernel_laplace(0.01), gx[, 1:50], threads = 1L))
calls$kmat_inv <- quote(kernel_matrix(kernel_inverse_distance(), gx[, 1:50], threads = 1L))
calls$hsic_poly <- quote(hsic(gx[, 1:20], gy, kernel = kernel_polynomial(2), threads = 1L))
calls$hsic_block <- quote({ set.seed(8); hsic(sc$x[, 1:5], sc$y, approx = approx_block(size = 50), threads = 1L) })
calls$randsel_poly <- quote({ set.seed(4); randsel(xr$x, xr$y, kernel = kernel_polynomial(2), n_boot = 50, threads = 1L) })
calls$randsel_lap <- quote({ set.seed(4); randsel(xr$x, xr$y, kernel = kernel_laplace(), n_boot = 50, threads = 1L) })
calls$sel_test <- quote({ set.seed(9); selection_test(bahsic(gx[, 1:30], gy, n_features = 5, threads = 1L), n_perm = 20) })
calls$sel_test_fo <- quote({ set.seed(9); selection_test(fohsic(gx[, 1:30], gy, n_features = 3, threads = 1L), n_perm = 20) })
calls$mrmr <- quote(mrmr(gx, gy, n_features = 20, threads = 1L))
# bahsic()'s default, the screen (the calls above name screen = "none": today's path)
calls$bahsic_screen <- quote(bahsic(gx, gy, threads = 1L))
calls$bahsic_screen_reg <- quote(bahsic(sr$x, sr$y, threads = 1L))
calls$pair_scores <- quote(pair_scores(gx[, 1:60], gy, top = 20, threads = 1L))
calls$evaluate <- quote({ set.seed(10); evaluate_selection(gx[, 1:100], gy, selectors = c("bahsic", "t"), n_features = c(3, 6), folds = 3, classifier = "svm") })
# study designs (?design): a batch crossing the classes and pairs of samples
calls$scores_mt_design <- quote(feature_scores(gx, gy, method = "mt", covariates = gb, threads = 1L))
calls$scores_t_block <- quote(feature_scores(gx, gy, method = "t", block = gp, threads = 1L))
calls$scores_hsic_design <- quote(feature_scores(gx[, 1:50], gy, method = "hsic", covariates = gb, threads = 1L))
calls$scores_maxt_design <- quote({ set.seed(11); feature_scores(gx[, 1:100], gy, method = "t", covariates = gb, adjust = "maxT", n_perm = 50, threads = 1L) })
calls$hsic_test_design <- quote(hsic_test(gx[, 1:5], gy, covariates = gb, threads = 1L))
calls$bahsic_design <- quote(bahsic(gx, gy, covariates = gb, threads = 1L))
calls$fohsic_design <- quote(fohsic(gx[, 1:60], gy, block = gp, n_features = 10, threads = 1L))
calls$stab_design <- quote({ set.seed(12); stability_selection(gx[, 1:100], gy, selector = "t", n_features = 5, n_subsamples = 5, block = gp) })

# Every selector of the selector table (R/selector-table.R) is called here: a
# selector added to the table needs its calls (and a saved result) too.
uncalled <- setdiff(bahsic:::selector_names(), unlist(lapply(calls, all.names)))
if (length(uncalled)) {
  stop(sprintf("No call of the selector %s: add one to 'calls'.",
               paste0(uncalled, "()", collapse = ", ")), call. = FALSE)
}

gx <- golub$x[, 1:300]
gy <- golub$y
# a batch crossing the classes, and 19 pairs of samples of the same class or not
gb <- factor(rep(c("b1", "b2", "b3"), length.out = length(gy)))
gp <- factor(rep(seq_len(19L), 2L))
set.seed(1)
sr <- simulate_regression(60)
set.seed(2)
xr <- simulate_xor(80)
set.seed(8)
sc <- simulate_counts(n_cells = 300, n_genes = 60)
bw <- MASS::birthwt
bw_x <- data.frame(age = bw$age, lwt = bw$lwt, race = factor(bw$race), smoke = factor(bw$smoke),
                   ptl = bw$ptl, ht = factor(bw$ht), ui = factor(bw$ui), ftv = bw$ftv)
bw_y <- factor(bw$low)

# Calls an older version cannot make (an argument it did not have) are dropped from it
# with their extra arguments, so the same computation is compared.
older <- function(cl) {
  f <- cl
  if (is.call(f) && identical(f[[1L]], as.name("{"))) {
    f[[length(f)]] <- older(f[[length(f)]])
    return(f)
  }
  if (is.call(f) && identical(f[[1L]], as.name("bahsic")) && !is.null(f$unsupervised) &&
      !"unsupervised" %in% names(formals(getS3method("bahsic", "default")))) {
    f$unsupervised <- NULL
  }
  if (is.call(f) && identical(f[[1L]], as.name("bahsic")) && !is.null(f$screen) &&
      !"screen" %in% names(formals(getS3method("bahsic", "default")))) {
    f$screen <- NULL
  }
  f
}

strip <- function(v) {
  if (is.list(v)) {
    attr(v, "adjust") <- NULL  # an attribute added to feature_scores() results
    v$call <- NULL
    if (is.list(v$settings)) v$settings$threads <- NULL
    names(v)[names(v) == "kernel_x"] <- "kernel"  # hsic()'s element, renamed with its argument
    # a column added to every selection after the first baselines: the
    # comparison is of what was there before
    if (is.data.frame(v$features)) v$features$contribution <- NULL
  }
  v
}

run <- function(cl) {
  value <- tryCatch(suppressWarnings(suppressMessages(eval(older(cl)))),
                    error = function(e) structure(conditionMessage(e), class = "run_error"))
  unclass(strip(value))
}

if (mode == "save") {
  res <- lapply(calls, run)
  saveRDS(res, file)
  cat(sprintf("saved %d results to %s\n", length(res), file))
} else {
  old <- readRDS(file)
  same <- 0L
  diff <- 0L
  # a call the saved file does not have (a selector added since) has nothing
  # to be compared with: reported, not counted
  new_calls <- setdiff(names(calls), names(old))
  if (length(new_calls)) cat(sprintf("new (not in %s): %s\n", file, paste(new_calls, collapse = ", ")))
  for (nm in setdiff(names(calls), new_calls)) {
    new <- run(calls[[nm]])
    # elements a change adds (new information) are reported, not compared
    added <- if (is.list(new) && is.list(old[[nm]])) setdiff(names(new), names(old[[nm]]))
    if (length(added)) {
      cat(sprintf("note %s: new element%s %s\n", nm, if (length(added) > 1L) "s" else "",
                  paste(added, collapse = ", ")))
      at <- attributes(new)
      new <- new[setdiff(names(new), added)]
      at$names <- names(new)
      attributes(new) <- at
    }
    ok <- identical(old[[nm]], new)
    if (ok) {
      same <- same + 1L
    } else {
      diff <- diff + 1L
      why <- paste(all.equal(old[[nm]], new), collapse = "; ")
      cat(sprintf("DIFFERENT %s: %s\n", nm, substr(why, 1, 300)))
    }
  }
  cat(sprintf("%d identical, %d different\n", same, diff))
  quit(status = if (diff > 0L) 1L else 0L)
}
