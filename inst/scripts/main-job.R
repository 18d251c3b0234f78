# bahsic main job: score every gene of a leukaemia microarray data set by limma's moderated t
# and by per-gene HSIC with a Gaussian kernel, and compare the two rankings.
#
#   Rscript inst/scripts/main-job.R [outdir]          (default outdir: bahsic-output)
#   Rscript -e 'source(system.file("scripts", "main-job.R", package = "bahsic"))'
#
# Data: the Bioconductor ALL data set (B- versus T-lineage acute lymphoblastic leukaemia,
# 128 samples x 12625 probes) when the ALL package is installed, otherwise the Golub et al.
# (1999) ALL/AML data shipped with bahsic (38 samples x 3051 genes).
# Writes <outdir>/scores.csv (every gene: moderated t and HSIC with their ranks) and
# <outdir>/scores.png (moderated t against HSIC, top 20 by moderated t labelled).

main <- function(outdir = "bahsic-output", n_top = 20L) {
  t0 <- proc.time()[["elapsed"]]
  op <- options(width = max(getOption("width"), 120L))
  on.exit(options(op))
  if (!requireNamespace("bahsic", quietly = TRUE)) {
    stop("bahsic is not installed: run R CMD INSTALL . in its source directory", call. = FALSE)
  }

  d <- load_data()
  cat(sprintf("bahsic %s: main job\n", utils::packageVersion("bahsic")))
  cat(sprintf("Data: %s\n", d$name))
  cat(sprintf("      %d samples x %d genes; classes: %s\n", nrow(d$x), ncol(d$x),
              paste(sprintf("%s = %d", levels(d$y), tabulate(d$y, nlevels(d$y))),
                    collapse = ", ")))

  mt <- bahsic::feature_scores(d$x, d$y, method = "mt")
  hs <- bahsic::feature_scores(d$x, d$y, method = "hsic")
  stopifnot(identical(mt$feature, hs$feature))

  tab <- data.frame(
    feature = mt$feature,
    moderated_t = mt$score,
    rank_mt = mt$rank,
    hsic = hs$score,
    rank_hsic = hs$rank,
    stringsAsFactors = FALSE
  )
  if (!is.null(d$description)) tab$description <- d$description
  tab <- tab[order(tab$rank_mt), , drop = FALSE]
  rownames(tab) <- NULL
  n_top <- min(n_top, nrow(tab))
  top <- tab[seq_len(n_top), , drop = FALSE]

  cat(sprintf("\nTop %d genes by the moderated t (%s vs %s), with their rank by per-gene HSIC",
              n_top, levels(d$y)[2L], levels(d$y)[1L]))
  cat(" (Gaussian kernel, median-heuristic width):\n")
  left <- function(s) format(s, justify = "left")
  shown <- data.frame(
    rank = top$rank_mt,
    gene = left(top$feature),
    moderated_t = sprintf("%.2f", top$moderated_t),
    hsic = sprintf("%.3g", top$hsic),
    rank_hsic = top$rank_hsic
  )
  if (!is.null(top$description)) shown$description <- left(substr(top$description, 1L, 40L))
  print(shown, row.names = FALSE)

  both <- sum(top$rank_hsic <= n_top)
  rho <- stats::cor(tab$rank_mt, tab$rank_hsic, method = "spearman")
  cat(sprintf("\n%d of the top %d genes by moderated t are also in the top %d by HSIC;",
              both, n_top, n_top))
  cat(sprintf(" Spearman correlation of the two rankings over all genes: %.3f\n", rho))

  dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
  csv <- file.path(outdir, "scores.csv")
  utils::write.csv(tab, csv, row.names = FALSE)
  png_file <- file.path(outdir, "scores.png")
  plot_scores(tab, n_top, d$name, png_file)

  cat(sprintf("\nWrote %s (%d genes) and %s\n", csv, nrow(tab), png_file))
  cat(sprintf("Done in %.1f s\n", proc.time()[["elapsed"]] - t0))
  invisible(tab)
}

# ALL (B vs T lineage) if installed, else the Golub data shipped with bahsic.
load_data <- function() {
  if (requireNamespace("ALL", quietly = TRUE) && requireNamespace("Biobase", quietly = TRUE)) {
    e <- new.env()
    utils::data("ALL", package = "ALL", envir = e)
    eset <- e$ALL
    return(list(
      name = "ALL (Bioconductor package ALL): B- vs T-lineage acute lymphoblastic leukaemia",
      x = t(Biobase::exprs(eset)),
      y = factor(substr(as.character(eset$BT), 1L, 1L)),
      description = NULL
    ))
  }
  e <- new.env()
  utils::data("golub", package = "bahsic", envir = e)
  g <- e$golub
  list(
    name = paste("golub (shipped with bahsic; the ALL package is not installed):",
                 "Golub et al. (1999) ALL vs AML"),
    x = g$x,
    y = g$y,
    description = g$genes$description
  )
}

plot_scores <- function(tab, n_top, title, file) {
  if (isTRUE(capabilities("cairo"))) {
    grDevices::png(file, width = 1600, height = 1200, res = 150, type = "cairo")
  } else {
    grDevices::png(file, width = 1600, height = 1200, res = 150)
  }
  on.exit(grDevices::dev.off())
  top <- seq_len(n_top)
  graphics::par(mar = c(4.5, 4.5, 3, 1))
  graphics::plot(tab$moderated_t[-top], tab$hsic[-top],
                 pch = 16, cex = 0.5, col = grDevices::adjustcolor("grey40", 0.4),
                 xlim = range(tab$moderated_t, na.rm = TRUE),
                 ylim = range(tab$hsic, na.rm = TRUE),
                 xlab = "moderated t (limma)",
                 ylab = "per-gene HSIC (Gaussian kernel)",
                 main = sub(":.*", "", title))
  graphics::points(tab$moderated_t[top], tab$hsic[top], pch = 16, cex = 0.9, col = "red3")
  graphics::text(tab$moderated_t[top], tab$hsic[top], labels = tab$feature[top],
                 pos = ifelse(tab$moderated_t[top] > 0, 2, 4), cex = 0.55, col = "red4",
                 xpd = NA)
  graphics::legend("top", bty = "n", pch = 16, col = c("red3", "grey40"),
                   legend = c(sprintf("top %d by moderated t", n_top), "other genes"),
                   cex = 0.8, horiz = TRUE)
}

args <- commandArgs(trailingOnly = TRUE)
main(if (length(args) >= 1L) args[[1L]] else "bahsic-output")
