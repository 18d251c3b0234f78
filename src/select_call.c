/* select_call.c: SEXP glue of BAHSIC and FOHSIC on the data kernels: a
 * table of the selection modes, each of which reads its own options and
 * builds its scorer (scorer_*.c); C_select runs the scorer by the one
 * schedule (schedule.c). */
#include <limits.h>
#include <stdio.h>
#include "glue.h"
#include "pairs.h"
#include "select.h"
#include "series.h"

/* between iterations, on the main thread: Ctrl-C and progress (also the
 * ridge loop's, ridge_call.c) */
void bk_select_tick(void *ctx, ptrdiff_t iter, ptrdiff_t size, double hsic,
                    double sigma)
{
  bk_tick_ctx *t = (bk_tick_ctx *) ctx;
  if (t->verbose) {
    /* through message(), so that suppressMessages() and handlers see it */
    char buf[160];
    if (ISNAN(sigma))
      snprintf(buf, sizeof buf, "%s iteration %td: %td features, HSIC %.6g",
               t->name, iter, size, hsic);
    else
      snprintf(buf, sizeof buf,
               "%s iteration %td: %td features, HSIC %.6g, sigma %.4g",
               t->name, iter, size, hsic, sigma);
    /* the string protected before Rf_lang2() allocates (what rchk asks) */
    SEXP msg = PROTECT(Rf_mkString(buf));
    SEXP call = PROTECT(Rf_lang2(Rf_install("message"), msg));
    Rf_eval(call, R_BaseEnv);
    UNPROTECT(2);
  }
  if (t->progress != R_NilValue) {
    /* R rate-limits the updates (progress_tick()); an error or an
     * interrupt raised there unwinds as R_CheckUserInterrupt() would: the
     * scratch memory is R_alloc'ed */
    SEXP size_r = PROTECT(Rf_ScalarReal((double) size));
    SEXP call = PROTECT(Rf_lang2(t->progress, size_r));
    Rf_eval(call, R_GlobalEnv);
    UNPROTECT(2);
  }
  bk_check_limits();
}

/* The optional R function `progress` of the options (R_NilValue when not
 * given or NULL). */
SEXP bk_opt_progress(bk_opts *op)
{
  if (!bk_opt_given(op, "progress")) return R_NilValue;
  SEXP f = bk_opt(op, "progress");
  if (f != R_NilValue && !Rf_isFunction(f))
    Rf_error("%s: option 'progress' must be a function or NULL", op->entry);
  return f;
}

/* What C_select hands a mode: the data, the common options and the
 * series option; a mode's reader fills in the rest. */
typedef struct {
  const double *x;
  ptrdiff_t m, d;
  bk_select_opts o;
  int series;    /* the series screen: 0 off, -1 terms chosen per iteration */
  double *base;  /* FOHSIC's per-row HSIC of the previous set (d + 1) */
  int *iwork;    /* bk_select_work_ints(d), the schedule's */
} sel_call;

/* A selection mode: its code and name; the combinations R lets reach it,
 * kept here as a safety net only (R refuses the others first, in
 * check_select_approx(), with a message that names the user's argument; an
 * option outside them is a wrapper bug, and an error here, never a silent
 * change); the reader of its own options (into R_alloc'ed memory it
 * returns) and the builder of its scorer, called once every option is read,
 * with the storage of the scorer's context. */
typedef struct {
  int mode;
  const char *name;
  int clinical;      /* takes the clinical kernel */
  unsigned int kprop; /* the kernels with this property only (0: any) */
  int optimize;      /* takes the "optimize" width policy */
  int forward;       /* takes FOHSIC */
  void *(*read)(bk_opts *op, sel_call *c);
  bk_scorer (*build)(sel_call *c, void *mo, bk_scorer_mem *mem);
} sel_mode;

/* The label factor F (m x s) and the estimator flag of the low-rank modes
 * (approx = "rff" and "ichol"). */
static const double *label_factor(bk_opts *op, ptrdiff_t m, ptrdiff_t *s,
                                  int *unbiased)
{
  ptrdiff_t nr = m;
  *s = -1;
  const double *F = bk_opt_matrix(op, "F", &nr, s);
  *unbiased = bk_opt_flag(op, "unbiased");
  return F;
}

/* The block path's option W, a list of the nblk within-block weight
 * matrices (block k: row0[k + 1] - row0[k] square), packed as the core takes
 * them: every block's upper triangle (pairs a < b, column by column), then
 * every block's diagonal. */
static void pack_blocks(bk_opts *op, bk_pairs_select *ps)
{
  const ptrdiff_t nblk = ps->blk.nblk, *row0 = ps->blk.row0,
                  *pair0 = ps->blk.pair0;
  SEXP Wb = bk_opt(op, "W");
  if (!Rf_isNewList(Wb) || XLENGTH(Wb) != nblk)
    Rf_error("%s: option 'W' must be a list of %td block matrices", op->entry, nblk);
  const ptrdiff_t m = row0[nblk];
  double *W = (double *) R_alloc((size_t) (pair0[nblk] + m), sizeof(double));
  for (ptrdiff_t k = 0; k < nblk; k++) {
    SEXP w = VECTOR_ELT(Wb, k);
    const ptrdiff_t mb = row0[k + 1] - row0[k];
    if (!Rf_isReal(w) || !Rf_isMatrix(w) || Rf_nrows(w) != mb || Rf_ncols(w) != mb)
      Rf_error("%s: option 'W': block %td must be a %td x %td double matrix", op->entry,
               k + 1, mb, mb);
    bk_pack_upper(REAL(w), mb, W + pair0[k]);
    for (ptrdiff_t a = 0; a < mb; a++) W[pair0[nblk] + row0[k] + a] = REAL(w)[a + mb * a];
  }
  ps->Wp = W;
  ps->Wd = W + pair0[nblk];
}

/* exact: W (m x m weights); for the clinical kernel (x encoded by
 * clinical_encode()) also categorical, an integer flag per column */
static void *read_exact(bk_opts *op, sel_call *c)
{
  ptrdiff_t nr = c->m, nc = c->m;
  const double *W = bk_opt_matrix(op, "W", &nr, &nc);
  if (c->o.kern.type == BK_CLINICAL)
    c->o.cat = bk_opt_int_vector(op, "categorical", c->d, NULL);
  return (void *) W;
}

/* the pairs of one block of all m samples, or the clinical kernel's sums */
static bk_scorer build_exact(sel_call *c, void *mo, bk_scorer_mem *mem)
{
  const double *W = mo;
  const ptrdiff_t m = c->m, P = m * (m - 1) / 2;
  if (c->o.direction == BK_FORWARD) c->o.base = c->base;
  if (c->o.kern.type == BK_CLINICAL) {
    double *tf = (double *) R_alloc((size_t) c->d + 1, sizeof(double));
    return bk_clinical_scorer(c->x, m, c->d, W, &c->o, tf, mem);
  }
  if (c->series != 0 && c->o.kern.type == BK_GAUSSIAN) {
    bk_series *se = (bk_series *) R_alloc(1, sizeof(bk_series));
    se->terms = c->series > 0 ? c->series : 0;
    se->work = (double *) R_alloc(
        (size_t) bk_series_work_doubles(m, c->d, c->o.nthreads), sizeof(double));
    c->o.series = se;
  }
  bk_pairs_select *ps = (bk_pairs_select *) R_alloc(1, sizeof(bk_pairs_select));
  ptrdiff_t *row0 = (ptrdiff_t *) R_alloc(4, sizeof(ptrdiff_t)), *pair0 = row0 + 2;
  row0[0] = pair0[0] = 0;
  row0[1] = m;
  pair0[1] = P;
  double *Wp = (double *) R_alloc((size_t) (P + m), sizeof(double));
  bk_pack_upper(W, m, Wp);
  for (ptrdiff_t a = 0; a < m; a++) Wp[P + a] = W[a + m * a];
  *ps = (bk_pairs_select){.blk = {1, row0, pair0}, .Wp = Wp, .Wd = Wp + P};
  ps->work = (double *) R_alloc((size_t) bk_pairs_work_doubles(m, &ps->blk),
                                sizeof(double));
  return bk_pairs_scorer(c->x, m, c->d, ps, &c->o, c->iwork, mem);
}

/* block: blocks, the row offsets c(0, ..., m) (integer, nblk + 1,
 * increasing by at least 2), and W, a list of the nblk within-block weight
 * matrices (packed here, as the exact mode's W) */
static void *read_block(bk_opts *op, sel_call *c)
{
  R_xlen_t nb;
  const int *bl = bk_opt_int_vector(op, "blocks", -1, &nb);
  if (nb < 2) Rf_error("'blocks' must be an integer vector of row offsets");
  const ptrdiff_t nblk = nb - 1;
  ptrdiff_t *row0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
  ptrdiff_t *pair0 = (ptrdiff_t *) R_alloc((size_t) (nblk + 1), sizeof(ptrdiff_t));
  row0[0] = pair0[0] = 0;
  if (bl[0] != 0 || bl[nblk] != c->m)
    Rf_error("'blocks' must run from 0 to nrow(x)");
  for (ptrdiff_t k = 0; k < nblk; k++) {
    ptrdiff_t mb = (ptrdiff_t) bl[k + 1] - bl[k];
    if (mb < 2) Rf_error("every block needs at least 2 samples");
    row0[k + 1] = bl[k + 1];
    pair0[k + 1] = pair0[k] + mb * (mb - 1) / 2;
  }
  bk_pairs_select *ps = (bk_pairs_select *) R_alloc(1, sizeof(bk_pairs_select));
  *ps = (bk_pairs_select){.blk = {nblk, row0, pair0}};
  pack_blocks(op, ps);
  return ps;
}

static bk_scorer build_block(sel_call *c, void *mo, bk_scorer_mem *mem)
{
  bk_pairs_select *ps = mo;
  if (c->o.direction == BK_FORWARD) c->o.base = c->base;
  ps->work = (double *) R_alloc((size_t) bk_pairs_work_doubles(c->m, &ps->blk),
                                sizeof(double));
  return bk_pairs_scorer(c->x, c->m, c->d, ps, &c->o, c->iwork, mem);
}

/* rff: omega (D x d), phase (D), F (m x s), unbiased */
static void *read_rff(bk_opts *op, sel_call *c)
{
  bk_rff_select *rs = (bk_rff_select *) R_alloc(1, sizeof(bk_rff_select));
  ptrdiff_t ncol = c->d;
  rs->D = -1;
  rs->omega = bk_opt_matrix(op, "omega", &rs->D, &ncol);
  rs->phase = bk_opt_real_vector(op, "phase", rs->D, NULL);
  rs->F = label_factor(op, c->m, &rs->s, &rs->unbiased);
  return rs;
}

static bk_scorer build_rff(sel_call *c, void *mo, bk_scorer_mem *mem)
{
  bk_rff_select *rs = mo;
  const int nth = c->o.nthreads > 1 ? c->o.nthreads : 1;
  rs->stride = bk_rff_select_work(c->m, rs->D, rs->s);
  rs->P = (double *) R_alloc((size_t) (c->m * rs->D), sizeof(double));
  rs->zwork = (double *) R_alloc((size_t) (nth * rs->stride), sizeof(double));
  return bk_rff_scorer(c->x, c->m, rs, &c->o, mem);
}

/* ichol: tol, max_rank (at most m: R's ichol_select_rank() gives the rank
 * of a factor of the m samples), F (m x s), unbiased */
static void *read_ichol(bk_opts *op, sel_call *c)
{
  bk_ichol_select *is = (bk_ichol_select *) R_alloc(1, sizeof(bk_ichol_select));
  is->tol = bk_opt_real(op, "tol");
  if (!(is->tol >= 0.0)) Rf_error("'tol' must be >= 0");
  is->max_rank = bk_opt_int(op, "max_rank", 1, c->m > INT_MAX ? INT_MAX : (int) c->m);
  is->F = label_factor(op, c->m, &is->s, &is->unbiased);
  return is;
}

static bk_scorer build_ichol(sel_call *c, void *mo, bk_scorer_mem *mem)
{
  bk_ichol_select *is = mo;
  const ptrdiff_t m = c->m, d = c->d, r = is->max_rank;
  const int nth = c->o.nthreads > 1 ? c->o.nthreads : 1;
  is->stride = bk_ichol_select_work(m, r, is->s);
  is->xbuf = (double *) R_alloc((size_t) (m * d > 0 ? m * d : 1), sizeof(double));
  is->G0 = (double *) R_alloc((size_t) (m * r), sizeof(double));
  is->Qmp = (double *) R_alloc((size_t) (m * r), sizeof(double));
  is->res = (double *) R_alloc((size_t) m, sizeof(double));
  is->piv = (int *) R_alloc((size_t) r, sizeof(int));
  is->zwork = (double *) R_alloc((size_t) (nth * is->stride), sizeof(double));
  is->r = (ptrdiff_t *) R_alloc(1, sizeof(ptrdiff_t));
  *is->r = 0;
  return bk_ichol_scorer(c->x, m, is, &c->o, mem);
}

/* The modes of BK_MODE_TABLE (codes.h); a new estimator adds its row. */
static const sel_mode sel_modes[] = {
    {.mode = BK_MODE_EXACT, .name = "exact", .clinical = 1, .optimize = 1,
     .forward = 1, .read = read_exact, .build = build_exact},
    {.mode = BK_MODE_BLOCK, .name = "block", .optimize = 1, .forward = 1,
     .read = read_block, .build = build_block},
    {.mode = BK_MODE_RFF, .name = "rff", .kprop = BK_KPROP_RFF, .forward = 1,
     .read = read_rff, .build = build_rff},
    {.mode = BK_MODE_ICHOL, .name = "ichol", .read = read_ichol,
     .build = build_ichol}};

static const sel_mode *find_mode(int mode)
{
  for (size_t i = 0; i < sizeof sel_modes / sizeof sel_modes[0]; i++)
    if (sel_modes[i].mode == mode) return &sel_modes[i];
  Rf_error("unknown mode code %d", mode);
  return NULL; /* not reached */
}

/* The safety net of a mode's row (sel_mode): an error for a combination R
 * refuses first. */
static void check_mode(const sel_mode *md, const bk_select_opts *o)
{
  const char *what = NULL;
  char with[128];
  if (md->kprop && !bk_kernel_has(o->kern.type, md->kprop))
    Rf_error("C_select: mode '%s' needs %s (R refuses it first: a wrapper bug)", md->name,
             bk_kernels_with(md->kprop, with, sizeof with));
  if (o->kern.type == BK_CLINICAL && !md->clinical)
    what = "the clinical kernel";
  else if (o->policy == BK_SIGMA_OPTIMIZE && !md->optimize)
    what = "the 'optimize' width";
  else if (o->direction == BK_FORWARD && !md->forward)
    what = "FOHSIC";
  if (what)
    Rf_error("C_select: mode '%s' does not take %s (R refuses it first: a wrapper bug)",
             md->name, what);
}

/* The options every mode takes (x: m x d), into c->o and c->series; returns
 * the mode's row. */
static const sel_mode *read_common(bk_opts *op, sel_call *c)
{
  const sel_mode *md = find_mode(bk_opt_int(op, "mode", -INT_MAX, INT_MAX));
  bk_select_opts *o = &c->o;
  *o = (bk_select_opts){0};
  o->kern.type = bk_opt_int(op, "kernel", -INT_MAX, INT_MAX);
  if (!bk_kernel_in(o->kern.type, BK_KSET_SELECT))
    Rf_error("unsupported kernel code %d", o->kern.type);
  o->kern.p1 = bk_opt_real_na(op, "p1");
  o->kern.p2 = bk_opt_real(op, "p2");
  o->direction = bk_opt_int(op, "direction", -INT_MAX, INT_MAX);
  if (!bk_direction_valid(o->direction))
    Rf_error("unknown direction code %d", o->direction);
  o->policy = bk_opt_int(op, "policy", -INT_MAX, INT_MAX);
  if (!bk_policy_valid(o->policy)) Rf_error("unknown width policy %d", o->policy);
  R_xlen_t ngrid;
  o->grid = bk_opt_real_vector(op, "grid", -1, &ngrid);
  o->ngrid = ngrid;
  o->grid_relative = bk_opt_flag(op, "grid_relative");
  o->step = bk_opt_real(op, "step");
  o->n_target = bk_opt_int(op, "n_target", 0, (int) c->d);
  o->nthreads = bk_opt_threads(op);
  o->simd = bk_opt_flag(op, "simd");
  /* the series screen: 0 off, -1 terms chosen per iteration, 1.. fixed */
  c->series = bk_opt_int(op, "series", -1, BK_SERIES_MAX_TERMS);
  if (o->policy == BK_SIGMA_OPTIMIZE && o->ngrid < 1)
    Rf_error("the 'optimize' policy needs a grid of widths");
  check_mode(md, o);
  return md;
}

/* x: standardised m x d double matrix (m >= 2); opts: a named list (read by
 * name, glue.h; an option not read is an error): the common ones
 *   mode       the estimator, a code of BK_MODE_TABLE (codes.h)
 *   kernel, p1, p2   the kernel's code (BK_KSET_SELECT) and parameters; p1
 *              may be NA when the width policy sets it
 *   direction, policy   codes of codes.h
 *   grid, grid_relative   the widths of "optimize", relative to the median
 *              heuristic if grid_relative
 *   step, n_target, threads, simd   as bk_select_opts (select.h)
 *   verbose, progress   the tick's message and R function (bk_select_tick())
 *   series     the series screen of the exact Gaussian path (series.c): 0
 *              off, -1 terms chosen per iteration, 1 .. BK_SERIES_MAX_TERMS
 * and the mode's own (its reader above). Returns list(rank, score,
 * iteration, path, base): base, per path row, FOHSIC's HSIC of the set
 * selected before the iteration at its width (exact and block modes; NA
 * otherwise). */
SEXP C_select(SEXP x, SEXP opts)
{
  bk_need_double_matrix(x, "x");
  sel_call c = {.x = REAL(x), .m = Rf_nrows(x), .d = Rf_ncols(x)};
  const ptrdiff_t d = c.d;
  bk_opts op;
  bk_opts_open(&op, opts, "C_select");
  const sel_mode *md = read_common(&op, &c);
  bk_tick_ctx tc = {bk_opt_flag(&op, "verbose"),
                    c.o.direction == BK_BACKWARD ? "BAHSIC" : "FOHSIC",
                    bk_opt_progress(&op)};
  void *mo = md->read(&op, &c);
  bk_opts_done(&op);
  if (c.m < 2) Rf_error("at least 2 samples are needed");
  /* interrupt checks within an iteration, between parallel regions */
  bk_pacer pace = {bk_check_limits, 0};
  c.o.pace = &pace;
  c.iwork = (int *) R_alloc((size_t) bk_select_work_ints(d), sizeof(int));
  double *sortbuf = (double *) R_alloc((size_t) (3 * d + 1), sizeof(double));
  SEXP base = PROTECT(Rf_allocVector(REALSXP, d + 1));
  for (ptrdiff_t i = 0; i <= d; i++) REAL(base)[i] = NA_REAL;
  c.base = REAL(base);
  SEXP rank = PROTECT(Rf_allocVector(INTSXP, d));
  SEXP score = PROTECT(Rf_allocVector(REALSXP, d));
  SEXP iter = PROTECT(Rf_allocVector(INTSXP, d));
  double *path = (double *) R_alloc((size_t) (4 * (d + 1)), sizeof(double));
  const bk_select_out out = {INTEGER(rank), INTEGER(iter), REAL(score), path};
  bk_scorer_mem mem;
  const bk_scorer sc = md->build(&c, mo, &mem);
  const ptrdiff_t np = bk_schedule_select(&sc, d, &c.o, &out, sortbuf, c.iwork,
                                          bk_select_tick, &tc);
  SEXP pm = PROTECT(Rf_allocMatrix(REALSXP, (int) np, 4));
  for (ptrdiff_t r = 0; r < np; r++)
    for (int k = 0; k < 4; k++) REAL(pm)[r + np * k] = path[4 * r + k];
  SEXP basen = PROTECT(Rf_xlengthgets(base, np));
  const char *names[] = {"rank", "score", "iteration", "path", "base", ""};
  SEXP out_list = bk_named_list(names, (SEXP[]){rank, score, iter, pm, basen});
  UNPROTECT(6);
  return out_list;
}
