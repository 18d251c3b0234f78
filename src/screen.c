/*
 * screen.c: the column passes of bahsic()'s screen and of a study design's
 * residuals (see screen.h). Each is the R expression it replaces, operation
 * for operation, so that the screen finds what it found with the R idioms,
 * bit for bit. Each column's numbers are its own: the passes run their
 * columns on threads (bk_columns_for()) with the same results on any number.
 * Numeric core: no R API, no allocation.
 */
#include "screen.h"

/* one column less its mean, the mean as colMeans() takes it (long double
 * sum over m), the difference as sweep() takes it; out may be x */
static void centre_column(const double *xj, ptrdiff_t m, double *oj)
{
  long double sum = 0.0L;
  for (ptrdiff_t i = 0; i < m; i++) sum += xj[i];
  const double centre = (double) (sum / (long double) m);
  for (ptrdiff_t i = 0; i < m; i++) oj[i] = xj[i] - centre;
}

void bk_centre_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out)
{
  for (ptrdiff_t j = 0; j < d; j++) centre_column(x + m * j, m, out + m * j);
}

int bk_pairs_nonfinite(const double *x, ptrdiff_t n)
{
  if ((n & 1) && !isfinite(x[0])) return 1;
  for (ptrdiff_t i = n & 1; i < n; i += 2)
    if (!isfinite(x[i] + x[i + 1])) return 1;
  return 0;
}

/* bk_project_out(): column j's pass. wide[j] says whether the column holds
 * a value that is not finite or at least 2^1023 in size: only then can a
 * sum of two neighbouring values fail to be finite (bk_pairs_nonfinite()) */
typedef struct {
  const double *v, *Q;
  ptrdiff_t m, r;
  int transform;
  double *c, *out;
  unsigned char *wide;
} project_ctx;

static int column_wide(const double *x, ptrdiff_t m)
{
  int wide = 0;
  for (ptrdiff_t i = 0; i < m; i++) wide |= !(fabs(x[i]) < 0x1p1023);
  return wide;
}

static void project_column(void *ctx, ptrdiff_t j)
{
  const project_ctx *p = ctx;
  const ptrdiff_t m = p->m, r = p->r;
  const double *vj = p->v + m * j, *Q = p->Q;
  double *oj = p->out + m * j, *cj = p->c + r * j;
  if (p->transform == BK_PROJECT_BOUNDED) {
    for (ptrdiff_t i = 0; i < m; i++) oj[i] = tanh(1.5 * vj[i]);
    centre_column(oj, m, oj);
  } else if (p->transform == BK_PROJECT_CENTRE) {
    centre_column(vj, m, oj);
  } else {
    memcpy(oj, vj, (size_t) m * sizeof(double));
  }
  /* what R's product checks: v as given, or the centred v */
  p->wide[j] = (unsigned char) column_wide(oj, m);
  /* C = Q' v (crossprod(): dgemm or dgemv, each entry from +0 in row order) */
  for (ptrdiff_t k = 0; k < r; k++) {
    const double *qk = Q + m * k;
    double s = 0.0;
    for (ptrdiff_t i = 0; i < m; i++) s += qk[i] * oj[i];
    cj[k] = s;
  }
  /* v - Q C (`%*%`: dgemm or dgemv, each entry from +0 over Q's columns in
   * order, then R's `-`); unused where C is not finite (the caller's check) */
  for (ptrdiff_t i = 0; i < m; i++) {
    double s = 0.0;
    for (ptrdiff_t k = 0; k < r; k++) s += cj[k] * Q[i + m * k];
    oj[i] = oj[i] - s;
  }
}

int bk_project_out(const double *v, ptrdiff_t m, ptrdiff_t d, const double *Q,
                   ptrdiff_t r, int transform, double *c, unsigned char *wide,
                   double *out, int nthreads)
{
  if (bk_pairs_nonfinite(Q, m * r)) return 1;
  project_ctx p = {.v = v, .Q = Q, .m = m, .r = r, .transform = transform, .c = c,
                   .out = out, .wide = wide};
  /* (a column's operations: some 24 for a tanh(), 4 r for the products) */
  bk_columns_for(project_column, &p, d,
                 (double) m * (4.0 * (double) r + (transform == BK_PROJECT_BOUNDED ? 24.0 : 3.0)),
                 nthreads);
  /* a column that might fail R's check: the caller takes R's own way */
  for (ptrdiff_t j = 0; j < d; j++)
    if (wide[j]) return 1;
  return bk_pairs_nonfinite(c, r * d);
}

/* a pass from x to out column by column (bk_bounded_columns(); out: one
 * value a column for bk_pair_scale_divisors()) */
typedef struct {
  const double *x;
  ptrdiff_t m;
  double *out;
} column_ctx;

static void bounded_column(void *ctx, ptrdiff_t j)
{
  const column_ctx *p = ctx;
  const double *xj = p->x + p->m * j;
  double *oj = p->out + p->m * j;
  for (ptrdiff_t i = 0; i < p->m; i++) oj[i] = tanh(1.5 * xj[i]);
}

void bk_bounded_columns(const double *x, ptrdiff_t m, ptrdiff_t d, double *out,
                        int nthreads)
{
  column_ctx p = {.x = x, .m = m, .out = out};
  bk_columns_for(bounded_column, &p, d, 24.0 * (double) m, nthreads);
}

/* x^4 as R's `^` takes it (R_pow(): 1 at x = 1, 0 at x = 0, pow() else) */
static inline double pow4(double x)
{
  if (x == 1.0) return 1.0;
  if (x == 0.0) return 0.0;
  return pow(x, 4.0);
}

static void pair_divisor(void *ctx, ptrdiff_t j)
{
  const column_ctx *p = ctx;
  const ptrdiff_t m = p->m;
  const double *xj = p->x + m * j;
  long double sum = 0.0L;
  for (ptrdiff_t i = 0; i < m; i++) sum += pow4(xj[i]);
  const double q = sqrt((double) sum);
  p->out[j] = sqrt(q > 0.0 ? q : 1.0);
}

void bk_pair_scale_divisors(const double *x, ptrdiff_t m, ptrdiff_t d, double *s,
                            int nthreads)
{
  column_ctx p = {.x = x, .m = m, .out = s};
  bk_columns_for(pair_divisor, &p, d, 16.0 * (double) m, nthreads);
}

typedef struct {
  const double *x;
  ptrdiff_t m;
  const int *i, *j;
  double *out;
} products_ctx;

static void product_column(void *ctx, ptrdiff_t k)
{
  const products_ctx *p = ctx;
  const ptrdiff_t m = p->m;
  const double *xi = p->x + m * (ptrdiff_t) p->i[k];
  const double *xj = p->x + m * (ptrdiff_t) p->j[k];
  double *ok = p->out + m * k;
  for (ptrdiff_t a = 0; a < m; a++) ok[a] = xi[a] * xj[a];
}

void bk_column_products(const double *x, ptrdiff_t m, const int *i,
                        const int *j, ptrdiff_t n, double *out, int nthreads)
{
  products_ctx p = {.x = x, .m = m, .i = i, .j = j, .out = out};
  bk_columns_for(product_column, &p, n, 2.0 * (double) m, nthreads);
}
