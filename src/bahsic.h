/*
 * bahsic.h: the whole numeric core in one include, for the fuzzers
 * (tools/fuzz/) and for a reader looking for the map of its headers. The
 * files of src/ include only the headers of the areas they use:
 *
 *   common.h     standard headers, codes.h, exp, SIMD pragmas, the pacer,
 *                the selection tick, the power-of-two scales (scale.c)
 *   kernels.h    kernel values, Gram matrices, the median heuristic (gram.c)
 *   pairs.h      the vectorised Gaussian pass over pairs (pairs.c)
 *   clinical.h   the clinical kernel (clinical.c)
 *   hsic.h       HSIC estimators, per-feature sums and tests (hsic.c,
 *                kernel_test.c)
 *   lowrank.h    low-rank HSIC, incomplete Cholesky, random features
 *                (lowrank.c)
 *   schedule.h   the width policy (width.c), the scorer interface and the
 *                selection schedule (schedule.c)
 *   series.h     the series screen of the exact Gaussian selection (series.c)
 *   select.h     BAHSIC and FOHSIC on the data kernels and their scorers
 *                (select.c, scorer_*.c)
 *   ridge.h      the ridge-regression kernel (ridge.c)
 *   randsel.h    randSel (randsel.c)
 *   checks.h     data checks and column rescaling (checks.c)
 *   inference.h  univariate statistics and permutation maxT (scores.c,
 *                maxt.c)
 *   lsmi.h       LSMI, l1-LSMI and l1-HSIC (lsmi.c)
 *   mrmr.h       mRMR selection with HSIC (scorer_mrmr.c)
 *   ranks.h      per-feature rank sums: Wilcoxon, Kruskal-Wallis (ranks.c)
 *   pairtop.h    the float32 screen of all pairs of features (pairtop.c)
 *   pairscore.h  the exact scores and tests of candidate pairs (pairscore.c)
 *   screen.h     the column passes of bahsic()'s screen (screen.c)
 *
 * The glue (*_call.c) includes glue.h (R's headers and what the glue
 * shares) and the core headers of the entry points it calls.
 */
#ifndef BAHSIC_H
#define BAHSIC_H

#include "common.h"
#include "kernels.h"
#include "pairs.h"
#include "clinical.h"
#include "hsic.h"
#include "lowrank.h"
#include "schedule.h"
#include "series.h"
#include "select.h"
#include "ridge.h"
#include "randsel.h"
#include "checks.h"
#include "inference.h"
#include "lsmi.h"
#include "mrmr.h"
#include "ranks.h"
#include "pairtop.h"
#include "pairscore.h"
#include "screen.h"

#endif
