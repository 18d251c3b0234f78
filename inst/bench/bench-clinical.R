# Mixed-data feature selection (Paul and Dupont, ESANN 2014, "Kernel methods
# for mixed feature selection") on real clinical data sets and on simulated
# data with planted features, one section each. The question it answers: which
# RFE-SVM importance should clinical_rfe() use by default, eq. 6-7 as written
# (j_svm = "paper", |W^2 - W^2_(-f)| with the kernel re-averaged without f)
# or the feature's share of the average kernel (j_svm = "share", q_f / s,
# Guyon et al. 2002's criterion for a sum of kernels)?
#
# birthwt: MASS::birthwt (189 births, outcome low birth weight < 2.5 kg,
# 59 low / 130 normal; bwt, the weight itself, left out). Features: age and
# lwt (mother's weight) continuous; race (3 levels), smoke, ht
# (hypertension), ui (uterine irritability) categorical; ptl (previous
# premature labours, 0-3) and ftv (physician visits, 0-6) counts, taken as
# continuous. MASS is a recommended package, so the data are always there.
#
# heart: the paper's "Heart" (UCI Cleveland heart disease) as kmed::heart.
# kmed drops the 6 patients with a missing ca or thal, so 297 remain, 160
# without / 137 with disease (class 0 vs 1-4) where the paper's table, on all
# 303, has 164/139. The 13 features are encoded as the paper counts them, 6
# continuous and 7 categorical: kmed's numeric columns age, trestbps (resting
# blood pressure), chol, thalach (maximum heart rate), oldpeak (ST
# depression) and ca are continuous; its logical columns sex (TRUE = male),
# fbs (fasting blood sugar > 120 mg/dl) and exang (exercise-induced angina)
# and its factors cp (chest pain type, 4), restecg (3), slope (of the peak
# exercise ST segment, 3) and thal (3) are categorical (unordered factors;
# slope, though ordinal, counts as categorical in the paper's 6 + 7). ca, the
# number of major vessels coloured by fluoroscopy (0-3), is a count and stays
# continuous, as birthwt's counts do; that is what makes the paper's 6
# continuous. As an ordered factor it would give the very same clinical
# kernel (codes 1-4, range 3); only the baseline would change (Fisher instead
# of t).
#
# breastcancer: mlbench::BreastCancer (Wisconsin breast cancer; 683 of 699
# biopsies without a missing value, 444 benign / 239 malignant; Id left out).
# mlbench stores the five ordinal scores 1-10 (clump thickness, cell size and
# shape, marginal adhesion, epithelial cell size) as ordered factors, which
# the clinical kernel takes as continuous on their codes, and the other four
# (bare nuclei, bland chromatin, normal nucleoli, mitoses) as unordered
# factors, which it takes as categorical with 9-10 levels: mixed data as the
# package gives them.
#
# pima: MASS::Pima.tr and Pima.te together (532 Pima women without a missing
# value, 177 with / 355 without diabetes), 7 continuous features: the
# continuous-only case.
#
# votes: mlbench::HouseVotes84 (the 232 of 435 US congressmen who voted
# yes or no on all 16 bills of 1984; 124 democrats / 108 republicans), 16
# two-level categorical features: the categorical-only case.
#
# gbsg2: TH.data::GBSG2 (German Breast Cancer Study Group 2, 686 women).
# Outcome: recurrence or death within 3 years (224) against free of it at 3
# years (331); the 131 censored earlier are left out, and so is the time
# itself. Features: horTh (hormonal therapy) and menostat categorical; age,
# tsize (tumour size), pnodes (positive nodes), progrec and estrec (receptors)
# continuous; tgrade (I < II < III) ordinal, so continuous on its codes.
#
# melanoma: MASS::Melanoma (205 patients after surgery). Outcome: death from
# melanoma within 5 years (45) against alive at 5 years (122); the 38
# censored or dead of other causes earlier are left out, and so is the time.
# Features: sex and ulcer categorical; age, year (of operation) and thickness
# (of the tumour) continuous.
#
# stagec: rpart::stagec (146 stage C prostate cancers, the 134 without a
# missing value: 85 without / 49 with progression; the time to progression
# left out). Features: eet (early endocrine therapy) and ploidy (3)
# categorical; age, g2 (% of cells in G2 phase), grade (1-4) and gleason
# (score) continuous.
#
# simulated: 200 samples, 10 features with two planted: num_strong (normal,
# shifted by 1.2 sd in class b) and cat_strong (two levels, P(yes) 0.75 in
# class b and 0.25 in class a); num_weak (shift 0.3 sd) and cat_weak (0.6 vs
# 0.4); and six noise features, three continuous (normal, uniform,
# exponential) and three categorical (2, 3 and 4 equally likely levels). The
# CV is on the draw of set.seed(1); the planted check ("planted top 2" below)
# runs clinical_rfe() with each variant on 50 draws (set.seed(1), ..., set.seed(50))
# and counts the draws where num_strong and cat_strong rank 1 and 2.
#
# Repeated stratified 5-fold cross-validation. In every training fold each
# method ranks the features; an SVM on the clinical kernel of the top k
# features (k = min(5, p %/% 2 + 1) for p features: 5 for 8 or more, 4 for
# gbsg2 and stagec, 3 for melanoma; kernlab, C = 1, classes weighted by
# 1 / size so that the minority class counts) is trained on the fold and
# scored on the test fold by BCR, the paper's measure. Stability: Kuncheva's
# index of the top-k sets over all folds. For the simulated data, "planted"
# is also the share of the folds whose top 2 are the two planted features.
# The folds of repeat r are drawn after set.seed(r), for every data set.
# Methods:
#   rfe_paper      clinical_rfe(importance = "svm", j_svm = "paper"), eq. 6-7 as written
#   rfe_share      clinical_rfe(importance = "svm", j_svm = "share"), J = q_f / s
#   rfe_mkl        clinical_rfe(importance = "mkl") (only with the argument mkl; slow)
#   bahsic         bahsic(kernel = kernel_clinical())
#   t_fisher       baseline: p-values of Welch's t-test (continuous) and
#                  Fisher's exact test (categorical; the chi-squared test
#                  where Fisher's would need too large a workspace), one
#                  ranking by p-value
#   all            all features (no selection), for reference
#
# Usage, after installing the package with kernlab (and, for their data sets,
# kmed, mlbench, TH.data and rpart; a data set whose package is missing is
# skipped with a note):
#   Rscript inst/bench/bench-clinical.R [repeats] [mkl] [data set names]
# e.g. Rscript inst/bench/bench-clinical.R 10
#      Rscript inst/bench/bench-clinical.R 3 birthwt simulated
# Data set names restrict the run to those (default: all). The repeats run
# on 2 cores (MC_CORES=n for n, MC_CORES=1 for one); the numbers are the same
# whatever the cores. Default run (10 repeats, no mkl): about 25 min on 2
# cores of a busy machine, most of it in heart's and melanoma's final SVMs
# (ksvm with kernlab's defaults and class weights: on some clinical kernels
# of few features kernlab's SMO takes seconds to converge) and in Fisher's
# exact test on breastcancer's 10-level factors (17 s per ranking).

suppressPackageStartupMessages({
  library(bahsic)
  library(kernlab)
})

args <- commandArgs(trailingOnly = TRUE)
all_sets <- c("birthwt", "heart", "breastcancer", "pima", "votes", "gbsg2", "melanoma",
              "stagec", "simulated")
num_args <- suppressWarnings(as.integer(args))
repeats <- if (any(!is.na(num_args))) num_args[!is.na(num_args)][1L] else 10L
with_mkl <- "mkl" %in% args
sets <- if (any(args %in% all_sets)) intersect(all_sets, args) else all_sets
unknown <- args[is.na(num_args) & !args %in% c("mkl", all_sets)]
if (length(unknown)) stop("unknown argument(s): ", paste(unknown, collapse = ", "))
stopifnot(repeats >= 1L)
# the repeats run in parallel (forked workers): MC_CORES=1 for one core
cores <- suppressWarnings(as.integer(Sys.getenv("MC_CORES", "2")))
cores <- max(1L, min(if (is.na(cores)) 2L else cores, parallel::detectCores(), na.rm = TRUE))
n_draws <- 50L  # simulated draws for the planted check

# --- data: each loader returns list(x, y, unit), x a data frame ---------------------------
yes_no <- function(v) factor(v, levels = c(0, 1), labels = c("no", "yes"))

birthwt_data <- function() {
  bw <- MASS::birthwt
  bw$race <- factor(bw$race, labels = c("white", "black", "other"))
  for (v in c("smoke", "ht", "ui")) bw[[v]] <- factor(bw[[v]], labels = c("no", "yes"))
  list(x = bw[c("age", "lwt", "race", "smoke", "ptl", "ht", "ui", "ftv")],
       y = factor(bw$low, labels = c("normal", "low")), unit = "births")
}

heart_data <- function() {
  h <- kmed::heart
  x <- h[setdiff(names(h), "class")]
  # logical -> factor with readable levels (the kernel would take the
  # logicals as categorical all the same; the baseline tests factors)
  x$sex <- factor(x$sex, levels = c(FALSE, TRUE), labels = c("female", "male"))
  for (v in c("fbs", "exang")) x[[v]] <- factor(x[[v]], levels = c(FALSE, TRUE), labels = c("no", "yes"))
  stopifnot(identical(sum(vapply(x, is.numeric, logical(1))), 6L),
            identical(sum(vapply(x, is.factor, logical(1))), 7L), !anyNA(x))
  list(x = x, y = factor(h$class > 0, levels = c(FALSE, TRUE), labels = c("absent", "present")),
       unit = "patients")
}

breastcancer_data <- function() {
  e <- new.env()
  utils::data("BreastCancer", package = "mlbench", envir = e)
  bc <- stats::na.omit(e$BreastCancer)
  list(x = bc[setdiff(names(bc), c("Id", "Class"))], y = droplevels(bc$Class), unit = "biopsies")
}

pima_data <- function() {
  p <- rbind(MASS::Pima.tr, MASS::Pima.te)
  list(x = p[setdiff(names(p), "type")], y = factor(p$type, levels = c("No", "Yes")),
       unit = "women")
}

votes_data <- function() {
  e <- new.env()
  utils::data("HouseVotes84", package = "mlbench", envir = e)
  v <- stats::na.omit(e$HouseVotes84)
  list(x = v[setdiff(names(v), "Class")], y = droplevels(v$Class), unit = "congressmen")
}

# event (recurrence, death) before t against free of it at t; censored before t left out
event_by <- function(time, event, t) {
  ifelse(event & time <= t, 1L, ifelse(time > t, 0L, NA_integer_))
}

gbsg2_data <- function() {
  g <- TH.data::GBSG2
  y <- event_by(g$time, g$cens == 1L, 3 * 365.25)
  keep <- !is.na(y)
  list(x = g[keep, c("horTh", "age", "menostat", "tsize", "tgrade", "pnodes", "progrec", "estrec")],
       y = factor(y[keep], levels = 0:1, labels = c("free", "recurrence")), unit = "women")
}

melanoma_data <- function() {
  m <- MASS::Melanoma
  y <- event_by(m$time, m$status == 1L, 5 * 365.25)
  keep <- !is.na(y)
  x <- data.frame(sex = factor(m$sex, levels = 0:1, labels = c("female", "male")),
                  age = m$age, year = m$year, thickness = m$thickness,
                  ulcer = yes_no(m$ulcer))[keep, ]
  list(x = x, y = factor(y[keep], levels = 0:1, labels = c("alive", "died")), unit = "patients")
}

stagec_data <- function() {
  s <- stats::na.omit(rpart::stagec)
  x <- data.frame(age = s$age, eet = yes_no(s$eet - 1L), g2 = s$g2, grade = s$grade,
                  gleason = s$gleason, ploidy = s$ploidy)
  list(x = x, y = factor(s$pgstat, levels = 0:1, labels = c("none", "progression")),
       unit = "patients")
}

planted <- c("num_strong", "cat_strong")
simulated_draw <- function(seed, m = 200) {
  set.seed(seed)
  y <- factor(rep(c("a", "b"), length.out = m))
  b <- y == "b"
  x <- data.frame(
    num_strong = stats::rnorm(m) + 1.2 * b,
    cat_strong = factor(ifelse(stats::runif(m) < ifelse(b, 0.75, 0.25), "yes", "no")),
    num_weak = stats::rnorm(m) + 0.3 * b,
    cat_weak = factor(ifelse(stats::runif(m) < ifelse(b, 0.6, 0.4), "p", "q")),
    num_noise1 = stats::rnorm(m), num_noise2 = stats::runif(m), num_noise3 = stats::rexp(m),
    cat_noise1 = factor(sample(c("x", "y"), m, TRUE)),
    cat_noise2 = factor(sample(c("x", "y", "z"), m, TRUE)),
    cat_noise3 = factor(sample(letters[1:4], m, TRUE)))
  list(x = x, y = y, unit = "samples")
}
simulated_data <- function() simulated_draw(1L)

loaders <- list(birthwt = birthwt_data, heart = heart_data, breastcancer = breastcancer_data,
                pima = pima_data, votes = votes_data, gbsg2 = gbsg2_data,
                melanoma = melanoma_data, stagec = stagec_data, simulated = simulated_data)
needs <- c(heart = "kmed", breastcancer = "mlbench", votes = "mlbench", gbsg2 = "TH.data",
           stagec = "rpart")

# --- methods -----------------------------------------------------------------------------
t_fisher_ranking <- function(x, y) {
  p <- vapply(names(x), function(f) {
    v <- x[[f]]
    if (is.factor(v) && !is.ordered(v)) {
      tab <- table(droplevels(v), y)
      tryCatch(stats::fisher.test(tab, workspace = 2e7)$p.value,
               error = function(e) suppressWarnings(stats::chisq.test(tab)$p.value))
    } else {
      stats::t.test(as.numeric(v) ~ y)$p.value
    }
  }, numeric(1))
  names(x)[order(p, seq_along(p))]
}

rankers <- list(
  rfe_paper = function(x, y) selected(clinical_rfe(x, y, importance = "svm", j_svm = "paper")),
  rfe_share = function(x, y) selected(clinical_rfe(x, y, importance = "svm", j_svm = "share")),
  bahsic = function(x, y) selected(bahsic(x, y, kernel = kernel_clinical())),
  t_fisher = t_fisher_ranking,
  all = function(x, y) names(x)
)
if (with_mkl) {
  rankers <- append(rankers, list(rfe_mkl = function(x, y) {
    selected(clinical_rfe(x, y, importance = "mkl"))
  }), after = 2L)
}

# SVM on the clinical kernel of the chosen features, ranges and levels from
# the training fold
svm_bcr <- function(x, y, train, test, feats) {
  K <- unclass(kernel_matrix(kernel_clinical(), x[train, feats, drop = FALSE]))
  attr(K, "kernel") <- NULL
  w <- stats::setNames(length(train) / (2 * tabulate(y[train])), levels(y))
  fit <- ksvm(as.kernelMatrix(K), y[train], type = "C-svc", C = 1, class.weights = w)
  Kt <- bahsic:::clinical_cross(x[test, feats, drop = FALSE], x[train, feats, drop = FALSE])
  pred <- predict(fit, as.kernelMatrix(Kt[, SVindex(fit), drop = FALSE]))
  as.numeric(bcr(y[test], pred))
}

folds_of <- function(y, seed) {
  set.seed(seed)
  f <- integer(length(y))
  for (lev in levels(y)) {
    idx <- which(y == lev)
    f[idx] <- sample(rep_len(1:5, length(idx)))
  }
  f
}

# --- one data set: the CV, its table and the rankings on all samples -----------------------
run_set <- function(name, d) {
  x <- d$x
  y <- d$y
  k_top <- min(5L, ncol(x) %/% 2L + 1L)
  categorical <- vapply(x, function(v) !is.numeric(v) && !is.ordered(v), logical(1))
  cat(sprintf("%s: %d %s x %d features (%d continuous or ordinal, %d categorical); %s\n",
              name, nrow(x), d$unit, ncol(x), sum(!categorical), sum(categorical),
              paste(sprintf("%s = %d", levels(y), tabulate(y)), collapse = ", ")))
  t_start <- proc.time()[["elapsed"]]
  # one repeat per worker; the folds come from set.seed(r) and nothing else
  # draws random numbers, so the numbers do not depend on the cores
  one_repeat <- function(r) {
    folds <- folds_of(y, r)
    res <- list()
    rankings <- stats::setNames(vector("list", length(rankers)), names(rankers))
    secs <- stats::setNames(numeric(length(rankers)), names(rankers))
    for (k in 1:5) {
      train <- which(folds != k)
      test <- which(folds == k)
      for (nm in names(rankers)) {
        t0 <- proc.time()[["elapsed"]]
        ranking <- rankers[[nm]](x[train, ], y[train])
        secs[nm] <- secs[nm] + proc.time()[["elapsed"]] - t0
        feats <- if (nm == "all") names(x) else ranking[seq_len(k_top)]
        rankings[[nm]] <- c(rankings[[nm]], list(ranking))
        res[[length(res) + 1L]] <- data.frame(method = nm, rep = r, fold = k,
                                              bcr = svm_bcr(x, y, train, test, feats))
      }
    }
    list(res = do.call(rbind, res), rankings = rankings, secs = secs)
  }
  reps <- parallel::mclapply(seq_len(repeats), one_repeat, mc.cores = cores,
                             mc.preschedule = FALSE)
  failed <- vapply(reps, inherits, logical(1), what = "try-error")
  if (any(failed)) stop(name, ", repeat ", which(failed)[1L], ": ", reps[[which(failed)[1L]]])
  res <- do.call(rbind, lapply(reps, `[[`, "res"))
  rankings <- lapply(stats::setNames(nm = names(rankers)), function(nm) {
    unlist(lapply(reps, function(p) p$rankings[[nm]]), recursive = FALSE)
  })
  secs <- Reduce(`+`, lapply(reps, `[[`, "secs"))
  is_sim <- all(planted %in% names(x))

  cat(sprintf("\n%d x 5-fold CV; SVM (clinical kernel, C = 1, balanced class weights) on the top %d features\n",
              repeats, k_top))
  cat(sprintf("%-10s %6s %6s %9s %8s %10s  %s\n", "method", "BCR", "sd", "Kuncheva",
              if (is_sim) "planted" else "", "s/ranking", sprintf("top %d most often chosen", k_top)))
  tab <- data.frame(set = name, method = names(rankers), bcr = NA_real_, ki = NA_real_,
                    planted = NA_real_)
  for (nm in names(rankers)) {
    b <- res$bcr[res$method == nm]
    ki <- if (nm == "all") NA else kuncheva_index(rankings[[nm]], k = k_top, n_features = ncol(x))
    tops <- table(unlist(lapply(rankings[[nm]], `[`, seq_len(k_top))))
    top <- names(sort(tops, decreasing = TRUE))[seq_len(k_top)]
    pl <- if (is_sim && nm != "all") {
      mean(vapply(rankings[[nm]], function(r) setequal(r[1:2], planted), logical(1)))
    } else NA
    cat(sprintf("%-10s %6.3f %6.3f %9s %8s %10.4f  %s\n", nm, mean(b), stats::sd(b),
                if (is.na(ki)) "-" else sprintf("%.3f", ki),
                if (is.na(pl)) "" else sprintf("%.2f", pl),
                secs[[nm]] / (5 * repeats), if (nm == "all") "-" else paste(top, collapse = ", ")))
    tab[tab$method == nm, c("bcr", "ki", "planted")] <- c(mean(b), ki, pl)
  }
  lead <- sprintf("clinical_rfe(j_svm = \"paper\") on all %d %s: ", nrow(x), d$unit)
  cat("\n", lead, paste(selected(clinical_rfe(x, y, j_svm = "paper")), collapse = ", "), "\n", sep = "")
  cat(formatC("clinical_rfe(j_svm = \"share\"):", width = -nchar(lead)),
      paste(selected(clinical_rfe(x, y, j_svm = "share")), collapse = ", "), "\n", sep = "")
  cat(formatC("t / Fisher baseline:", width = -nchar(lead)),
      paste(t_fisher_ranking(x, y), collapse = ", "), "\n", sep = "")
  if (is_sim) {
    # the planted check: both planted features ranked 1 and 2, on n_draws draws
    hits <- vapply(c(paper = "paper", share = "share"), function(j) {
      sum(unlist(parallel::mclapply(seq_len(n_draws), function(seed) {
        dd <- simulated_draw(seed)
        setequal(selected(clinical_rfe(dd$x, dd$y, j_svm = j))[1:2], planted)
      }, mc.cores = cores)))
    }, numeric(1))
    cat(sprintf("planted top 2 on %d draws: paper %d, share %d\n", n_draws, hits[["paper"]],
                hits[["share"]]))
  }
  cat(sprintf("(%s: %.0f s)\n", name, proc.time()[["elapsed"]] - t_start))
  tab
}

out <- list()
for (name in sets) {
  pkg <- needs[name]
  if (!is.na(pkg) && !requireNamespace(pkg, quietly = TRUE)) {
    cat(sprintf("\n%s: skipped, %s is not installed (install.packages(\"%s\"))\n", name, pkg, pkg))
    next
  }
  if (length(out)) cat("\n")
  out[[name]] <- run_set(name, loaders[[name]]())
}

if (length(out) > 1L) {
  all_res <- do.call(rbind, lapply(out, function(t) t[c("set", "method", "bcr", "ki")]))
  real <- setdiff(names(out), "simulated")
  cat(sprintf("\nBCR with the top k features (Kuncheva index), %d x 5-fold CV; mean: of the %d real data sets\n",
              repeats, length(real)))
  width <- max(15L, nchar(names(out)) + 2L)
  cat(sprintf("%-10s", "method"), sprintf("%*s", width, names(out)), sprintf("%16s", "mean"),
      "\n", sep = "")
  for (nm in names(rankers)) {
    rows <- all_res[all_res$method == nm, ]
    cells <- vapply(names(out), function(s) {
      row <- rows[rows$set == s, ]
      if (is.na(row$ki)) sprintf("%.3f (  -  )", row$bcr) else sprintf("%.3f (%.3f)", row$bcr, row$ki)
    }, character(1))
    rr <- rows[rows$set %in% real, ]
    mean_cell <- if (!nrow(rr)) "-" else if (all(is.na(rr$ki))) {
      sprintf("%.3f (  -  )", mean(rr$bcr))
    } else {
      sprintf("%.3f (%.3f)", mean(rr$bcr), mean(rr$ki))
    }
    cat(sprintf("%-10s", nm), sprintf("%*s", width, cells), sprintf("%16s", mean_cell), "\n",
        sep = "")
  }
  # share against paper, data set by data set
  gain <- all_res$bcr[all_res$method == "rfe_share"] - all_res$bcr[all_res$method == "rfe_paper"]
  cat(sprintf("rfe_share - rfe_paper, BCR: %s\n",
              paste(sprintf("%s %+.3f", names(out), gain), collapse = ", ")))
}
