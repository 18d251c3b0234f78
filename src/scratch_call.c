/* scratch_call.c: a work buffer kept between .Call's (glue.h). */
#include <stdlib.h>
#include "glue.h"

/* A call of hsic() at m = 500 held some 5 MB of work (R_alloc, the Gram
 * matrices); after R's collections freed them, every call faulted in fresh
 * pages again (some 800 faults, a third of its time on this 2-core machine,
 * at 8-10 us a fault). A buffer of at most BK_SCRATCH_KEEP bytes is kept
 * instead, for the session: its pages are faulted in once. Only the pages
 * a call touches are resident (a panel of a thread's 1 MiB, not the
 * panels' 16 MiB of address space). Larger work, and work asked for while
 * the buffer is in use, comes from R_alloc as before. Freed when the
 * package's library is unloaded. */
#define BK_SCRATCH_KEEP ((size_t) 64 << 20)

static double *kept = NULL;
static size_t kept_n = 0; /* doubles */
static int kept_busy = 0;

typedef struct {
  void (*fn)(void *, double *);
  void *data;
  double *work;
} scratch_run;

static SEXP scratch_body(void *p)
{
  scratch_run *r = p;
  r->fn(r->data, r->work);
  return R_NilValue;
}

/* on the way out, by a return or by an error or interrupt's jump */
static void scratch_clean(void *p, Rboolean jump)
{
  (void) p;
  (void) jump;
  kept_busy = 0;
}

void bk_with_scratch(size_t n, void (*fn)(void *data, double *work), void *data)
{
  if (n == 0) n = 1;
  if (kept_busy || n > BK_SCRATCH_KEEP / sizeof(double)) {
    fn(data, (double *) R_alloc(n, sizeof(double)));
    return;
  }
  if (n > kept_n) {
    /* a power of two of at least 1 MiB (at most the cap), so that work a
     * little larger than the last (the next m, another label) does not
     * give up the pages faulted in already */
    size_t size = (size_t) 1 << 17;
    while (size < n) size <<= 1;
    if (size > BK_SCRATCH_KEEP / sizeof(double)) size = BK_SCRATCH_KEEP / sizeof(double);
    free(kept);
    kept_n = 0;
    kept = malloc(size * sizeof(double));
    if (!kept) {
      fn(data, (double *) R_alloc(n, sizeof(double)));
      return;
    }
    kept_n = size;
  }
  scratch_run r = {fn, data, kept};
  SEXP cont = PROTECT(R_MakeUnwindCont());
  kept_busy = 1;
  R_UnwindProtect(scratch_body, &r, scratch_clean, NULL, cont);
  UNPROTECT(1);
}

void bk_scratch_free(void)
{
  if (kept_busy) return;
  free(kept);
  kept = NULL;
  kept_n = 0;
}

/* c(bytes kept, 1 while in use): for the tests of the release on a jump */
SEXP C_scratch_info(void)
{
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = (double) (kept_n * sizeof(double));
  REAL(out)[1] = kept_busy;
  UNPROTECT(1);
  return out;
}
