# BAHSIC and FOHSIC (add = 0.1) on ALL B vs T (128 x 12625), full ranking,
# 2 and 1 threads, 5 runs each: for comparing two builds of the package
# before and after a change that must not slow the loop (within 5%), run
# alternately on a quiet machine:
#
#   for i in 1 2; do for lib in LIB_BEFORE LIB_AFTER; do
#     Rscript inst/bench/bench-compare.R $lib; done; done
#
# where LIB_* are libraries the two builds were installed into
# (R CMD INSTALL -l LIB .). Prints the minimum and median elapsed seconds.
args <- commandArgs(trailingOnly = TRUE)
lib <- if (length(args)) args[1L] else .libPaths()[1L]
suppressPackageStartupMessages({
  library(bahsic, lib.loc = lib)
  library(ALL)
})
data(ALL)
x <- t(Biobase::exprs(ALL))
y <- factor(substr(as.character(ALL$BT), 1, 1))
invisible(fohsic(x[, 1:500], y, threads = 2L)) # warm up
for (th in c(2L, 1L)) {
  t_fo <- replicate(5, system.time(fohsic(x, y, add = 0.1, threads = th))[["elapsed"]])
  t_ba <- replicate(5, system.time(bahsic(x, y, threads = th))[["elapsed"]])
  cat(sprintf("%s threads = %d: fohsic min %.3f med %.3f s | bahsic min %.3f med %.3f s\n",
              lib, th, min(t_fo), stats::median(t_fo), min(t_ba), stats::median(t_ba)))
}
