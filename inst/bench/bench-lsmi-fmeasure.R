# F-measure of l1_lsmi(), l1_hsic() and bahsic() on the l1-LSMI slides' toy
# data (n = 400, 10 draws, seeds 101-110), as in the slides' table;
# tests/testthat/test-select-l1.R asserts its ordering on the first
# three sets. About 2 minutes.
#
# Usage, after installing the package: Rscript inst/bench/bench-lsmi-fmeasure.R
library(bahsic)
f_measure <- function(sel, rel) { tp <- length(intersect(sel, rel)); if (tp == 0) 0 else 2 * tp / (length(sel) + length(rel)) }
sets <- c("andor", "quad", "xor10", "3clusters")
f <- array(NA_real_, c(10, 4, 3), list(NULL, sets, c("l1_lsmi", "l1_hsic", "bahsic")))
for (r in 1:10) for (s in sets) {
  set.seed(100 + r); sim <- get(paste0("simulate_", s))(400)
  k <- length(sim$relevant); rel <- colnames(sim$x)[sim$relevant]
  f[r, s, "l1_lsmi"] <- f_measure(selected(l1_lsmi(sim$x, sim$y, k), k), rel)
  f[r, s, "l1_hsic"] <- f_measure(selected(l1_hsic(sim$x, sim$y, k), k), rel)
  f[r, s, "bahsic"] <- f_measure(selected(bahsic(sim$x, sim$y), k), rel)
}
print(round(apply(f, c(2, 3), mean), 2))
