# Run every example of the INSTALLED bahsic (what R CMD check runs, \dontrun excluded), one
# help topic at a time, each in a fresh environment with the package attached.
#
#   Rscript tools/run-examples.R [--expect-lib=DIR]
#
# --expect-lib=DIR: stop unless bahsic is loaded from library DIR (the sanitizer and valgrind
# scripts pass the library of their special build, so the ordinary install is never tested
# by mistake). The last line printed is "N examples run, N failed"; exit status 1 if any
# failed.
args <- commandArgs(trailingOnly = TRUE)
expect <- sub("^--expect-lib=", "", grep("^--expect-lib=", args, value = TRUE))
suppressPackageStartupMessages(library(bahsic))
if (length(expect) == 1L &&
    normalizePath(dirname(find.package("bahsic"))) != normalizePath(expect)) {
  stop("bahsic was loaded from ", dirname(find.package("bahsic")), ", not from ", expect,
       call. = FALSE)
}
message("Examples of bahsic ", utils::packageVersion("bahsic"), " installed in ",
        dirname(find.package("bahsic")))

db <- tools::Rd_db("bahsic")
failed <- character()
n <- 0L
out_dir <- tempfile("bahsic-examples")
dir.create(out_dir)
grDevices::pdf(file.path(out_dir, "plots.pdf"))
for (rd in names(db)) {
  file <- file.path(out_dir, sub("\\.Rd$", ".R", rd))
  tools::Rd2ex(db[[rd]], file, commentDontrun = TRUE, commentDonttest = FALSE)
  if (!file.exists(file)) next # a topic without examples
  n <- n + 1L
  env <- new.env(parent = globalenv())
  ok <- tryCatch({
    set.seed(1)
    sys.source(file, envir = env)
    TRUE
  }, error = function(e) {
    message("ERROR in the examples of ", rd, ": ", conditionMessage(e))
    FALSE
  })
  message(if (ok) "ok    " else "FAILED", " ", rd)
  if (!ok) failed <- c(failed, rd)
}
invisible(grDevices::dev.off())
cat(sprintf("%d examples run, %d failed\n", n, length(failed)))
quit(status = if (length(failed)) 1L else 0L)
