# A real pair of genes that acts jointly: the search behind the vignette
# "Gene selection with bahsic", section "Genes that act jointly".
#
# Every pair of a gene set is scored in plain R by the interaction statistic
# (the second-order ANOVA part of the product Gaussian kernel):
#   genes standardised (mean 0, sd 1); K^j_ab = exp(-(x_aj - x_bj)^2 / 4)
#   (kernlab sigma = 1/4, the "dimension" width of a two-gene set);
#   Kc^j = H K^j H; W = H L H / (m - 1)^2 with L the package's label kernel
#   (default_label_kernel(y): the balanced binary kernel for two classes);
#   T_ij = sum_ab W_ab Kc^i_ab Kc^j_ab
# as one matrix product: V holds the entries a <= b of every Kc^j (one column
# per gene), w the weights W_aa on the diagonal and 2 W_ab off it, and
# T = t(V) %*% (w * V). Beside it, for the top pairs: the pair's own HSIC
# (biased, product kernel = the Gaussian kernel on the two genes, checked
# against hsic()), the two genes' ranks by per-gene HSIC (the same width)
# and by limma's moderated t, and for the pair chosen:
#   - the gamma p-value of its interaction (hsic_test() with the precomputed
#     kernel Kc^i o Kc^j, which is positive semi-definite; its moments are
#     Gretton et al.'s, which can be several times too small in the tail here),
#     a permutation p-value in plain R (labels permuted: W[q, q]), and, where
#     the installed bahsic has it, pair_scores() on the same data;
#   - leave-one-out: the interaction without each sample in turn (an
#     artefact of a few outlying samples would collapse), and the
#     permutation p-value without the 5 most influential samples;
#   - the scatter plot of the two genes coloured by class.
# The gamma and permutation p-values are those of the pair as if it had been
# chosen in advance (Bonferroni over the pairs is printed beside the gamma
# p-value). The search over all pairs is accounted for by the largest
# interaction over all pairs under `n_max` permuted labels (single-step maxT:
# the share of permutations whose largest interaction reaches the pair's;
# each costs one more product over all pairs).
#
# Data sets:
#   all_bcr: ALL (Bioconductor package ALL), B-lineage samples with BCR/ABL
#            or NEG (37 + 42 = 79), the `p` probes of largest variance over
#            these samples (a filter that does not look at the classes);
#   golub:   golub shipped with bahsic, 38 samples (ALL/AML), all 3051 genes.
#
# Usage, after installing the package (about 1 minute for all_bcr at p = 3000
# on one core of the reference BLAS; memory about 0.3 GB):
#   Rscript inst/bench/find-real-pair.R [data = all_bcr] [p = 3000] [n_perm = 20000] [outdir = .]
#     [n_max = 20]
#
# The figures quoted in the vignette (measured on a shared 2-core machine):
#   Rscript inst/bench/find-real-pair.R all_bcr 200 20000 out 500
#     the pair 995_g_at x 34676_at first of 19,900 pairs; 14 of 500 permuted
#     labellings reach its interaction with their largest one (maxT p 0.03)
#   Rscript inst/bench/find-real-pair.R all_bcr 1000 2000 out 40
#     second of 499,500 pairs; maxT p 0.07 (2 of 40); all pairs 6.3 s
#   Rscript inst/bench/find-real-pair.R all_bcr 3000 20000 out 0
#     second of 4,498,500 pairs (all pairs 32 s on an idle core)

suppressPackageStartupMessages(library(bahsic))

args <- commandArgs(trailingOnly = TRUE)
data_set <- if (length(args) >= 1L) args[1L] else "all_bcr"
p <- if (length(args) >= 2L) as.integer(args[2L]) else 3000L
n_perm <- if (length(args) >= 3L) as.integer(args[3L]) else 20000L
outdir <- if (length(args) >= 4L) args[4L] else "."
n_max <- if (length(args) >= 5L) as.integer(args[5L]) else 20L
stopifnot(data_set %in% c("all_bcr", "golub"), !is.na(p), p >= 2L, n_perm >= 1L,
          !is.na(n_max), n_max >= 0L)

load_data <- function(data_set, p) {
  if (data_set == "golub") return(list(x = golub$x, y = golub$y, what = "golub, all genes"))
  suppressPackageStartupMessages(library(ALL))
  data("ALL", package = "ALL", envir = environment())
  keep <- substr(as.character(ALL$BT), 1L, 1L) == "B" & ALL$mol.biol %in% c("BCR/ABL", "NEG")
  x <- t(Biobase::exprs(ALL))[keep, ]
  y <- factor(as.character(ALL$mol.biol[keep]), levels = c("NEG", "BCR/ABL"))
  v <- apply(x, 2L, stats::var)
  x <- x[, order(v, decreasing = TRUE)[seq_len(min(p, ncol(x)))]]
  list(x = x, y = y, what = sprintf("ALL B-lineage BCR/ABL vs NEG, top %d probes by variance",
                                    ncol(x)))
}

d <- load_data(data_set, p)
x <- scale(d$x)
y <- d$y
m <- nrow(x)
p <- ncol(x)
cat(sprintf("%s: %d samples x %d genes; %s\n", d$what, m, p,
            paste(sprintf("%s = %d", levels(y), tabulate(y)), collapse = ", ")))

centre <- function(K) {
  K <- K - rowMeans(K)
  t(t(K) - colMeans(K))
}
gene_kernel <- function(v) exp(-outer(v, v, "-")^2 / 4)
w_matrix <- function(y) centre(label_kernel_matrix(default_label_kernel(y), y)) / (m - 1)^2

W <- w_matrix(y)
upper <- which(upper.tri(W, diag = TRUE))
w <- ifelse(row(W)[upper] == col(W)[upper], 1, 2) * W[upper]

t0 <- proc.time()[["elapsed"]]
V <- matrix(0, length(upper), p)
for (j in seq_len(p)) V[, j] <- centre(gene_kernel(x[, j]))[upper]
t1 <- proc.time()[["elapsed"]]
inter <- crossprod(V, w * V)
t2 <- proc.time()[["elapsed"]]
# per-gene HSIC at the same width: sum W K^j = sum W Kc^j (W is centred)
gene_hsic <- colSums(w * V)
cat(sprintf("kernel vectors %.1f s, all %s pairs %.1f s\n", t1 - t0,
            format(p * (p - 1) / 2, big.mark = ","), t2 - t1))

# the largest interaction over all pairs, for labels y
max_interaction <- function(y) {
  Tb <- crossprod(V, (ifelse(row(W)[upper] == col(W)[upper], 1, 2) * w_matrix(y)[upper]) * V)
  diag(Tb) <- -Inf
  max(Tb)
}

# per-gene ranks: HSIC at this width, and limma's moderated t
rank_hsic <- rank(-gene_hsic, ties.method = "first")
mt <- feature_scores(d$x, y, method = "mt")
rank_mt <- mt$rank[match(colnames(x), mt$feature)]

diag(inter) <- -Inf
ut <- which(upper.tri(inter))
top <- ut[order(inter[ut], decreasing = TRUE)[1:30]]
i1 <- row(inter)[top]
i2 <- col(inter)[top]
pair_hsic <- function(i, j) sum(W * exp(-(outer(x[, i], x[, i], "-")^2 +
                                          outer(x[, j], x[, j], "-")^2) / 4))
pair_rank_gene <- function(i, j) {
  # rank of the pair's HSIC among the pairs formed by its better gene with all others
  h <- vapply(seq_len(p), function(k) if (k == i) NA_real_ else pair_hsic(i, k), numeric(1))
  sum(h > pair_hsic(i, j), na.rm = TRUE) + 1L
}
tab <- data.frame(gene1 = colnames(x)[i1], gene2 = colnames(x)[i2],
                  interaction = inter[top], rank_all_pairs = seq_along(top),
                  pair_hsic = mapply(pair_hsic, i1, i2),
                  hsic_rank1 = rank_hsic[i1], hsic_rank2 = rank_hsic[i2],
                  mt_rank1 = rank_mt[i1], mt_rank2 = rank_mt[i2])
cat("\nThe 30 pairs with the largest interaction (ranks of the genes alone among", p, "):\n")
print(format(tab, digits = 3), row.names = FALSE)

# the pair: the largest interaction whose two genes are both outside the top
# 5% of either per-gene ranking (unremarkable alone)
quiet <- pmin(tab$hsic_rank1, tab$hsic_rank2, tab$mt_rank1, tab$mt_rank2) > 0.05 * p
k <- if (any(quiet)) which(quiet)[1L] else 1L
gi <- i1[k]
gj <- i2[k]
cat(sprintf("\nThe pair: %s x %s (rank %d by interaction among all pairs)\n",
            colnames(x)[gi], colnames(x)[gj], k))

Ki <- centre(gene_kernel(x[, gi]))
Kj <- centre(gene_kernel(x[, gj]))
M <- Ki * Kj
stat <- function(W) sum(W * M)
obs <- stat(W)
h_pkg <- hsic(x[, c(gi, gj)], y, kernel = kernel_gaussian(sigma = 1 / 4), estimator = "biased")
cat(sprintf("interaction %.4g; pair HSIC %.4g (hsic(): %.4g); genes alone: HSIC %.4g and %.4g\n",
            obs, pair_hsic(gi, gj), h_pkg$estimate, gene_hsic[gi], gene_hsic[gj]))
cat(sprintf("genes alone, rank among %d: HSIC %d and %d, moderated t %d and %d\n", p,
            rank_hsic[gi], rank_hsic[gj], rank_mt[gi], rank_mt[gj]))
cat(sprintf("rank of the pair's HSIC among the pairs of %s: %d of %d\n",
            colnames(x)[gi], pair_rank_gene(gi, gj), p - 1L))

g_int <- hsic_test(x[, 1:2], y, kernel = kernel_precomputed(M), method = "gamma")$p.value
g_pair <- hsic_test(x[, c(gi, gj)], y, kernel = kernel_gaussian(sigma = 1 / 4),
                    method = "gamma")$p.value
n_pairs <- p * (p - 1) / 2
cat(sprintf(paste0("gamma p-values of hsic_test() (Gretton et al.'s moments): interaction %.3g ",
                   "(x %s pairs: %.3g), pair HSIC %.3g\n"),
            g_int, format(n_pairs, big.mark = ","), min(1, g_int * n_pairs), g_pair))
if (exists("pair_scores", envir = asNamespace("bahsic"))) {
  # the package's own scores of the same pairs (gamma with exact permutation moments)
  ps <- pair_scores(d$x, y, top = 5L, threads = 1L)
  cat("pair_scores(x, y, top = 5):\n")
  print(ps)
}

# permuting the labels permutes the rows and columns of W
perm_stats <- function(M, W, n_perm) {
  m <- nrow(W)
  vapply(seq_len(n_perm), function(b) {
    q <- sample.int(m)
    sum(W[q, q] * M)
  }, numeric(1))
}
set.seed(1)
null <- perm_stats(M, W, n_perm)
cat(sprintf("permutation p-value of the interaction (%d permutations): %.4g\n",
            n_perm, (1 + sum(null >= obs)) / (1 + n_perm)))

if (n_max > 0L) {
  set.seed(2)
  max_null <- vapply(seq_len(n_max), function(b) max_interaction(sample(y)), numeric(1))
  cat(sprintf(paste0("largest interaction over all pairs, %d permuted labels: median %.4g, ",
                     "max %.4g; maxT p-value of the pair %.3g, of the top pair %.3g\n"),
              n_max, stats::median(max_null), max(max_null),
              (1 + sum(max_null >= obs)) / (1 + n_max),
              (1 + sum(max_null >= tab$interaction[1L])) / (1 + n_max)))
}

# leave one out: the interaction of the pair on m - 1 samples
loo <- vapply(seq_len(m), function(a) {
  ya <- y[-a]
  Wa <- centre(label_kernel_matrix(default_label_kernel(ya), ya)) / (m - 2)^2
  sum(Wa * centre(gene_kernel(x[-a, gi])) * centre(gene_kernel(x[-a, gj])))
}, numeric(1))
cat(sprintf("leave one out: interaction from %.3g to %.3g of the full value (median %.3g)\n",
            min(loo) / obs, max(loo) / obs, stats::median(loo) / obs))
drop <- order(loo)[1:5]
keep <- setdiff(seq_len(m), drop)
yk <- y[keep]
Mk <- centre(gene_kernel(x[keep, gi])) * centre(gene_kernel(x[keep, gj]))
Wk <- centre(label_kernel_matrix(default_label_kernel(yk), yk)) / (length(keep) - 1)^2
obs_k <- sum(Wk * Mk)
null_k <- perm_stats(Mk, Wk, n_perm)
cat(sprintf("without the 5 most influential samples (%s): interaction %.4g, permutation p %.4g\n",
            paste(rownames(x)[drop], collapse = ", "), obs_k,
            (1 + sum(null_k >= obs_k)) / (1 + n_perm)))

# class means by quadrant of the two genes (signs of the standardised values)
quad <- interaction(ifelse(x[, gi] > 0, "high", "low"), ifelse(x[, gj] > 0, "high", "low"),
                    sep = "/")
cat("\nclasses by quadrant (gene1/gene2 above or below its mean):\n")
print(table(quadrant = quad, class = y))

dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
png(file.path(outdir, sprintf("pair-%s.png", data_set)), width = 600, height = 560)
plot(d$x[, gi], d$x[, gj], col = c("steelblue", "darkorange")[y], pch = 19,
     xlab = colnames(x)[gi], ylab = colnames(x)[gj],
     main = sprintf("%s: interaction rank %d", d$what, k), cex.main = 0.9)
legend("topright", levels(y), col = c("steelblue", "darkorange"), pch = 19, bty = "n")
invisible(dev.off())
saveRDS(list(table = tab, pair = colnames(x)[c(gi, gj)], data = data_set, p = p,
             null = null, loo = loo,
             max_null = if (n_max > 0L) max_null),
        file.path(outdir, sprintf("pair-%s.rds", data_set)))
cat("\nwrote", file.path(outdir, sprintf("pair-%s.png", data_set)), "\n")
