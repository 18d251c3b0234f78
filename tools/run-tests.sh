#!/usr/bin/env bash
# The test command: install the dependencies, install bahsic from this checkout, run its tests.
#
#   bash tools/run-tests.sh
#
# Run as root on Debian 12 with R 4.2.2 (tools/install-deps.sh uses apt-get). The last line
# printed is "N passed, N failed, N skipped" (see tools/run-tests.R); the exit status is
# non-zero if a dependency, the installation or any test fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash tools/install-deps.sh
R CMD INSTALL --preclean .
Rscript tools/run-tests.R
