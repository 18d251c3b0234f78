/*
 * schedule.h: the width policy (width.c), the scorer interface and the one
 * selection schedule (schedule.c) of BAHSIC and FOHSIC, shared by the
 * selectors' scorers (select.h) and the ridge-regression kernel (ridge.h).
 */
#ifndef BAHSIC_SCHEDULE_H
#define BAHSIC_SCHEDULE_H

#include "common.h"

/* ---- The width policy (width.c) ---------------------------------------
 * Song et al. (2012), section 4.1, step 3: the width of a Gaussian or
 * Laplace kernel (bk_kernel_has_width()) for the sets of one iteration,
 * shared by the selectors' scorers (select.h) and bk_ridge_select(). */
typedef struct {
  int type;             /* the kernel code */
  int policy;           /* enum bk_policy */
  double fixed;         /* BK_SIGMA_FIXED: the kernel's own width (its p1) */
  const double *grid;   /* BK_SIGMA_OPTIMIZE: ngrid >= 1 widths, ascending */
  ptrdiff_t ngrid;
  int grid_relative;    /* grid as multiples of 1 / the median heuristic */
} bk_width_policy;

/* The width for sets of s features: NaN for a kernel without a width;
 * "dimension": 1 / (2 s) (Gaussian), 1 / sqrt(2 s) (Laplace), for
 * standardised features; "fixed": p->fixed; "optimize": the width base *
 * grid[g] with the largest HSIC of the caller's reference set, ties (within
 * BK_TIE_TOL) to the smaller width, where base = 1 / median(ctx, squared)
 * when grid_relative and that median is > 0, else 1 (squared: 1 for the
 * median of the squared distances, the Gaussian kernel; 0 for the
 * distances). hsic_at(ctx, sigma, &fail) is HSIC of the reference set at
 * sigma; when it sets fail, the result is NaN. *h_ref (h_ref may be NULL):
 * HSIC of the reference set at the width chosen by "optimize", else NaN. */
double bk_choose_width(const bk_width_policy *p, ptrdiff_t s,
                       double (*median)(void *ctx, int squared),
                       double (*hsic_at)(void *ctx, double sigma, int *fail),
                       void *ctx, double *h_ref);

/* The schedule's (schedule.c) order of candidates: (rounded
 * score, index, score) triples ordered by score, ties by the lower
 * (bk_cmp_desc_low, bk_cmp_asc_low) or higher (bk_cmp_desc_high) index;
 * bk_sort_candidates() rounds the scores to BK_TIE_TOL of the largest
 * and sorts; the batch of an iteration removes or adds floor(step n) >= 1
 * features; bk_add_path() appends a row (iteration, size, HSIC, width) of
 * the path (4 x iterations). */
/* HSIC values that agree to this relative precision are ties (candidates,
 * and the widths of the "optimize" policy) */
#define BK_TIE_TOL 1e-10
int bk_cmp_desc_low(const void *p, const void *q);
int bk_cmp_desc_high(const void *p, const void *q);
int bk_cmp_asc_low(const void *p, const void *q);
void bk_sort_candidates(double *sortbuf, ptrdiff_t n,
                        int (*cmp)(const void *, const void *));
ptrdiff_t bk_batch_size(double step, ptrdiff_t n);
void bk_add_path(double *path, ptrdiff_t *np, ptrdiff_t iter, ptrdiff_t size,
                 double h, double sigma);
/* The first k candidates of the sorted sortbuf leave (or join) the set at
 * iteration it: their score and iteration recorded, their indices appended
 * to order at *n (which grows by k), and with rank not NULL their rank the
 * position in order (FOHSIC). active (na features) then keeps, in index
 * order, the features without an iteration; returns their number. */
ptrdiff_t bk_take_batch(const double *sortbuf, ptrdiff_t k, ptrdiff_t it,
                        double *score, int *iter, int *rank, int *order,
                        ptrdiff_t *n, int *active, ptrdiff_t na);
/* BAHSIC's ranks: the ns survivors of a stopped run (sortbuf sorted by
 * ascending score, at iteration it) 1..ns, then the nelim eliminated
 * features of order (first out first) from the last out to the first. */
void bk_rank_backward(const double *sortbuf, ptrdiff_t ns, ptrdiff_t it,
                      double *score, int *iter, int *rank, const int *order,
                      ptrdiff_t nelim);


/* ---- the selection schedule (schedule.c) ------------------------------------
 * Algorithms 1 (BAHSIC, backward) and 2 (FOHSIC, forward) of Song et al.
 * (2012), section 4, written once: the batches (bk_batch_size()), n_target,
 * the tie order (bk_sort_candidates()), the path rows, the tick after every
 * iteration (progress, interrupts) and the refresh of a downdated set. The
 * estimator of HSIC is a scorer: the exact and block estimators on pairs of
 * samples (scorer_pairs.c), random Fourier features (scorer_rff.c), the
 * incomplete Cholesky factor (scorer_ichol.c), the clinical kernel
 * (scorer_clinical.c) and the ridge-regression kernel (ridge.c). */

/* BK_PAR_MIN_PAIRS (common.h): the schedule scores candidates in parallel
 * when their number times the scorer's cost reaches it -- or, where a
 * parallel region is cheap now, BK_PAR_MIN_SCHED (bk_par_gate()). */

/* The operations from which the schedule's regions (several per iteration:
 * scoring, screening, the update of the set) go parallel where starting
 * them is cheap: some 20 microseconds of one core's work (2^14 pairs of the
 * exact pass at about 1.4 ns each). On an idle machine a region of warm
 * OpenMP threads costs a few microseconds, so a golub-sized iteration (a
 * few hundred microseconds in all) can use many cores; on a busy one a
 * region waits for threads whose cores other processes hold (65 to 600
 * microseconds a region on a loaded 2-core machine), and the gate is
 * BK_PAR_MIN_PAIRS, as for the rest of the core. */
#define BK_PAR_MIN_SCHED 16384.0
/* A region whose threads start and join within this (seconds) is cheap */
#define BK_REGION_CHEAP 25e-6

/* The gate of a selection's parallel regions, watched: where the threads
 * are cheap to start at first (bk_par_watch_init(): an empty region timed
 * four times, the first may start the threads, each of the last three
 * within BK_REGION_CHEAP) the regions below BK_PAR_MIN_PAIRS go parallel
 * from BK_PAR_MIN_SCHED, and each such region's wall time is set against
 * the time its threads were busy (bk_par_watched()). A region that lost
 * (its threads cost more than one thread would have taken) raises the gate
 * above its own size, so that regions as small run on one thread; a clear
 * win (busy more than twice the wall time) halves the gate again, down to
 * where it started; and once BK_PAR_LOSSES regions have lost and the wall
 * times summed over all of them exceed the busy times (the machine has
 * become busy: a region that waits for a thread whose core another
 * process holds loses) the gate is BK_PAR_MIN_PAIRS for the rest of the
 * run. One slow start of the threads (a virtual machine's vCPU waking
 * late) thus costs a region or two, not the rest of the run. It decides
 * only where work runs: results are the same bits for any gate and any
 * number of threads. */
#define BK_PAR_LOSSES 3
/* The larger regions (from BK_PAR_MIN_PAIRS, or every region once the gate
 * is there) are watched the same way: once BK_PAR_LOSSES of them have lost
 * and their wall times summed exceed their busy times (on a busy machine a
 * region waits milliseconds for a thread whose core another process holds,
 * however large it is), every region of the run is serial. The watches of
 * the next BK_PAR_SEEN seconds with the same number of threads start where
 * the last one stands (bk_par_watch_init(): the probe's verdict, the gate
 * at the million, serial), without a probe: on a busy machine a probe costs
 * milliseconds a region, more than a golub-sized selection takes on one
 * thread, and the load is the machine's, not the selection's. A busy
 * verdict that a new probe confirms holds twice as long as the last, up to
 * BK_PAR_SEEN_MAX seconds (a second again once the probe finds the starts
 * cheap): a probe and the losses that relearn serial cost some 40 ms on a
 * loaded 2-core machine. */
#define BK_PAR_SEEN 1.0
#define BK_PAR_SEEN_MAX 8.0
/* A probe's region that takes this long (seconds) waited for a core that
 * another process holds (a late vCPU wakes within some 100 microseconds):
 * two such end the probe with the run serial, as three losing larger
 * regions would, without their cost */
#define BK_REGION_STALL 1e-3
typedef struct bk_par_watch {
  double gate;       /* the gate now (operations) */
  double base;       /* the gate the run started with */
  double wall, busy; /* sums over the small regions run so far (seconds) */
  int losses;        /* the small regions that lost so far */
  double big_wall, big_busy; /* the same over the larger regions */
  int big_losses;
  int serial;   /* every region on one thread for the rest of the run */
  int nthreads; /* the threads it watches */
} bk_par_watch;

void bk_par_watch_init(bk_par_watch *w, int nthreads);
/* whether a region of ops operations, weighted by scale (the cost of its
 * operation relative to a pair of the exact pass), runs in parallel on
 * nthreads threads */
int bk_par_go(const bk_par_watch *w, int nthreads, double ops, double scale);
/* whether a region that the watch does not gate may run in parallel (not
 * once the run is serial) */
int bk_par_free(const bk_par_watch *w);
/* after a parallel region of ops operations weighted by scale (as
 * bk_par_go()): its wall time and the sum of its threads' busy times */
void bk_par_watched(bk_par_watch *w, double ops, double scale, double wall,
                    double busy);
/* seconds on a monotone clock (0 without OpenMP, where nothing is watched) */
double bk_par_now(void);

/* What a scorer's screen does with each candidate's entry e of sortbuf
 * right after its interval, on the thread that made it: fn(ctx, e, tid)
 * (the schedule's test of a narrow interval, and the candidate's exact
 * score where the interval does not settle it, in the screen's own
 * parallel region) */
typedef struct bk_screen_then {
  void (*fn)(const void *ctx, double *e, int tid);
  const void *ctx;
} bk_screen_then;

/* A scorer: ctx and the hooks the schedule calls, on the main thread except
 * score_one. "The set" is the scorer's current feature set: all d features
 * at the start of BAHSIC (the schedule calls update(all, +1) first), none
 * at the start of FOHSIC. Hooks returning int return nonzero on failure
 * (the schedule stops; the scorer knows why). Optional hooks may be NULL. */
typedef struct {
  void *ctx;
  /* the width for the sets of an iteration with s features (bk_choose_width;
   * NaN without a width): "optimize" on the reference set ref (nref
   * features; is_set: it is the set itself), whose HSIC at the width goes
   * to *h (NaN when the policy did not compute it) */
  int (*width)(void *ctx, ptrdiff_t s, const int *ref, ptrdiff_t nref,
               int is_set, double *sigma, double *h);
  /* before the candidates of an iteration at sigma are scored with sign sgn
   * (-1 removal, +1 addition) against the set (set, ns); h not NULL: the
   * set's HSIC into *h unless width() gave it */
  int (*begin)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
               double sgn, double *h);
  /* HSIC of the set with feature j removed (sgn = -1) or added (+1), on
   * thread tid (any thread: no R API, no writes but to tid's scratch) */
  double (*score_one)(void *ctx, double sigma, ptrdiff_t j, double sgn,
                      int tid);
  /* the operations of one score_one (0: never in parallel) and the chunk of
   * candidates a thread takes at a time */
  double (*cost)(void *ctx, int *chunk);
  /* optional, instead of score_one: every candidate of cand (n) at once,
   * the score of cand[i] into sortbuf[3 i + 2] (the schedule sorts) */
  int (*score_all)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
                   const int *cand, ptrdiff_t n, double sgn, double *sortbuf);
  /* optional: the set changed by sgn times the features cols (n) */
  void (*update)(void *ctx, const int *cols, ptrdiff_t n, double sgn);
  /* optional: after since removals by update() since the last refresh, with
   * ns features left, rebuild the set by refresh() instead of downdating */
  int (*stale)(void *ctx, ptrdiff_t since, ptrdiff_t ns);
  void (*refresh)(void *ctx, const int *set, ptrdiff_t ns);
  /* HSIC of the set (set, ns) at sigma (FOHSIC's path) */
  int (*hsic)(void *ctx, double sigma, const int *set, ptrdiff_t ns,
              double *h);
  /* optional: instead of scoring every candidate, for the entries
   * (., feature, .) of sortbuf at c = pick[i] (pick NULL: c = i), i < n, an
   * interval lo < hi holding the score score_one would give into
   * sortbuf[3 c] and sortbuf[3 c + 2]; fine = 0 the cheap intervals of all
   * candidates, 1 narrow ones for the few the cheap ones left in doubt;
   * then (or NULL) called with each entry right after its interval, on the
   * same thread. Returns 0 to decline (the candidates are then scored, and
   * then is not called), 1 when done. */
  int (*screen)(void *ctx, double sigma, const int *pick, ptrdiff_t n,
                double sgn, double *sortbuf, int fine,
                const struct bk_screen_then *then);
} bk_scorer;

/* Storage for a scorer's context, whatever the scorer: the caller's (on its
 * stack or R_alloc'ed), living as long as the scorer runs; a scorer's
 * builder puts its context there, and its file checks at compile time that
 * the context fits (BK_SCORER_FITS). Aligned for doubles and pointers. */
typedef union {
  double d[64];
  void *p[64];
} bk_scorer_mem;
#define BK_SCORER_FITS(type)                                                  \
  _Static_assert(sizeof(type) <= sizeof(bk_scorer_mem),                      \
                 #type " must fit in bk_scorer_mem")

typedef struct {
  int direction;      /* BK_BACKWARD or BK_FORWARD */
  double step;        /* as bk_select_opts */
  ptrdiff_t n_target; /* as bk_select_opts */
  int nthreads;
  double *base;       /* as bk_select_opts */
  bk_pacer *pace;     /* as bk_select_opts */
} bk_schedule_opts;

/* Run the selection of d features with the scorer sc. rank, score, iter,
 * path: the outputs of bk_select_features(). sortbuf: 3 d doubles (the
 * scorer may use more beyond them, see score_all); iwork: 3 d ints. Returns
 * the number of path rows; *fail is 1 when a hook failed (the outputs are
 * then those of the iterations done). */
ptrdiff_t bk_schedule(const bk_scorer *sc, ptrdiff_t d,
                      const bk_schedule_opts *o, int *rank, double *score,
                      int *iter, double *path, double *sortbuf, int *iwork,
                      int *fail, bk_tick_fn tick, void *tctx);

/* The width hook of a scorer without a reference set ("dimension",
 * "fixed", or no width; "optimize" gives NaN): ctx points to a struct
 * whose first member is its bk_width_policy. */
int bk_width_policy_only(void *ctx, ptrdiff_t s, const int *ref,
                         ptrdiff_t nref, int is_set, double *sigma, double *h);

#endif
