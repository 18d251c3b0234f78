# The namespace: no export of bahsic masks a function of the packages its
# users attach beside it. A name bahsic shares with one of them must be that
# package's own object exported again (as selected(), the generic of stabs),
# so that `library(caret); library(bahsic)` and the other order leave both
# packages working.

neighbours <- c("caret", "recipes", "mlr3", "mlr3filters", "limma", "genefilter", "Biobase",
                "SummarizedExperiment", "stabs", "stats", "utils", "graphics", "grDevices",
                "methods", "base")
# the packages bahsic itself loads (its Imports) and R's own
loaded_anyway <- c("stabs", "stats", "utils", "graphics", "grDevices", "methods", "base")

# The names bahsic exports that `pkg` exports too, as a different object.
masked_by_bahsic <- function(pkg) {
  ours <- getNamespaceExports("bahsic")
  shared <- sort(intersect(ours, getNamespaceExports(pkg)))
  same <- vapply(shared, function(nm) {
    identical(getExportedValue("bahsic", nm), getExportedValue(pkg, nm))
  }, logical(1))
  shared[!same]
}

for (pkg in neighbours) {
  local({
    p <- pkg
    test_that(sprintf("no export of bahsic masks one of %s", p), {
      # loading caret, mlr3 or Bioconductor under valgrind checks their code, not ours
      if (p %in% loaded_anyway) skip_if_not_installed(p) else skip_peer(p)
      expect_identical(masked_by_bahsic(p), character(0), info = p)
    })
  })
}

test_that("the RFE selector has a name of its own: caret's rfe() stays caret's", {
  expect_false("rfe" %in% getNamespaceExports("bahsic"))
  expect_true("clinical_rfe" %in% getNamespaceExports("bahsic"))
})

test_that("selected() is stabs' generic, with a method for bahsic's selections", {
  expect_identical(selected, stabs::selected)
  fit <- bahsic(golub$x[, 1:10], golub$y, threads = 1)
  expect_identical(selected(fit, 2), fit$ranking[1:2])
  expect_identical(stabs::selected(fit), fit$ranking)
  # stabs' own method is found through the same generic
  stab <- structure(list(selected = c(g2 = 2L, g5 = 5L)), class = "stabsel")
  expect_identical(selected(stab), stabs::selected(stab))
  expect_identical(selected(stab), c(g2 = 2L, g5 = 5L))
  # the method still checks its arguments
  expect_error(selected(fit, m = 3), "Did you mean 'n'?", fixed = TRUE)
  expect_error(selected(fit, 99), "'n' = 99 is more than the 10 ranked features")
})
