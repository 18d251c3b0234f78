# The plot methods of selections and evaluations: they draw on a file device,
# and what they draw (labels, error bars) is read back from the device's
# display list (recordPlot()), so the tests check the figure, not only that
# no error was raised.

# Open a null PDF device that keeps a display list (the caller closes it).
record_device <- function() {
  grDevices::pdf(NULL, width = 7, height = 7)
  grDevices::dev.control("enable")
  invisible(grDevices::dev.cur())
}

# The arguments of every call of the graphics routine `name` ("C_segments",
# "C_mtext", ...) in the plot recorded so far.
recorded_calls <- function(name) {
  dl <- grDevices::recordPlot()[[1L]]
  calls <- Filter(function(e) {
    routine <- e[[2L]][[1L]]
    is.list(routine) && identical(routine$name, name)
  }, dl)
  lapply(calls, function(e) as.list(e[[2L]])[-1L])
}

# The strings drawn by mtext() in the margins.
recorded_mtext <- function() {
  unlist(lapply(recorded_calls("C_mtext"), function(a) as.character(a[[1L]])))
}

plot_fit <- function() {
  x <- golub$x[, 1:30]
  bahsic(x, golub$y)
}

test_that("plot() of a selection draws with and without chosen features, on pdf and png", {
  fit <- plot_fit()
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  expect_identical(plot(fit), fit)
  expect_true(any(grepl("^max at [0-9]+$", unlist(lapply(recorded_calls("C_text"),
                                                         function(a) a[[2L]])))))
  expect_identical(plot(fit, chosen = c(3, 7, 12)), fit)
  drawn <- recorded_mtext()
  expect_true("Ranks of the chosen features" %in% drawn)
  expect_true(all(colnames(golub$x)[c(3, 7, 12)] %in% drawn))

  png_file <- tempfile(fileext = ".png")
  grDevices::png(png_file, width = 1600, height = 1200, res = 150)
  plot(fit, chosen = 1:20, chosen_label = "moderated t top 20")
  grDevices::dev.off()
  expect_gt(file.size(png_file), 0)
  unlink(png_file)
})

test_that("chosen_label titles the ranks panel and is checked", {
  fit <- plot_fit()
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(fit, chosen = 1:5, chosen_label = "moderated t top 5")
  expect_true("Ranks of the moderated t top 5" %in% recorded_mtext())
  expect_error(plot(fit, chosen_label = "top 5"), "'chosen_label' is not used")
  expect_error(plot(fit, chosen = 1:5, chosen_label = c("a", "b")),
               "'chosen_label' must be a single non-empty string")
  expect_error(plot(fit, chosen = 1:5, chosen_label = ""), "single non-empty string")
  expect_error(plot(fit, labels = "x"), "'labels' is not used")
})

test_that("the 'max at' label stays inside the plotting region", {
  fit <- plot_fit()
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(fit)
  usr <- graphics::par("usr")
  lab <- Filter(function(a) any(grepl("^max at", a[[2L]])), recorded_calls("C_text"))
  expect_length(lab, 1L)
  xy <- lab[[1L]][[1L]]                 # xy.coords of the label
  y <- xy$y
  expect_lt(y, usr[4L])
  best <- fit$path[which.max(fit$path$hsic), ]
  expect_gt(y, best$hsic)
  # the whole label, not only its anchor, is below the top of the box
  expect_lt(y + graphics::strheight("max at", cex = 0.8), usr[4L])
})

test_that("the symbol rule picks symbol-like annotation columns only", {
  ann <- function(...) {
    structure(list(features = data.frame(feature = c("p1", "p2", "p3"), ...,
                                         stringsAsFactors = FALSE),
                   annotation = names(list(...))), class = "bahsic_selection")
  }
  for (nm in c("symbol", "SYMBOL", "Symbol", "gene_symbol", "Gene.Symbol", "hgnc_symbol",
               "GeneSymbol", "annotation_symbol")) {
    a <- stats::setNames(list(c("A", "B", "C")), nm)
    x <- do.call(ann, a)
    expect_identical(bahsic:::symbol_column(x), nm, info = nm)
  }
  for (nm in c("description", "symbols_old", "gene_id", "ENTREZID", "chr")) {
    a <- stats::setNames(list(c("A", "B", "C")), nm)
    expect_null(bahsic:::symbol_column(do.call(ann, a)), info = nm)
  }
  # the first symbol column wins; a numeric one is not a symbol
  x <- ann(description = c("d", "e", "f"), SYMBOL = c("A", "B", "C"),
           gene_symbol = c("X", "Y", "Z"))
  expect_identical(bahsic:::symbol_column(x), "SYMBOL")
  expect_null(bahsic:::symbol_column(ann(symbol = 1:3)))
  # missing and empty symbols keep the feature name; shared ones get it in parentheses
  x <- ann(symbol = c("CD3E", NA, ""))
  expect_identical(bahsic:::feature_labels(x, 1:3), c("CD3E", "p2", "p3"))
  x <- ann(symbol = c("CD3E", "CD3E", "LCK"))
  expect_identical(bahsic:::feature_labels(x, 1:3), c("CD3E (p1)", "CD3E (p2)", "LCK"))
  expect_identical(bahsic:::feature_labels(x, c(1L, 3L)), c("CD3E", "LCK"))
  # `labels` overrides: named by feature, or one per feature
  expect_identical(bahsic:::feature_labels(x, c(3L, 1L), c(p1 = "one", p3 = "three")),
                   c("three", "one"))
  expect_identical(bahsic:::feature_labels(x, 2L, c("a", "b", "c")), "b")
  expect_identical(bahsic:::feature_labels(x, 2L, c(p1 = "one")), "p2")
  expect_error(bahsic:::feature_labels(x, 2L, c("a", "b")), "one per feature \\(3\\)")
  expect_error(bahsic:::feature_labels(x, 2L, 1:3), "'labels' must be a character vector")
})

test_that("an annotated ExpressionSet's symbols label the chosen features", {
  skip_peer("Biobase")
  x <- golub$x[, 1:30]
  symbols <- paste0("GENE", seq_len(30))
  symbols[4] <- NA
  fd <- data.frame(description = golub$genes$description[1:30], SYMBOL = symbols,
                   row.names = colnames(x))
  eset <- Biobase::ExpressionSet(t(x), featureData = Biobase::AnnotatedDataFrame(fd))
  fit <- bahsic(eset, golub$y)
  expect_identical(bahsic:::symbol_column(fit), "SYMBOL")
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(fit, chosen = c(2, 4, 9))
  drawn <- recorded_mtext()
  expect_true(all(c("GENE2", "GENE9", colnames(x)[4]) %in% drawn))
  expect_false(any(colnames(x)[c(2, 9)] %in% drawn))
  plot(fit, chosen = c(2, 9), labels = stats::setNames(toupper(letters[1:30]), colnames(x)))
  expect_true(all(c("B", "I") %in% recorded_mtext()))
})

test_that("a SummarizedExperiment's rowData symbol column labels the chosen features", {
  skip_peer("SummarizedExperiment")
  x <- golub$x[, 1:30]
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(exprs = t(x)),
    rowData = data.frame(gene_symbol = paste0("S", seq_len(30)), row.names = colnames(x)))
  fit <- bahsic(se, golub$y)
  expect_identical(bahsic:::symbol_column(fit), "gene_symbol")
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(fit, chosen = 5)
  expect_true("S5" %in% recorded_mtext())
})

# A bahsic_evaluation made by hand (no classifier is run): 2 selectors, 2 sizes,
# 4 folds of known errors.
toy_evaluation <- function() {
  grid <- expand.grid(fold = 1:4, n_features = c(5L, 10L), selector = c("t", "bahsic"),
                      stringsAsFactors = FALSE)
  err <- c(0.10, 0.20, 0.30, 0.20,  0.05, 0.05, 0.15, 0.15,
           0.30, 0.40, 0.20, 0.30,  0.00, 0.10, 0.10, 0.20)
  results <- data.frame(selector = grid$selector, n_features = grid$n_features, rep = 1L,
                        fold = grid$fold, error = err, balanced_error = err + 0.01,
                        stringsAsFactors = FALSE)
  stability <- unique(data.frame(selector = grid$selector, n_features = grid$n_features,
                                 rep = 1L, overlap = 3L, kuncheva = 0.5,
                                 stringsAsFactors = FALSE))
  structure(list(results = results, stability = stability,
                 settings = list(classifier = "svm", outcome = "classification", folds = 4L,
                                 repeats = 1L, n_samples = 40L, n_total = 100L)),
            class = "bahsic_evaluation")
}

# The segments drawn inside the plotting region (the legend's line samples
# are in the right margin).
bar_segments <- function(usr) {
  Filter(function(a) all(c(a[[1L]], a[[3L]]) <= usr[2L]), recorded_calls("C_segments"))
}

test_that("plot() of an evaluation draws mean +- 1 sd error bars", {
  ev <- toy_evaluation()
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  s <- plot(ev)
  expect_s3_class(s, "summary.bahsic_evaluation")
  usr <- graphics::par("usr")
  bars <- bar_segments(usr)
  # one call for the vertical bars (x0 == x1), two for the lower and upper caps
  vertical <- Filter(function(a) isTRUE(all.equal(a[[1L]], a[[3L]])), bars)
  expect_length(vertical, 1L)
  expect_length(bars, 3L)
  y0 <- vertical[[1L]][[2L]]
  y1 <- vertical[[1L]][[4L]]
  r <- ev$results
  key <- paste(r$selector, r$n_features)
  mu <- tapply(r$error, key, mean)
  sdv <- tapply(r$error, key, sd)
  want <- c("t 5", "t 10", "bahsic 5", "bahsic 10")  # selectors in order of appearance
  expect_equal(y0, unname(c(pmax(mu[want] - sdv[want], 0))))
  expect_equal(y1, unname(c(mu[want] + sdv[want])))
  expect_true(all(y1 > y0))
  # bars of different selectors are side by side, not on top of each other
  x0 <- vertical[[1L]][[1L]]
  expect_true(all(x0[1:2] < x0[3:4]))
  # the legend is outside the plotting region (to its right)
  usr <- graphics::par("usr")
  leg <- Filter(function(a) identical(as.character(a[[2L]]), c("t", "bahsic")),
                recorded_calls("C_text"))
  expect_length(leg, 1L)
  expect_gt(min(leg[[1L]][[1L]]$x), usr[2L])
  # balanced error: the bars follow that column
  plot(ev, type = "balanced_error")
  vertical <- Filter(function(a) isTRUE(all.equal(a[[1L]], a[[3L]])),
                     bar_segments(graphics::par("usr")))
  expect_equal(vertical[[1L]][[4L]], unname(c(mu[want] + 0.01 + sdv[want])))
})

test_that("an evaluation with one fold value per point draws no bars", {
  ev <- toy_evaluation()
  ev$results <- ev$results[ev$results$fold == 1L, ]
  ev$settings$folds <- 1L
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  expect_silent(plot(ev))
  expect_length(bar_segments(graphics::par("usr")), 0L)
  expect_gt(length(recorded_calls("C_segments")), 0L)   # the legend's line samples
})

# The helpers of the main job (inst/scripts/main-job.R), loaded without
# running it: only the function definitions are evaluated.
main_job_functions <- function() {
  script <- system.file("scripts", "main-job.R", package = "bahsic")
  env <- new.env()
  for (e in parse(script)) {
    if (is.call(e) && identical(e[[1L]], as.name("<-")) && is.call(e[[3L]]) &&
        identical(e[[3L]][[1L]], as.name("function"))) {
      eval(e, env)
    }
  }
  env
}

test_that("the main job takes symbols from an annotation package, or none", {
  mj <- main_job_functions()
  # a fake annotation package: an installed package name and a lookup table
  table <- c("1000_at" = "MAPK3", "1001_at" = "TIE1", "1002_f_at" = "")
  fake_lookup <- function(db_pkg, probes) unname(table[probes])
  sym <- mj$probe_symbols(c("1001_at", "1000_at", "1002_f_at", "9999_at"), "stats",
                          lookup = fake_lookup)
  expect_identical(sym, c("TIE1", "MAPK3", NA, NA))
  expect_message(none <- mj$probe_symbols("1000_at", "bahsicNoSuchPackage.db"),
                 "bahsicNoSuchPackage.db is not installed")
  expect_null(none)
  expect_error(mj$probe_symbols(c("a", "b"), "stats", lookup = function(db_pkg, probes) "x"),
               "one value per probe")
})

test_that("the main job reads the Golub symbols from the gene descriptions", {
  mj <- main_job_functions()
  d <- c("AQP3 Aquaporin 3", "VRK1", "CD33 CD33 antigen (differentiation antigen)",
         "GB DEF = GABAa receptor alpha-3 subunit", "mRNA", "GLIA MATURATION FACTOR BETA",
         "PLECKSTRIN", "GRN Granulin", "LYN V-yes-1 Yamaguchi sarcoma viral related oncogene",
         "Zyxin", "KIAA0317 gene", "AFFX-HUMRGE/M10098_5_at (endogenous control)", "")
  expect_identical(mj$description_symbols(d),
                   c("AQP3", "VRK1", "CD33", NA, NA, NA, NA, "GRN", "LYN", NA, "KIAA0317",
                     NA, NA))
  # on the shipped data: most known genes of the Golub top list are found
  s <- mj$description_symbols(golub$genes$description)
  names(s) <- golub$genes$probe
  expect_identical(unname(s[c("M27891_at", "M23197_at", "M92287_at")]),
                   c("CST3", "CD33", "CCND3"))
})

test_that("plot() of a stability selection labels its top genes by symbol, or by `labels`", {
  x <- golub$x[, 1:40]
  set.seed(1)
  st <- stability_selection(x, golub$y, selector = "t", n_features = 5, n_subsamples = 10,
                            cutoff = 0.75)
  f <- st$features
  o <- order(-f$probability, f$mean_rank, seq_len(nrow(f)))
  top <- f$feature[o][seq_len(min(10L, sum(f$probability > 0)))]  # the ten labelled
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  # the gene labels (the cutoff is labelled too, inside the box)
  drawn_text <- function() {
    setdiff(unlist(lapply(recorded_calls("C_text"), function(a) a[[2L]])), "cutoff 0.75")
  }
  plot(st)
  expect_identical(drawn_text(), top)
  # an annotation with a symbol column, as from an annotated ExpressionSet
  st$features$symbol <- paste0("SYM", seq_len(nrow(st$features)))
  st$annotation <- "symbol"
  plot(st)
  expect_identical(drawn_text(), paste0("SYM", match(top, st$features$feature)))
  plot(st, labels = stats::setNames(tolower(top), top))
  expect_identical(drawn_text(), tolower(top))
})

test_that("the stability plot's cutoff label and gene labels stay clear of each other", {
  x <- golub$x[, 1:200]
  set.seed(1)
  st <- stability_selection(x, golub$y, selector = "t", n_features = 10, n_subsamples = 10,
                            cutoff = 0.6)
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(st)
  usr <- graphics::par("usr")
  texts <- recorded_calls("C_text")
  cut <- Filter(function(a) identical(a[[2L]], "cutoff 0.6"), texts)
  expect_length(cut, 1L)
  # inside the box, at its right end (right-aligned), not in the margin
  expect_lte(log10(cut[[1L]][[1L]]$x), usr[2L])
  genes <- Filter(function(a) length(a[[2L]]) > 1L, texts)[[1L]]
  y <- genes[[1L]]$y
  k <- length(y)
  # every label stands above its own bar, and the y axis makes room for all
  f <- st$features
  prob <- sort(f$probability, decreasing = TRUE)[seq_len(k)]
  expect_true(all(y > prob))
  expect_lt(max(y), usr[4L])
  # labels whose text would overlap horizontally are a line apart
  cex <- 0.7
  h <- graphics::strheight("Mg", cex = cex)
  left <- graphics::grconvertX(genes[[1L]]$x, "user", "inches")
  w <- graphics::strwidth(genes[[2L]], units = "inches", cex = cex)
  for (i in seq_len(k - 1L)) for (j in (i + 1L):k) {
    if (left[j] < left[i] + w[i]) expect_gte(abs(y[i] - y[j]), h)
  }
})

test_that("stack_labels() raises a label above every later one it overlaps", {
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  graphics::plot.new()
  # five bars an inch-tenth apart, the last three of equal height; labels an inch wide
  p <- c(1, 0.9, 0.6, 0.6, 0.6)
  out <- bahsic:::stack_labels(x = (0:4) / 10, p = p, width = rep(1, 5), height = 0.1,
                               ylim = c(0, 1))
  expect_true(all(out$y > p))
  expect_true(all(diff(out$y) < 0))       # a staircase, first label highest
  line <- min(-diff(out$y))
  expect_gt(line, 0)
  expect_equal(out$top, max(out$y) + 0.6 * line, tolerance = 1e-8)
  # far apart: each label stays just above its own bar
  apart <- bahsic:::stack_labels(x = (0:4) * 2, p = p, width = rep(1, 5), height = 0.1,
                                 ylim = c(0, 1))
  expect_equal(apart$y - p, rep(apart$y[1L] - p[1L], 5))
})

test_that("the ranks panel names the selector's rank, labels its dotted line and shows contributions", {
  fit <- plot_fit()
  dev <- record_device()
  on.exit(grDevices::dev.off(dev), add = TRUE)
  plot(fit, chosen = c(3, 7, 12))
  drawn <- recorded_mtext()
  expect_true("BAHSIC rank (log scale; all 30 ranked)" %in% drawn)
  expect_true(any(grepl("^dotted line: rank 3, left of which all 3 lie", drawn)))
  expect_true(any(grepl("^rank \\(contribution: share of its surviving set's HSIC lost", drawn)))
  texts <- unlist(lapply(recorded_calls("C_text"), function(a) a[[2L]]))
  expect_true("rank 3" %in% texts)
  f <- fit$features[c(3, 7, 12), ]
  f <- f[order(f$rank), ]
  want <- sprintf("%d (%s)", f$rank, bahsic:::format_percent(f$contribution))
  expect_true(all(want %in% texts))
  expect_identical(bahsic:::format_percent(c(1, 0.1607, 0.0044, -0.00067)),
                   c("100%", "16%", "0.44%", "-0.067%"))
})
