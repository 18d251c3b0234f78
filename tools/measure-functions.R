# The size of the R functions: every function over 80 lines, and every
# internal (not exported, not an S3 method of an exported generic) function
# with more than 10 arguments. Exported functions keep the formals users see.
# Also every name assigned at the top level of two files of R/ (the file
# collated last would silently replace the other). And the C functions of
# src/ (the .c files and the headers' inline functions): none over 80 lines
# or 10 arguments but those listed, with why, in c_exceptions below.
#
#   Rscript tools/measure-functions.R      # from the package root
#
# Prints one line per function over a limit (exported ones marked, listed C
# ones marked) and summary lines; exits with status 1 if a limit is broken.

# ---- C: the functions of src/ -------------------------------------------------
# Every function defined at the top level of src/*.c and src/*.h (the
# headers' static inline ones): its lines, from the opening brace to the
# closing one (a body that is one macro, as the SIMD copies of a loop are,
# counts the macro's lines), and its parameters (a parameter list that is
# one macro counts the macro's). Limits as for R: 80 lines, 10 parameters,
# except the functions listed here, each with why. Remove a row when its
# function comes within the limits: a row that excuses nothing counts as a
# broken limit, so the list stays true. Functions written inside a macro
# are not seen.
c_exceptions <- c(
  "clinical.c: bk_clinical_cols" = "the kernel block between two sample sets: both sets with their sizes, the variables' codes and weights, the column range, output and threads",
  "hsic.c: bk_feature_dot" = "the core of feature_dot(): data, kernel and per-feature widths, the label side, output, work, and the run's SIMD, threads and pacer",
  "kernel_test.c: bk_feature_hsic_test" = "the per-feature kernel test: data, kernel and widths, label, four outputs (the score with the test), work, and the run's SIMD, threads and pacer",
  "lowrank.c: lowrank_estimates" = "the estimates from the eight sums of Song et al. 2012 (Lemmas 6-7), each named as in the paper",
  "lowrank.c: bk_rff_hsic" = "the random-feature HSIC: data, frequencies and phases, the label factor, the chunk, output, work, and the run's threads, SIMD and pacer",
  "lowrank.c: bk_rff_hsic2" = "random features on both sides: the data, frequencies and phases of each side, the rows per block, output, work, and the run's threads, SIMD and pacer",
  "lsmi.c: bk_lsmi_cv" = "the cross-validation grid: data, folds, both grids with their sizes, output, work for doubles and ints, pacer",
  "lsmi.c: bk_lsmi_grad" = "the LSMI gradient: data, centres, weights, both parameters, the fixed label side, outputs and work",
  "lsmi.c: hsic_wgrad" = "the weighted-HSIC gradient shared by two entry points, with the two switches that tell them apart",
  "lsmi.c: bk_hsic_vgrad" = "hsic_wgrad() with the weights squared: its arguments less one",
  "maxt.c: bk_perm_stats" = "the permutation statistics of maxT, called from the glue: the statistic, the data with both sizes, classes or response, the permutations and their number, two outputs, work and threads; its passes are helpers (feature_totals, perm_correlations, class_sums)",
  "randsel.c: bk_randsel_align" = "the aligned bootstraps of randSel, called from the glue and a fuzzer: blocked data with its three sizes, label, options, the number of bootstraps, seeds and six result and scratch arrays; its batches' steps are helpers (batch_draws, batch_sweep, batch_alignments)",
  "ridge.c: bk_ridge_select" = "a selector's entry: data, label, options, the four result arrays, scratch, LAPACK info and the progress tick",
  "schedule.c: bk_schedule" = "the one selection schedule, called by select.c and ridge.c: scorer, number of features, options, the four result arrays, two scratch arrays, the failure flag and the tick with its context; its two directions are helpers (backward_schedule, forward_schedule) over one run struct (sched_run)",
  "scores.c: bk_class_moments" = "the per-class moments of every feature: data, classes, four outputs and work"
)

# The text of C source with its comments, string and character literals and
# preprocessor lines (continuations included) blanked, newlines kept, so that
# its braces, parentheses and semicolons are the code's own; and the macros
# it defines (#define NAME ...): their replacement text, whether they take
# arguments, and the lines their definition spans.
c_mask <- function(text) {
  re <- paste0(
    "(?sm)^[ \\t]*#(?:/\\*.*?\\*/|\\\\.|[^\\n\\\\])*", # a preprocessor line
    "|/\\*.*?\\*/|//[^\\n]*", # comments
    "|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\\\n])*'" # literals
  )
  hits <- gregexpr(re, text, perl = TRUE)
  found <- regmatches(text, hits)[[1L]]
  def <- regmatches(found, regexec("^[ \\t]*#[ \\t]*define[ \\t]+([A-Za-z_][A-Za-z0-9_]*)(.*)$", found))
  def <- def[lengths(def) == 3L]
  macros <- lapply(def, function(d) {
    list(text = gsub("/\\*.*?\\*/|\\\\\\n", " ", d[3L], perl = TRUE),
         takes_args = startsWith(d[3L], "("),
         lines = lengths(regmatches(d[1L], gregexpr("\n", d[1L]))) + 1L)
  })
  names(macros) <- vapply(def, `[`, "", 2L)
  if (length(found)) regmatches(text, hits) <- list(gsub("[^\n]", " ", found))
  list(text = text, macros = macros)
}

# The number of parameters in a parameter list (without its parentheses):
# the commas outside parentheses, plus one; "void" or nothing is none.
c_count_params <- function(p) {
  p <- trimws(gsub("\\s+", " ", p))
  if (p %in% c("", "void")) return(0L)
  ch <- strsplit(p, "")[[1L]]
  depth <- cumsum((ch == "(") - (ch == ")"))
  sum(ch == "," & depth == 0L) + 1L
}

# A function's name and parameter list from the code before a top-level
# opening brace, or NULL where that brace opens something else (a struct,
# an initialiser): the code must end with a parenthesised list that follows
# an identifier, and hold no "=" before it.
c_header <- function(ch) {
  n <- length(ch)
  while (n > 0L && grepl("\\s", ch[n])) n <- n - 1L
  if (n == 0L || ch[n] != ")") return(NULL)
  depth <- cumsum(rev((ch[seq_len(n)] == ")") - (ch[seq_len(n)] == "(")))
  open <- n - match(0L, depth) + 1L # the "(" that the last ")" closes
  if (is.na(open)) return(NULL)
  before <- paste(ch[seq_len(open - 1L)], collapse = "")
  name <- regmatches(before, regexec("([A-Za-z_][A-Za-z0-9_]*)\\s*$", before))[[1L]][2L]
  if (is.na(name) || grepl("=", before, fixed = TRUE) ||
      name %in% c("if", "for", "while", "switch", "sizeof", "__attribute__")) return(NULL)
  list(name = name, params = paste(ch[seq_len(n - open - 1L) + open], collapse = ""),
       at = regexpr(paste0(name, "\\s*$"), before))
}

# The functions defined at the top level of C source: one row per function
# with its name, the line of its name, its lines and its parameters. macros:
# c_mask()'s macros of every file, for bodies and parameter lists that are
# one macro. Stops where the braces do not balance.
c_functions <- function(text, macros, file = "<text>") {
  ch <- strsplit(c_mask(text)$text, "")[[1L]]
  line_of <- cumsum(ch == "\n") + 1L
  rows <- list()
  depth <- 0L
  start <- 1L # where the code before the next top-level brace starts
  for (i in which(ch == "{" | ch == "}" | ch == ";")) {
    if (ch[i] == "{") {
      if (depth == 0L) {
        head <- c_header(ch[seq.int(start, length.out = i - start)])
        open <- i
      }
      depth <- depth + 1L
      next
    }
    if (ch[i] == "}") depth <- depth - 1L
    if (depth < 0L) stop(file, ":", line_of[i], ": a closing brace without an opening one", call. = FALSE)
    if (depth > 0L) next
    if (ch[i] == "}" && !is.null(head)) {
      body <- trimws(paste(ch[seq.int(open + 1L, length.out = i - open - 1L)], collapse = ""))
      lines <- line_of[i] - line_of[open] + 1L
      one <- sub("^([A-Za-z_][A-Za-z0-9_]*)\\s*(\\(.*\\))?\\s*;?$", "\\1", body)
      if (one %in% names(macros)) lines <- macros[[one]]$lines + 2L
      params <- trimws(head$params)
      if (params %in% names(macros) && !macros[[params]]$takes_args) params <- macros[[params]]$text
      rows[[length(rows) + 1L]] <- data.frame(
        file = basename(file), name = head$name, line = line_of[start + head$at - 1L],
        lines = lines, args = c_count_params(params))
      head <- NULL
    }
    start <- i + 1L
  }
  if (depth != 0L) stop(file, ": ", depth, " brace(s) left open at its end", call. = FALSE)
  do.call(rbind, c(list(data.frame(file = character(), name = character(), line = integer(),
                                   lines = integer(), args = integer())), rows))
}

# The finder on code that has tripped simpler ones; stops if it errs.
c_self_test <- function() {
  text <- paste(
    "#define ARGS_OF_THREE int a, \\", "  int b, int c", "#define BODY_OF_TWO \\", "  x++; \\",
    "  x++;", "typedef struct { int a; } pair; /* { */", "static const char *s = \"{\\\"}\";",
    "static const int v[] = {1, 2};", "static int\nf(int (*g)(int, int), const char *x,",
    "  double y) // ) {", "{", "  char c = '}';", "  if (x) {", "#if A", "    c++;", "#endif",
    "  }", "  return g(1, c);", "}", "static void h(ARGS_OF_THREE) { BODY_OF_TWO }",
    "int k(void) { return 0; }", sep = "\n")
  got <- c_functions(text, c_mask(text)$macros)
  want <- data.frame(file = "<text>", name = c("f", "h", "k"), line = c(10L, 21L, 22L),
                     lines = c(9L, 5L, 1L), args = c(3L, 3L, 0L))
  if (!identical(got, want)) {
    print(got)
    stop("the C function finder fails its self-test", call. = FALSE)
  }
}

# ---- R ---------------------------------------------------------------------
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
cat(sprintf("%d R function(s) over the limits (80 lines; 10 arguments for internal functions)\n",
            broken))

# The C functions over a limit: listed ones are reported as excused.
c_self_test()
c_files <- sort(Sys.glob(file.path("src", c("*.c", "*.h"))))
c_texts <- lapply(c_files, function(f) paste(readLines(f, warn = FALSE), collapse = "\n"))
c_macros <- do.call(c, lapply(c_texts, function(t) c_mask(t)$macros))
c_fns <- do.call(rbind, Map(c_functions, c_texts, file = c_files, MoreArgs = list(macros = c_macros)))
c_key <- paste0(c_fns$file, ": ", c_fns$name)
c_over <- c_fns$lines > 80L | c_fns$args > 10L
for (i in which(c_over)) {
  cat(sprintf("%-22s %-28s %4d lines %3d args  %s\n", paste0(c_fns$file[i], ":", c_fns$line[i]),
              c_fns$name[i], c_fns$lines[i], c_fns$args[i],
              if (c_key[i] %in% names(c_exceptions)) "(listed)" else "<- over the limit"))
}
c_unlisted <- sum(c_over & !c_key %in% names(c_exceptions))
c_stale <- setdiff(names(c_exceptions), c_key[c_over])
for (key in c_stale) cat(sprintf("%-51s <- listed, but not over a limit: remove its row\n", key))
broken <- broken + c_unlisted + length(c_stale)
cat(sprintf("%d C function(s) in %d files, %d over the limits (80 lines, 10 arguments): %d listed, %d not; %d stale row(s)\n",
            nrow(c_fns), length(c_files), sum(c_over), sum(c_over) - c_unlisted, c_unlisted,
            length(c_stale)))
quit(status = if (broken > 0L) 1L else 0L)
