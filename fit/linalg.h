/*
 * Private to fit/: the LAPACKE adapter. Only linalg.c includes lapacke.h
 * and cblas.h — OpenBLAS's cblas.h and GSL's gsl_cblas.h cannot share a
 * translation unit (the two headers declare the same
 * CBLAS enums differently; docs/architecture.md, "Module boundaries") — so this header speaks plain
 * double arrays.
 */
#ifndef WC_FIT_LINALG_H
#define WC_FIT_LINALG_H

/** Singular values (descending, p of them) of the n x p row-major matrix
 *  `a` (overwritten), and the right singular vector of the smallest one.
 *  Returns 0, or the LAPACK info code. */
int wc__fit_linalg_svd_weakest(double *a, int n, int p, double *sing, double *v_weak);

/** Least squares min ||A x - b|| for n x p row-major A (overwritten);
 *  `b` (length n) receives x in its first p entries. 0 or LAPACK info. */
int wc__fit_linalg_lstsq(double *a, double *b, int n, int p);

/** (A^T A)^-1 (p x p, row-major, into `inv`) of the n x p row-major
 *  matrix `a` (not modified), by Cholesky (dpotrf/dpotri): the
 *  covariance factor of a linear least-squares fit. 0, or the LAPACK info
 *  code (> 0: A is rank deficient). */
int wc__fit_linalg_normal_inverse(const double *a, int n, int p, double *inv);

#endif
