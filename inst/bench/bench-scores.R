# The everyday per-gene statistics against what their users would call
# otherwise, each side timed as its user calls it, on the ALL data (Chiaretti
# et al. 2004; Bioconductor package ALL): 128 samples x 12,625 genes, B- vs
# T-lineage, from the samples x genes matrix x = t(exprs(ALL)):
#
#   statistic       bahsic                                peer (and target: ours / peer)
#   t (Welch)       feature_scores(x, y, method = "t")    genefilter::rowttests(t(x), y)  (<= 0.5)
#   t (pooled)      ... method = "t", var_equal = TRUE    genefilter::rowttests(t(x), y)  (<= 0.5)
#   mt, lods        ... method = "mt" / "lods"            limma::eBayes(limma::lmFit(t(x),
#                                                           model.matrix(~ y)))           (<= 0.2)
#   pc              feature_scores(x, y01, method = "pc") stats::cor(x, y01)              (<= 1)
#
# y01 is the 0/1 indicator of T. The peers' times include their own t(x), as
# their users must transpose a samples x genes matrix. genefilter has no Welch
# t: the Welch row is timed against the same rowttests() call (the test its
# user reaches for) and its numbers are checked against stats::t.test(), gene
# by gene.
#
# A time is the median over `reps` measurements of the mean time of a batch of
# calls long enough (~0.2 s) for the clock; max_diff is the largest absolute
# difference between our score and the reference (rowttests reports class 1
# minus class 2, bahsic 2 minus 1: its statistic is negated). The machine's
# load average is printed: on a shared machine, run it when the load is low.
#
# Run after installing the package:  Rscript inst/bench/bench-scores.R [reps]

suppressPackageStartupMessages({
  library(bahsic)
  library(ALL)
  library(genefilter)
  library(limma)
})

args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1L]) else 15L

data(ALL)
x <- t(Biobase::exprs(ALL))                    # samples x genes, as the user holds it
y <- factor(substr(ALL$BT, 1, 1))              # B, T
y01 <- as.double(y == "T")

batch_time <- function(f, reps, min_sec = 0.2) {
  f()                                          # warm-up: byte compiling, page faults
  n <- 1L
  repeat {
    el <- system.time(for (i in seq_len(n)) f())[["elapsed"]]
    if (el >= min_sec || n >= 1024L) break
    n <- n * 2L
  }
  stats::median(vapply(seq_len(reps), function(r) {
    system.time(for (i in seq_len(n)) f())[["elapsed"]] / n
  }, numeric(1)))
}

peer_tt <- function() genefilter::rowttests(t(x), y)$statistic
peer_eb <- function() limma::eBayes(limma::lmFit(t(x), stats::model.matrix(~y)))
peer_cor <- function() stats::cor(x, y01)
ours <- function(method, outcome = y, ...) {
  function() feature_scores(x, outcome, method = method, ...)$score
}

runs <- list(
  "t (Welch)" = list(peer = "genefilter::rowttests", pf = peer_tt, of = ours("t"),
                     target = 0.5),
  "t (pooled)" = list(peer = "genefilter::rowttests", pf = peer_tt,
                      of = ours("t", var_equal = TRUE), target = 0.5),
  "mt" = list(peer = "limma lmFit+eBayes", pf = peer_eb, of = ours("mt"), target = 0.2),
  "lods" = list(peer = "limma lmFit+eBayes", pf = peer_eb, of = ours("lods"), target = 0.2),
  "pc" = list(peer = "stats::cor", pf = peer_cor, of = ours("pc", y01), target = 1)
)

# the numbers must agree before their speed means anything
fit <- peer_eb()
welch <- vapply(seq_len(ncol(x)), function(j) {
  unname(stats::t.test(x[y == "T", j], x[y == "B", j])$statistic)
}, numeric(1))
reference <- list(
  "t (Welch)" = welch,
  "t (pooled)" = -peer_tt(),
  "mt" = fit$t[, 2],
  "lods" = fit$lods[, 2],
  "pc" = peer_cor()[, 1]
)

out <- do.call(rbind, lapply(names(runs), function(s) {
  r <- runs[[s]]
  peer_sec <- batch_time(r$pf, reps)
  our_sec <- batch_time(r$of, reps)
  data.frame(statistic = s, peer = r$peer, peer_ms = 1000 * peer_sec,
             bahsic_ms = 1000 * our_sec, ratio = our_sec / peer_sec, target = r$target,
             max_diff = max(abs(r$of() - unname(reference[[s]]))),
             stringsAsFactors = FALSE)
}))
out$met <- ifelse(out$ratio <= out$target, "yes", "no")
load <- if (file.exists("/proc/loadavg")) {
  paste(utils::head(scan("/proc/loadavg", what = "", quiet = TRUE), 3), collapse = " ")
} else {
  "unknown"
}
cat(sprintf("ALL: %d samples x %d genes (B %d, T %d); median of %d timings; load average %s\n",
            nrow(x), ncol(x), sum(y == "B"), sum(y == "T"), reps, load))
print(out, digits = 3, row.names = FALSE)

# ---- rank scores -----------------------------------------------------------------
# The Wilcoxon rank-sum test of every gene on one thread, the whole user call
# feature_scores(x, y, method = "wilcoxon", threads = 1), against
# matrixTests::row_wilcoxon_twosample() (CRAN; genes in rows, so its time
# includes t(x)), both with the normal approximation and the continuity
# correction; targets: at most 0.15 s, and faster than matrixTests. Skipped
# without matrixTests. W and the p-values are checked against it first.
if (requireNamespace("matrixTests", quietly = TRUE)) {
  peer_w <- function() {
    tx <- t(x)
    matrixTests::row_wilcoxon_twosample(tx[, y == "T"], tx[, y == "B"], exact = FALSE,
                                        correct = TRUE)
  }
  ours_w <- function() feature_scores(x, y, method = "wilcoxon", threads = 1)
  ref <- peer_w()
  got <- ours_w()
  w_peer <- batch_time(peer_w, reps)
  w_ours <- batch_time(ours_w, reps)
  # the processor time of the same calls (user + system, median of reps):
  # on a loaded machine the elapsed time counts the other processes too
  cpu <- function(f) {
    stats::median(vapply(seq_len(reps), function(r) {
      sum(system.time(f())[c("user.self", "sys.self")])
    }, numeric(1)))
  }
  c_ours <- cpu(ours_w)
  c_peer <- cpu(peer_w)
  cat(sprintf(paste0("\nWilcoxon rank-sum, one thread: bahsic %.1f ms (target <= 150), ",
                     "matrixTests::row_wilcoxon_twosample %.1f ms, ratio %.3f (target < 1); ",
                     "processor time %.1f ms and %.1f ms, ratio %.3f; ",
                     "max |W - W_peer| %.3g, max |p - p_peer| %.3g\n"),
              1000 * w_ours, 1000 * w_peer, w_ours / w_peer, 1000 * c_ours, 1000 * c_peer,
              c_ours / c_peer, max(abs(got$statistic - ref$statistic)),
              max(abs(got$p_value - ref$pvalue))))
} else {
  cat("\nWilcoxon rank-sum: matrixTests is not installed, no comparison.\n")
}

# ---- time in C: the whole call against one read of the matrix ---------------------
# feature_scores() with method "t", "mt" and "pc" and their p-value columns
# (statistic, effect, mean, p_value, adj_p_value with the default adjust =
# "BH"), one thread, against one read of the matrix from memory; target:
# at most 2 reads. The read is colSums(x): R's own single pass over every
# value, what a user of R knows as reading the matrix (a plain C sum is
# faster, and it is printed too: bahsic's finiteness scan, C_first_nonfinite,
# the check the scoring pass replaces, which reads each value once). Each of
# `runs` (at least 50) rounds times one read, one scan and one call of each
# method, back to back, with a sub-millisecond clock (Sys.time(), whose
# resolution is a microsecond here); a ratio is a call over the read of its
# own round (the load of a shared machine drifts between rounds), and the
# figures are medians over the rounds. The processor time (user + system)
# of batches of the same calls is printed beside them: on a loaded machine
# the elapsed time counts the other processes too. The ranks, p-values and
# adjusted p-values are checked against R's order(), pt() and p.adjust() first.
runs <- max(50L, 4L * reps)
yy <- list(t = y, mt = y, pc = y01)
check_c <- function(s, df) {
  key <- abs(s$score)
  rank <- integer(length(key))
  rank[order(-key, na.last = TRUE, method = "radix")] <- seq_along(key)
  stopifnot(identical(s$rank, rank),
            identical(s$adj_p_value, stats::p.adjust(s$p_value, "BH")))
  if (!is.null(df)) stopifnot(identical(s$p_value, 2 * stats::pt(-abs(s$statistic), df)))
}
fits <- lapply(names(yy), function(mth) feature_scores(x, yy[[mth]], method = mth, threads = 1))
names(fits) <- names(yy)
check_c(fits$t, NULL)
check_c(fits$mt, NULL)
check_c(fits$pc, nrow(x) - 2)
c_scan <- function() .Call(bahsic:::C_first_nonfinite, x)
# The parts no version of this interface can skip, timed in the same rounds:
# the pass over the data (class moments; pc: the correlations), R's pt() on
# the statistics (t: with Welch's t, C_t_from_moments), the two sorts (ranks,
# and the BH adjustment's order of the p-values where it is not the ranks'),
# and the fixed cost of a call (on 10 genes: the argument checks, the outcome,
# the result). Their sum, in reads, is the floor of a call as it is built.
ns <- asNamespace("bahsic")
yi <- as.integer(y)
mom <- .Call(ns$C_feature_moments, x, yi, 2L)
x10 <- x[, 1:10]
# the moderated t and its df as feature_scores() computes them
eb <- ns$moderated_t(c(ns$combine_moments(list(mom)), list(m = nrow(x), levels = levels(y))),
                     "mt", lods = FALSE)
stopifnot(identical(unname(eb$t), fits$mt$statistic))
part_calls <- list(
  pass_moments = function() .Call(ns$C_feature_moments, x, yi, 2L),
  pass_cor = function() .Call(ns$C_feature_cor, x, y01),
  p_t = function() .Call(ns$C_t_from_moments, mom$mean, mom$ss, mom$n, as.double(nrow(x)),
                         FALSE),
  p_mt = function() .Call(ns$C_two_sided_t, eb$t, eb$df_total),
  p_pc = function() .Call(ns$C_cor_test, fits$pc$score, as.double(nrow(x) - 2)),
  rank = function() .Call(ns$C_rank_desc, abs(fits$t$score), NULL),
  bh_sort = function() .Call(ns$C_p_adjust_bh, fits$t$p_value, NULL),
  fixed_t = function() feature_scores(x10, y, method = "t", threads = 1),
  fixed_mt = function() feature_scores(x10, y, method = "mt", threads = 1),
  fixed_pc = function() feature_scores(x10, y01, method = "pc", threads = 1)
)
calls <- c(list(read = function() colSums(x), scan = c_scan),
           lapply(names(yy), function(mth) {
             force(mth)
             function() feature_scores(x, yy[[mth]], method = mth, threads = 1)
           }))
names(calls)[3:5] <- names(yy)
# `runs` rounds of the calls back to back, after one warm-up call each:
# seconds, one row per call
now <- function() as.numeric(Sys.time())
time_rounds <- function(calls) {
  for (f in calls) f()
  vapply(seq_len(runs), function(r) {
    vapply(calls, function(f) {
      t0 <- now()
      f()
      now() - t0
    }, numeric(1))
  }, numeric(length(calls)))
}
secs <- time_rounds(calls)
cpu_ms <- vapply(calls, function(f) {
  n <- 20L
  stats::median(vapply(seq_len(5L), function(b) {
    p <- proc.time()
    for (i in seq_len(n)) f()
    q <- proc.time() - p
    1000 * (q[["user.self"]] + q[["sys.self"]]) / n
  }, numeric(1)))
}, numeric(1))
med_ms <- 1000 * apply(secs, 1L, stats::median)
ratio <- apply(secs[names(yy), , drop = FALSE] / rep(secs["read", ], each = length(yy)), 1L,
               stats::median)
ratio_scan <- apply(secs[names(yy), , drop = FALSE] / rep(secs["scan", ], each = length(yy)),
                    1L, stats::median)
tc <- data.frame(method = names(yy), ms = med_ms[names(yy)], reads = ratio,
                 target = 2, met = ifelse(ratio <= 2, "yes", "no"),
                 c_scans = ratio_scan, cpu_ms = cpu_ms[names(yy)],
                 cpu_reads = cpu_ms[names(yy)] / cpu_ms[["read"]], row.names = NULL)
load <- if (file.exists("/proc/loadavg")) {
  paste(utils::head(scan("/proc/loadavg", what = "", quiet = TRUE), 3), collapse = " ")
} else {
  "unknown"
}
cat(sprintf(paste0("\nTime in C, one thread, median of %d rounds: one read (colSums) %.3f ms, ",
                   "the C scan %.3f ms (processor time %.3f and %.3f ms); load average %s\n"),
            runs, med_ms[["read"]], med_ms[["scan"]], cpu_ms[["read"]], cpu_ms[["scan"]], load))
print(tc, digits = 3, row.names = FALSE)

# the floor: the parts above, in rounds of their own (so that their garbage
# does not fall on the calls of the table above), with one read and the
# three calls again, each the median of its rounds, in reads of the median
# read; `rest` is what the call spends beyond them (R's handling of whole
# vectors: names, outcome, limma's prior, columns)
secs <- time_rounds(c(calls[c("read", names(yy))], part_calls))
med_ms <- 1000 * apply(secs, 1L, stats::median)
part_ms <- function(nm) med_ms[[nm]]
floor_ms <- c(t = part_ms("pass_moments") + part_ms("p_t") + part_ms("rank") +
                part_ms("bh_sort") + part_ms("fixed_t"),
              mt = part_ms("pass_moments") + part_ms("p_mt") + part_ms("rank") +
                part_ms("fixed_mt"),
              pc = part_ms("pass_cor") + part_ms("p_pc") + part_ms("rank") +
                part_ms("fixed_pc"))
pass <- c(t = "pass_moments", mt = "pass_moments", pc = "pass_cor")
fl <- data.frame(method = names(yy),
                 pass_ms = med_ms[pass[names(yy)]],
                 p_values_ms = med_ms[paste0("p_", names(yy))],
                 sorts_ms = med_ms[["rank"]] + c(t = med_ms[["bh_sort"]], mt = 0, pc = 0),
                 fixed_ms = med_ms[paste0("fixed_", names(yy))],
                 floor_reads = floor_ms[names(yy)] / med_ms[["read"]],
                 call_reads = med_ms[names(yy)] / med_ms[["read"]],
                 rest_ms = med_ms[names(yy)] - floor_ms[names(yy)], row.names = NULL)
cat(paste0("\nWhat a call is made of (medians of the same rounds, ms): the pass over the data, ",
           "the p-values (R's pt()), the sorts (ranks; t also the BH order: its p-values on ",
           "Welch's df are not in the order of |t|), the fixed cost of a call (10 genes); their ",
           "sum is the floor of a call as built, in reads\n"))
print(fl, digits = 3, row.names = FALSE)

# What a call asks of the memory: the bytes of the vectors over 128 bytes it
# allocates (utils::Rprofmem(), where R was built with memory profiling; the
# small ones come from R's own pages, which it reports apart) and the minor
# page faults it takes (Linux: /proc/self/stat), per call after warm-up calls.
# Both are counts, not timings: they do not drift with the load of a shared
# machine. Fewer bytes mean fewer garbage collections; a page fault is fresh
# memory from the system (for a vector of more than 128 kB, glibc's malloc()
# maps new pages unless it has just freed as large a block).
minor_faults <- function() {
  if (!file.exists("/proc/self/stat")) return(NA_real_)
  as.numeric(strsplit(readLines("/proc/self/stat"), " ")[[1L]][10L])
}
alloc_mb <- function(f) {
  if (!capabilities("profmem")) return(NA_real_)
  file <- tempfile()
  on.exit(unlink(file))
  utils::Rprofmem(file, threshold = 0)
  f()
  utils::Rprofmem(NULL)
  bytes <- suppressWarnings(as.numeric(sub(" :.*", "", readLines(file))))
  sum(bytes, na.rm = TRUE) / 1e6
}
mem <- t(vapply(names(yy), function(mth) {
  f <- calls[[mth]]
  for (i in 1:20) f()
  mb <- alloc_mb(f)
  f0 <- minor_faults()
  for (i in 1:200) f()
  c(alloc_mb = mb, page_faults = (minor_faults() - f0) / 200)
}, numeric(2)))
cat("\nMemory of a call (allocated by R's vectors, MB; minor page faults, mean of 200 calls)\n")
print(data.frame(method = names(yy), mem, row.names = NULL), digits = 3, row.names = FALSE)
