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
  ptrdiff_t m, ld;
  double gamma;
  float *V;
  double *work;
} vec_ctx;

/* Kc^j = H K^j H packed: Kc_ab = K_ab - r_a - r_b + g with r the row means
 * and g the grand mean of K (O(m^2), no m x m product) */
static void vector_one(void *ctx, ptrdiff_t j)
{
  const vec_ctx *c = ctx;
  const ptrdiff_t m = c->m, n = m * (m + 1) / 2;
  double *K = c->work + (n + m) * bk_thread_id(), *rs = K + n;
  const double *xj = c->x + m * j;
  float *v = c->V + c->ld * j;
  for (ptrdiff_t a = 0; a < m; a++) rs[a] = 0.0;
  for (ptrdiff_t b = 0, q = 0; b < m; b++) {
    const double xb = xj[b];
    for (ptrdiff_t a = 0; a < b; a++, q++) {
      const double u = xj[a] - xb;
      K[q] = bk_exp(-c->gamma * u * u);
    }
    K[q++] = 1.0;
  }
  /* row sums in a fixed order: the row a's entries b = 0..m-1 */
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
    for (ptrdiff_t a = 0; a <= b; a++, q++)
      v[q] = (float) (K[q] - rs[a] - rs[b] + g);
  for (ptrdiff_t q = n; q < c->ld; q++) v[q] = 0.0f;
}

void bk_pair_vectors(const double *x, ptrdiff_t m, ptrdiff_t p, double gamma,
                     float *V, ptrdiff_t ld, double *work, int nthreads,
                     bk_pacer *pace)
{
  vec_ctx c = {x, m, ld, gamma, V, work};
  const bk_paced_loop loop = {.item = vector_one, .ctx = &c,
                              .ops = 4.0 * (double) m * (double) m,
                              .par_min = BK_PAR_MIN_PAIRS};
  bk_paced_for(&loop, p, nthreads, pace);
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

static int cand_cmp(const void *a, const void *b)
{
  return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

/* ---- the work area ------------------------------------------------------------ */

#define ALIGN_BYTES 64

static size_t round_up(size_t b) { return (b + ALIGN_BYTES - 1) / ALIGN_BYTES * ALIGN_BYTES; }

size_t bk_pair_top_work(ptrdiff_t k, int nthreads)
{
  const size_t nt = nthreads > 1 ? (size_t) nthreads : 1;
  return ALIGN_BYTES + nt * round_up(sizeof(toplist)) +
         nt * round_up((size_t) (k > 0 ? k : 1) * sizeof(cand));
}

/* the per-thread lists, carved from the work area */
static toplist *carve(void *work, ptrdiff_t k, int nt)
{
  unsigned char *b = work;
  b += (ALIGN_BYTES - (uintptr_t) b % ALIGN_BYTES) % ALIGN_BYTES;
  toplist *t = (toplist *) b;
  b += (size_t) nt * round_up(sizeof(toplist));
  for (int q = 0; q < nt; q++) {
    t[q].h = (cand *) b;
    t[q].n = 0;
    t[q].k = k;
    b += round_up((size_t) (k > 0 ? k : 1) * sizeof(cand));
  }
  return t;
}

/* the lists merged: all candidates sorted by the total order, the first k */
static ptrdiff_t merge(toplist *t, int nt, bk_pair_list *out)
{
  cand *all = t[0].h;
  ptrdiff_t n = t[0].n;
  for (int q = 1; q < nt; q++) {
    memmove(all + n, t[q].h, (size_t) t[q].n * sizeof(cand));
    n += t[q].n;
  }
  qsort(all, (size_t) n, sizeof(cand), cand_cmp);
  if (n > out->k) n = out->k;
  for (ptrdiff_t q = 0; q < n; q++) {
    out->i[q] = all[q].i;
    out->j[q] = all[q].j;
    out->s[q] = all[q].s;
  }
  return n;
}

/* ---- the screens (reference loops) ------------------------------------------- */

ptrdiff_t bk_pair_top(const float *V, ptrdiff_t ld, ptrdiff_t p,
                      const float *w, bk_pair_list *out,
                      const bk_pair_exec *ex)
{
  toplist *t = carve(ex->work, out->k, 1);
  for (ptrdiff_t j = 1; j < p; j++)
    for (ptrdiff_t i = 0; i < j; i++) {
      float s = 0.0f;
      for (ptrdiff_t r = 0; r < ld; r++) s += w[r] * V[r + ld * i] * V[r + ld * j];
      offer(t, s, (int) i, (int) j);
    }
  return merge(t, 1, out);
}

ptrdiff_t bk_pair_top_lowrank(const float *X, ptrdiff_t ld, ptrdiff_t p,
                              const float *U, ptrdiff_t r, const float *c,
                              bk_pair_list *out, const bk_pair_exec *ex)
{
  toplist *t = carve(ex->work, out->k, 1);
  for (ptrdiff_t j = 1; j < p; j++)
    for (ptrdiff_t i = 0; i < j; i++) {
      float s = 0.0f;
      for (ptrdiff_t q = 0; q < r; q++) {
        float g = 0.0f;
        for (ptrdiff_t a = 0; a < ld; a++)
          g += U[a + ld * q] * X[a + ld * i] * X[a + ld * j];
        s += c[q] * g * g;
      }
      offer(t, s, (int) i, (int) j);
    }
  return merge(t, 1, out);
}
