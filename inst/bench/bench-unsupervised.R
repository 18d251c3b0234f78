# Unsupervised selection (unsupervised = TRUE; Song et al. 2012, section 10) on data driven by
# latent factors: 20 simulated data sets (seeds 1..20) of m = 60 samples,
# three factors each loading on its own group of six features (a, b, c;
# noise sd 0.5) and six pure-noise features (n). For BAHSIC, FOHSIC and
# BAHSIC with a linear label kernel it counts the data sets in which
#   top 3 / top 6: the top 3 (6) features cover all three factors and hold
#                  no noise feature;
#   noise last:    the six noise features rank last.
# The figures quoted in the framework vignette come from this script.
#
# Usage, after installing the package: Rscript inst/bench/bench-unsupervised.R

suppressPackageStartupMessages(library(bahsic))

latent_data <- function(seed, m = 60) {
  set.seed(seed)
  f <- matrix(rnorm(m * 3), m, 3)
  x <- cbind(f[, 1] + matrix(rnorm(m * 6, sd = 0.5), m, 6),
             f[, 2] + matrix(rnorm(m * 6, sd = 0.5), m, 6),
             f[, 3] + matrix(rnorm(m * 6, sd = 0.5), m, 6),
             matrix(rnorm(m * 6), m, 6))
  colnames(x) <- c(paste0("a", 1:6), paste0("b", 1:6), paste0("c", 1:6), paste0("n", 1:6))
  x
}
group <- function(r) substr(r, 1, 1)
covers <- function(r, k) {
  g <- group(r[seq_len(k)])
  all(c("a", "b", "c") %in% g) && !any(g == "n")
}
noise_last <- function(r) all(group(utils::tail(r, 6)) == "n")

selectors <- list(
  "BAHSIC" = function(x) bahsic(x, unsupervised = TRUE),
  "FOHSIC" = function(x) fohsic(x, unsupervised = TRUE),
  "BAHSIC, linear label kernel" = function(x) {
    bahsic(x, unsupervised = TRUE, kernel_y = label_kernel_regression(kernel_linear()))
  })

seeds <- 1:20
cat(sprintf("unsupervised selection, %d data sets (60 samples, 3 factors x 6 features + 6 noise)\n",
            length(seeds)))
cat(sprintf("  %-30s %6s %6s %11s %8s\n", "selector", "top 3", "top 6", "noise last", "seconds"))
for (nm in names(selectors)) {
  t <- system.time(counts <- rowSums(vapply(seeds, function(s) {
    r <- selectors[[nm]](latent_data(s))$ranking
    c(covers(r, 3), covers(r, 6), noise_last(r))
  }, logical(3))))[["elapsed"]]
  cat(sprintf("  %-30s %3d/%d %3d/%d %8d/%d %8.2f\n", nm, counts[1], length(seeds), counts[2],
              length(seeds), counts[3], length(seeds), t))
}
