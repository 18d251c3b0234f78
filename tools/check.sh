#!/usr/bin/env bash
# R CMD build + R CMD check --as-cran of this checkout, in a temporary directory, with the PDF
# manual (pdflatex: the full tools/install-deps.sh installs it).
#
#   bash tools/check.sh
#
# Exit status non-zero if the build fails or the check reports any ERROR or WARNING; NOTEs are
# printed at the end but do not fail. Vignettes, if any, are built by R CMD build as usual.
# The check directory is removed on success and kept (its path printed) on failure;
# BAHSIC_CHECK_DIR=/some/dir puts it there instead and keeps it.
#
# Environment for the check:
#   _R_CHECK_CRAN_INCOMING_REMOTE_=false  the incoming checks that query CRAN's servers are skipped
#                                         (our CI reaches the package repositories only).
#   _R_CHECK_SYSTEM_CLOCK_=false          --as-cran checks file timestamps against the time of a
#                                         web service that is unreachable here ("unable to verify
#                                         current time" NOTE); compare with the local clock instead.
#   R_RD4PDF=times,hyper                  only where LaTeX lacks the inconsolata font that R's
#                                         default (times,inconsolata,hyper) asks for: Debian ships
#                                         it in texlive-fonts-extra alone (1.4 GB), which the full
#                                         install leaves out; the manual is set in Courier then.
# BAHSIC_CHECK_NO_MANUAL=1 skips the manual (--no-manual), for a machine without LaTeX.
set -euo pipefail
# caret and recipes load lubridate, whose Sys.timezone() warns when TZ is unset on a machine
# without systemd: in UTC then (as tools/lib.sh)
export TZ=${TZ:-UTC}

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n ${BAHSIC_CHECK_DIR:-} ]]; then
  workdir=$BAHSIC_CHECK_DIR
  mkdir -p "$workdir"
  keep=1
else
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/bahsic-check.XXXXXX")
  keep=0
fi
manual=(); rd4pdf=${R_RD4PDF:-}
if [[ ${BAHSIC_CHECK_NO_MANUAL:-0} == 1 ]]; then
  manual=(--no-manual)
elif ! command -v pdflatex >/dev/null; then
  echo "check.sh: pdflatex not found: the PDF manual needs LaTeX. Install it with" \
    "'bash tools/install-deps.sh' (as root), or set BAHSIC_CHECK_NO_MANUAL=1 to skip it" >&2
  exit 1
elif [[ -z $rd4pdf && -z $(kpsewhich zi4.sty inconsolata.sty) ]]; then
  echo "==> no inconsolata font for LaTeX (Debian: texlive-fonts-extra): manual in Courier"
  rd4pdf=times,hyper
fi

cd "$workdir"
rm -f bahsic_*.tar.gz

echo "==> R CMD build (in $workdir)"
R CMD build "$root"
tarball=$(ls -t bahsic_*.tar.gz | head -n 1)

echo "==> R CMD check --as-cran ${manual[*]} $tarball"
status=0
_R_CHECK_CRAN_INCOMING_REMOTE_=false \
_R_CHECK_SYSTEM_CLOCK_=false \
R_RD4PDF=${rd4pdf:-times,inconsolata,hyper} \
  R CMD check --as-cran "${manual[@]}" "$tarball" || status=$?

log=bahsic.Rcheck/00check.log
if [[ ! -f $log ]]; then
  echo "check.sh: no $workdir/$log: R CMD check did not run" >&2
  exit 1
fi

# Every "* checking ... NOTE/WARNING/ERROR" item with the indented lines that explain it.
echo
echo "==> Problems reported by R CMD check"
awk '
  /^\* / { show = ($0 ~ /(NOTE|WARNING|ERROR)$/) }
  show
' "$log"
status_line=$(grep -E '^Status: ' "$log" || echo "Status: (none: check did not finish)")
echo "$status_line"

if [[ $status -ne 0 ]] || grep -qE '^Status: .*(ERROR|WARNING)' <<<"$status_line" \
   || ! grep -qE '^Status: ' "$log"; then
  echo "check.sh: R CMD check failed (exit $status, $status_line); see $workdir/bahsic.Rcheck" >&2
  exit 1
fi

echo "check.sh: no ERROR or WARNING"
if [[ $keep -eq 0 ]]; then
  cd /
  rm -rf "$workdir"
fi
