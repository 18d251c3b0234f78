# Non-linear power at gene scale: does a selector find an interacting pair or
# a non-monotone gene among thousands of noise genes, and what do users'
# alternatives find on the same data?
#
# Data: simulate_nonlinear(m, p, signal, rho, block_size): standard normal
# genes, independent ("indep") or correlated in blocks of 30 genes with
# within-block correlation 0.5 ("blocks"), and one planted signal at random
# positions:
#   xor          class = sign(x1) sign(x2)                     (pair, binary)
#   xor_numeric  y = x1 x2 + N(0, 1)                           (pair, numeric)
#   u_hazard     y = log T, T exponential with rate exp(1.5 x1^2) (one gene)
#   u_class      class = x1^2 above its median                 (one gene, binary)
#   ring         class = x1^2 + x2^2 above its median          (pair, binary)
#   linear       10 genes shifted by +-1 sd between balanced classes
# p = 200, 2,000, 12,625 genes in all (12,625: the probe sets of the ALL
# arrays); m = 60, 100, 200 samples; 20 repeats at p <= 2,000, 5 at 12,625.
#
# Methods, side by side on the same data (each gets the same seed):
#   limma         limma's moderated t (lmFit/eBayes on ~ y: the class
#                 difference, or the slope for a numeric y), ranked by |t|
#   hsic          per-gene HSIC, feature_scores(method = "hsic")
#   fohsic        fohsic(x, y)
#   bahsic_dim    bahsic(x, y, sigma = "dimension")   (plain BAHSIC: with
#   bahsic_opt    bahsic(x, y, sigma = "optimize")     screen = "none" where
#                                                      bahsic() has it)
#   randsel       randsel(x, y) (its defaults: 1,000 subsamples)
#   ranger        ranger permutation importance, 1,000 trees, mtry =
#                 floor(sqrt(p)) (ranger's default), p <= 2,000 only
#   pair_scores   genes ordered by their best pair (their first appearance
#                 in pair_scores()'s list): only where bahsic has pair_scores()
#   bahsic_default bahsic(x, y) with no arguments: the package's default,
#                 whatever it is in the installed version
#   bahsic_today  bahsic(x, y, screen = "none"): the default before the pair
#                 screen, only where bahsic() has that argument (the
#                 constants TODAY_ARG, TODAY_VALUE below)
# Time per fit: elapsed seconds of the call alone (not the simulation), one
# thread (options(bahsic.threads = 1), ranger num.threads = 1).
#
# Printed per setting and method: the rank of the planted genes (the worst
# planted gene's rank: for a pair its worse member; median, min and max over
# the repeats), the % of repeats with all planted genes in the top 10 / 20,
# the recall of planted genes in the top 10 / 20 (% of planted genes, over all
# repeats), and the median seconds per fit. Then the issue's targets for
# bahsic(x, y) with its defaults, met or not met:
#   XOR pair in the top 20 in >= 90% of repeats at p = 2,000 and >= 80% at
#   p = 12,625; the U-shaped (hazard) gene in the top 10 in >= 90% at
#   p = 12,625; recall of linear genes in the top 10 and top 20 within 2
#   points of limma's at p = 2,000 (all at m = 100, independent genes).
#
# Usage, after installing the package (and limma, ranger):
#   Rscript inst/bench/bench-nonlinear.R quick    [key=value ...]
#       p = 200, m = 100, independent genes, every signal, 3 repeats
#       (measured: 1.4 min at 5792c45 plus the generator, one thread, on a
#       2-core AMD EPYC shared with five other jobs: load average 4 to 7)
#   Rscript inst/bench/bench-nonlinear.R targets  [key=value ...]
#       m = 100, independent genes: XOR at p = 2,000 (20 repeats) and 12,625
#       (5), U-shaped hazard at 12,625 (5), linear at 2,000 (20)
#       (measured: 7.0 min, same machine and load; per data set about 3 s
#       at p = 2,000 and 8 s at p = 12,625, all methods together)
#   Rscript inst/bench/bench-nonlinear.R full     [key=value ...]
#       every signal x noise x p x m (108 settings, 1,620 data sets)
#       (ESTIMATED, not run: about 2.1 h, same machine and load, from the
#       per-fit times of `estimate` (all methods on one xor data set: 0.6 s
#       at p = 200, m = 60 to 36 s at p = 12,625, m = 200); the rows
#       pair_scores and bahsic_today add their own time; randsel and the
#       m = 200 settings dominate)
#   Rscript inst/bench/bench-nonlinear.R estimate [key=value ...]
#       one xor data set at each p x m, timed, and the time `full` would take
#   keys: signals=xor,ring  noise=indep,blocks  p=200,2000  m=100
#         repeats=N (every setting)  methods=limma,hsic  out=FILE.rds (raw
#         ranks and times)
# Timings on a shared machine are noisy: compare only runs on one machine.

suppressPackageStartupMessages(library(bahsic))
options(bahsic.threads = 1L)
quiet <- function(expr) suppressWarnings(suppressMessages(expr))

TODAY_ARG <- "screen"
TODAY_VALUE <- "none"
LINEAR_EFFECT <- 1
NOISE <- list(indep = list(rho = 0, block_size = 30), blocks = list(rho = 0.5, block_size = 30))
SIGNALS <- c("xor", "xor_numeric", "u_hazard", "u_class", "ring", "linear")

# ---- the command line ----------------------------------------------------

parse_args <- function(args) {
  mode <- if (length(args)) args[1L] else "quick"
  if (!mode %in% c("quick", "targets", "full", "estimate")) {
    stop("mode must be quick, targets, full or estimate, not '", mode, "'", call. = FALSE)
  }
  kv <- strsplit(args[-1L], "=", fixed = TRUE)
  keys <- vapply(kv, `[`, "", 1L)
  vals <- lapply(kv, function(s) strsplit(s[2L], ",", fixed = TRUE)[[1L]])
  names(vals) <- keys
  bad <- setdiff(keys, c("signals", "noise", "p", "m", "repeats", "methods", "out"))
  if (length(bad)) stop("unknown key(s): ", paste(bad, collapse = ", "), call. = FALSE)
  list(mode = mode, keys = vals)
}

grid_for <- function(mode) {
  full <- expand.grid(signal = SIGNALS, noise = names(NOISE), p = c(200, 2000, 12625),
                      m = c(60, 100, 200), stringsAsFactors = FALSE)
  full$repeats <- ifelse(full$p <= 2000, 20L, 5L)
  switch(mode,
    full = full,
    quick = data.frame(signal = SIGNALS, noise = "indep", p = 200, m = 100, repeats = 3L),
    targets = data.frame(signal = c("xor", "xor", "u_hazard", "linear"), noise = "indep",
                         p = c(2000, 12625, 12625, 2000), m = 100, repeats = c(20L, 5L, 5L, 20L)),
    estimate = data.frame(signal = "xor", noise = "indep", p = rep(c(200, 2000, 12625), 3),
                          m = rep(c(60, 100, 200), each = 3), repeats = 1L))
}

filter_grid <- function(grid, keys) {
  for (k in intersect(names(keys), c("signals", "noise", "p", "m"))) {
    col <- if (k == "signals") "signal" else k
    grid <- grid[as.character(grid[[col]]) %in% keys[[k]], , drop = FALSE]
  }
  if (!is.null(keys$repeats)) grid$repeats <- as.integer(keys$repeats)
  grid
}

# ---- the methods: each returns the genes ranked, best first ---------------

rank_limma <- function(x, y) {
  design <- stats::model.matrix(~ y)
  fit <- limma::eBayes(limma::lmFit(t(x), design))
  colnames(x)[order(-abs(fit$t[, 2L]))]
}

rank_scores <- function(x, y) {
  s <- feature_scores(x, y, method = "hsic")
  s$feature[order(s$rank)]
}

rank_ranger <- function(x, y) {
  fit <- ranger::ranger(x = x, y = y, num.trees = 1000, importance = "permutation",
                        num.threads = 1, seed = sample.int(.Machine$integer.max, 1L))
  names(sort(fit$variable.importance, decreasing = TRUE))
}

# pair_scores()'s list of pairs, best first, read as the genes in order of
# their first appearance: the two columns of the result that hold gene names
rank_pairs <- function(x, y) {
  ps <- as.data.frame(getExportedValue("bahsic", "pair_scores")(x, y))
  gene_cols <- names(ps)[vapply(ps, function(v) all(as.character(v) %in% colnames(x)), NA)]
  stopifnot(length(gene_cols) >= 2L)
  unique(as.vector(t(as.matrix(ps[, gene_cols[1:2]]))))
}

# bahsic(x, y, ...) with the argument that gives the default before the pair
# screen, where bahsic() has it: plain BAHSIC
plain_bahsic <- function(x, y, ...) {
  args <- list(x, y, ...)
  if (has_today()) args[[TODAY_ARG]] <- TODAY_VALUE
  do.call(bahsic, args)$ranking
}

has_pairs <- function() exists("pair_scores", asNamespace("bahsic"))
has_today <- function() TODAY_ARG %in% names(formals(bahsic:::bahsic.default))

methods_all <- function() {
  ms <- list(
    limma = rank_limma,
    hsic = rank_scores,
    fohsic = function(x, y) fohsic(x, y)$ranking,
    bahsic_dim = function(x, y) plain_bahsic(x, y, sigma = "dimension"),
    bahsic_opt = function(x, y) plain_bahsic(x, y, sigma = "optimize"),
    randsel = function(x, y) randsel(x, y)$ranking,
    ranger = rank_ranger,
    pair_scores = rank_pairs,
    bahsic_default = function(x, y) bahsic(x, y)$ranking,
    bahsic_today = plain_bahsic)
  if (!has_pairs()) ms$pair_scores <- NULL
  if (!has_today()) ms$bahsic_today <- NULL
  ms
}

applies <- function(method, p) method != "ranger" || p <= 2000

# ---- one setting ------------------------------------------------------------

# a seed per setting and repeat, the same in every mode
seed_of <- function(s, r) {
  key <- utf8ToInt(paste(s$signal, s$noise, s$p, s$m))
  (sum(key * seq_along(key)) %% 20000L) * 100L + r
}

run_setting <- function(s, methods) {
  rows <- list()
  for (r in seq_len(s$repeats)) {
    set.seed(seed_of(s, r))
    sim <- simulate_nonlinear(s$m, s$p, s$signal, rho = NOISE[[s$noise]]$rho,
                              block_size = NOISE[[s$noise]]$block_size, effect = LINEAR_EFFECT)
    for (name in names(methods)) {
      if (!applies(name, s$p)) next
      set.seed(seed_of(s, r) + 7L)
      sec <- system.time(ranking <- quiet(methods[[name]](sim$x, sim$y)))[["elapsed"]]
      rk <- match(sim$truth, ranking)
      rk[is.na(rk)] <- Inf
      rows[[length(rows) + 1L]] <- data.frame(s, rep = r, method = name, worst = max(rk),
                                              in10 = sum(rk <= 10), in20 = sum(rk <= 20),
                                              k = length(rk), sec = sec)
    }
  }
  message(sprintf("done: %s, %s, p = %d, m = %d, %d repeats", s$signal, s$noise, s$p, s$m,
                  s$repeats))
  do.call(rbind, rows)
}

summarise <- function(raw) {
  keys <- unique(raw[, c("signal", "noise", "p", "m", "method")])
  out <- lapply(seq_len(nrow(keys)), function(i) {
    d <- merge(keys[i, ], raw)
    data.frame(keys[i, ], reps = nrow(d), rank_med = stats::median(d$worst),
               rank_min = min(d$worst), rank_max = max(d$worst),
               all10 = 100 * mean(d$in10 == d$k), all20 = 100 * mean(d$in20 == d$k),
               recall10 = 100 * sum(d$in10) / sum(d$k), recall20 = 100 * sum(d$in20) / sum(d$k),
               sec = stats::median(d$sec))
  })
  do.call(rbind, out)
}

fmt_rank <- function(v) ifelse(is.finite(v), format(round(v), big.mark = ","), "-")

print_table <- function(tab) {
  for (key in unique(paste(tab$signal, tab$noise, tab$p, tab$m))) {
    d <- tab[paste(tab$signal, tab$noise, tab$p, tab$m) == key, ]
    cat(sprintf("\n%s, %s genes, p = %s, m = %d, %d repeats\n", d$signal[1], d$noise[1],
                format(d$p[1], big.mark = ","), d$m[1], d$reps[1]))
    cat(sprintf("  %-15s %7s %15s %6s %6s %6s %6s %8s\n", "method", "rank", "(min - max)",
                "all10", "all20", "rec10", "rec20", "sec/fit"))
    for (i in seq_len(nrow(d))) {
      cat(sprintf("  %-15s %7s %15s %5.0f%% %5.0f%% %5.0f%% %5.0f%% %8.2f\n", d$method[i],
                  fmt_rank(d$rank_med[i]),
                  paste0("(", fmt_rank(d$rank_min[i]), " - ", fmt_rank(d$rank_max[i]), ")"),
                  d$all10[i], d$all20[i], d$recall10[i], d$recall20[i], d$sec[i]))
    }
  }
}

# ---- the issue's targets ---------------------------------------------------

target_row <- function(tab, signal, p, method = "bahsic_default") {
  tab[tab$signal == signal & tab$noise == "indep" & tab$p == p & tab$m == 100 &
        tab$method == method, , drop = FALSE]
}

print_targets <- function(tab) {
  cat("\nTargets for bahsic(x, y) with its defaults (m = 100, independent genes):\n")
  say <- function(what, row, value, ok) {
    if (!nrow(row)) return(cat(sprintf("  %-58s not measured in this run\n", what)))
    cat(sprintf("  %-58s %s: %s\n", what, value, if (ok) "target met" else "target NOT met"))
  }
  for (t in list(list(2000, 90), list(12625, 80))) {
    row <- target_row(tab, "xor", t[[1]])
    say(sprintf("XOR pair in the top 20 in >= %d%% at p = %s", t[[2]], format(t[[1]], big.mark = ",")),
        row, sprintf("%.0f%%", row$all20), nrow(row) && row$all20 >= t[[2]])
  }
  row <- target_row(tab, "u_hazard", 12625)
  say("U-shaped gene in the top 10 in >= 90% at p = 12,625", row,
      sprintf("%.0f%%", row$all10), nrow(row) && row$all10 >= 90)
  row <- target_row(tab, "linear", 2000)
  lim <- target_row(tab, "linear", 2000, "limma")
  ok <- nrow(row) && nrow(lim) && row$recall10 >= lim$recall10 - 2 && row$recall20 >= lim$recall20 - 2
  say("linear recall (top 10, 20) within 2 points of limma's", if (nrow(lim)) row else lim[0, ],
      sprintf("%.0f%%, %.0f%% vs limma %.0f%%, %.0f%%", row$recall10, row$recall20,
              lim$recall10, lim$recall20), ok)
}

# ---- estimate: the time of `full` from one timed data set per p x m --------

print_estimate <- function(raw) {
  per_set <- stats::aggregate(sec ~ p + m, raw, sum)
  full <- grid_for("full")
  full <- merge(full, per_set)
  cat(sprintf("\nSeconds per data set (all methods, one xor data set each):\n"))
  print(per_set, row.names = FALSE)
  cat(sprintf("\nEstimated time of `full` (%d settings, %d data sets): %.1f hours (an estimate)\n",
              nrow(full), sum(full$repeats), sum(full$repeats * full$sec) / 3600))
}

# ---- main ------------------------------------------------------------------

header <- function(mode, methods) {
  commit <- tryCatch(system2("git", c("rev-parse", "--short", "HEAD"), stdout = TRUE,
                             stderr = FALSE), error = function(e) NA, warning = function(w) NA)
  cpu <- tryCatch(sub(".*:\\s*", "", grep("model name", readLines("/proc/cpuinfo"),
                                            value = TRUE)[1L]), error = function(e) NA)
  cat(sprintf("bench-nonlinear.R %s  %s\n", mode, format(Sys.time(), "%Y-%m-%d %H:%M %Z")))
  cat(sprintf("commit %s, bahsic %s from %s\n", paste(commit, collapse = ""),
              utils::packageVersion("bahsic"), dirname(find.package("bahsic"))))
  cat(sprintf("machine: %s, %d cores (nproc); %s; threads = 1\n", cpu,
              parallel::detectCores(), R.version.string))
  cat(sprintf("methods: %s\n", paste(names(methods), collapse = ", ")))
  if (!has_pairs()) cat("  (pair_scores: not in this version of bahsic)\n")
  if (!has_today()) cat(sprintf("  (bahsic_today: bahsic() has no argument '%s' in this version)\n",
                                TODAY_ARG))
}

main <- function() {
  cl <- parse_args(commandArgs(trailingOnly = TRUE))
  for (pkg in c("limma", "ranger")) {
    if (!requireNamespace(pkg, quietly = TRUE)) stop("install ", pkg, " first", call. = FALSE)
  }
  methods <- methods_all()
  if (!is.null(cl$keys$methods)) methods <- methods[intersect(cl$keys$methods, names(methods))]
  grid <- filter_grid(grid_for(cl$mode), cl$keys)
  header(cl$mode, methods)
  start <- proc.time()[["elapsed"]]
  raw <- do.call(rbind, lapply(seq_len(nrow(grid)), function(i) run_setting(grid[i, ], methods)))
  tab <- summarise(raw)
  print_table(tab)
  if (cl$mode == "estimate") print_estimate(raw) else print_targets(tab)
  cat(sprintf("\nTotal elapsed: %.1f min\n", (proc.time()[["elapsed"]] - start) / 60))
  if (!is.null(cl$keys$out)) saveRDS(list(raw = raw, table = tab), cl$keys$out)
}

main()
