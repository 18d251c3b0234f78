# Arguments a user can get wrong: names that match no argument, names that
# match several, and choices outside their list. Every exported function
# checks its `...` (check_dots()); every generic checks the names of its call
# against the method it dispatches to before R matches them
# (check_generic_args()), so that a misspelt or ambiguous name is an error
# that names it and suggests the closest argument instead of being swallowed
# by `...` or reported as "argument 3 matches multiple formal arguments".
# arg_match() is match.arg() with a message that names the argument, lists
# the choices and suggests the closest one.

# Names users bring from other packages or older versions, and what they are
# called here (the closest name by spelling can be another argument: kernel_x
# is one letter from kernel_y).
arg_aliases <- c(kernel_x = "kernel", var.equal = "var_equal", nperm = "n_perm", B = "n_perm",
                 nboot = "n_boot", na.action = "na_action", nthreads = "threads",
                 ncores = "threads", cores = "threads", mc.cores = "threads",
                 n_feature = "n_features", nfeatures = "n_features", k = "n_features",
                 top_n = "n_features", ntop = "n_features", kernel_data = "kernel",
                 kernel_label = "kernel_y", label_kernel = "kernel_y", kernel_l = "kernel_y")

# The closest of `candidates` to `name` (NULL when none is close): a known
# alias first, then the names compared without case, dots and underscores,
# then the edit distance, accepted when at most 2 (or a third of the name).
closest_name <- function(name, candidates, aliases = arg_aliases) {
  candidates <- unique(candidates[nzchar(candidates)])
  if (!length(candidates)) return(NULL)
  if (name %in% names(aliases) && aliases[[name]] %in% candidates) return(aliases[[name]])
  key <- function(s) gsub("[._]", "", tolower(s))
  same <- candidates[key(candidates) == key(name)]
  if (length(same)) return(same[1L])
  dist <- drop(utils::adist(key(name), key(candidates)))
  best <- which.min(dist)
  if (dist[best] <= max(2, nchar(name) %/% 3)) candidates[best] else NULL
}

did_you_mean <- function(name, candidates, quote = "'") {
  best <- closest_name(name, candidates)
  if (is.null(best)) return("")
  sprintf(" Did you mean %s%s%s?", quote, best, quote)
}

# The error for a name in `...` that no argument of `fn` takes. `formals`: the
# arguments fn takes by name; `hint`: said when no name is close.
unknown_arg_error <- function(name, fn, formals, hint = NULL) {
  formals <- setdiff(formals, "...")
  # what a selector does not take on purpose, where the closest name would
  # mislead (its row of the selector table)
  hints <- selector_field(fn, "refuses")
  if (name %in% names(hints)) {
    stop(sprintf("%s() takes no '%s'. %s", fn, name, hints[[name]]), call. = FALSE)
  }
  # a study design given to a function without one says so by name (R/design.R)
  if (name %in% c("covariates", "block") && !name %in% formals) {
    design_refuse(sprintf("%s()", fn), paste0(
      "it has no form adjusted for covariates or blocks in this version. The scores, tests ",
      "and selectors that adjust are listed in ?design."))
  }
  suggestion <- did_you_mean(name, formals)
  if (!nzchar(suggestion)) {
    suggestion <- if (!is.null(hint)) {
      paste0(" ", hint)
    } else {
      sprintf(" Its arguments are %s.", paste0("'", formals, "'", collapse = ", "))
    }
  }
  stop(sprintf("%s() has no argument '%s'.%s", fn, name, suggestion), call. = FALSE)
}

# The unnamed extra arguments: more values than arguments by position.
extra_position_error <- function(fn, n) {
  stop(sprintf(paste0("%s() was given %d more unnamed argument%s than it takes: give every ",
                      "argument after the data by name (see ?%s)."),
               fn, n, if (n == 1L) "" else "s", fn), call. = FALSE)
}

# Called first thing in a function whose `...` must be empty (every exported
# function that is not a generic, and every method): `...` holds only what
# matched no argument, so anything in it is an error. Does not evaluate the
# arguments. .fn: the name the user called; .formals: the names to suggest
# from (by default the calling function's arguments); .allow: names the
# function accepts in `...` and ignores on purpose (e.g. what R's own
# print() and data.frame() pass to every method).
check_dots <- function(..., .fn = NULL, .formals = NULL, .allow = character()) {
  n <- ...length()
  if (n == 0L) return(invisible())
  nms <- ...names()
  if (is.null(nms)) nms <- character(n)
  nms[is.na(nms)] <- ""
  caller <- sys.function(sys.parent())
  if (is.null(.fn)) .fn <- call_name(sys.call(sys.parent()))
  if (is.null(.formals)) .formals <- names(formals(caller))
  bad <- nms[nzchar(nms) & !nms %in% .allow]
  if (length(bad)) unknown_arg_error(bad[1L], .fn, .formals)
  unnamed <- sum(!nzchar(nms))
  if (unnamed) extra_position_error(.fn, unnamed)
  invisible()
}

call_name <- function(call) {
  f <- call[[1L]]
  if (is.call(f) && length(f) == 3L && as.character(f[[1L]]) %in% c("::", ":::")) f <- f[[3L]]
  if (is.name(f)) as.character(f) else "this function"
}

# In a generic, before UseMethod(): the names of the call checked against the
# arguments of the method it will dispatch to (for a formula, the formula
# method's and those it passes on to the default method), the way R matches
# them -- exactly, or by a unique prefix -- so that a name that matches none
# or several is an error that says so, before R's own matching swallows it in
# `...` or stops with "argument 3 matches multiple formal arguments". x: the
# generic's first argument (NULL when missing).
check_generic_args <- function(generic, x, names) {
  if (!length(names)) return(invisible())
  names <- names[!is.na(names) & nzchar(names)]
  if (!length(names)) return(invisible())
  env <- topenv(environment(check_generic_args))
  method <- function(cls) get0(paste0(generic, ".", cls), envir = env, inherits = FALSE)
  default <- method("default")
  formula <- inherits(x, "formula") && !is.null(method("formula"))
  cls <- if (is.null(x)) character() else class(x)
  own <- NULL
  for (cl in cls) {
    own <- method(cl)
    if (!is.null(own)) break
  }
  if (is.null(own)) own <- default
  allowed <- if (is.null(own)) character() else names(formals(own))
  # the usual call: every name one of the method's own (none is the
  # generic's, which R has matched, nor `...`)
  if (all(names %in% allowed)) return(invisible())
  if (formula) allowed <- c(allowed, names(formals(default))[-1L])
  own_formals <- names(formals(sys.function(sys.parent())))
  allowed <- setdiff(unique(allowed), c("...", own_formals))
  for (nm in names) {
    if (nm %in% allowed) next
    hits <- allowed[startsWith(allowed, nm)]
    if (length(hits) == 1L) next
    if (length(hits) > 1L) {
      stop(sprintf("'%s' matches several arguments of %s(): %s. Write the name in full.",
                   nm, generic, paste0("'", hits, "'", collapse = ", ")), call. = FALSE)
    }
    hint <- NULL
    if (!formula && !is.null(method("formula")) &&
        nm %in% names(formals(method("formula")))) {
      hint <- sprintf(paste0("'%s' belongs to the formula interface, %s(y ~ ., data = ...); ",
                             "with a matrix or data frame give 'x' and 'y'."), nm, generic)
    }
    unknown_arg_error(nm, generic, c(own_formals, allowed), hint)
  }
  invisible()
}

# match.arg() for one choice, with a message that names the argument, lists
# the choices and suggests the closest: arg_match(method) in a function whose
# formal `method` has the choices as its default. An unchanged default gives
# the first choice; a unique prefix is accepted, as by match.arg(). aliases:
# other names users give a choice (c(limma = "mt")).
arg_match <- function(arg, choices, aliases = NULL, arg_name = NULL) {
  if (is.null(arg_name)) {
    expr <- substitute(arg)
    arg_name <- if (is.name(expr)) as.character(expr) else deparse(expr)
  }
  if (missing(choices)) {
    parent <- sys.parent()
    choices <- eval(formals(sys.function(parent))[[arg_name]], envir = sys.frame(parent))
  }
  if (identical(arg, choices)) return(arg[1L])
  listed <- paste0("\"", choices, "\"", collapse = ", ")
  if (!is.character(arg) || length(arg) != 1L || is.na(arg)) {
    stop(sprintf("'%s' must be one string, one of %s.", arg_name, listed), call. = FALSE)
  }
  i <- pmatch(arg, choices)
  if (!is.na(i)) return(choices[i])
  hits <- choices[startsWith(choices, arg)]
  if (length(hits) > 1L) {
    stop(sprintf("'%s' = \"%s\" matches several choices (%s): write it in full.", arg_name, arg,
                 paste0("\"", hits, "\"", collapse = ", ")), call. = FALSE)
  }
  best <- closest_name(arg, choices, aliases = c(aliases, stats::setNames(choices, toupper(choices))))
  stop(sprintf("'%s' = \"%s\" is not one of %s.%s", arg_name, arg, listed,
               if (is.null(best)) "" else sprintf(" Did you mean \"%s\"?", best)), call. = FALSE)
}

# What R itself may pass to any print() method (print.default() of a list,
# print.data.frame()): accepted in a print method's `...` and ignored there.
print_dot_args <- c("digits", "quote", "right", "max", "width", "useSource", "na.print",
                    "print.gap", "row.names", "zero.print", "justify")

# A plot method's `...` goes to the graphics functions: every name must be a
# graphical parameter (par()) or an argument of plot.default(), or it is an
# error here instead of a warning ("not a graphical parameter") from deep
# inside graphics -- or, for a misspelt argument of the method, nothing.
check_graphics_dots <- function(..., .fn = "plot") {
  nms <- ...names()
  if (is.null(nms)) return(invisible())
  nms <- nms[!is.na(nms) & nzchar(nms)]
  pars <- c(get(".Pars", envir = asNamespace("graphics")),
            names(formals(graphics::plot.default)), "main", "sub", "xlab", "ylab")
  own <- names(formals(sys.function(sys.parent())))
  bad <- setdiff(nms, pars)
  if (length(bad)) {
    unknown_arg_error(bad[1L], .fn, own,
                      hint = paste0("Other arguments must be graphical parameters (see ?par), ",
                                    "e.g. main, col, cex, xlab."))
  }
  invisible()
}

# An argument given where the call does not use it (var_equal with a method
# other than "t", n_perm with the gamma test): an error, never silently
# dropped. `when`: what it needs ('method = "t"'); `now`: what the call is.
# "a linear", "an inverse-distance": a kernel's name for a message.
kernel_noun <- function(name) {
  noun <- gsub("_", "-", name)
  paste(if (grepl("^[aeiou]", noun)) "an" else "a", noun)
}

stop_unused <- function(arg, when, now) {
  if (!grepl(" = ", arg, fixed = TRUE)) arg <- paste0("'", arg, "'")
  stop(sprintf("%s is not used with %s; it applies to %s only. Remove it, or use %s.",
               arg, now, when, when), call. = FALSE)
}
