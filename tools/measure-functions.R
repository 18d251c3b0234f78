# The size of the R functions: every function over 80 lines, and every
# internal (not exported, not an S3 method of an exported generic) function
# with more than 10 arguments. Exported functions keep the formals users see.
# Also every name assigned at the top level of two files of R/ (the file
# collated last would silently replace the other).
#
#   Rscript tools/measure-functions.R      # from the package root
#
# Prints one line per function over a limit (exported ones marked) and a
# summary line; exits with status 1 if a limit is broken.

ns <- readLines("NAMESPACE")
exported <- sub("^export\\((.*)\\)$", "\\1", grep("^export\\(", ns, value = TRUE))
methods <- sub("^S3method\\(([^,]+),([^)]+)\\)$", "\\1.\\2", grep("^S3method\\(", ns, value = TRUE))
public <- c(exported, methods)
broken <- 0L
defined <- character()  # every top-level name, "file: name"
for (f in list.files("R", pattern = "[.]R$", full.names = TRUE)) {
  p <- parse(f, keep.source = TRUE)
  sr <- attr(p, "srcref")
  for (i in seq_along(p)) {
    e <- p[[i]]
    if (is.call(e) && is.symbol(e[[1L]]) && as.character(e[[1L]]) %in% c("<-", "=") && is.name(e[[2L]])) {
      defined <- c(defined, stats::setNames(basename(f), as.character(e[[2L]])))
    }
    if (!(is.call(e) && is.symbol(e[[1L]]) && as.character(e[[1L]]) %in% c("<-", "=") && is.call(e[[3L]]) &&
          identical(e[[3L]][[1L]], as.name("function")))) next
    name <- deparse(e[[2L]])
    lines <- sr[[i]][3L] - sr[[i]][1L] + 1L
    n_args <- length(e[[3L]][[2L]])
    is_public <- name %in% public
    long <- lines > 80L
    wide <- n_args > 10L && !is_public
    if (long || wide) broken <- broken + 1L
    if (long || n_args > 10L) {
      cat(sprintf("%-22s %-28s %4d lines %3d args%s%s\n", basename(f), name, lines, n_args,
                  if (is_public) "  (exported)" else "",
                  if (long || wide) "  <- over the limit" else ""))
    }
  }
}
# A name assigned at the top level of two files: the one collated last
# silently replaces the other in the namespace.
twice <- unique(names(defined)[duplicated(names(defined))])
for (name in twice) {
  cat(sprintf("%-28s defined in %s  <- defined twice\n", name,
              paste(defined[names(defined) == name], collapse = " and ")))
}
broken <- broken + length(twice)
cat(sprintf("%d name(s) defined twice at the top level of R/\n", length(twice)))
cat(sprintf("%d function(s) over the limits (80 lines; 10 arguments for internal functions)\n",
            broken))
quit(status = if (broken > 0L) 1L else 0L)
