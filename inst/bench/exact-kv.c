/* For inst/bench/bench-ichol-large.R: the exact reference above its exact_max.
 * gcc -O3 -fopenmp -o exact_kv inst/bench/exact-kv.c -lm
 * K V for the Gaussian kernel exp(-sigma ||a - b||^2), K_ii = 1 included:
 * exact_kv x.bin V.bin m d c sigma out.bin   (column-major doubles in and out) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static double *rd(const char *p, size_t n) {
  double *a = malloc(n * sizeof *a); FILE *f = fopen(p, "rb");
  if (!a || !f || fread(a, sizeof *a, n, f) != n) { fprintf(stderr, "read %s\n", p); exit(1); }
  fclose(f); return a;
}
int main(int argc, char **argv) {
  if (argc != 8) { fprintf(stderr, "usage: exact_kv x.bin V.bin m d c sigma out.bin\n"); return 1; }
  size_t m = strtoul(argv[3], 0, 10), d = strtoul(argv[4], 0, 10), c = strtoul(argv[5], 0, 10);
  double sigma = strtod(argv[6], 0);
  double *x = rd(argv[1], m * d), *V = rd(argv[2], m * c);
  double *xr = malloc(m * d * sizeof *xr), *Vr = malloc(m * c * sizeof *Vr), *KV = calloc(m * c, sizeof *KV);
  for (size_t i = 0; i < m; i++) {
    for (size_t k = 0; k < d; k++) xr[i * d + k] = x[k * m + i];
    for (size_t k = 0; k < c; k++) Vr[i * c + k] = V[k * m + i];
  }
#pragma omp parallel for schedule(dynamic, 64)
  for (size_t i = 0; i < m; i++) {
    double acc[64] = {0};
    const double *a = xr + i * d;
    for (size_t j = 0; j < m; j++) {
      const double *b = xr + j * d;
      double s = 0;
      for (size_t k = 0; k < d; k++) { double t = a[k] - b[k]; s += t * t; }
      double kij = exp(-sigma * s);
      for (size_t k = 0; k < c; k++) acc[k] += kij * Vr[j * c + k];
    }
    for (size_t k = 0; k < c; k++) KV[k * m + i] = acc[k];
  }
  FILE *f = fopen(argv[7], "wb");
  fwrite(KV, sizeof *KV, m * c, f); fclose(f);
  return 0;
}
