# Usage: Rscript inst/bench/reproduce-tables.R [table1|table3|all] [--quick]
#
# Reruns, on data sets that CRAN and Debian ship, two protocols of Song,
# Smola, Gretton, Bedo and Borgwardt (2012), "Feature selection via
# dependence maximization", JMLR 13, and writes the paper's figure beside
# ours:
#
#   table1  section 7.2 and Table 1: an SVM with the Gaussian kernel, width
#           sigma = the median distance between the training samples, C = 100,
#           on the top 5 features of each selector, 10-fold cross-validation;
#           error % (classification) or 1 - r^2 in % (regression).
#   table3  section 9.2 and Table 3: the top 10 genes of each selector, an SVM
#           with the Gaussian kernel whose (C, sigma) is tuned on the grid
#           {0.1, 1, 10, 100, 1000} x {1, 10, 100, 1000} by 5-fold inner
#           cross-validation inside each training fold, stratified 10-fold
#           cross-validation; error % and the overlap (genes common to the
#           top-10 lists of all 10 folds).
#
# Every fold goes through evaluate_selection() (one data path; the script has
# no cross-validation loop of its own). The folds are drawn after
# set.seed(1) for each data set, so a data set's numbers do not depend on
# which others run.
#
# `all` (the default) writes the markdown to vignettes/reproduction.md (the
# appendix of the framework vignette, one copy: inst/bench is not in the
# built package) and prints it.
# `table1` or `table3` alone, and any `--quick` run, print the markdown and
# write it to a temporary file only, so the committed files always hold a full
# run. `--quick` is a smoke test: 3 folds (2 inner folds) on ionosphere,
# vehicle and housing (Table 1) and golub and colon (Table 3).
#
# Selectors (the comparators of Tables 1 and 3 that exist in bahsic; the
# others, MI, RELIEF and L0 in Table 1, are not in the package):
#   Table 1  BAHSIC  bahsic(), Gaussian kernel, "dimension" width policy,
#                    10% of the features removed per iteration (the defaults)
#            FOHSIC  fohsic(), Gaussian kernel (defaults)
#            PC      Pearson's correlation, feature_scores(method = "pc"); for
#                    the multiclass sets the class codes 1..K taken as numbers
#                    (feature_scores() refuses pc for > 2 classes; this is our
#                    guess at what the paper did, see the notes in the output)
#            RFE     clinical_rfe(j_svm = "share"): RFE with the clinical kernel (Paul
#                    and Dupont) and Guyon's criterion for a sum of kernels;
#                    two classes only. The paper's RFE is Guyon et al.'s
#                    SVM-RFE of the Spider toolbox, so this is a stand-in.
#   Table 3  pc, snr, pam, t (Welch), m-t (limma's moderated t), lods (B),
#            lin (centroid) from feature_scores(); RBF = bahsic() with the
#            Gaussian kernel, dis = bahsic() with kernel_inverse_distance();
#            clinical_rfe as above.
# All selectors run with threads = 2.
#
# Data (m samples x d features as used here):
#   Table 1, from mlbench (Debian r-cran-mlbench; CRAN mlbench):
#     ionosphere   Ionosphere, 351 x 33: V2 (constant 0) dropped, V1 (0/1) numeric
#     sonar        Sonar, 208 x 60
#     breastcancer BreastCancer (Wisconsin original), 683 x 9: Id dropped, the
#                  16 rows with a missing value dropped, the ordered 1-10
#                  factors as numbers
#     satimage     Satellite, 6435 x 36, 6 classes: as the paper did for data
#                  sets over 2000 samples, a balanced random subsample, 333 per
#                  class = 1998 (drawn after set.seed(1))
#     vehicle      Vehicle, 846 x 18, 4 classes
#     vowel        Vowel (Deterding), 990 x 9, 11 classes: V1 is the speaker
#                  (15 levels) and is dropped; mlbench keeps 9 of the 10 LPC
#                  features (the LIBSVM version the paper used has 10)
#     housing      BostonHousing, 506 x 13, regression on medv; chas (0/1) numeric
#   Table 3, two-class expression sets:
#     golub        bahsic's `golub` (multtest's Golub et al. 1999 training set,
#                  Dudoit's preprocessing): 38 x 3051, ALL 27 / AML 11
#     colon        plsgenomics::Colon (CRAN; Alon et al. 1999): 62 x 2000,
#                  normal 22 / tumour 40; log2 of the intensities; duplicated
#                  gene names made unique
#     all_bt       Bioconductor ALL (Debian r-bioc-all): t(exprs(ALL)), RMA
#                  log2, 128 x 12625, B 95 / T 33 (first letter of ALL$BT).
#                  Not in the paper.
#     prostate     spls::prostate (CRAN; Singh et al. 2002, standardised):
#                  102 x 6033, normal 50 / tumour 52. Not in the paper (its
#                  prostate sets 7 and 8 are Dhanasekaran's and Welsh's).
#
# Install the data packages (as root; none is needed by the package itself):
#   apt-get install -y r-cran-mlbench r-bioc-all r-cran-kernlab
#   Rscript -e 'install.packages(c("plsgenomics", "spls"))'
# A missing package skips its data set with a message.
#
# Runtime, measured on this project's 2-core machine (R 4.2.2, kernlab
# 0.9-32, shared with other jobs, so the time varies with their load): `all`
# 3.8-7.8 min over four runs (Table 1 0.9-1.7 min, of which satimage 32-57 s;
# Table 3 2.9-6.0 min, ALL B/T the longest at 65-161 s: its inner 5-fold
# search fits 10 selectors x 20 grid points x 5 SVMs per outer fold);
# `--quick` 16-22 s. The time of each data set is the last column of each
# table.
#
# The paper's figures below were transcribed from the paper's text,
# where every table column comes out as one list of numbers; see the
# comments at paper_table1 and paper_table3 for what could and could not be
# read reliably.

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
quick <- "--quick" %in% args
what <- setdiff(args, "--quick")
if (length(what) == 0L) what <- "all"
if (length(what) != 1L || !what %in% c("table1", "table3", "all")) {
  stop("Usage: Rscript inst/bench/reproduce-tables.R [table1|table3|all] [--quick]",
       call. = FALSE)
}
if (!exists("evaluate_selection", envir = asNamespace("bahsic"))) {
  stop("This bahsic has no evaluate_selection(): install a version that has it.", call. = FALSE)
}
if (!requireNamespace("kernlab", quietly = TRUE)) {
  stop("The SVMs need kernlab: apt-get install -y r-cran-kernlab.", call. = FALSE)
}
threads <- 2L
folds <- if (quick) 3L else 10L
inner_folds <- if (quick) 2L else 5L

# ---------------------------------------------------------------------------
# The paper's figures
# ---------------------------------------------------------------------------

# Table 1 (seed lines ~1540-1700): error % (1 - r^2 in % for housing) +- the
# paper's spread (a standard error, presumably; the paper does not say). The
# extraction gives every column as one list, in the row order of the "Data"
# column: 21 binary sets, the l2 row, 6 multiclass sets, 3 regression sets.
# BAHSIC, FOHSIC, PC and MI have 31 entries each, so the rows line up without
# doubt; RFE has 28 and then one "-" for the 3 regression sets, RELIEF 22 and
# one "-" for the rest, L0 28 and one "-". The seven rows used here agree with
# the BAHSIC figures quoted in the paper's text. Comparators we do not have, for the
# record: MI 13.1, 26.9, 3.5, 22.7, 45.8, 45.4, 18.9; RELIEF 11.7, 24.0, 3.1
# (binary only); L0 35.9, 36.5, 32.7, 22.1, 40.7, 85.6, - (same row order as
# below).
paper_table1 <- read.csv(text = "
data,bahsic,bahsic_se,fohsic,fohsic_se,pc,pc_se,rfe,rfe_se
ionosphere,12.3,1.7,12.8,1.6,12.3,1.5,20.2,2.2
sonar,27.9,3.1,25.0,2.3,25.5,2.4,21.6,3.4
breastcancer,3.8,0.4,3.8,0.4,4.0,0.4,3.4,0.6
satimage,15.8,1.0,17.9,0.8,52.6,1.7,18.7,1.3
vehicle,36.4,1.5,48.7,2.2,42.8,1.4,35.7,1.3
vowel,44.7,2.0,44.7,2.0,48.1,2.0,51.9,2.0
vowel_speaker,44.7,2.0,44.7,2.0,48.1,2.0,51.9,2.0
housing,18.5,2.6,18.9,3.6,25.3,2.5,NA,NA
", stringsAsFactors = FALSE)

# Table 3 (seed lines ~2090-2260): "error|overlap" for 15 two-class sets per
# method column, then the "best" count and the l2 distance, 17 entries in
# every column, in the method order of the caption (pc, snr, pam, t, m-t,
# lods, lin, RBF, dis, rfe). Section 9.1 numbers the sets: colon (Alon et al.)
# is 11 and Golub et al.'s leukaemia 13, the only two of the paper's sets we
# can reach. The "Data Set 1..15" labels come out of the extraction apart from
# the numbers, so row k is read as the k-th entry of each column: all ten
# columns have exactly 15 + 2 entries, which makes that reading likely but not
# certain. Two things could not be checked: the paper's standard errors
# (supplementary material, not in the paper's text), and the t, m-t and lods errors on
# Golub (22.1, 27.9, 15.4 against 7.0-11.1 for the other filters), which are
# read as printed but are surprisingly high for 10 top genes of that data set.
paper_table3 <- read.csv(text = "
data,method,error,overlap
colon,pc,12.9,5
colon,snr,12.9,5
colon,pam,12.9,5
colon,t,19.5,0
colon,mt,22.1,0
colon,lods,33.6,0
colon,lin,11.2,4
colon,rbf,9.5,6
colon,dis,16.0,4
colon,rfe,19.0,0
golub,pc,8.4,5
golub,snr,11.1,0
golub,pam,7.0,5
golub,t,22.1,3
golub,mt,27.9,6
golub,lods,15.4,1
golub,lin,7.0,2
golub,rbf,9.6,0
golub,dis,11.1,0
golub,rfe,4.3,1
", stringsAsFactors = FALSE)

# ---------------------------------------------------------------------------
# Data loaders: each returns list(x = numeric samples x features matrix with
# distinct column names, y = factor or numeric, paper = the paper's row name
# or NA, source = one line) or NULL (with a message) when its package is
# missing.
# ---------------------------------------------------------------------------

have <- function(pkg, install) {
  if (requireNamespace(pkg, quietly = TRUE)) return(TRUE)
  message(sprintf("skipped: needs the %s package (%s)", pkg, install))
  FALSE
}

get_data <- function(name, package) {
  env <- new.env()
  utils::data(list = name, package = package, envir = env)
  env[[name]]
}

numeric_matrix <- function(df) {
  x <- vapply(df, function(v) as.numeric(as.character(v)), numeric(nrow(df)))
  if (!is.matrix(x)) x <- matrix(x, nrow = nrow(df))
  colnames(x) <- names(df)
  x
}

mlbench_install <- "apt-get install -y r-cran-mlbench"

# An mlbench data set: the outcome column, the others (but `drop`) as numbers.
mlbench_set <- function(name, outcome, drop = character(0), source = paste0("mlbench::", name),
                        prepare = identity) {
  if (!have("mlbench", mlbench_install)) return(NULL)
  d <- prepare(get_data(name, "mlbench"))
  list(x = numeric_matrix(d[, setdiff(names(d), c(outcome, drop)), drop = FALSE]),
       y = d[[outcome]], source = source)
}

load_ionosphere <- function() {
  mlbench_set("Ionosphere", "Class", drop = "V2",
              source = "mlbench::Ionosphere; V2 (constant) dropped")
}

load_sonar <- function() mlbench_set("Sonar", "Class")

load_breastcancer <- function() {
  mlbench_set("BreastCancer", "Class", drop = "Id",
              prepare = function(d) d[stats::complete.cases(d), ],
              source = "mlbench::BreastCancer; Id and the 16 incomplete rows dropped")
}

load_satimage <- function() {
  if (!have("mlbench", mlbench_install)) return(NULL)
  d <- get_data("Satellite", "mlbench")
  # the paper: "a balanced random sample of size less than 2000 for data sets
  # with more than 2000 samples" (section 7.2.2)
  per_class <- 333L
  set.seed(1)
  keep <- sort(unlist(lapply(split(seq_len(nrow(d)), d$classes), sample, per_class)))
  d <- d[keep, ]
  y <- droplevels(d$classes)
  levels(y) <- make.names(levels(y))
  list(x = numeric_matrix(d[, names(d) != "classes"]), y = y,
       source = sprintf("mlbench::Satellite (6435 x 36), balanced subsample of %d per class",
                        per_class))
}

load_vehicle <- function() mlbench_set("Vehicle", "Class")

load_vowel <- function() {
  mlbench_set("Vowel", "Class", drop = "V1",
              source = "mlbench::Vowel; V1 (speaker) dropped, 9 LPC features")
}

# the same data with one fold per speaker (leave one speaker out, 15 folds):
# evaluate_selection(folds = <fold of each sample>)
load_vowel_speaker <- function() {
  d <- load_vowel()
  if (is.null(d)) return(NULL)
  speaker <- get_data("Vowel", "mlbench")$V1
  d$folds <- as.integer(speaker)
  d$source <- "mlbench::Vowel as above, one fold per speaker (15 folds)"
  d
}

load_housing <- function() {
  mlbench_set("BostonHousing", "medv",
              source = "mlbench::BostonHousing, outcome medv; chas as 0/1")
}

load_golub <- function() {
  d <- get_data("golub", "bahsic")
  list(x = d$x, y = d$y, source = "bahsic::golub (multtest's Golub et al. 1999)")
}

load_colon <- function() {
  if (!have("plsgenomics", "Rscript -e 'install.packages(\"plsgenomics\")'")) return(NULL)
  d <- get_data("Colon", "plsgenomics")
  x <- log2(d$X)
  colnames(x) <- make.unique(d$gene.names)
  rownames(x) <- NULL
  list(x = x, y = factor(d$Y, levels = 1:2, labels = c("normal", "tumour")),
       source = "plsgenomics::Colon (Alon et al. 1999), log2")
}

load_all_bt <- function() {
  if (!have("ALL", "apt-get install -y r-bioc-all") ||
      !have("Biobase", "apt-get install -y r-bioc-biobase")) {
    return(NULL)
  }
  d <- get_data("ALL", "ALL")
  list(x = t(Biobase::exprs(d)), y = factor(substr(as.character(d$BT), 1L, 1L)),
       source = "Bioconductor ALL, B vs T lineage (RMA log2)")
}

load_prostate <- function() {
  if (!have("spls", "Rscript -e 'install.packages(\"spls\")'")) return(NULL)
  d <- get_data("prostate", "spls")
  x <- d$x
  colnames(x) <- paste0("g", seq_len(ncol(x)))
  list(x = x, y = factor(d$y, levels = 0:1, labels = c("normal", "tumour")),
       source = "spls::prostate (Singh et al. 2002)")
}

# ---------------------------------------------------------------------------
# Selectors
# ---------------------------------------------------------------------------

rfe_share <- function(x, y) clinical_rfe(x, y, j_svm = "share", threads = threads)

table1_selectors <- function(y) {
  pc <- if (is.factor(y) && nlevels(y) > 2L) {
    # Pearson's correlation with the class codes 1..K (see the header)
    function(x, y) feature_scores(x, as.numeric(y), method = "pc")
  } else {
    "pc"
  }
  sel <- list(bahsic = "bahsic", fohsic = "fohsic", pc = pc)
  if (is.factor(y) && nlevels(y) == 2L) sel$rfe <- rfe_share
  sel
}

table3_selectors <- list(pc = "pc", snr = "snr", pam = "pam", t = "t", mt = "mt",
                         lods = "lods", lin = "lin", rbf = "bahsic", dis = "bahsic_dis",
                         rfe = rfe_share)

method_labels <- c(bahsic = "BAHSIC", fohsic = "FOHSIC", pc = "PC", rfe = "RFE",
                   snr = "snr", pam = "pam", t = "t", mt = "m-t", lods = "lods",
                   lin = "lin", rbf = "RBF", dis = "dis")

# ---------------------------------------------------------------------------
# Runs
# ---------------------------------------------------------------------------

# One data set: evaluate_selection() under the table's protocol, then per
# selector the mean error in %, its fold-to-fold standard error and the overlap.
run_one <- function(name, loader, table) {
  d <- loader()
  if (is.null(d)) return(NULL)
  message(sprintf("%s: %d x %d (%s)", name, nrow(d$x), ncol(d$x), d$source))
  set.seed(1)
  t0 <- proc.time()[["elapsed"]]
  k_folds <- if (is.null(d$folds)) folds else d$folds
  ev <- if (table == "table1") {
    evaluate_selection(d$x, d$y, selectors = table1_selectors(d$y), n_features = 5,
                       folds = k_folds, tune = list(C = 100, sigma = "median"),
                       threads = threads)
  } else {
    evaluate_selection(d$x, d$y, selectors = table3_selectors, n_features = 10,
                       folds = folds, inner_folds = inner_folds, threads = threads)
  }
  secs <- proc.time()[["elapsed"]] - t0
  res <- ev$results
  sel <- unique(res$selector)
  per <- data.frame(
    data = name, method = sel,
    error = vapply(sel, function(s) 100 * mean(res$error[res$selector == s]), numeric(1)),
    se = vapply(sel, function(s) {
      e <- 100 * res$error[res$selector == s]
      stats::sd(e) / sqrt(length(e))
    }, numeric(1)),
    overlap = ev$stability$overlap[match(sel, ev$stability$selector)],
    stringsAsFactors = FALSE, row.names = NULL)
  message(sprintf("  %.0f s", secs))
  # folds in which FOHSIC's top 5 is BAHSIC's top 5 as a set (Table 1)
  same_fo <- if (all(c("bahsic", "fohsic") %in% names(ev$rankings))) {
    sum(mapply(function(b, f) setequal(b[1:5], f[1:5]), ev$rankings$bahsic, ev$rankings$fohsic))
  }
  list(name = name, m = nrow(d$x), d = ncol(d$x),
       classes = if (is.factor(d$y)) nlevels(d$y) else NA_integer_,
       source = d$source, per = per, secs = secs, same_fo = same_fo,
       n_folds = ev$settings$folds)
}

table1_sets <- list(ionosphere = load_ionosphere, sonar = load_sonar,
                    breastcancer = load_breastcancer, satimage = load_satimage,
                    vehicle = load_vehicle, vowel = load_vowel,
                    vowel_speaker = load_vowel_speaker, housing = load_housing)
table3_sets <- list(golub = load_golub, colon = load_colon, all_bt = load_all_bt,
                    prostate = load_prostate)
if (quick) {
  table1_sets <- table1_sets[c("ionosphere", "vehicle", "housing")]
  table3_sets <- table3_sets[c("golub", "colon")]
}

t_start <- proc.time()[["elapsed"]]
runs1 <- if (what %in% c("table1", "all")) {
  Filter(Negate(is.null), Map(run_one, names(table1_sets), table1_sets, "table1"))
}
runs3 <- if (what %in% c("table3", "all")) {
  Filter(Negate(is.null), Map(run_one, names(table3_sets), table3_sets, "table3"))
}
total_secs <- proc.time()[["elapsed"]] - t_start

# ---------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------

fmt <- function(v, digits = 1L) ifelse(is.na(v), "", formatC(v, format = "f", digits = digits))
fmt_pm <- function(v, se) ifelse(is.na(v), "--", paste0(fmt(v), " ± ", fmt(se)))
fmt_eo <- function(v, o) ifelse(is.na(v), "--", paste0(fmt(v), " (", o, ")"))
fmt_time <- function(secs) {
  if (secs < 90) sprintf("%.0f s", secs) else sprintf("%.1f min", secs / 60)
}

md_table <- function(header, rows) {
  c(paste0("| ", paste(header, collapse = " | "), " |"),
    paste0("|", paste(rep("---", length(header)), collapse = "|"), "|"),
    vapply(rows, function(r) paste0("| ", paste(r, collapse = " | "), " |"), ""))
}

# Paper and ours differ when they are more than one fold-to-fold standard
# error of ours apart (ours: sd over the folds / sqrt(folds)).
differences <- function(run, paper_err, methods) {
  out <- character(0)
  for (s in methods) {
    p <- paper_err[[s]]
    o <- run$per[run$per$method == s, ]
    if (is.null(p) || is.na(p) || nrow(o) == 0L) next
    if (abs(o$error - p) > o$se) {
      out <- c(out, sprintf("%s %s (paper %s, %s)", method_labels[[s]], fmt(o$error), fmt(p),
                            if (o$error < p) "lower" else "higher"))
    }
  }
  out
}

TABLE1_NOTES <- list(
  ionosphere = paste(
    "Same data as the paper (UCI, 351 x 34, one constant feature that no selector keeps).",
    "Ours is lower for every selector, which points at the classifier",
    "rather than the selection: we standardise the features with the training fold",
    "before the SVM, and the paper does not say whether it did. The paper's RFE (Guyon's",
    "linear SVM-RFE) and ours (clinical kernel) are different algorithms."),
  sonar = paste(
    "Same data as the paper (UCI, 208 x 60). With 21 test samples per fold one",
    "misclassification moves a fold's error by 4.8 points, so the fold split alone",
    "moves the mean by a few points."),
  breastcancer = paste(
    "Probably the same data (the Wisconsin original, 683 complete cases); all methods",
    "are within a point of each other here as in the paper."),
  satimage = paste(
    "Our 1998 samples are a different balanced subsample of the 6435 than the paper's",
    "(which it does not publish, nor its size beyond \"less than 2000\"); yet BAHSIC",
    "and PC land within about one standard error of the paper. The paper's PC (52.6%)",
    "is far worse than its other selectors; how it",
    "applied Pearson's correlation to six classes is not said. We correlate with the",
    "class codes 1..6 (mlbench's level order, which is the original numbering), whose",
    "order is arbitrary, so our PC figure depends on that order; that it lands next to",
    "the paper's 52.6% suggests the paper did the same."),
  vehicle = paste(
    "Same data (846 x 18, 4 classes). Where our FOHSIC and BAHSIC pick the same 5",
    "features their errors are equal; the paper's FOHSIC is 12 points worse than its",
    "BAHSIC, so it picked others, which its text does not let us trace. PC as for",
    "satimage: correlation with the class codes 1..4."),
  vowel = paste(
    "The largest gap, for every selector. mlbench's Vowel has 9 of the",
    "10 LPC features of the LIBSVM version the paper used (and the speaker, dropped",
    "here), but that cannot explain it. The data are 15 speakers x 11 vowels x 6",
    "repetitions, and our random stratified folds put every test speaker in the",
    "training fold too. The data set is meant to be speaker-independent (speakers 0-7",
    "for training, 8-14 for testing): one such split, run once by hand outside this",
    "script with the same SVM, gives 61% error on BAHSIC's 5 features and 48% on all",
    "9, against 18% and 4% in random 10-fold cross-validation. The paper's 44.7% is of",
    "that order; if its folds were contiguous blocks of the file, which is ordered by",
    "speaker, they were nearly speaker-independent. That is our guess; the paper does",
    "not say; the next row runs it with one fold per speaker. PC as for satimage, with",
    "11 class codes."),
  vowel_speaker = paste(
    "The row above with one fold per speaker (`evaluate_selection(folds = speaker)`),",
    "so that no test speaker is seen in training: the errors rise to the paper's",
    "level, which supports the reading that the paper's folds kept speakers apart."),
  housing = paste(
    "Same data (506 x 13). 1 - r^2 is computed per test fold of ~50 samples and",
    "averaged, as the paper's \"percentage of variance not explained\"; the paper's",
    "SVM regression (Spider) and ours (kernlab's eps-svr, C = 100, epsilon = 0.1 on",
    "the outcome standardised with the training fold) need not match. Our PC (the 5",
    "features most correlated with medv) is close to our BAHSIC, where the paper's is",
    "clearly worse than its BAHSIC; we cannot tell why.")
)

TABLE3_NOTES <- list(
  golub = paste(
    "Ours is multtest's 38-sample training set of Golub et al. (3051 genes after",
    "Dudoit et al.'s filtering); the paper says its data sets have about 50 to 300",
    "samples, so it most likely used all 72 samples and 7129 probes. With 3-4 test",
    "samples per fold one error is 25-33 points of that fold's error; the overlap",
    "over only 38 samples also differs. The paper's t, m-t and lods errors are far",
    "above its other filters' and ours; we read them as printed (see the script's",
    "comments) and suspect they are not comparable. Our RFE (clinical kernel) is not",
    "the paper's SVM-RFE."),
  colon = paste(
    "Same samples and genes (62 x 2000); our log2 transform is a guess, the paper does",
    "not say how it preprocessed the data. With ~6 test samples per fold one",
    "misclassification is ~16 points of a fold's error, so our standard errors are",
    "large; the paper's m-t and lods figures are again far above its other filters'."),
  all_bt = "Not in the paper: the B and T lineages differ in many genes, an easy contrast.",
  prostate = paste("Not in the paper, whose prostate sets 7 and 8 are other studies",
                   "(Dhanasekaran et al., Welsh et al.).")
)

GENERAL_REASONS <- paste(
  "Causes common to every row: the folds are ours (the paper's splits are not",
  "published), the SVM is kernlab's `ksvm()` and not the Spider toolbox's, the",
  "features are standardised with the training fold before the SVM, and the",
  "selectors are this package's implementations (BAHSIC's width policy \"dimension\",",
  "10% removed per iteration), not the paper's Matlab code.")

write_table1 <- function(runs) {
  methods <- c("bahsic", "fohsic", "pc", "rfe")
  header <- c("Data set", "m", "d", unlist(lapply(method_labels[methods], function(l) {
    c(paste(l, "paper"), paste(l, "ours"))
  })), "time")
  rows <- lapply(runs, function(r) {
    p <- paper_table1[paper_table1$data == r$name, ]
    cells <- unlist(lapply(methods, function(s) {
      o <- r$per[r$per$method == s, ]
      c(fmt_pm(p[[s]], p[[paste0(s, "_se")]]),
        if (nrow(o)) fmt_pm(o$error, o$se) else "--")
    }))
    c(r$name, r$m, r$d, cells, fmt_time(r$secs))
  })
  notes <- unlist(lapply(runs, function(r) {
    p <- paper_table1[paper_table1$data == r$name, ]
    diff <- differences(r, as.list(p[methods]), methods)
    what_differs <- if (length(diff)) {
      paste0("Ours differs from the paper by more than one standard error for ",
             paste(diff, collapse = "; "), ".")
    } else {
      "Ours is within one standard error of the paper for every method."
    }
    same <- sprintf("FOHSIC's top 5 is BAHSIC's (as a set) in %d of %d folds.", r$same_fo,
                    r$n_folds)
    c(paste0("- **", r$name, "** (", r$source, "). ", what_differs, " ", same, " ",
             TABLE1_NOTES[[r$name]]), "")
  }))
  c("### Table 1: public benchmark data, 5 features",
    "",
    paste("Error % (housing: 1 - r^2 in %) of an SVM with the Gaussian kernel",
          "(sigma = median distance of the training fold, C = 100) on the top 5 features,",
          sprintf("%d-fold cross-validation, mean ± standard error over the folds.", folds),
          "Paper: Song et al. (2012), Table 1 (± as printed). RFE is two-class only here",
          "(`clinical_rfe()`); the paper's RFE row is empty for regression."),
    "",
    md_table(header, rows),
    "",
    paste("Where ours and the paper differ (by more than one fold-to-fold standard error",
          "of ours), and why as far as we can tell:"),
    "",
    notes,
    GENERAL_REASONS,
    "")
}

write_table3 <- function(runs) {
  methods <- names(table3_selectors)
  header <- c("Data set", "m", "d", unlist(lapply(method_labels[methods], function(l) {
    c(paste(l, "paper"), paste(l, "ours"))
  })), "time")
  rows <- lapply(runs, function(r) {
    p <- paper_table3[paper_table3$data == r$name, ]
    cells <- unlist(lapply(methods, function(s) {
      o <- r$per[r$per$method == s, ]
      q <- p[p$method == s, ]
      c(if (nrow(q)) fmt_eo(q$error, q$overlap) else "--",
        fmt_eo(o$error, o$overlap))
    }))
    c(r$name, r$m, r$d, cells, fmt_time(r$secs))
  })
  ses <- unlist(lapply(runs, function(r) {
    sprintf("%s: %s.", r$name,
            paste(sprintf("%s %s", method_labels[r$per$method], fmt(r$per$se)), collapse = ", "))
  }))
  notes <- unlist(lapply(runs, function(r) {
    p <- paper_table3[paper_table3$data == r$name, ]
    if (nrow(p) == 0L) {
      return(c(paste0("- **", r$name, "** (", r$source, "). ", TABLE3_NOTES[[r$name]]), ""))
    }
    perr <- as.list(stats::setNames(p$error, p$method))
    diff <- differences(r, perr, methods)
    what_differs <- if (length(diff)) {
      paste0("Error more than one standard error away from the paper for ",
             paste(diff, collapse = "; "), ".")
    } else {
      "Every error within one standard error of the paper."
    }
    po <- stats::setNames(p$overlap, p$method)
    oo <- stats::setNames(r$per$overlap, r$per$method)
    ov <- sprintf("Overlap ours - paper: %s.",
                  paste(sprintf("%s %+d", method_labels[methods],
                                as.integer(oo[methods] - po[methods])), collapse = ", "))
    c(paste0("- **", r$name, "** (", r$source, "). ", what_differs, " ", ov, " ",
             TABLE3_NOTES[[r$name]]), "")
  }))
  c("### Table 3: two-class expression data, 10 genes",
    "",
    paste("Each cell: error % (overlap), the error of an SVM with the Gaussian kernel on",
          "the top 10 genes, (C, sigma) tuned on {0.1, 1, 10, 100, 1000} x {1, 10, 100, 1000}",
          sprintf("by %d-fold inner cross-validation, %d-fold stratified cross-validation;",
                  inner_folds, folds),
          "overlap = genes common to the top-10 lists of all folds.",
          "Paper: Song et al. (2012), Table 3 (colon is its data set 11, Golub 13); `--` = not in",
          "the paper. RBF = BAHSIC with the Gaussian kernel, dis = BAHSIC with",
          "(||x - x'|| + eps)^-1, lin = the centroid (BAHSIC with the linear kernel)."),
    "",
    md_table(header, rows),
    "",
    "Fold-to-fold standard errors of our errors (the paper's are in its",
    "supplementary material, which we do not have):",
    "",
    paste0("- ", ses),
    "",
    paste("Where ours and the paper differ (by more than one fold-to-fold standard error",
          "of ours), and why as far as we can tell:"),
    "",
    notes,
    GENERAL_REASONS,
    "")
}

md <- c("## Tables 1 and 3 of Song et al. (2012), rerun",
        "",
        paste0("Generated by `Rscript inst/bench/reproduce-tables.R ", what,
               if (quick) " --quick", "` on ", format(Sys.Date()), " with bahsic ",
               utils::packageVersion("bahsic"), ", kernlab ", utils::packageVersion("kernlab"),
               " and ", R.version.string, ", in ", fmt_time(total_secs), " on ",
               parallel::detectCores(), " cores (selectors on ", threads, " threads). ",
               "Paper: Song, Smola, Gretton, Bedo and Borgwardt (2012), Feature selection ",
               "via dependence maximization, JMLR 13, 1393-1434."),
        "",
        if (length(runs1)) write_table1(runs1),
        if (length(runs3)) write_table3(runs3))

cat(md, sep = "\n")
if (what == "all" && !quick) {
  root <- normalizePath(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(),
                                                                    value = TRUE)[1L])), "..", ".."))
  for (f in file.path(root, "vignettes/reproduction.md")) {
    dir.create(dirname(f), showWarnings = FALSE, recursive = TRUE)
    writeLines(md, f)
    message("wrote ", f)
  }
} else {
  f <- tempfile("reproduction-", fileext = ".md")
  writeLines(md, f)
  message("wrote ", f, " (only a full `all` run writes the committed files)")
}
message(sprintf("total: %s", fmt_time(total_secs)))
