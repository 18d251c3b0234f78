/*
 * pairtop.c: the screen of all pairs of features (pairtop.h). Numeric core:
 * no R API, no allocation.
 */
#include <stdlib.h>
#include "pairtop.h"

/* ---- the Gaussian vectors --------------------------------------------------- */

ptrdiff_t bk_pair_vectors_work(ptrdiff_t m, int nthreads)
{
  const ptrdiff_t nt = nthreads > 1 ? nthreads : 1;
  return nt * (m * (m + 1) / 2 + m);
}

typedef struct {
  const double *x;
  ptrdiff_t m, p, ld;
  double gamma;
  float *V;
  double *work;
} vec_ctx;

/* Kc^j = H K^j H packed into K: Kc_ab = K_ab - r_a - r_b + g with r the row
 * means and g the grand mean of K (O(m^2), no m x m product) */
static void centred_kernel(const double *xj, ptrdiff_t m, double gamma,
                           double *K, double *rs)
{
  for (ptrdiff_t a = 0; a < m; a++) rs[a] = 0.0;
  for (ptrdiff_t b = 0, q = 0; b < m; b++) {
    const double xb = xj[b];
    double *Kb = K + q;
    BK_SIMD
    for (ptrdiff_t a = 0; a < b; a++) {
      const double u = xj[a] - xb;
      Kb[a] = bk_exp(-gamma * u * u);
    }
    Kb[b] = 1.0;
    q += b + 1;
  }
  /* the row sums in a fixed order */
  for (ptrdiff_t b = 0, q = 0; b < m; b++) {
    double t = 0.0;
    for (ptrdiff_t a = 0; a < b; a++, q++) {
      t += K[q];
      rs[a] += K[q];
    }
    rs[b] += t + K[q++];
  }
  double g = 0.0;
  for (ptrdiff_t a = 0; a < m; a++) {
    rs[a] /= (double) m;
    g += rs[a];
  }
  g /= (double) m;
  for (ptrdiff_t b = 0, q = 0; b < m; b++)
    for (ptrdiff_t a = 0; a <= b; a++, q++) K[q] = K[q] - rs[a] - rs[b] + g;
}

/* the panel v: its BK_PAIR_PANEL features, one after the other, written
 * into their lanes of the panel's rows (a panel is one thread's) */
static void vector_panel(void *ctx, ptrdiff_t v)
{
  const vec_ctx *c = ctx;
  const ptrdiff_t m = c->m, n = m * (m + 1) / 2, ld = c->ld;
  double *K = c->work + (n + m) * bk_thread_id();
  float *panel = c->V + BK_PAIR_PANEL * ld * v;
  for (ptrdiff_t y = 0; y < BK_PAIR_PANEL; y++) {
    const ptrdiff_t j = BK_PAIR_PANEL * v + y;
    float *dst = panel + y;
    ptrdiff_t q = 0;
    if (j < c->p) {
      centred_kernel(c->x + m * j, m, c->gamma, K, K + n);
      for (; q < n; q++) dst[BK_PAIR_PANEL * q] = (float) K[q];
    }
    for (; q < ld; q++) dst[BK_PAIR_PANEL * q] = 0.0f;
  }
}

void bk_pair_vectors(const double *x, ptrdiff_t m, ptrdiff_t p, double gamma,
                     float *V, ptrdiff_t ld, double *work, int nthreads,
                     bk_pacer *pace)
{
  vec_ctx c = {x, m, p, ld, gamma, V, work};
  const bk_paced_loop loop = {
      .item = vector_panel, .ctx = &c,
      .ops = 4.0 * BK_PAIR_PANEL * (double) m * (double) m,
      .par_min = BK_PAR_MIN_PAIRS};
  bk_paced_for(&loop, bk_pair_cols(p) / BK_PAIR_PANEL, nthreads, pace);
}

typedef struct {
  const double *x, *div;
  ptrdiff_t m, p, ld;
  float *X;
} pack_ctx;

/* panel v of X (its BK_PAIR_PANEL features, the padding 0) */
static void pack_panel(void *ctx, ptrdiff_t v)
{
  const pack_ctx *c = ctx;
  for (ptrdiff_t j = BK_PAIR_PANEL * v; j < BK_PAIR_PANEL * (v + 1); j++) {
    if (j >= c->p) {
      for (ptrdiff_t a = 0; a < c->ld; a++) c->X[bk_pair_at(c->ld, a, j)] = 0.0f;
      continue;
    }
    const double *xj = c->x + c->m * j;
    for (ptrdiff_t a = 0; a < c->ld; a++)
      c->X[bk_pair_at(c->ld, a, j)] = a >= c->m ? 0.0f
                                      : c->div ? (float) (xj[a] / c->div[j])
                                               : (float) xj[a];
  }
}

void bk_pair_pack(const double *x, ptrdiff_t m, ptrdiff_t p, const double *div,
                  float *X, ptrdiff_t ld, int nthreads)
{
  pack_ctx c = {x, div, m, p, ld, X};
  bk_columns_for(pack_panel, &c, bk_pair_cols(p) / BK_PAIR_PANEL,
                 2.0 * BK_PAIR_PANEL * (double) ld, nthreads);
}

int bk_pair_lowrank_weights(const double *U, ptrdiff_t m, ptrdiff_t r, const double *c,
                            ptrdiff_t ld, float *Uf, double *cd, float *cf)
{
  double cmax = 0.0;
  for (ptrdiff_t t = 0; t < r; t++) {
    const double *u = U + m * t;
    const int et = bk_pow2_exponent(bk_max_abs(u, m));
    const double st = bk_pow2_scale(et);
    for (ptrdiff_t a = 0; a < ld; a++)
      Uf[a + ld * t] = a < m ? (float) (st * u[a]) : 0.0f;
    cd[t] = et == BK_NO_EXPONENT ? 0.0 : ldexp(c[t], 2 * et);
    cmax = fmax(cmax, fabs(cd[t]));
  }
  const int e = bk_pow2_exponent(cmax);
  for (ptrdiff_t t = 0; t < r; t++) cf[t] = (float) (bk_pow2_scale(e) * cd[t]);
  return e;
}

void bk_pair_weights(const double *W, ptrdiff_t m, double scale, float *w,
                     ptrdiff_t ld)
{
  ptrdiff_t q = 0;
  for (ptrdiff_t b = 0; b < m; b++) {
    for (ptrdiff_t a = 0; a < b; a++)
      w[q++] = (float) (2.0 * scale * W[a + m * b]);
    w[q++] = (float) (scale * W[b + m * b]);
  }
  for (; q < ld; q++) w[q] = 0.0f;
}

/* ---- the top list ------------------------------------------------------------
 * A min-heap of the best pairs so far under one total order: a higher score
 * is better, then the lower i, then the lower j (NaN counts as -Inf). */
typedef struct {
  float s;
  int i, j;
} cand;

static inline int better(const cand *a, const cand *b)
{
  if (a->s != b->s) return a->s > b->s;
  if (a->i != b->i) return a->i < b->i;
  return a->j < b->j;
}

static void sift_down(cand *h, ptrdiff_t n, ptrdiff_t q)
{
  for (;;) {
    ptrdiff_t l = 2 * q + 1, w = q;
    if (l < n && better(h + w, h + l)) w = l;
    if (l + 1 < n && better(h + w, h + l + 1)) w = l + 1;
    if (w == q) return;
    cand t = h[q];
    h[q] = h[w];
    h[w] = t;
    q = w;
  }
}

static void sift_up(cand *h, ptrdiff_t q)
{
  while (q > 0) {
    ptrdiff_t up = (q - 1) / 2;
    if (!better(h + up, h + q)) return;
    cand t = h[q];
    h[q] = h[up];
    h[up] = t;
    q = up;
  }
}

/* one thread's list: at most k candidates, the worst at the root */
typedef struct {
  cand *h;
  ptrdiff_t n, k;
} toplist;

static inline void offer(toplist *t, float s, int i, int j)
{
  cand c = {s == s ? s : -INFINITY, i, j};
  if (t->n < t->k) {
    t->h[t->n] = c;
    sift_up(t->h, t->n++);
  } else if (better(&c, t->h)) {
    t->h[0] = c;
    sift_down(t->h, t->n, 0);
  }
}

/* ---- the tiles ---------------------------------------------------------------
 * The features fall in tiles of TB = BK_PAIR_TILE; the tile pairs (I, J),
 * I <= J, are the items of the threads, in the order I = 0, 1, ...,
 * J = I..T-1. A tile pair's TB x TB scores are one small GEMM, C = A' B over
 * the rows, A = s o X_I (s: w, or a column of U), B = X_J. A is packed into
 * micro-panels once per tile I (the weights applied there) and kept by the
 * thread while its next tile pairs have the same I; B is read in place
 * (the panels of pairtop.h). The rows run in chunks of KC (A's and B's
 * chunks stay in the L2 cache, a micro-panel of B in L1), and the
 * micro-kernel computes MR x NR blocks of C: MR = 6 features of A
 * broadcast against NR = 16 of B, two 8-float vectors, 12 accumulators in
 * the 16 registers of AVX2 (Goto and van de Geijn 2008, the micro-kernel).
 * Every score is the sum of its chunks' partial sums in chunk order, each a
 * sum over the rows in order: the same for any thread count. */
#define TB BK_PAIR_TILE
#define KC 256
#define MR 6
#define NR BK_PAIR_PANEL

/* a thread's buffers: its list, A packed (TB x ld, r of them for the
 * linear screen) for the tile I (I = -1: none yet), C (TB x TB, row x of A
 * holds its scores against B) and, for the linear screen, the sum S; next:
 * the merge's position in the sorted list */
typedef struct {
  toplist list;
  ptrdiff_t I, next;
  float *Ap, *C, *S;
} thread_buf;

typedef struct {
  const float *X; /* V or X */
  const float *Ap; /* A packed */
  ptrdiff_t ld, J0;
  int diag;
} tile_in;

/* A = s o X_I packed: micro-panel u holds the features I0 + MR u + x,
 * x < MR, row after row */
static void pack_a(const float *X, ptrdiff_t ld, ptrdiff_t I0, const float *s,
                   float *Ap)
{
  for (ptrdiff_t u = 0; u < TB / MR; u++) {
    float *dst = Ap + MR * ld * u;
    for (ptrdiff_t x = 0; x < MR; x++) {
      const ptrdiff_t g = I0 + MR * u + x;
      const float *src = X + bk_pair_at(ld, 0, g);
      for (ptrdiff_t r = 0; r < ld; r++)
        dst[MR * r + x] = s[r] * src[BK_PAIR_PANEL * r];
    }
  }
}

#if defined(__GNUC__) || defined(__clang__)
typedef float v8 __attribute__((vector_size(32)));
typedef float v8u __attribute__((vector_size(32), aligned(4)));
typedef float v4 __attribute__((vector_size(16)));
typedef float v4u __attribute__((vector_size(16), aligned(4)));

/* C[x, 0..15] (+)= sum_r ap[r, x] bp[r, 0..15], x < MR: the registers hold
 * the MR x NR block; row r's two B vectors are loaded once and each A value
 * broadcast. C's rows are 32-byte aligned (TB and NR multiples of 8). */
static inline __attribute__((always_inline)) void
micro8(const float *ap, const float *bp, ptrdiff_t kc, float *C, int first)
{
  v8 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0},
     c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
  for (ptrdiff_t r = 0; r < kc; r++) {
    const v8 b0 = *(const v8u *) bp, b1 = *(const v8u *) (bp + 8);
    c00 += b0 * ap[0];
    c01 += b1 * ap[0];
    c10 += b0 * ap[1];
    c11 += b1 * ap[1];
    c20 += b0 * ap[2];
    c21 += b1 * ap[2];
    c30 += b0 * ap[3];
    c31 += b1 * ap[3];
    c40 += b0 * ap[4];
    c41 += b1 * ap[4];
    c50 += b0 * ap[5];
    c51 += b1 * ap[5];
    ap += MR;
    bp += NR;
  }
  const v8 acc[2 * MR] = {c00, c01, c10, c11, c20, c21,
                          c30, c31, c40, c41, c50, c51};
  for (int x = 0; x < MR; x++)
    for (int h = 0; h < 2; h++) {
      v8 *dst = (v8 *) (C + TB * x + 8 * h);
      *dst = first ? acc[2 * x + h] : *dst + acc[2 * x + h];
    }
}

/* The same sums with 4-float vectors, for the baseline copy (SSE2's 16
 * registers, or NEON): the block's two halves of 8 columns one after the
 * other. Each score is summed in the same order as in micro8(). */
static inline __attribute__((always_inline)) void
micro4(const float *ap0, const float *bp0, ptrdiff_t kc, float *C, int first)
{
  for (int h = 0; h < 2; h++) {
    v4 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0},
       c30 = {0}, c31 = {0}, c40 = {0}, c41 = {0}, c50 = {0}, c51 = {0};
    const float *ap = ap0, *bp = bp0 + 8 * h;
    for (ptrdiff_t r = 0; r < kc; r++) {
      const v4 b0 = *(const v4u *) bp, b1 = *(const v4u *) (bp + 4);
      c00 += b0 * ap[0];
      c01 += b1 * ap[0];
      c10 += b0 * ap[1];
      c11 += b1 * ap[1];
      c20 += b0 * ap[2];
      c21 += b1 * ap[2];
      c30 += b0 * ap[3];
      c31 += b1 * ap[3];
      c40 += b0 * ap[4];
      c41 += b1 * ap[4];
      c50 += b0 * ap[5];
      c51 += b1 * ap[5];
      ap += MR;
      bp += NR;
    }
    const v4 acc[2 * MR] = {c00, c01, c10, c11, c20, c21,
                            c30, c31, c40, c41, c50, c51};
    for (int x = 0; x < MR; x++)
      for (int q = 0; q < 2; q++) {
        v4 *dst = (v4 *) (C + TB * x + 8 * h + 4 * q);
        *dst = first ? acc[2 * x + q] : *dst + acc[2 * x + q];
      }
  }
}
#define MICRO_PLAIN micro4
#else
/* the same sums without vector types */
static inline void micro1(const float *ap, const float *bp, ptrdiff_t kc,
                          float *C, int first)
{
  float acc[MR][NR] = {{0}};
  for (ptrdiff_t r = 0; r < kc; r++, ap += MR, bp += NR)
    for (int x = 0; x < MR; x++)
      for (int y = 0; y < NR; y++) acc[x][y] += bp[y] * ap[x];
  for (int x = 0; x < MR; x++)
    for (int y = 0; y < NR; y++)
      C[TB * x + y] = first ? acc[x][y] : C[TB * x + y] + acc[x][y];
}
#define MICRO_PLAIN micro1
#endif

/* C = A' B of one tile pair over the rows 0..ld-1; on the diagonal (I = J)
 * only the blocks that hold a pair i < j */
#define TILE_BODY(MICRO)                                                      \
  const float *B = t->X + bk_pair_at(t->ld, 0, t->J0);                        \
  for (ptrdiff_t r0 = 0; r0 < t->ld; r0 += KC) {                              \
    const ptrdiff_t kc = t->ld - r0 < KC ? t->ld - r0 : KC;                   \
    for (ptrdiff_t v = 0; v < TB / NR; v++)                                   \
      for (ptrdiff_t u = 0; u < TB / MR; u++) {                               \
        if (t->diag && MR * u >= NR * (v + 1) - 1) break;                     \
        MICRO(t->Ap + MR * (t->ld * u + r0), B + NR * (t->ld * v + r0), kc,   \
              C + TB * MR * u + NR * v, r0 == 0);                             \
      }                                                                       \
  }

typedef void (*tile_fn)(const tile_in *t, float *C);

static void tile_plain(const tile_in *t, float *C) { TILE_BODY(MICRO_PLAIN) }

/* the AVX2 + FMA copy, picked at run time as in pairs.c */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PT_X86_DISPATCH 1
__attribute__((target("avx2,fma"))) static void
tile_avx2(const tile_in *t, float *C) { TILE_BODY(micro8) }
#endif

static tile_fn pick_tile(int simd)
{
#ifdef PT_X86_DISPATCH
  if (simd && bk_cpu_has_avx2_fma()) return tile_avx2;
#endif
  (void) simd;
  return tile_plain;
}

/* ---- the work area ------------------------------------------------------------
 * [nt thread buffers][their heaps, k each, contiguous][nt packed A, C, S],
 * each part aligned to 64 bytes */
#define ALIGN_BYTES 64

static size_t round_up(size_t b)
{
  return (b + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES;
}

static size_t heap_bytes(ptrdiff_t k, size_t nt)
{
  return round_up(nt * (size_t) (k > 0 ? k : 1) * sizeof(cand));
}

static size_t tile_floats(ptrdiff_t ld, ptrdiff_t r)
{
  return (size_t) TB * (size_t) ld * (size_t) (r > 0 ? r : 1) + 2 * TB * TB;
}

size_t bk_pair_top_work(ptrdiff_t ld, ptrdiff_t r, ptrdiff_t k, int nthreads)
{
  const size_t nt = nthreads > 1 ? (size_t) nthreads : 1;
  return ALIGN_BYTES + round_up(nt * sizeof(thread_buf)) + heap_bytes(k, nt) +
         nt * round_up(tile_floats(ld, r) * sizeof(float));
}

static thread_buf *carve(void *work, ptrdiff_t ld, ptrdiff_t r, ptrdiff_t k,
                         int nt)
{
  unsigned char *b = work;
  b += (ALIGN_BYTES - (uintptr_t) b % ALIGN_BYTES) % ALIGN_BYTES;
  thread_buf *t = (thread_buf *) b;
  b += round_up((size_t) nt * sizeof(thread_buf));
  cand *heaps = (cand *) b;
  b += heap_bytes(k, (size_t) nt);
  for (int q = 0; q < nt; q++) {
    t[q].list.h = heaps + (size_t) q * (size_t) k;
    t[q].list.n = 0;
    t[q].list.k = k;
    t[q].I = -1;
    t[q].Ap = (float *) b;
    t[q].C = t[q].Ap + (size_t) TB * (size_t) ld * (size_t) (r > 0 ? r : 1);
    t[q].S = t[q].C + TB * TB;
    b += round_up(tile_floats(ld, r) * sizeof(float));
  }
  return t;
}

/* list q's heap (the worst at the root) sorted in place, the best first
 * (heapsort: the root to the end, again and again) */
static void sort_list(void *ctx, ptrdiff_t q)
{
  toplist *t = &((thread_buf *) ctx)[q].list;
  for (ptrdiff_t n = t->n; n > 1; n--) {
    const cand w = t->h[0];
    t->h[0] = t->h[n - 1];
    t->h[n - 1] = w;
    sift_down(t->h, n - 1, 0);
  }
}

static double sort_cost(const void *ctx, ptrdiff_t q)
{
  const double n = (double) ((const thread_buf *) ctx)[q].list.n;
  return 4.0 * n * log2(n + 1.0);
}

/* The lists merged: the first k of all candidates by the total order. Each
 * list sorted (on the threads where that is work enough), then the best of
 * the lists' heads, k times: the very pairs and order that sorting all
 * candidates gives (the order is total: no two candidates tie), without
 * the serial sort of nthreads k candidates (some 10 ms at 16 threads). */
static ptrdiff_t merge(thread_buf *t, int nt, bk_pair_list *out)
{
  const bk_paced_loop loop = {.item = sort_list, .ctx = t, .cost = sort_cost,
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 1};
  bk_paced_for(&loop, nt, nt, NULL);
  for (int q = 0; q < nt; q++) t[q].next = 0;
  ptrdiff_t n = 0;
  for (; n < out->k; n++) {
    int b = -1;
    for (int q = 0; q < nt; q++)
      if (t[q].next < t[q].list.n &&
          (b < 0 || better(t[q].list.h + t[q].next, t[b].list.h + t[b].next)))
        b = q;
    if (b < 0) break;
    const cand *c = t[b].list.h + t[b].next++;
    out->i[n] = c->i;
    out->j[n] = c->j;
    out->s[n] = c->s;
  }
  return n;
}

/* ---- the screens ---------------------------------------------------------------- */

typedef struct {
  const float *X, *w, *U, *c; /* w for the Gaussian screen, U and c the linear */
  ptrdiff_t ld, p, r, ntile;
  tile_fn tile;
  thread_buf *bufs;
} screen_ctx;

/* the tile pair q: row I of the upper triangle of tile pairs, then J */
static void tile_pair(ptrdiff_t q, ptrdiff_t T, ptrdiff_t *I, ptrdiff_t *J)
{
  ptrdiff_t i = 0;
  while (q >= T - i) q -= T - i++;
  *I = i;
  *J = i + q;
}

/* the pairs i < j < p of a tile pair's scores S (row x: feature I0 + x) */
static void offer_tile(toplist *t, const float *S, ptrdiff_t I0, ptrdiff_t J0,
                       ptrdiff_t p)
{
  for (ptrdiff_t x = 0; x < TB && I0 + x < p; x++) {
    const ptrdiff_t i = I0 + x, y0 = i + 1 > J0 ? i + 1 - J0 : 0;
    for (ptrdiff_t y = y0; y < TB && J0 + y < p; y++)
      offer(t, S[TB * x + y], (int) i, (int) (J0 + y));
  }
}

static void screen_one(void *ctx, ptrdiff_t q)
{
  const screen_ctx *c = ctx;
  ptrdiff_t I, J;
  tile_pair(q, c->ntile, &I, &J);
  thread_buf *b = c->bufs + bk_thread_id();
  const ptrdiff_t ld = c->ld, nr = c->U ? c->r : 1;
  if (b->I != I) { /* A of the tile I, once per run of its tile pairs */
    for (ptrdiff_t k = 0; k < nr; k++)
      pack_a(c->X, ld, TB * I, c->U ? c->U + ld * k : c->w,
             b->Ap + (size_t) TB * (size_t) ld * (size_t) k);
    b->I = I;
  }
  tile_in t = {c->X, b->Ap, ld, TB * J, I == J};
  float *S = b->C;
  if (!c->U) {
    c->tile(&t, b->C);
  } else {
    S = b->S;
    for (ptrdiff_t z = 0; z < TB * TB; z++) S[z] = 0.0f;
    for (ptrdiff_t k = 0; k < nr; k++) {
      t.Ap = b->Ap + (size_t) TB * (size_t) ld * (size_t) k;
      c->tile(&t, b->C);
      const float ck = c->c[k];
      for (ptrdiff_t z = 0; z < TB * TB; z++) S[z] += ck * (b->C[z] * b->C[z]);
    }
  }
  offer_tile(&b->list, S, TB * I, TB * J, c->p);
}

static ptrdiff_t screen(screen_ctx *c, bk_pair_list *out, const bk_pair_exec *ex)
{
  const ptrdiff_t p = c->p;
  if (p < 2 || out->k < 1) return 0;
  const double all = 0.5 * (double) p * (double) (p - 1);
  const ptrdiff_t k = (double) out->k < all ? out->k : (ptrdiff_t) all;
  const int nt = ex->nthreads > 1 ? ex->nthreads : 1;
  c->bufs = carve(ex->work, c->ld, c->U ? c->r : 0, k, nt);
  c->ntile = bk_pair_cols(p) / TB;
  c->tile = pick_tile(ex->simd);
  /* a tile pair's 8-float multiply-adds over 4: about the cost of the
   * element operations of BK_CHECK_OPS (a group some 20-50 ms) */
  const double ops = (double) TB * TB * (double) c->ld *
                     (double) (c->U ? c->r : 1) / 32.0;
  const bk_paced_loop loop = {.item = screen_one, .ctx = c, .ops = ops,
                              .par_min = BK_PAR_MIN_PAIRS, .dynamic = 1};
  bk_paced_for(&loop, c->ntile * (c->ntile + 1) / 2, nt, ex->pace);
  bk_pair_list o = *out;
  o.k = k;
  return merge(c->bufs, nt, &o);
}

ptrdiff_t bk_pair_top(const float *V, ptrdiff_t ld, ptrdiff_t p,
                      const float *w, bk_pair_list *out,
                      const bk_pair_exec *ex)
{
  screen_ctx c = {.X = V, .w = w, .ld = ld, .p = p};
  return screen(&c, out, ex);
}

ptrdiff_t bk_pair_top_lowrank(const float *X, ptrdiff_t ld, ptrdiff_t p,
                              const float *U, ptrdiff_t r, const float *c,
                              bk_pair_list *out, const bk_pair_exec *ex)
{
  screen_ctx s = {.X = X, .U = U, .c = c, .ld = ld, .p = p, .r = r};
  if (r < 1) return 0;
  return screen(&s, out, ex);
}
