#!/usr/bin/env python3
"""Time BAHSIC's parallel regions in a copy of the core (tools/harness.sh regions).

    python3 tools/harness/regions.py SRC_COPY HARNESS_C_COPY

Patches a copy of src/ and of tools/harness/harness.c (never the originals)
so that the harness prints, after each BAHSIC workload call, a line

    regions bahsic_all nt=16 total=... exact=W/P/N update=W/P/N screen=W/P/N
            paced=W/P/N prep=W/P/N outside=...

W: wall seconds summed over the calls of one kind of region, P: how many of
them ran on threads, N: how many there were; exact: the candidates' exact
scores (schedule.c), update: the set's pair distances (scorer_pairs.c),
screen: the series screen, paced: bk_paced_for() groups, prep: the screen's
per-round sums; outside: the call's time outside them (serial). For a
measurement only: it stops with an error where the code it patches has
moved, rather than time something else.
"""
import sys

src, main = sys.argv[1], sys.argv[2]


def patch(path, pairs):
    with open(path) as f:
        s = f.read()
    for old, new in pairs:
        if s.count(old) != 1:
            sys.exit(f"regions.py: {path}: the code to patch has moved:\n{old}")
        s = s.replace(old, new)
    with open(path, "w") as f:
        f.write(s)


T0 = "const double t0 = par ? bk_par_now() : 0.0;"
patch(f"{src}/schedule.h", [(
    "double bk_par_now(void);",
    "double bk_par_now(void);\nextern double bk_reg_w[8];\nextern long bk_reg_p[8], bk_reg_n[8];\n"
    "void bk_reg_add(int k, double w, int par);")])
patch(f"{src}/schedule.c", [
    ("double bk_par_now(void)\n{",
     "double bk_reg_w[8];\nlong bk_reg_p[8], bk_reg_n[8];\n"
     "void bk_reg_add(int k, double w, int par)\n{\n  bk_reg_w[k] += w;\n  bk_reg_p[k] += par;\n"
     "  bk_reg_n[k]++;\n}\n\ndouble bk_par_now(void)\n{"),
    ("    " + T0 + "\n    double busy = 0.0;", "    const double t0 = bk_par_now();\n    double busy = 0.0;"),
    ("      bk_par_watched(r->par, (double) (g1 - g0) * cost, 1.0, bk_par_now() - t0,\n"
     "                     busy);",
     "      bk_par_watched(r->par, (double) (g1 - g0) * cost, 1.0, bk_par_now() - t0,\n"
     "                     busy);\n    bk_reg_add(0, bk_par_now() - t0, par);")])
patch(f"{src}/scorer_pairs.c", [
    ("  " + T0 + "\n  double busy = 0.0;", "  const double t0 = bk_par_now();\n  double busy = 0.0;"),
    ("  if (par) bk_par_watched(&st->par, ops, 2.0, bk_par_now() - t0, busy);",
     "  if (par) bk_par_watched(&st->par, ops, 2.0, bk_par_now() - t0, busy);\n"
     "  bk_reg_add(1, bk_par_now() - t0, par);"),
    ("    " + T0 + "\n    double busy = 0.0;", "    const double t0 = bk_par_now();\n    double busy = 0.0;"),
    ("                     bk_par_now() - t0, busy);\n    bk_pace(st->pace, 4 * P * (u1 - u0));",
     "                     bk_par_now() - t0, busy);\n    bk_reg_add(2, bk_par_now() - t0, par);\n"
     "    bk_pace(st->pace, 4 * P * (u1 - u0));"),
    ("#ifdef _OPENMP\n#pragma omp parallel num_threads(nthreads) if (par)\n#endif\n"
     "  bk_series_prepare(&st->sr, st->Q, st->Wp, st->Wd, m, sigma, sgn,\n"
     "                    st->series->work, scratch, BK_SERIES_STRIDE(m));",
     "  const double t0 = bk_par_now();\n#ifdef _OPENMP\n#pragma omp parallel num_threads(nthreads) if (par)\n"
     "#endif\n  bk_series_prepare(&st->sr, st->Q, st->Wp, st->Wd, m, sigma, sgn,\n"
     "                    st->series->work, scratch, BK_SERIES_STRIDE(m));\n"
     "  bk_reg_add(4, bk_par_now() - t0, par);")])
patch(f"{src}/pace.c", [
    ("    int par = nthreads > 1 && ops >= loop->par_min;",
     "    int par = nthreads > 1 && ops >= loop->par_min;\n    const double t0 = bk_par_now();"),
    ("    if (pace) bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);\n    i0 = i1;",
     "    bk_reg_add(3, bk_par_now() - t0, par);\n"
     "    if (pace) bk_pace(pace, ops < 0x1p62 ? (ptrdiff_t) ops : BK_CHECK_OPS);\n    i0 = i1;")])
patch(main, [
    ('#include "inference.h"\n', '#include "inference.h"\n#include "schedule.h"\n'),
    ("  double t0 = now();\n  ptrdiff_t np = run_select_rank(",
     "  for (int k = 0; k < 8; k++) bk_reg_w[k] = 0.0, bk_reg_p[k] = bk_reg_n[k] = 0;\n"
     "  double t0 = now();\n  ptrdiff_t np = run_select_rank("),
    ("  double t = now() - t0;\n  check(memcmp(rank, j->rank.v",
     "  double t = now() - t0, in = 0.0;\n"
     "  static const char *kind[] = {\"exact\", \"update\", \"screen\", \"paced\", \"prep\"};\n"
     "  fprintf(stderr, \"regions %s nt=%2d total=%.4f\", j->sub, nt, t);\n"
     "  for (int k = 0; k < 5; k++) {\n"
     "    in += bk_reg_w[k];\n"
     "    fprintf(stderr, \" %s=%.4f/%ld/%ld\", kind[k], bk_reg_w[k], bk_reg_p[k], bk_reg_n[k]);\n"
     "  }\n"
     "  fprintf(stderr, \" outside=%.4f\\n\", t - in);\n"
     "  check(memcmp(rank, j->rank.v")])
