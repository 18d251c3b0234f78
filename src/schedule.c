/*
 * schedule.c: the one selection loop, BAHSIC (Algorithm 1) and FOHSIC
 * (Algorithm 2) of Song et al. (2012), section 4, for every estimator of
 * HSIC: the estimator is a scorer (bk_scorer, schedule.h) -- scorer_pairs.c
 * (exact and block), scorer_rff.c, scorer_ichol.c, scorer_clinical.c and
 * ridge.c -- and this file holds what they share: the width of each
 * iteration asked of the scorer, the candidates scored (in parallel when
 * the scorer's cost says so) and ordered with ties rounded away, the batch
 * of each iteration, n_target, the path rows, the ranks, the tick after
 * every iteration (progress and interrupts, on the main thread between
 * parallel regions) and the refresh of a set that has been downdated too
 * often. Numeric core: no R API.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "select.h"

#ifdef BK_SERIES_TRACE
#include <stdio.h>
#endif

/* Candidates are ordered by their score rounded to BK_TIE_TOL times the
 * largest score of the iteration, then by index: two feature sets whose HSIC
 * is the same in exact arithmetic (tied or discrete data) can differ in the
 * last bits depending on the order of the sums, and must still tie. Entries
 * are (rounded score, index, score) triples of doubles. */

int bk_cmp_desc_low(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] > v[0] ? -1 : 1;
  return u[1] < v[1] ? -1 : (u[1] > v[1]);
}

int bk_cmp_desc_high(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] > v[0] ? -1 : 1;
  return u[1] > v[1] ? -1 : (u[1] < v[1]);
}

int bk_cmp_asc_low(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] < v[0] ? -1 : 1;
  return u[1] < v[1] ? -1 : (u[1] > v[1]);
}

/* Round the scores of the n (., index, score) triples of sortbuf to
 * BK_TIE_TOL times the largest one into their first entries, then sort the
 * triples by cmp. Shared with the ridge loop (ridge.c). */
static void round_scores(double *sortbuf, ptrdiff_t n)
{
  double scale = 0.0;
  for (ptrdiff_t i = 0; i < n; i++)
    scale = fmax(scale, fabs(sortbuf[3 * i + 2]));
  double q = scale > 0.0 ? BK_TIE_TOL * scale : 1.0;
  for (ptrdiff_t i = 0; i < n; i++)
    sortbuf[3 * i] = nearbyint(sortbuf[3 * i + 2] / q);
}

void bk_sort_candidates(double *sortbuf, ptrdiff_t n,
                        int (*cmp)(const void *, const void *))
{
  round_scores(sortbuf, n);
  qsort(sortbuf, (size_t) n, 3 * sizeof(double), cmp);
}


/* by the first entry, descending, then by the second (so that no two
 * entries tie: quickselect stays linear with many equal first entries) */
static int cmp_first_desc(const void *p, const void *q)
{
  const double *u = p, *v = q;
  if (u[0] != v[0]) return u[0] > v[0] ? -1 : 1;
  return u[1] < v[1] ? -1 : (u[1] > v[1]);
}

/* Reorder the n triples of sortbuf so that the k (1 <= k <= n) first by
 * CMP come first, in any order (quickselect, the middle of three as pivot):
 * the body of select_first() and of its copies for the comparisons the
 * screened iterations use, which the compiler can inline (the same swaps,
 * so the same order). */
#define SELECT_FIRST_BODY(CMP)                                                \
  ptrdiff_t lo = 0, hi = n - 1;                                              \
  double t[3];                                                               \
  while (hi > lo) {                                                          \
    const ptrdiff_t mid = lo + (hi - lo) / 2;                                \
    if (CMP(TRIPLE(mid), TRIPLE(lo)) < 0) SWAP(mid, lo);                     \
    if (CMP(TRIPLE(hi), TRIPLE(lo)) < 0) SWAP(hi, lo);                       \
    if (CMP(TRIPLE(hi), TRIPLE(mid)) < 0) SWAP(hi, mid);                     \
    /* the median of the three, at hi, as the pivot */                      \
    SWAP(mid, hi);                                                           \
    double piv[3];                                                           \
    memcpy(piv, TRIPLE(hi), sizeof piv);                                     \
    ptrdiff_t st = lo;                                                       \
    for (ptrdiff_t i = lo; i < hi; i++)                                      \
      if (CMP(TRIPLE(i), piv) < 0) {                                         \
        SWAP(i, st);                                                         \
        st++;                                                                \
      }                                                                      \
    SWAP(st, hi);                                                            \
    if (st == k - 1) break;                                                  \
    if (st < k - 1) lo = st + 1; else hi = st - 1;                           \
  }
#define TRIPLE(i) (sortbuf + 3 * (i))
#define SWAP(i, j)                                                            \
  do {                                                                       \
    memcpy(t, TRIPLE(i), sizeof t);                                          \
    memcpy(TRIPLE(i), TRIPLE(j), sizeof t);                                  \
    memcpy(TRIPLE(j), t, sizeof t);                                          \
  } while (0)
static void select_first(double *sortbuf, ptrdiff_t n, ptrdiff_t k,
                         int (*cmp)(const void *, const void *))
{
  SELECT_FIRST_BODY(cmp)
}
static void select_first_desc_high(double *sortbuf, ptrdiff_t n, ptrdiff_t k)
{
  SELECT_FIRST_BODY(bk_cmp_desc_high)
}
static void select_first_desc_low(double *sortbuf, ptrdiff_t n, ptrdiff_t k)
{
  SELECT_FIRST_BODY(bk_cmp_desc_low)
}
static void select_first_first_desc(double *sortbuf, ptrdiff_t n, ptrdiff_t k)
{
  SELECT_FIRST_BODY(cmp_first_desc)
}
#undef SWAP
#undef TRIPLE

/* bk_sort_candidates() when only the first k (1 <= k <= n) entries matter:
 * the same first k, in the same order; the rest after them, in no order. */
static void sort_first(double *sortbuf, ptrdiff_t n, ptrdiff_t k,
                       int (*cmp)(const void *, const void *))
{
  round_scores(sortbuf, n);
  if (k < n) {
    if (cmp == bk_cmp_desc_high)
      select_first_desc_high(sortbuf, n, k);
    else if (cmp == bk_cmp_desc_low)
      select_first_desc_low(sortbuf, n, k);
    else
      select_first(sortbuf, n, k, cmp);
  }
  qsort(sortbuf, (size_t) k, 3 * sizeof(double), cmp);
}

ptrdiff_t bk_batch_size(double step, ptrdiff_t n)
{
  ptrdiff_t k = (ptrdiff_t) floor(step * (double) n);
  return k < 1 ? 1 : k;
}

void bk_add_path(double *path, ptrdiff_t *np, ptrdiff_t iter, ptrdiff_t size,
                 double h, double sigma)
{
  double *row = path + 4 * (*np)++;
  row[0] = (double) iter;
  row[1] = (double) size;
  row[2] = h;
  row[3] = sigma;
}

ptrdiff_t bk_take_batch(const double *sortbuf, ptrdiff_t k, ptrdiff_t it,
                        double *score, int *iter, int *rank, int *order,
                        ptrdiff_t *n, int *active, ptrdiff_t na)
{
  for (ptrdiff_t i = 0; i < k; i++) {
    int j = (int) sortbuf[3 * i + 1];
    score[j] = sortbuf[3 * i + 2];
    iter[j] = (int) it;
    order[*n] = j;
    if (rank) rank[j] = (int) (*n + 1);
    (*n)++;
  }
  /* the rest, still in index order */
  ptrdiff_t w = 0;
  for (ptrdiff_t i = 0; i < na; i++)
    if (iter[active[i]] == 0) active[w++] = active[i];
  return w;
}

void bk_rank_backward(const double *sortbuf, ptrdiff_t ns, ptrdiff_t it,
                      double *score, int *iter, int *rank, const int *order,
                      ptrdiff_t nelim)
{
  for (ptrdiff_t i = 0; i < ns; i++) {
    int j = (int) sortbuf[3 * i + 1];
    score[j] = sortbuf[3 * i + 2];
    iter[j] = (int) it;
    rank[j] = (int) (i + 1);
  }
  /* eliminated last = most relevant */
  for (ptrdiff_t i = 0; i < nelim; i++)
    rank[order[i]] = (int) (ns + nelim - i);
}

double bk_par_now(void)
{
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return 0.0;
#endif
}

#ifdef _OPENMP
/* What the last watch learned (bk_par_watch_init()), under the critical
 * section bk_par_seen */
static struct {
  double when; /* omp_get_wtime() of the verdict; < 0: none yet */
  double hold; /* seconds the verdict holds */
  int nthreads, cheap, serial;
} par_seen = {-1.0, BK_PAR_SEEN, 0, 0, 0};
#endif

/* (within par_seen.hold seconds of the last verdict with as many threads,
 * the two are joined: the selection's two watches, the schedule's and the
 * scorer's, each see part of the regions, and what either learned of a
 * busy machine holds as long as that verdict; a new verdict holds
 * BK_PAR_SEEN seconds, or twice the last hold, up to BK_PAR_SEEN_MAX, when
 * it and the last both found the machine busy) */
static void par_remember(const bk_par_watch *w)
{
#ifdef _OPENMP
  const double now = omp_get_wtime();
  const int cheap = w->gate < BK_PAR_MIN_PAIRS;
#pragma omp critical(bk_par_seen)
  {
    const int same = par_seen.when >= 0.0 && par_seen.nthreads == w->nthreads,
              join = same && now - par_seen.when < par_seen.hold;
    /* a new verdict: busy again after a busy one holds twice as long */
    if (!join) {
      const int busy = w->serial || !cheap, was = !par_seen.cheap || par_seen.serial;
      par_seen.hold = same && busy && was ? fmin(2.0 * par_seen.hold, BK_PAR_SEEN_MAX)
                                          : BK_PAR_SEEN;
    }
    par_seen.when = now;
    par_seen.nthreads = w->nthreads;
    par_seen.cheap = join ? par_seen.cheap && cheap : cheap;
    par_seen.serial = join ? par_seen.serial || w->serial : w->serial;
  }
#else
  (void) w;
#endif
}

#ifdef _OPENMP
/* 1 and the watch set as the last one left it when that was less than
 * par_seen.hold seconds ago, with as many threads */
static int par_recall(bk_par_watch *w)
{
  int seen = 0;
  const double now = omp_get_wtime();
#pragma omp critical(bk_par_seen)
  {
    if (par_seen.when >= 0.0 && par_seen.nthreads == w->nthreads &&
        now - par_seen.when < par_seen.hold) {
      seen = 1;
      if (par_seen.cheap) w->gate = w->base = BK_PAR_MIN_SCHED;
      w->serial = par_seen.serial;
    }
  }
  return seen;
}
#endif

void bk_par_watch_init(bk_par_watch *w, int nthreads)
{
  *w = (bk_par_watch){.gate = BK_PAR_MIN_PAIRS, .base = BK_PAR_MIN_PAIRS,
                      .nthreads = nthreads};
#ifdef _OPENMP
  if (nthreads < 2 || par_recall(w)) return;
  /* the first region may start or wake the threads; each of the next three
   * must be cheap. Two that are not end the probe, and the next watches
   * are told (the machine is busy), with the run serial where both
   * waited a millisecond for a core (BK_REGION_STALL); one alone (a
   * virtual machine's vCPU waking late) decides for this run only */
  int cheap = 1, slow = 0, stalls = 0;
  for (int i = 0; i < 4 && slow < 2; i++) {
    /* each thread counts itself: a region with nothing in it is removed
     * by the compiler (gcc), and a probe of nothing finds every start
     * cheap. Fewer threads than asked (a thread limit) is not cheap */
    int came = 0;
    const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(nthreads) reduction(+ : came)
    came++;
    const double dt = omp_get_wtime() - t0;
    if (i > 0 && (dt > BK_REGION_CHEAP || came < nthreads)) {
      cheap = 0;
      slow++;
      stalls += dt > BK_REGION_STALL;
    }
  }
  if (cheap) w->gate = w->base = BK_PAR_MIN_SCHED;
  if (stalls == 2) w->serial = 1;
  if (cheap || slow == 2) par_remember(w);
#else
  (void) nthreads;
#endif
}

int bk_par_go(const bk_par_watch *w, int nthreads, double ops, double scale)
{
  return nthreads > 1 && !w->serial &&
         ops >= fmin(BK_PAR_MIN_PAIRS, scale * w->gate);
}

int bk_par_free(const bk_par_watch *w)
{
  return !w->serial;
}

/* a region of the gate's or larger: serial once the larger regions lose */
static void par_watched_big(bk_par_watch *w, double wall, double busy)
{
  w->big_wall += wall;
  w->big_busy += busy;
  if (wall > busy) w->big_losses++;
  if (w->big_losses >= BK_PAR_LOSSES && w->big_wall > w->big_busy)
    w->serial = 1;
}

void bk_par_watched(bk_par_watch *w, double ops, double scale, double wall,
                    double busy)
{
  const int serial = w->serial, cheap = w->gate < BK_PAR_MIN_PAIRS;
  if (ops >= BK_PAR_MIN_PAIRS || w->gate >= BK_PAR_MIN_PAIRS) {
    par_watched_big(w, wall, busy);
  } else {
    w->wall += wall;
    w->busy += busy;
    if (wall > busy) {
      w->losses++;
      /* regions this small run on one thread, until clear wins say again */
      w->gate = fmin(fmax(w->gate, 2.0 * ops / scale), 0.5 * BK_PAR_MIN_PAIRS);
    } else if (busy > 2.0 * wall) {
      w->gate = fmax(w->base, 0.5 * w->gate);
    }
    if (w->losses >= BK_PAR_LOSSES && w->wall > w->busy)
      w->gate = BK_PAR_MIN_PAIRS;
  }
  if (w->serial != serial || (w->gate < BK_PAR_MIN_PAIRS) != cheap)
    par_remember(w);
}

/* One run of bk_schedule(): the scorer, the options, the result arrays,
 * the scratch (active, order and pick: d ints each; sortbuf) and the tick;
 * np counts the path's rows */
typedef struct {
  const bk_scorer *sc;
  const bk_schedule_opts *o;
  int *rank, *iter, *active, *order, *pick;
  double *score, *path, *sortbuf;
  bk_par_watch *par; /* the gate of the parallel regions */
  ptrdiff_t np;
  bk_tick_fn tick;
  void *tctx;
} sched_run;

/* Score the candidates at positions c = pick[i] (pick NULL: c = i), i < np,
 * of sortbuf, whose entries are (., feature, .): the score into both
 * sortbuf[3 c] and sortbuf[3 c + 2] (in parallel when the scorer's cost
 * says so). */
static void score_some(const sched_run *r, double sigma, const int *pick,
                       ptrdiff_t np, double sgn)
{
  const bk_scorer *sc = r->sc;
  double *sortbuf = r->sortbuf;
  const int nthreads = r->o->nthreads;
  bk_pacer *pace = r->o->pace;
  int chunk = 1;
  const double cost = sc->cost(sc->ctx, &chunk);
  const double ops = (double) np * cost;
  const int par = np > 1 && cost > 0.0 && bk_par_go(r->par, nthreads, ops, 1.0);
  /* a few candidates still reach every thread */
  if (par && (ptrdiff_t) chunk * nthreads * 2 > np) {
    const ptrdiff_t c = np / (2 * (ptrdiff_t) nthreads);
    chunk = c > 1 ? (int) c : 1;
  }
  /* the candidates in groups of about BK_CHECK_OPS operations, an interrupt
   * check between groups (each candidate is scored on its own, so the
   * groups change no score) */
  const ptrdiff_t group =
      bk_pace_group(pace, cost, np, (ptrdiff_t) nthreads * chunk);
  for (ptrdiff_t g0 = 0; g0 < np; g0 += group) {
    const ptrdiff_t g1 = g0 + group < np ? g0 + group : np;
    const double t0 = par ? bk_par_now() : 0.0;
    double busy = 0.0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nthreads) if (par) reduction(+ : busy)
#endif
    {
      const double s0 = par ? bk_par_now() : 0.0;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, chunk) nowait
#endif
      for (ptrdiff_t i = g0; i < g1; i++) {
        double *e = sortbuf + 3 * (pick ? pick[i] : i);
        e[2] = e[0] = sc->score_one(sc->ctx, sigma, (ptrdiff_t) e[1], sgn,
                                    bk_thread_id());
      }
      if (par) busy += bk_par_now() - s0;
    }
    if (par)
      bk_par_watched(r->par, (double) (g1 - g0) * cost, 1.0, bk_par_now() - t0,
                     busy);
    bk_pace(pace, (ptrdiff_t) ((double) (g1 - g0) * cost));
  }
  (void) par;
  (void) chunk;
}

/* A screened score is accepted in place of the exact one when its interval
 * rounds to one tie-grid point and is this narrow relative to it */
#define BK_SERIES_ACCEPT 1e-11

/* every one of the n candidates of sortbuf not scored yet (lo != hi) scored,
 * as the exact loop would */
static void score_rest(const sched_run *r, double sigma, ptrdiff_t n,
                       double sgn)
{
  const double *sortbuf = r->sortbuf;
  ptrdiff_t np = 0;
  for (ptrdiff_t i = 0; i < n; i++)
    if (sortbuf[3 * i] != sortbuf[3 * i + 2]) r->pick[np++] = (int) i;
  score_some(r, sigma, r->pick, np, sgn);
}

/* Step 1 of screened_scores(): the candidates that may hold the largest
 * score, and those that may score below minus the largest, scored; the
 * largest score into *smax, the bound of the others' scores from below into
 * *smin. Returns whether a score is not finite. */
static int score_extremes(const sched_run *r, double sigma, ptrdiff_t n,
                          double sgn, double *smax_out, double *smin_out)
{
  const double *sortbuf = r->sortbuf;
  int *pick = r->pick;
  double maxlo = -INFINITY;
  for (ptrdiff_t i = 0; i < n; i++) maxlo = fmax(maxlo, sortbuf[3 * i]);
  /* the candidates that may hold the largest score */
  ptrdiff_t np = 0;
  for (ptrdiff_t i = 0; i < n; i++)
    if (!(sortbuf[3 * i + 2] < maxlo)) pick[np++] = (int) i;
  score_some(r, sigma, pick, np, sgn);
  double smax = -INFINITY;
  int bad = 0;
  for (ptrdiff_t i = 0; i < np; i++) {
    smax = fmax(smax, sortbuf[3 * pick[i] + 2]);
    bad |= !isfinite(sortbuf[3 * pick[i] + 2]);
  }
  /* and those whose score may be below -smax (|score| larger): the rest
   * then lie in [smin, smax] with smin = -|smax| or the smallest score */
  double smin = -fabs(smax);
  np = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    const double *e = sortbuf + 3 * i;
    if (e[0] != e[2] && !(e[0] >= smin)) pick[np++] = (int) i;
  }
  score_some(r, sigma, pick, np, sgn);
  for (ptrdiff_t i = 0; i < np; i++) {
    smin = fmin(smin, sortbuf[3 * pick[i] + 2]);
    bad |= !isfinite(sortbuf[3 * pick[i] + 2]);
  }
#ifdef BK_SERIES_TRACE
  fprintf(stderr, "S1 %td\n", np);
#endif
  *smax_out = smax;
  *smin_out = smin;
  return bad;
}

/* Steps 2 and 3 of screened_scores() on the rounding grid q: the contenders
 * (those not scored whose rounded upper end reaches the k-th largest
 * rounded lower end) into pick, their number returned; every other
 * candidate not scored gets its rounded upper end within [smin, smax] */
static ptrdiff_t contenders(double *sortbuf, ptrdiff_t n, ptrdiff_t k,
                           double q, double smin, double smax, int *pick)
{
  /* rounding is monotone: the k-th largest rounded lower end is that of
   * the k-th largest lower end */
  select_first_first_desc(sortbuf, n, k);
  double lk = sortbuf[0];
  for (ptrdiff_t i = 1; i < k; i++) lk = fmin(lk, sortbuf[3 * i]);
  const double L = nearbyint(lk / q);
  ptrdiff_t np = 0;
  for (ptrdiff_t i = 0; i < n; i++) {
    double *e = sortbuf + 3 * i;
    if (e[0] == e[2]) continue; /* scored */
    const double kh = nearbyint(e[2] / q);
    if (kh >= L)
      pick[np++] = (int) i;
    else
      e[2] = fmin(fmax(kh * q, smin), smax);
  }
  return np;
}

/* Step 4's test of a narrow interval e (a contender's entry): one that
 * rounds to a single grid point (q) and is within BK_SERIES_ACCEPT of its
 * midpoint (inside (smin, smax)) keeps the midpoint; any other is scored
 * (score_one on thread tid). */
typedef struct {
  const bk_scorer *sc;
  double sigma, sgn, q, smin, smax;
} narrow_test;

static void accept_or_score(const void *ctx, double *e, int tid)
{
  const narrow_test *t = ctx;
  const double lo = e[0], hi = e[2], mid = 0.5 * (lo + hi);
  if (nearbyint(lo / t->q) == nearbyint(hi / t->q) &&
      0.5 * (hi - lo) <= BK_SERIES_ACCEPT * fabs(mid) && mid < t->smax &&
      mid > t->smin)
    e[2] = mid;
  else
    e[2] = e[0] = t->sc->score_one(t->sc->ctx, t->sigma, (ptrdiff_t) e[1],
                                   t->sgn, tid);
}

/* The screened iteration. The scorer's screen gives every candidate an
 * interval [lo, hi] = [sortbuf[3 i], sortbuf[3 i + 2]], lo < hi, holding the
 * score score_one would give it; a scored candidate has lo = hi. Only the
 * top k (the batch: cmp orders by the score rounded to BK_TIE_TOL of the
 * largest |score|, then by index) must come first, in their order:
 *  1. the candidates that may hold the largest score, and those that may
 *     score below minus the largest, are scored: the largest |score|, and
 *     with it the rounding grid q of bk_sort_candidates(), is the exact
 *     loop's, and every other score lies in [smin, smax];
 *  2. L is the k-th largest rounded lower end: at least k candidates score
 *     >= L, so the batch is among the candidates whose rounded upper end
 *     reaches L (the contenders);
 *  3. every other candidate gets a value that rounds below L (its rounded
 *     upper end, within the scored extremes);
 *  4. the contenders get narrow intervals (fine = 1); one that rounds to a
 *     single grid point and is within BK_SERIES_ACCEPT of its midpoint
 *     keeps the midpoint, the others are scored.
 * The batch and its order are then those of scoring every candidate, and
 * its scores agree with theirs to BK_SERIES_ACCEPT (relative). Returns 1
 * when every candidate was scored instead (a score not finite). */
static int screened_scores(const sched_run *r, double sigma, ptrdiff_t n,
                           double sgn, ptrdiff_t k)
{
  const bk_scorer *sc = r->sc;
  double *sortbuf = r->sortbuf, smax, smin;
  int *pick = r->pick;
  int bad = score_extremes(r, sigma, n, sgn, &smax, &smin);
  if (bad || !isfinite(smax) || !isfinite(smin)) {
    /* a score that is not finite (an overflow of extreme data) has no
     * place in the intervals' order: score the rest too, as the exact loop */
    score_rest(r, sigma, n, sgn);
    return 1;
  }
  const double scale = fmax(fabs(smax), fabs(smin));
  const double q = scale > 0.0 ? BK_TIE_TOL * scale : 1.0;
  const ptrdiff_t np = contenders(sortbuf, n, k, q, smin, smax, pick);
  /* the narrow screen, each contender accepted or scored at once (one
   * parallel region for both) */
  const narrow_test test = {.sc = sc, .sigma = sigma, .sgn = sgn, .q = q,
                            .smin = smin, .smax = smax};
  const bk_screen_then then = {.fn = accept_or_score, .ctx = &test};
  if (!sc->screen(sc->ctx, sigma, pick, np, sgn, sortbuf, 1, &then))
    score_some(r, sigma, pick, np, sgn);
#ifdef BK_SERIES_TRACE
  ptrdiff_t nsc = 0;
  for (ptrdiff_t i = 0; i < np; i++)
    nsc += sortbuf[3 * pick[i]] == sortbuf[3 * pick[i] + 2];
  fprintf(stderr, "R n %td k %td contenders %td scored %td\n", n, k, np,
          nsc);
#endif
  for (ptrdiff_t i = 0; i < np; i++) bad |= !isfinite(sortbuf[3 * pick[i] + 2]);
  if (bad) {
    /* as above: every candidate scored, for the exact loop's order */
    score_rest(r, sigma, n, sgn);
    return 1;
  }
  return 0;
}

/* Score every feature of cand (n) against the scorer's set into sortbuf as
 * (., index, score) triples, then sort them by cmp. Each candidate is
 * scored on its own (the same numbers for any number of threads). With a
 * batch of k < n (0: the order of every candidate matters) a scorer with a
 * screen may narrow the candidates scored exactly (screened_scores()). */
static int score_candidates(const sched_run *r, double sigma, const int *set,
                            ptrdiff_t ns, const int *cand, ptrdiff_t n,
                            double sgn,
                            int (*cmp)(const void *, const void *),
                            ptrdiff_t k)
{
  const bk_scorer *sc = r->sc;
  double *sortbuf = r->sortbuf;
  if (sc->score_all) {
    if (sc->score_all(sc->ctx, sigma, set, ns, cand, n, sgn, sortbuf))
      return 1;
    for (ptrdiff_t i = 0; i < n; i++) sortbuf[3 * i + 1] = (double) cand[i];
  } else {
    for (ptrdiff_t i = 0; i < n; i++) sortbuf[3 * i + 1] = (double) cand[i];
    if (sc->screen && k > 0 && k < n &&
        sc->screen(sc->ctx, sigma, NULL, n, sgn, sortbuf, 0, NULL)) {
      /* only the batch's order matters (its scores are known), unless
       * every candidate was scored */
      if (!screened_scores(r, sigma, n, sgn, k)) {
        sort_first(sortbuf, n, k, cmp);
        return 0;
      }
    } else {
#ifdef BK_SERIES_TRACE
      fprintf(stderr, "E %td\n", n);
#endif
      score_some(r, sigma, NULL, n, sgn);
    }
  }
  bk_sort_candidates(sortbuf, n, cmp);
  return 0;
}

/* One BAHSIC round over the surviving set S (ns features of active) at
 * iteration it: its width, its HSIC on the path, and every candidate
 * HSIC(S \ {j}) sorted by cmp. */
static int backward_round(sched_run *r, ptrdiff_t ns,
                          int (*cmp)(const void *, const void *), ptrdiff_t it,
                          ptrdiff_t k, double *sigma, double *h)
{
  const bk_scorer *sc = r->sc;
  if (sc->width(sc->ctx, ns, r->active, ns, 1, sigma, h)) return 1;
  if (sc->begin(sc->ctx, *sigma, r->active, ns, -1.0, h)) return 1;
  bk_add_path(r->path, &r->np, it, ns, *h, *sigma);
  return score_candidates(r, *sigma, r->active, ns, r->active, ns, -1.0, cmp,
                          k);
}

/* BAHSIC: eliminate batches from all d features down to n_target, then rank
 * the survivors by one more round; returns 1 when the scorer fails */
static int backward_schedule(sched_run *r, ptrdiff_t d)
{
  const bk_scorer *sc = r->sc;
  const bk_schedule_opts *o = r->o;
  int *active = r->active, *order = r->order;
  double *sortbuf = r->sortbuf;
  ptrdiff_t it = 0, ns = d, nelim = 0, since_refresh = 0;
  if (sc->update) sc->update(sc->ctx, active, ns, 1.0);
  while (ns > o->n_target) {
    double h, sigma;
    ptrdiff_t k = bk_batch_size(o->step, ns);
    if (o->n_target > 0 && k > ns - o->n_target) k = ns - o->n_target;
    /* eliminate the largest HSIC(S \ {j}); ties: the higher index */
    if (backward_round(r, ns, bk_cmp_desc_high, ++it, k, &sigma, &h))
      return 1;
    /* the last feature leaves the empty set, whose kernel is constant and
     * whose HSIC is 0 exactly (the sum above is 0 only up to rounding) */
    if (ns == 1) sortbuf[2] = 0.0;
    ns = bk_take_batch(sortbuf, k, it, r->score, r->iter, NULL, order, &nelim,
                       active, ns);
    since_refresh += k;
    /* a scorer that downdates its set may ask for it afresh from the
     * survivors instead, so rounding cannot pile up */
    if (sc->stale && sc->stale(sc->ctx, since_refresh, ns)) {
      sc->refresh(sc->ctx, active, ns);
      since_refresh = 0;
    } else if (sc->update) {
      sc->update(sc->ctx, order + nelim - k, k, -1.0);
    }
    if (r->tick) r->tick(r->tctx, it, ns + k, h, sigma);
  }
  if (ns > 0) {
    /* stopped at n_target: rank the survivors by one more pass, the one
     * whose removal costs most first */
    double h, sigma;
    if (backward_round(r, ns, bk_cmp_asc_low, ++it, 0, &sigma, &h)) return 1;
    if (r->tick) r->tick(r->tctx, it, ns, h, sigma);
  }
  bk_rank_backward(sortbuf, ns, it, r->score, r->iter, r->rank, order, nelim);
  return 0;
}

/* FOHSIC: the selected set S+ (order[0 .. nsel - 1]) starts empty and grows
 * by batches up to n_target (0: all d features); returns 1 when the scorer
 * fails */
static int forward_schedule(sched_run *r, ptrdiff_t d)
{
  const bk_scorer *sc = r->sc;
  const bk_schedule_opts *o = r->o;
  int *active = r->active, *order = r->order;
  ptrdiff_t it = 0, nsel = 0, nrem = d,
            target = o->n_target > 0 ? o->n_target : d;
  while (nsel < target) {
    double h, sigma;
    it++;
    /* the width for sets of nsel + 1 features; "optimize" on the selected
     * set, or on all features in the first iteration */
    if (sc->width(sc->ctx, nsel + 1, nsel > 0 ? order : active,
                  nsel > 0 ? nsel : nrem, nsel > 0, &sigma, &h))
      return 1;
    double hb = nsel > 0 ? NAN : 0.0;
    if (sc->begin(sc->ctx, sigma, order, nsel, 1.0,
                  o->base && nsel > 0 ? &hb : NULL))
      return 1;
    ptrdiff_t k = bk_batch_size(o->step, nrem);
    if (k > target - nsel) k = target - nsel;
    /* add the largest HSIC(S+ U {j}); ties: the lower index */
    if (score_candidates(r, sigma, order, nsel, active, nrem, 1.0,
                         bk_cmp_desc_low, k))
      return 1;
    nrem = bk_take_batch(r->sortbuf, k, it, r->score, r->iter, r->rank, order,
                         &nsel, active, nrem);
    if (sc->update) sc->update(sc->ctx, order + nsel - k, k, 1.0);
    if (sc->hsic(sc->ctx, sigma, order, nsel, &h)) return 1;
    if (o->base) o->base[r->np] = hb;
    bk_add_path(r->path, &r->np, it, nsel, h, sigma);
    if (r->tick) r->tick(r->tctx, it, nsel, h, sigma);
  }
  return 0;
}

ptrdiff_t bk_schedule(const bk_scorer *sc, ptrdiff_t d,
                      const bk_schedule_opts *o, int *rank, double *score,
                      int *iter, double *path, double *sortbuf, int *iwork,
                      int *fail, bk_tick_fn tick, void *tctx)
{
  bk_par_watch par;
  bk_par_watch_init(&par, o->nthreads);
  sched_run r = {.sc = sc, .o = o, .rank = rank, .iter = iter,
                 .active = iwork, .order = iwork + d, .pick = iwork + 2 * d,
                 .score = score, .path = path, .sortbuf = sortbuf, .np = 0,
                 .tick = tick, .tctx = tctx, .par = &par};
  for (ptrdiff_t j = 0; j < d; j++) {
    rank[j] = 0;
    score[j] = NAN;
    iter[j] = 0;
    r.active[j] = (int) j;
  }
  *fail = o->direction == BK_BACKWARD ? backward_schedule(&r, d)
                                      : forward_schedule(&r, d);
  return r.np;
}

int bk_width_policy_only(void *ctx, ptrdiff_t s, const int *ref,
                         ptrdiff_t nref, int is_set, double *sigma, double *h)
{
  (void) ref;
  (void) nref;
  (void) is_set;
  *sigma = bk_choose_width((const bk_width_policy *) ctx, s, NULL, NULL, NULL,
                           h);
  return 0;
}

ptrdiff_t bk_schedule_select(const bk_scorer *sc, ptrdiff_t d,
                             const bk_select_opts *o, const bk_select_out *out,
                             double *sortbuf, int *iwork, bk_tick_fn tick,
                             void *tctx)
{
  const bk_schedule_opts so = {.direction = o->direction, .step = o->step,
                               .n_target = o->n_target,
                               .nthreads = o->nthreads, .base = o->base,
                               .pace = o->pace};
  int fail;
  return bk_schedule(sc, d, &so, out->rank, out->score, out->iter, out->path,
                     sortbuf, iwork, &fail, tick, tctx);
}
