/*
 * randsel.c: the hot loop of randSel (Algorithm 1 of
 * Athanasakis et al.): the centred kernel-target alignment of many
 * random (sample subset, feature half) pairs, and the per-feature
 * contributions of Definition 3.2. Numeric core: no R API. Every bootstrap
 * draws its samples and features from its own stream (xoshiro256++), seeded
 * by the caller from R's RNG on the main thread, and writes only its own
 * slots: so set.seed() reproduces a run, for any number of threads.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "randsel.h"

/* The data are held in blocks of RS_FB features: block k is an m x RS_FB
 * row-major array (sample a's RS_FB values contiguous), so a bootstrap's
 * marked features of one block come from s short runs of one 64-sample
 * region, and a bootstrap's marks of a block are one 64-bit word. The
 * Gram matrix of a bootstrap is accumulated on s_pad >= s rows (a multiple
 * of 8, the padding rows zero). Bootstraps are processed in batches of
 * batch_size() that sweep the blocks together: each block is brought into
 * cache once per batch, not once per bootstrap (the reads, not the
 * arithmetic, bounded the loop when every bootstrap swept the data alone). */
#define RS_FB 64
#define RS_BATCH_BYTES 131072
static ptrdiff_t pad8(ptrdiff_t s) { return (s + 7) / 8 * 8; }
static ptrdiff_t n_blocks(ptrdiff_t p) { return (p + RS_FB - 1) / RS_FB; }
static ptrdiff_t batch_size(ptrdiff_t sp)
{
  /* the batch's Gram matrices stay in L2 beside the block */
  ptrdiff_t q = RS_BATCH_BYTES / (8 * sp * sp);
  return q < 1 ? 1 : (q > 16 ? 16 : q);
}

ptrdiff_t bk_randsel_blocked_doubles(ptrdiff_t m, ptrdiff_t p)
{
  return m * n_blocks(p) * RS_FB;
}

ptrdiff_t bk_randsel_work_doubles(ptrdiff_t s, ptrdiff_t p)
{
  const ptrdiff_t sp = pad8(s), q = batch_size(sp);
  /* the batch's G (q sp x sp), Gp (sp x sp), K, Lc (s x s), the panel
   * (RS_FB features), r, z, a triangle, the batch's marks (q words per
   * block) and its row offsets (q s), 8 bytes each */
  return (q + 1) * sp * sp + 2 * s * s + RS_FB * sp + 2 * sp +
         s * (s + 1) / 2 + q * n_blocks(p) + q * s;
}

ptrdiff_t bk_randsel_work_ints(ptrdiff_t s, ptrdiff_t m, ptrdiff_t p)
{
  /* the sorted subsamples of a batch and the pool of the draws */
  return batch_size(pad8(s)) * s + (m > p ? m : p);
}

/* ---- the draws ------------------------------------------------------------
 * xoshiro256++ (Blackman and Vigna 2019), its state filled from the seed by
 * splitmix64, as its authors recommend. */
typedef struct {
  uint64_t s[4];
} rs_rng;

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rs_rng *g)
{
  uint64_t *s = g->s;
  const uint64_t out = rotl(s[0] + s[3], 23) + s[0];
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

/* Uniform on 0..n-1 (n <= 2^32) without bias: Lemire's multiply-shift with
 * rejection (ACM TOMACS 2019). */
static uint32_t rng_below(rs_rng *g, uint32_t n)
{
  uint64_t v = (rng_next(g) >> 32) * (uint64_t) n;
  uint32_t low = (uint32_t) v;
  if (low < n) {
    const uint32_t floor_t = (uint32_t) (-n) % n;
    while (low < floor_t) {
      v = (rng_next(g) >> 32) * (uint64_t) n;
      low = (uint32_t) v;
    }
  }
  return (uint32_t) (v >> 32);
}

/* k distinct values of 0..n-1, each k-subset equally likely and in random
 * order: a partial Fisher-Yates shuffle. pool: n ints. */
static void draw_subset(rs_rng *g, ptrdiff_t n, ptrdiff_t k, int *out,
                        int *pool)
{
  for (ptrdiff_t i = 0; i < n; i++) pool[i] = (int) i;
  for (ptrdiff_t i = 0; i < k; i++) {
    const ptrdiff_t j = i + (ptrdiff_t) rng_below(g, (uint32_t) (n - i));
    const int v = pool[j];
    pool[j] = pool[i];
    pool[i] = v;
    out[i] = v;
  }
}

void bk_randsel_draw(uint64_t seed, ptrdiff_t m, ptrdiff_t s, ptrdiff_t n,
                     ptrdiff_t h, int *samp, int *feat, int *pool)
{
  rs_rng g;
  for (int i = 0; i < 4; i++) g.s[i] = splitmix64(&seed);
  draw_subset(&g, m, s, samp, pool);
  draw_subset(&g, n, h + 1, feat, pool);
}

/* G += P' P for a panel P of kc features (feature t's sp values at
 * P + sp t), on the 8 x 4 blocks of G (sp x sp, column-major) that meet the
 * upper triangle. The block's 32 sums stay in registers over the whole
 * panel, so every load carries several multiply-adds: the loop all the time
 * goes into. */
#define PANEL_ARGS double *G, const double *P, ptrdiff_t sp, ptrdiff_t kc
typedef void (*panel_fn)(PANEL_ARGS);

static void panel_update(PANEL_ARGS)
{
  for (ptrdiff_t j0 = 0; j0 < sp; j0 += 4) {
    for (ptrdiff_t i0 = 0; i0 < j0 + 4 && i0 < sp; i0 += 8) {
      double acc[4][8] = {{0.0}};
      for (ptrdiff_t t = 0; t < kc; t++) {
        const double *p = P + sp * t;
        for (int c = 0; c < 4; c++) {
          const double w = p[j0 + c];
          for (int a = 0; a < 8; a++) acc[c][a] += p[i0 + a] * w;
        }
      }
      for (int c = 0; c < 4; c++) {
        double *g = G + i0 + sp * (j0 + c);
        for (int a = 0; a < 8; a++) g[a] += acc[c][a];
      }
    }
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RS_X86_DISPATCH 1
#include <immintrin.h>
/* R's flags target baseline x86-64; with AVX2 + FMA the 8 x 4 block is
 * eight registers (the same dispatch as pairs.c) */
__attribute__((target("avx2,fma"))) static void panel_update_avx2(PANEL_ARGS)
{
  for (ptrdiff_t j0 = 0; j0 < sp; j0 += 4) {
    for (ptrdiff_t i0 = 0; i0 < j0 + 4 && i0 < sp; i0 += 8) {
      __m256d c00 = _mm256_setzero_pd(), c01 = _mm256_setzero_pd(),
              c10 = _mm256_setzero_pd(), c11 = _mm256_setzero_pd(),
              c20 = _mm256_setzero_pd(), c21 = _mm256_setzero_pd(),
              c30 = _mm256_setzero_pd(), c31 = _mm256_setzero_pd();
      const double *p = P;
      for (ptrdiff_t t = 0; t < kc; t++, p += sp) {
        const __m256d a0 = _mm256_loadu_pd(p + i0);
        const __m256d a1 = _mm256_loadu_pd(p + i0 + 4);
        __m256d w = _mm256_broadcast_sd(p + j0);
        c00 = _mm256_fmadd_pd(a0, w, c00);
        c01 = _mm256_fmadd_pd(a1, w, c01);
        w = _mm256_broadcast_sd(p + j0 + 1);
        c10 = _mm256_fmadd_pd(a0, w, c10);
        c11 = _mm256_fmadd_pd(a1, w, c11);
        w = _mm256_broadcast_sd(p + j0 + 2);
        c20 = _mm256_fmadd_pd(a0, w, c20);
        c21 = _mm256_fmadd_pd(a1, w, c21);
        w = _mm256_broadcast_sd(p + j0 + 3);
        c30 = _mm256_fmadd_pd(a0, w, c30);
        c31 = _mm256_fmadd_pd(a1, w, c31);
      }
      double *g = G + i0 + sp * j0;
      _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), c00));
      _mm256_storeu_pd(g + 4, _mm256_add_pd(_mm256_loadu_pd(g + 4), c01));
      g += sp;
      _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), c10));
      _mm256_storeu_pd(g + 4, _mm256_add_pd(_mm256_loadu_pd(g + 4), c11));
      g += sp;
      _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), c20));
      _mm256_storeu_pd(g + 4, _mm256_add_pd(_mm256_loadu_pd(g + 4), c21));
      g += sp;
      _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), c30));
      _mm256_storeu_pd(g + 4, _mm256_add_pd(_mm256_loadu_pd(g + 4), c31));
    }
  }
}
#endif

static int use_avx2(int simd)
{
  return simd && bk_cpu_has_avx2_fma();
}

/* Lowest set bit of a non-zero word. */
static int lowest_bit(uint64_t w)
{
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(w);
#else
  int i = 0;
  while (!(w & 1u)) {
    w >>= 1;
    i++;
  }
  return i;
#endif
}

/* G += the Gram matrix of the subsample ss[0..s-1] over the features of
 * block blk (m x RS_FB, row-major) marked in the word w: the marked
 * features are gathered into the panel P (feature t's values at P + sp t;
 * padding rows zero), then added by one panel update. */
#define BLOCK_ARGS                                                            \
  const double *blk, uint64_t w, const ptrdiff_t *off, ptrdiff_t s,           \
      ptrdiff_t sp, double *P, double *G, panel_fn update
typedef void (*block_fn)(BLOCK_ARGS);
static void add_block(BLOCK_ARGS)
{
  ptrdiff_t k = 0;
  while (w) {
    const double *src = blk + lowest_bit(w);
    w &= w - 1;
    double *dst = P + sp * k++;
    for (ptrdiff_t a = 0; a < s; a++) dst[a] = src[off[a]];
  }
  if (k > 0) update(G, P, sp, k);
}

#ifdef RS_X86_DISPATCH
/* The same with AVX2's gather: four samples of a feature per instruction,
 * about half the instructions of the scalar loop (which, not the reads,
 * bounded the batched sweep). */
__attribute__((target("avx2,fma"))) static void add_block_avx2(BLOCK_ARGS)
{
  const ptrdiff_t s4 = s - s % 4;
  ptrdiff_t k = 0;
  while (w) {
    const double *src = blk + lowest_bit(w);
    w &= w - 1;
    double *dst = P + sp * k++;
    ptrdiff_t a = 0;
    for (; a < s4; a += 4) {
      const __m256i idx = _mm256_loadu_si256((const __m256i *) (off + a));
      _mm256_storeu_pd(dst + a, _mm256_i64gather_pd(src, idx, 8));
    }
    for (; a < s; a++) dst[a] = src[off[a]];
  }
  if (k > 0) update(G, P, sp, k);
}
#endif

/* Feature f (0..p-1) of the subsample into z[0..s-1], from the blocked data. */
static void gather(const double *xb, ptrdiff_t m, ptrdiff_t f, const int *ss,
                   ptrdiff_t s, double *z)
{
  const double *blk = xb + m * RS_FB * (f / RS_FB) + f % RS_FB;
  for (ptrdiff_t a = 0; a < s; a++) z[a] = blk[(ptrdiff_t) ss[a] * RS_FB];
}

/* Centred alignment (section 2 of Athanasakis et al.)
 *   A(K, L) = <HKH, HLH>_F / (||HKH||_F ||HLH||_F),
 * with Lc = HLH given and lnorm = ||Lc||_F. Then
 * (HKH)_ab = K_ab - r_a - r_b + t from the row means r and grand mean t:
 * O(s^2), no s^3 products. <HKH, Lc> is summed over those centred values
 * (not as <K, Lc>, equal in exact arithmetic), so that the result is the
 * cosine of two computed vectors and within [-1, 1] even for a kernel so
 * nearly constant that centring loses most of its digits. K is full
 * (both triangles). A norm of 0 (constant kernel, or a subsample of one
 * class) carries no information: the alignment is then 0. r: s doubles. */
static double centred_alignment(const double *K, const double *Lc,
                                double lnorm, ptrdiff_t s, double *r)
{
  double t = 0.0;
  for (ptrdiff_t a = 0; a < s; a++) r[a] = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    const double *k = K + s * b;
    double cs = 0.0;
    BK_SIMD_SUM(cs)
    for (ptrdiff_t a = 0; a < s; a++) cs += k[a];
    r[b] = cs / (double) s; /* K symmetric: column means = row means */
    t += cs;
  }
  t /= (double) s * (double) s;
  double num = 0.0, k2 = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    const double *k = K + s * b, *l = Lc + s * b;
    const double cb = t - r[b];
    double nb = 0.0, kb = 0.0;
    BK_SIMD_SUM2(nb, kb)
    for (ptrdiff_t a = 0; a < s; a++) {
      double c = k[a] - r[a] + cb;
      nb += c * l[a];
      kb += c * c;
    }
    num += nb;
    k2 += kb;
  }
  if (!(k2 > 0.0) || !(lnorm > 0.0)) return 0.0;
  return num / (sqrt(k2) * lnorm);
}

/* v[i] = k(v[i]) for the kernel kern over n squared distances (or inner
 * products): the table's per-kernel loops (BK_KERNEL_MAP, kernels.h), so
 * that the Gaussian one vectorises. */
#define KMAP_BODY BK_KERNEL_MAP(kern.type, kern.p1, kern.p2, v, n);

#define KMAP_ARGS bk_kernel kern, double *v, ptrdiff_t n
typedef void (*kmap_fn)(KMAP_ARGS);
static void kmap(KMAP_ARGS) { KMAP_BODY }
#ifdef RS_X86_DISPATCH
__attribute__((target("avx2,fma"))) static void kmap_avx2(KMAP_ARGS)
{
  KMAP_BODY
}
#endif

/* The full kernel matrix K (s x s) of the subsample from the upper triangle
 * of its inner products G (leading dimension sp): squared distances
 * G_aa + G_bb - 2 G_ab for the distance kernels (clamped at 0 against
 * rounding). tri: s (s + 1) / 2 doubles. */
static void kernel_from_gram(const double *G, ptrdiff_t sp, ptrdiff_t s,
                             bk_kernel kern, kmap_fn map, double *tri,
                             double *K)
{
  const int dist = bk_kernel_uses_distance(kern.type);
  ptrdiff_t i = 0;
  for (ptrdiff_t b = 0; b < s; b++) {
    const double *g = G + sp * b, gbb = g[b];
    if (dist) {
      for (ptrdiff_t a = 0; a < b; a++) {
        const double v = G[a + sp * a] + gbb - 2.0 * g[a];
        tri[i++] = v > 0.0 ? v : 0.0;
      }
      tri[i++] = 0.0;
    } else {
      for (ptrdiff_t a = 0; a <= b; a++) tri[i++] = g[a];
    }
  }
  map(kern, tri, i);
  i = 0;
  for (ptrdiff_t b = 0; b < s; b++) {
    for (ptrdiff_t a = 0; a <= b; a++) {
      const double k = tri[i++];
      K[a + s * b] = k;
      K[b + s * a] = k;
    }
  }
}

/* Lc = H L_sub H for the subsample, from the label kernel (full L or factor
 * Y); returns ||Lc||_F. r: s doubles. */
static double centred_label(bk_label lab, ptrdiff_t m, const int *samp,
                            ptrdiff_t s, double *Lc, double *r)
{
  for (ptrdiff_t b = 0; b < s; b++) {
    for (ptrdiff_t a = 0; a <= b; a++) {
      double v = 0.0;
      if (lab.Y) {
        for (ptrdiff_t k = 0; k < lab.c; k++)
          v += lab.Y[samp[a] + m * k] * lab.Y[samp[b] + m * k];
      } else {
        v = lab.L[samp[a] + m * (ptrdiff_t) samp[b]];
      }
      Lc[a + s * b] = v;
      Lc[b + s * a] = v;
    }
  }
  double t = 0.0;
  for (ptrdiff_t b = 0; b < s; b++) {
    double cs = 0.0;
    for (ptrdiff_t a = 0; a < s; a++) cs += Lc[a + s * b];
    r[b] = cs / (double) s;
    t += cs;
  }
  t /= (double) s * (double) s;
  double n2 = 0.0;
  for (ptrdiff_t b = 0; b < s; b++)
    for (ptrdiff_t a = 0; a < s; a++) {
      double c = Lc[a + s * b] - r[a] - r[b] + t;
      Lc[a + s * b] = c;
      n2 += c * c;
    }
  return sqrt(n2);
}

void bk_randsel_block_columns(const double *x, ptrdiff_t m, const int *cols,
                              ptrdiff_t p, double *xb)
{
  const ptrdiff_t nblk = n_blocks(p);
  /* per block, 64 samples at a time: both sides stay in cache */
  for (ptrdiff_t k = 0; k < nblk; k++) {
    double *blk = xb + m * RS_FB * k;
    const ptrdiff_t j0 = RS_FB * k, w = p - j0 < RS_FB ? p - j0 : RS_FB;
    for (ptrdiff_t a0 = 0; a0 < m; a0 += 64) {
      const ptrdiff_t a1 = a0 + 64 < m ? a0 + 64 : m;
      for (ptrdiff_t t = 0; t < RS_FB; t++) {
        if (t < w) {
          const double *xc = x + m * (ptrdiff_t) cols[j0 + t];
          for (ptrdiff_t a = a0; a < a1; a++) blk[a * RS_FB + t] = xc[a];
        } else {
          for (ptrdiff_t a = a0; a < a1; a++) blk[a * RS_FB + t] = 0.0;
        }
      }
    }
  }
}

/* Insertion sort of a few ints (the subsample). */
static void sort_ints(int *v, ptrdiff_t n)
{
  for (ptrdiff_t i = 1; i < n; i++) {
    const int key = v[i];
    ptrdiff_t j = i;
    for (; j > 0 && v[j - 1] > key; j--) v[j] = v[j - 1];
    v[j] = key;
  }
}

/* What every batch of bk_randsel_align() shares: the blocked data, the
 * sizes, the kernel and the inner kernels chosen for the SIMD */
typedef struct {
  const double *xb;
  ptrdiff_t m, n_fixed, n, h, s, sp, Q, nblk;
  bk_kernel kern;
  panel_fn update;
  kmap_fn map;
  block_fn add;
} rs_plan;

/* One batch on one thread: its first bootstrap b0 and their number nq, and
 * the views of the thread's work (the layout of bk_randsel_work_doubles()
 * and bk_randsel_work_ints()) */
typedef struct {
  ptrdiff_t b0, nq;
  double *Gs, *Gp, *K, *Lc, *P, *r, *z, *tri;
  uint64_t *marks;
  ptrdiff_t *offs;
  int *sss, *pool;
} rs_batch;

static rs_batch batch_views(const rs_plan *pl, double *w, int *iw, ptrdiff_t b0,
                            ptrdiff_t nb)
{
  const ptrdiff_t s = pl->s, sp = pl->sp, Q = pl->Q;
  rs_batch v;
  v.b0 = b0;
  v.nq = nb - b0 < Q ? nb - b0 : Q;
  v.Gs = w;
  v.Gp = v.Gs + Q * sp * sp;
  v.K = v.Gp + sp * sp;
  v.Lc = v.K + s * s;
  v.P = v.Lc + s * s;
  v.r = v.P + RS_FB * sp;
  v.z = v.r + sp;
  v.tri = v.z + sp;
  v.marks = (uint64_t *) (v.tri + s * (s + 1) / 2);
  v.offs = (ptrdiff_t *) (v.marks + Q * pl->nblk);
  v.sss = iw;
  v.pool = v.sss + Q * s;
  return v;
}

/* the draws of the batch: its sorted subsamples and its marks, block after
 * block (marks of bootstrap q of block k at marks[Q k + q]) */
static void batch_draws(const rs_plan *pl, const rs_batch *v,
                        const uint64_t *seeds, int *samp, int *feat)
{
  const ptrdiff_t s = pl->s, h = pl->h, Q = pl->Q;
  memset(v->marks, 0, (size_t) (Q * pl->nblk) * sizeof(uint64_t));
  for (ptrdiff_t q = 0; q < v->nq; q++) {
    const ptrdiff_t b = v->b0 + q;
    int *sb = samp + s * b, *fb = feat + (h + 1) * b, *ss = v->sss + s * q;
    bk_randsel_draw(seeds[b], pl->m, s, pl->n, h, sb, fb, v->pool);
    /* the order of the samples and of the features does not change the
     * alignment; sorted, a block is read front to back */
    memcpy(ss, sb, (size_t) s * sizeof(int));
    sort_ints(ss, s);
    for (ptrdiff_t a = 0; a < s; a++)
      v->offs[s * q + a] = (ptrdiff_t) ss[a] * RS_FB;
    /* the fixed features (0..n_fixed-1) are in every set; the random
     * half is fb[0..h-1] (Definition 3.2: floor(n / 2) free features) */
    for (ptrdiff_t t = 0; t < pl->n_fixed; t++)
      v->marks[Q * (t / RS_FB) + q] |= (uint64_t) 1 << (t % RS_FB);
    for (ptrdiff_t t = 0; t < h; t++) {
      const ptrdiff_t f = pl->n_fixed + fb[t];
      v->marks[Q * (f / RS_FB) + q] |= (uint64_t) 1 << (f % RS_FB);
    }
  }
}

/* the sweep: block after block, each bootstrap of the batch in turn adds
 * the block's marked features to its inner products Gs */
static void batch_sweep(const rs_plan *pl, const rs_batch *v)
{
  const ptrdiff_t m = pl->m, s = pl->s, sp = pl->sp, Q = pl->Q,
                  nblk = pl->nblk, nq = v->nq;
  memset(v->Gs, 0, (size_t) (Q * sp * sp) * sizeof(double));
  for (ptrdiff_t k = 0; k < nblk; k++) {
    const double *blk = pl->xb + m * RS_FB * k;
    /* the next block is prefetched (into L2) a share before each
     * bootstrap's turn, so the requests overlap the arithmetic instead
     * of queueing up at once */
    const double *next = k + 1 < nblk ? blk + m * RS_FB : NULL;
    const ptrdiff_t len = m * RS_FB, share = ((len + nq - 1) / nq + 7) / 8 * 8;
    for (ptrdiff_t q = 0; q < nq; q++) {
#if defined(__GNUC__) || defined(__clang__)
      if (next) {
        const ptrdiff_t i1 = share * (q + 1) < len ? share * (q + 1) : len;
        for (ptrdiff_t i = share * q; i < i1; i += 8)
          __builtin_prefetch(next + i, 0, 1);
      }
#else
      (void) next;
      (void) share;
#endif
      pl->add(blk, v->marks[Q * k + q], v->offs + s * q, s, sp, v->P,
              v->Gs + sp * sp * q, pl->update);
    }
  }
}

/* the two alignments of each bootstrap of the batch */
static void batch_alignments(const rs_plan *pl, const rs_batch *v,
                             bk_label lab, const int *feat, double *a_half,
                             double *a_plus)
{
  const ptrdiff_t m = pl->m, s = pl->s, sp = pl->sp, h = pl->h;
  for (ptrdiff_t q = 0; q < v->nq; q++) {
    const ptrdiff_t b = v->b0 + q;
    const int *ss = v->sss + s * q, *fb = feat + (h + 1) * b;
    const double *G = v->Gs + sp * sp * q;
    const double lnorm = centred_label(lab, m, ss, s, v->Lc, v->r);
    kernel_from_gram(G, sp, s, pl->kern, pl->map, v->tri, v->K);
    a_half[b] = centred_alignment(v->K, v->Lc, lnorm, s, v->r);
    /* the half plus one: the same half and fb[h], a uniform (h + 1)-set,
     * matched to the half as Definition 3.2's remark describes */
    memcpy(v->Gp, G, (size_t) (sp * sp) * sizeof(double));
    gather(pl->xb, m, pl->n_fixed + fb[h], ss, s, v->z);
    pl->update(v->Gp, v->z, sp, 1);
    kernel_from_gram(v->Gp, sp, s, pl->kern, pl->map, v->tri, v->K);
    a_plus[b] = centred_alignment(v->K, v->Lc, lnorm, s, v->r);
  }
}

void bk_randsel_align(const double *xb, ptrdiff_t m, ptrdiff_t n_fixed,
                      ptrdiff_t n,
                      bk_label lab, const bk_randsel_opts *o, ptrdiff_t nb,
                      const uint64_t *seeds, int *samp, int *feat,
                      double *a_half, double *a_plus, double *work, int *iwork)
{
  const ptrdiff_t s = o->s, h = o->h, sp = pad8(s), Q = batch_size(sp);
  const ptrdiff_t p = n_fixed + n, nblk = n_blocks(p);
  const ptrdiff_t per = bk_randsel_work_doubles(s, p),
                  iper = bk_randsel_work_ints(s, m, p);
  const ptrdiff_t nbatch = (nb + Q - 1) / Q;
  const int avx2 = use_avx2(o->simd);
#ifdef RS_X86_DISPATCH
  const rs_plan pl = {xb, m, n_fixed, n, h, s, sp, Q, nblk, o->kern,
                      avx2 ? panel_update_avx2 : panel_update,
                      avx2 ? kmap_avx2 : kmap,
                      avx2 ? add_block_avx2 : add_block};
#else
  const rs_plan pl = {xb, m, n_fixed, n, h, s, sp, Q, nblk, o->kern,
                      panel_update, kmap, add_block};
  (void) avx2;
#endif
  const int nthreads = o->nthreads;
  /* threads only when a batch is worth a start-up (about 50k FMAs each
   * for a few of them) */
  const int par = nthreads > 1 && nbatch > 1 &&
                  (double) s * (double) s * (double) (h + n_fixed) *
                          (double) nb >= 2e5;
  /* the panels' and z's padding rows start at zero and stay so */
  const int nw = par ? nthreads : 1;
  memset(work, 0, (size_t) (nw * per) * sizeof(double));
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (par)
#endif
  for (ptrdiff_t bt = 0; bt < nbatch; bt++) {
    const int tid = par ? bk_thread_id() : 0;
    const rs_batch v = batch_views(&pl, work + per * (ptrdiff_t) tid,
                                   iwork + iper * (ptrdiff_t) tid, bt * Q, nb);
    batch_draws(&pl, &v, seeds, samp, feat);
    batch_sweep(&pl, &v);
    batch_alignments(&pl, &v, lab, feat, a_half, a_plus);
  }
}

void bk_randsel_accumulate(ptrdiff_t h, ptrdiff_t nb, const int *feat,
                           const double *a_half, const double *a_plus,
                           double *sum_plus, int *n_plus, double *sum_half,
                           int *n_half, double *total_half)
{
  for (ptrdiff_t b = 0; b < nb; b++) {
    const int *fb = feat + (h + 1) * b;
    for (ptrdiff_t t = 0; t <= h; t++) {
      sum_plus[fb[t]] += a_plus[b];
      n_plus[fb[t]]++;
    }
    for (ptrdiff_t t = 0; t < h; t++) {
      sum_half[fb[t]] += a_half[b];
      n_half[fb[t]]++;
    }
    *total_half += a_half[b];
  }
}

void bk_randsel_contrib(ptrdiff_t n, ptrdiff_t nb_total, const double *sum_plus,
                        const int *n_plus, const double *sum_half,
                        const int *n_half, double total_half, double *out)
{
  for (ptrdiff_t j = 0; j < n; j++) {
    /* Definition 3.2 / Algorithm 1: mean alignment of the (h + 1)-sets
     * with j minus mean alignment of the h-sets without j; NaN when
     * either has no draw */
    ptrdiff_t n_out = nb_total - n_half[j];
    if (n_plus[j] == 0 || n_out == 0) {
      out[j] = NAN;
    } else {
      out[j] = sum_plus[j] / (double) n_plus[j] -
               (total_half - sum_half[j]) / (double) n_out;
    }
  }
}
