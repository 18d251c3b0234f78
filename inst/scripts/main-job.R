# bahsic main job: select genes of a leukaemia microarray data set by BAHSIC (backward
# elimination with HSIC, Gaussian kernel) and compare with limma's moderated t.
#
#   Rscript inst/scripts/main-job.R [outdir]          (default outdir: bahsic-output)
#   Rscript -e 'source(system.file("scripts", "main-job.R", package = "bahsic"))'
#
# Data: the Bioconductor ALL data set (B- versus T-lineage acute lymphoblastic leukaemia,
# 128 samples x 12625 probes) when the ALL package is installed, otherwise the Golub et al.
# (1999) ALL/AML data shipped with bahsic (38 samples x 3051 genes).
# Writes <outdir>/bahsic.csv (every gene: BAHSIC rank and score, moderated t and its rank) and
# <outdir>/bahsic-path.png (HSIC of the surviving genes along the elimination, and the ranks
# of the top 20 genes by moderated t).

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

  t_sel <- proc.time()[["elapsed"]]
  fit <- bahsic::bahsic(d$x, d$y)
  t_sel <- proc.time()[["elapsed"]] - t_sel
  mt <- bahsic::feature_scores(d$x, d$y, method = "mt")
  stopifnot(identical(fit$features$feature, mt$feature))

  tab <- data.frame(
    feature = fit$features$feature,
    rank_bahsic = fit$features$rank,
    score_bahsic = fit$features$score,
    moderated_t = mt$score,
    rank_mt = mt$rank,
    stringsAsFactors = FALSE
  )
  if (!is.null(d$description)) tab$description <- d$description
  tab <- tab[order(tab$rank_bahsic), , drop = FALSE]
  rownames(tab) <- NULL
  n_top <- min(n_top, nrow(tab))
  top <- tab[seq_len(n_top), , drop = FALSE]

  cat(sprintf("\nBAHSIC (Gaussian kernel, width 1/(2 d), 10%% eliminated per iteration) ranked %d genes in %.1f s.\n",
              nrow(tab), t_sel))
  cat(sprintf("Top %d genes; score = HSIC of the surviving genes without this one when it left;", n_top))
  cat(" rank_mt = rank by limma's moderated t:\n")
  left <- function(s) format(s, justify = "left")
  shown <- data.frame(
    rank = top$rank_bahsic,
    gene = left(top$feature),
    score = sprintf("%.4g", top$score_bahsic),
    moderated_t = sprintf("%.2f", top$moderated_t),
    rank_mt = top$rank_mt
  )
  if (!is.null(top$description)) shown$description <- left(substr(top$description, 1L, 40L))
  print(shown, row.names = FALSE)

  both <- sum(top$rank_mt <= n_top)
  cat(sprintf("\n%d of the top %d genes by BAHSIC are also in the top %d by moderated t.\n",
              both, n_top, n_top))

  dir.create(outdir, showWarnings = FALSE, recursive = TRUE)
  csv <- file.path(outdir, "bahsic.csv")
  utils::write.csv(tab, csv, row.names = FALSE)
  png_file <- file.path(outdir, "bahsic-path.png")
  open_png(png_file)
  plot(fit, chosen = mt$feature[order(mt$rank)][seq_len(n_top)])
  grDevices::dev.off()

  cat(sprintf("\nWrote %s (%d genes) and %s\n", csv, nrow(tab), png_file))
  cat(sprintf("Done in %.1f s\n", proc.time()[["elapsed"]] - t0))
  invisible(fit)
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

open_png <- function(file) {
  if (isTRUE(capabilities("cairo"))) {
    grDevices::png(file, width = 1600, height = 1200, res = 150, type = "cairo")
  } else {
    grDevices::png(file, width = 1600, height = 1200, res = 150)
  }
}

args <- commandArgs(trailingOnly = TRUE)
main(if (length(args) >= 1L) args[[1L]] else "bahsic-output")
