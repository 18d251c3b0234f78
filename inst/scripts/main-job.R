# bahsic main job: select genes of a leukaemia microarray data set by BAHSIC (backward
# elimination with HSIC, Gaussian kernel) and compare with limma's moderated t.
#
#   Rscript inst/scripts/main-job.R [outdir] [data]   (default outdir: bahsic-output)
#   Rscript -e 'source(system.file("scripts", "main-job.R", package = "bahsic"))'
#
# Data: the Bioconductor ALL data set (B- versus T-lineage acute lymphoblastic leukaemia,
# 128 samples x 12625 probes) when the ALL package is installed, otherwise the Golub et al.
# (1999) ALL/AML data shipped with bahsic (38 samples x 3051 genes); data = "ALL" or "golub"
# chooses one.
# Gene symbols: on ALL from the chip's annotation package (hgu95av2.db) when it is installed
# (probe ids otherwise); on golub the symbol that opens the gene description, when there is
# one ("AQP3 Aquaporin 3"; probe ids for descriptions such as "mRNA" or "GB DEF = ...").
# Writes <outdir>/bahsic.csv (every gene: BAHSIC rank, score and contribution, moderated t and
# its rank, symbol) and <outdir>/bahsic-path.png (HSIC of the surviving genes along the elimination, and
# the BAHSIC ranks of the top 20 genes by moderated t, labelled by symbol where known).

main <- function(outdir = "bahsic-output", data = c("auto", "ALL", "golub"), n_top = 20L) {
  t0 <- proc.time()[["elapsed"]]
  op <- options(width = max(getOption("width"), 120L))
  on.exit(options(op))
  if (!requireNamespace("bahsic", quietly = TRUE)) {
    stop("bahsic is not installed: run R CMD INSTALL . in its source directory", call. = FALSE)
  }

  d <- load_data(match.arg(data))
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
    contribution_bahsic = fit$features$contribution,
    moderated_t = mt$score,
    rank_mt = mt$rank,
    stringsAsFactors = FALSE
  )
  if (!is.null(d$symbol)) tab$symbol <- d$symbol
  if (!is.null(d$description)) tab$description <- d$description
  tab <- tab[order(tab$rank_bahsic), , drop = FALSE]
  rownames(tab) <- NULL
  n_top <- min(n_top, nrow(tab))
  top <- tab[seq_len(n_top), , drop = FALSE]

  cat(sprintf("\nBAHSIC (Gaussian kernel, width 1/(2 d), 10%% eliminated per iteration) ranked %d genes in %.1f s.\n",
              nrow(tab), t_sel))
  cat(sprintf("Top %d genes by BAHSIC rank (rank 1: the gene left last, the most informative).\n",
              n_top))
  cat("contribution = the share of HSIC (the dependence of the surviving genes on the class)\n",
      "  that was lost when the gene was eliminated: how much of what its set knew about the\n",
      "  class the gene carried; rank 1, the last gene left, carries all of it (100%).\n",
      "  rank_mt = rank by limma's moderated t.\n", sep = "")
  left <- function(s) format(s, justify = "left")
  shown <- data.frame(
    rank = top$rank_bahsic,
    gene = left(top$feature),
    contribution = paste0(trimws(formatC(100 * top$contribution_bahsic, digits = 2L,
                                         format = "fg")), "%"),
    moderated_t = sprintf("%.2f", top$moderated_t),
    rank_mt = top$rank_mt
  )
  if (!is.null(top$symbol)) {
    shown <- cbind(shown[1:2], symbol = left(ifelse(is.na(top$symbol), "", top$symbol)),
                   shown[-(1:2)])
  }
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
  # left: HSIC of the surviving genes along the elimination; right: the BAHSIC ranks (and
  # contributions) of the moderated-t top genes
  plot(fit, chosen = mt$feature[order(mt$rank)][seq_len(n_top)],
       chosen_label = sprintf("moderated t top %d", n_top),
       labels = if (!is.null(d$symbol)) stats::setNames(d$symbol, colnames(d$x)))
  grDevices::dev.off()

  cat(sprintf("\nWrote %s (%d genes) and %s\n", csv, nrow(tab), png_file))
  cat(sprintf("Done in %.1f s\n", proc.time()[["elapsed"]] - t0))
  invisible(fit)
}

# ALL (B vs T lineage) if installed, else the Golub data shipped with bahsic. `symbol`: one
# gene symbol (or NA) per column of x, or NULL when none is known.
load_data <- function(data = "auto") {
  has_all <- requireNamespace("ALL", quietly = TRUE) && requireNamespace("Biobase", quietly = TRUE)
  if (data == "ALL" && !has_all) {
    stop("data = \"ALL\" needs the Bioconductor packages ALL and Biobase: install them ",
         "(bash tools/install-deps.sh --user), or use data = \"golub\".", call. = FALSE)
  }
  if (data != "golub" && has_all) {
    e <- new.env()
    utils::data("ALL", package = "ALL", envir = e)
    eset <- e$ALL
    x <- t(Biobase::exprs(eset))
    return(list(
      name = "ALL (Bioconductor package ALL): B- vs T-lineage acute lymphoblastic leukaemia",
      x = x,
      y = factor(substr(as.character(eset$BT), 1L, 1L)),
      symbol = probe_symbols(colnames(x), paste0(Biobase::annotation(eset), ".db")),
      description = NULL
    ))
  }
  e <- new.env()
  utils::data("golub", package = "bahsic", envir = e)
  g <- e$golub
  list(
    name = paste0("golub (shipped with bahsic",
                  if (data == "auto") "; the ALL package is not installed",
                  "): Golub et al. (1999) ALL vs AML"),
    x = g$x,
    y = g$y,
    symbol = description_symbols(g$genes$description),
    description = g$genes$description
  )
}

# Gene symbols of Affymetrix probe ids from the chip's annotation package (AnnotationDbi's
# mapIds(), the first symbol of a probe that maps to several), or NULL when the package is not
# installed. `lookup(db_pkg, probes)` returns one symbol (or NA) per probe.
probe_symbols <- function(probes, db_pkg, lookup = annotation_db_symbols) {
  if (!requireNamespace(db_pkg, quietly = TRUE)) {
    message("Package ", db_pkg, " is not installed: genes are shown by probe id.")
    return(NULL)
  }
  sym <- as.character(lookup(db_pkg, probes))
  if (length(sym) != length(probes)) stop("the symbol lookup must return one value per probe")
  sym[!is.na(sym) & !nzchar(sym)] <- NA_character_
  sym
}

annotation_db_symbols <- function(db_pkg, probes) {
  db <- getExportedValue(db_pkg, db_pkg)
  unname(AnnotationDbi::mapIds(db, keys = probes, column = "SYMBOL", keytype = "PROBEID",
                               multiVals = "first"))
}

# The symbol that opens a gene description of the Golub data: "AQP3 Aquaporin 3" -> "AQP3",
# "VRK1" -> "VRK1", "CD33 CD33 antigen ..." -> "CD33"; NA when the first word is not an
# upper-case symbol (2-12 letters, digits or hyphens) or may be part of a name: without a digit
# it counts only when a word with lower-case letters follows ("GRN Granulin", not "PLECKSTRIN"
# or "GLUTATHIONE S-TRANSFERASE"), and with one only when the next word, if any, repeats it or
# has lower-case letters ("CD33 CD33 antigen", not "GB DEF = ...").
description_symbols <- function(description) {
  words <- strsplit(trimws(as.character(description)), "[[:space:]]+")
  vapply(words, function(w) {
    first <- w[1L]
    if (is.na(first) || !grepl("^[A-Z][A-Z0-9-]{1,11}$", first)) return(NA_character_)
    second <- if (length(w) >= 2L) w[2L] else NA_character_
    named <- !is.na(second) && (second == first || grepl("[a-z]", second))
    if (grepl("[0-9]", first) && (is.na(second) || named)) return(first)
    if (!grepl("[0-9]", first) && named) return(first)
    NA_character_
  }, character(1), USE.NAMES = FALSE)
}

open_png <- function(file) {
  if (isTRUE(capabilities("cairo"))) {
    grDevices::png(file, width = 1600, height = 1200, res = 150, type = "cairo")
  } else {
    grDevices::png(file, width = 1600, height = 1200, res = 150)
  }
}

args <- commandArgs(trailingOnly = TRUE)
main(if (length(args) >= 1L) args[[1L]] else "bahsic-output",
     if (length(args) >= 2L) args[[2L]] else "auto")
