#!/usr/bin/env bash
# Build the pkgdown site (pkgdown 2.0.7, _pkgdown.yml) from this checkout, offline.
#
#   bash tools/site.sh [DEST]        DEST defaults to docs/ (ignored by git and R CMD build)
#
# Uses the INSTALLED bahsic (the first one on R's library path, so R_LIBS is respected:
# R_LIBS=/tmp/lib-x bash tools/site.sh) for the examples and vignettes, as CI has it after
# its install stage; install first (R CMD INSTALL .). Exit status non-zero if
#   - pkgdown::check_pkgdown() fails: an exported topic missing from the reference index of
#     _pkgdown.yml, an unknown topic name there, or a vignette missing from the articles index;
#   - the build stops (an Rd that does not parse, a vignette chunk that fails, ...) or pkgdown
#     warns (a missing image, a bad NEWS.md heading, ...);
#   - an example printed an error in a reference page;
#   - a page links (href/src) to a file of the site that does not exist.
# Examples (\donttest included, \dontrun not) and the four vignettes run during the build;
# every output line is prefixed with the seconds since the start, so the log shows their time.
#
# Offline: the build reaches no network at all. pkgdown 2.0.7 would otherwise
#   - ask CRAN and Bioconductor whether the package is published (a sidebar link), and crandb
#     for the release dates in NEWS.md: off with options(pkgdown.internet = FALSE) (and
#     news: cran_dates: false in _pkgdown.yml);
#   - through downlit's autolinks, download <URL>/pkgdown.yml of every installed package whose
#     functions the pages mention (to link to that package's own site), and CRAN's package
#     database (tools::CRAN_package_db()) or available.packages() of the configured
#     repositories for a package that is not installed (library(db_pkg, character.only =
#     TRUE) in a vignette is enough; offline this is an error that stops the build).
#     This script replaces those three lookups in downlit's namespace, in its own R process
#     only, by "no answer": links to functions of other installed packages go to rdrr.io
#     (downlit's fallback), a package that is not installed gets no link, a package that
#     ships a pkgdown.yml is linked from it as usual. The pages are the same with or without
#     a network; a downlit without these functions stops the script with a message.
# Bootstrap 5 and its Sass come from the installed bslib; no web font is fetched. The pages
# themselves load Font Awesome, clipboard.js, headroom, bootstrap-toc, MathJax and the
# search's fuse.js, autocomplete.js and mark.js from cdnjs/jsdelivr when a browser opens them
# (pkgdown 2.0.7's template): that is at reading time, not at build time.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$BAHSIC_ROOT"

dest=${1:-docs}
case $dest in /*) ;; *) dest=$BAHSIC_ROOT/$dest ;; esac
# pkgdown writes into DEST; start from an empty one so that no page of an older build hides
# a missing one. Only a previous site (it has pkgdown.yml) or an empty directory is removed.
if [[ -e $dest ]]; then
  if [[ -f $dest/pkgdown.yml || -z $(ls -A "$dest") ]]; then
    rm -rf "$dest"
  else
    bk_log "$dest exists and is not a pkgdown site; give another directory" >&2
    exit 2
  fi
fi

bk_workdir
script=$BK_WORK/site.R
cat >"$script" <<'EOF'
dest <- commandArgs(trailingOnly = TRUE)[[1]]
fail <- function(...) {
  message("[site] ", ...)
  quit(save = "no", status = 1)
}
for (p in c("pkgdown", "bahsic")) {
  if (!requireNamespace(p, quietly = TRUE)) {
    fail("package '", p, "' is not installed in ", paste(.libPaths(), collapse = ":"),
         if (p == "bahsic") "; run R CMD INSTALL . first (or set R_LIBS)")
  }
}
src_version <- read.dcf("DESCRIPTION", fields = "Version")[[1]]
if (!identical(as.character(packageVersion("bahsic")), src_version)) {
  fail("the installed bahsic (", packageVersion("bahsic"), ", ", find.package("bahsic"),
       ") is not this checkout's version ", src_version, "; run R CMD INSTALL . first")
}
message("[site] pkgdown ", packageVersion("pkgdown"), ", downlit ", packageVersion("downlit"),
        ", bahsic from ", find.package("bahsic"))

# Offline (see the header of tools/site.sh).
options(pkgdown.internet = FALSE)
offline <- function(name, value) {
  ns <- asNamespace("downlit")
  if (!exists(name, envir = ns, inherits = FALSE)) {
    fail("downlit ", packageVersion("downlit"), " has no ", name, "(): see which lookups ",
         "of packages' URLs it makes and update the offline part of tools/site.sh")
  }
  utils::assignInNamespace(name, value, ns = "downlit")
}
no_packages <- function(...) data.frame(Package = character(), URL = character())
offline("remote_metadata_slow", function(package) NULL)
offline("CRAN_urls", no_packages)
offline("repo_urls", no_packages)

pkgdown::check_pkgdown(".")

warnings_seen <- character()
withCallingHandlers(
  pkgdown::build_site(".", examples = TRUE, run_dont_run = FALSE, lazy = FALSE,
                      preview = FALSE, devel = FALSE, install = FALSE,
                      new_process = FALSE, override = list(destination = dest)),
  warning = function(w) {
    warnings_seen <<- c(warnings_seen, conditionMessage(w))
  }
)

problems <- character()
if (length(warnings_seen)) {
  problems <- c(problems, paste("pkgdown warned:", warnings_seen))
}

# Examples that printed an error (downlit marks error output with class r-err).
ref <- list.files(file.path(dest, "reference"), "\\.html$", full.names = TRUE)
for (f in ref) {
  if (any(grepl("r-err", readLines(f, warn = FALSE), fixed = TRUE))) {
    problems <- c(problems, paste("an example printed an error:", basename(f)))
  }
}

# Links inside the site: every relative href/src must name an existing file.
pages <- list.files(dest, "\\.html$", recursive = TRUE, full.names = TRUE)
n_links <- 0L
for (f in pages) {
  html <- paste(readLines(f, warn = FALSE), collapse = "\n")
  targets <- regmatches(html, gregexpr("(href|src)=\"[^\"]*\"", html))[[1]]
  targets <- sub("^(href|src)=\"([^\"]*)\"$", "\\2", targets)
  targets <- sub("[#?].*$", "", targets)
  targets <- targets[nzchar(targets) & !grepl("^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", targets)]
  targets <- unique(utils::URLdecode(targets))
  n_links <- n_links + length(targets)
  for (t in targets) {
    if (!file.exists(file.path(dirname(f), t))) {
      page <- substring(f, nchar(dest) + 2L)
      problems <- c(problems, sprintf("broken link in %s: %s", page, t))
    }
  }
}
message(sprintf("[site] %d pages (%d reference pages), %d relative links checked",
                length(pages), length(ref), n_links))
if (length(problems)) {
  fail(length(problems), " problem(s):\n", paste0("  ", problems, collapse = "\n"))
}
EOF

start=$SECONDS
Rscript "$script" "$dest" 2>&1 | while IFS= read -r line; do
  printf '[%4d s] %s\n' $((SECONDS - start)) "$line"
done
bk_log "site built in $((SECONDS - start)) s: $dest/index.html"
