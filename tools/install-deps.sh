#!/usr/bin/env bash
# Install what bahsic needs, on Debian 12 with R 4.2.2, as root (apt-get).
#
#   bash tools/install-deps.sh           everything to build, check and test (CI, developers)
#   bash tools/install-deps.sh --user    only what a user needs to install bahsic with its
#                                        vignettes and run the main job (no clang, valgrind,
#                                        test or check tools)
#
# Idempotent: a second run changes nothing and takes a few seconds. Safe without a terminal
# (CI=true, no stdin). Set BAHSIC_FORCE_APT=1 to run apt-get update/install even when every
# Debian package is already installed.
#
# --user: r-base-dev (a C compiler for the package's C code), the Imports (stats, methods,
#    graphics, utils and parallel come with R; progressr and parallelly from Debian, stabs from
#    CRAN), the main job's limma and the ALL data set with Biobase, the bladderbatch data set
#    (the gene-selection vignette's batches; Artistic-2.0), survival (censored outcomes, the
#    vignette's relapse-free times; a recommended package of R), and what R CMD build needs
#    to build the four
#    vignettes: knitr, rmarkdown and pandoc, plus the packages the vignettes run (kernlab, MASS,
#    SummarizedExperiment, SingleCellExperiment, HDF5Array, BiocParallel; without them the
#    vignettes still build, with those sections not run).
# Default (full):
# 1. Debian's prebuilt R packages (r-cran-*, r-bioc-*) and the tools R CMD check --as-cran uses
#    (pandoc, qpdf, tidy), and LaTeX for the PDF manual that R CMD check builds
#    (texlive-latex-base: pdflatex; texlive-latex-recommended and texlive-fonts-recommended:
#    the packages and the Times fonts of R's Rd.sty; about 50 MB). The typewriter font R asks
#    for, inconsolata, ships in Debian only in texlive-fonts-extra (1.4 GB): tools/check.sh
#    builds the manual with Courier where it is missing. BAHSIC_TEX_FONTS_EXTRA=1 installs it.
#    r-cran-rcpp is listed because dHSIC links to it: taking Debian's build
#    saves compiling Rcpp from source. valgrind, clang-14 and libclang-rt-14-dev (libFuzzer and
#    clang's sanitizer runtimes) are for the memory-safety checks (tools/valgrind.sh,
#    tools/fuzz.sh, tools/strict.sh); gcc's own ASan runtime comes with gcc.
# 2. From CRAN, through R's configured repository (no repository is named here), the
#    packages Debian does not ship: dHSIC, pamr, stabs, dials, mlr3 and mlr3filters (with the
#    newer rlang, vctrs, data.table, ... that dials and mlr3 ask for; about 3 minutes on 2
#    cores). Only those not yet installed.
# apt-get waits while another apt-get or dpkg holds the package lock, up to
# BAHSIC_APT_LOCK_TIMEOUT seconds (default 600), and says so.
# Any failure stops the script with a non-zero status.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

mode=full
case "${1:-}" in
  "") ;;
  --user) mode=user ;;
  -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *)
    printf '[install-deps] unknown argument %s: use no argument (everything) or --user\n' "$1" >&2
    exit 2
    ;;
esac

if [[ $mode == user ]]; then
  apt_packages=(
    r-base-dev
    r-cran-progressr r-bioc-limma r-bioc-biobase r-bioc-all r-bioc-bladderbatch r-cran-survival
    r-cran-knitr r-cran-rmarkdown pandoc
    r-cran-kernlab r-cran-mass r-bioc-summarizedexperiment r-bioc-singlecellexperiment
    r-bioc-hdf5array r-bioc-biocparallel r-cran-parallelly
  )
  cran_packages=(stabs)
else
  apt_packages=(
    r-cran-testthat r-cran-roxygen2
    r-bioc-limma r-bioc-genefilter r-bioc-biobase r-bioc-summarizedexperiment
    r-bioc-all r-bioc-bladderbatch r-bioc-multtest r-cran-statmod r-cran-survival
    r-cran-kernlab r-cran-knitr r-cran-rmarkdown r-cran-rcpp
    r-cran-future r-cran-future.apply r-bioc-biocparallel r-cran-progressr r-cran-parallelly
    r-cran-caret r-cran-recipes r-cran-generics r-cran-pkgdown
    r-bioc-hdf5array r-bioc-singlecellexperiment
    pandoc qpdf tidy
    texlive-latex-base texlive-latex-recommended texlive-fonts-recommended
    valgrind clang-14 libclang-rt-14-dev r-mathlib
  )
  if [[ ${BAHSIC_TEX_FONTS_EXTRA:-0} == 1 ]]; then apt_packages+=(texlive-fonts-extra); fi
  cran_packages=(dHSIC pamr stabs dials mlr3 mlr3filters)
fi

log() { printf '[install-deps] %s\n' "$*"; }

if [[ $(id -u) -ne 0 ]]; then
  log "must run as root (apt-get install); try: sudo bash tools/install-deps.sh ${1:-}" >&2
  exit 1
fi
command -v Rscript >/dev/null || { log "Rscript not found: install R (r-base) first" >&2; exit 1; }

start=$SECONDS
lock_timeout=${BAHSIC_APT_LOCK_TIMEOUT:-600}
[[ $lock_timeout =~ ^[0-9]+$ ]] || {
  log "BAHSIC_APT_LOCK_TIMEOUT must be a number of seconds, not '$lock_timeout'" >&2
  exit 2
}

# apt-get update, waiting while another apt-get holds the lock of the package lists (apt's
# DPkg::Lock::Timeout covers install, not update), with one retry for a mirror caught mid-sync.
apt_update() {
  local t0=$SECONDS err retried=0
  err=$(mktemp)
  until apt-get update -q 2>"$err"; do
    if grep -q 'Could not get lock' "$err"; then
      if ((SECONDS - t0 >= lock_timeout)); then
        cat "$err" >&2
        log "another apt-get still holds the package lock after $lock_timeout s: stop it or" \
          "wait, then run this again (BAHSIC_APT_LOCK_TIMEOUT sets the wait)" >&2
        rm -f "$err"
        return 1
      fi
      log "another apt-get or dpkg holds the package lock ($(grep -o 'held by process.*' \
        "$err" | head -n 1 || echo 'held')): waiting (up to $lock_timeout s in all)"
      sleep 10
    elif ((retried == 0)); then
      cat "$err" >&2
      retried=1
      sleep 10
    else
      cat "$err" >&2
      rm -f "$err"
      return 1
    fi
  done
  rm -f "$err"
}

# --- Debian packages -------------------------------------------------------------------------
missing=()
for p in "${apt_packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -gt 0 || ${BAHSIC_FORCE_APT:-0} == 1 ]]; then
  log "apt: installing ${missing[*]:-(forced, all present)}"
  apt_update
  # apt-get itself waits for the dpkg lock (printing "Waiting for cache lock ... held by
  # process N") up to DPkg::Lock::Timeout seconds
  log "apt: installing (waiting up to $lock_timeout s if another apt-get holds the dpkg lock)"
  apt-get -o DPkg::Lock::Timeout="$lock_timeout" install -y -q --no-install-recommends \
    "${apt_packages[@]}"
else
  log "apt: all ${#apt_packages[@]} Debian packages already installed"
fi

# --- CRAN packages ---------------------------------------------------------------------------
# install.packages() only warns when a package fails, so check afterwards and fail loudly.
cran_code=$(cat <<'EOF'
  pkgs <- commandArgs(trailingOnly = TRUE)
  have <- function(p) requireNamespace(p, quietly = TRUE)
  todo <- pkgs[!vapply(pkgs, have, logical(1))]
  if (length(todo) == 0L) {
    message("[install-deps] CRAN: ", paste(pkgs, collapse = ", "), " already installed")
    quit(status = 0)
  }
  # The repository is R's own setting (Rprofile.site); without one install.packages() would
  # ask for a mirror on stdin, which CI does not have.
  repos <- getOption("repos")
  if (!length(repos) || any(repos == "@CRAN@")) {
    stop("no CRAN mirror configured: set options(repos = ...) in ",
         file.path(R.home("etc"), "Rprofile.site"), call. = FALSE)
  }
  lib <- .libPaths()[1L]
  message("[install-deps] CRAN: installing ", paste(todo, collapse = ", "), " into ", lib)
  options(Ncpus = max(1L, parallel::detectCores()))
  install.packages(todo, lib = lib)
  failed <- todo[!vapply(todo, have, logical(1))]
  if (length(failed)) {
    stop("could not install from CRAN: ", paste(failed, collapse = ", "), call. = FALSE)
  }
EOF
)
Rscript -e "$cran_code" "${cran_packages[@]}"

log "done ($mode) in $((SECONDS - start)) s"
