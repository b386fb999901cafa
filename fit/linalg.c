/*
 * LAPACKE adapter: SVD (dgesvd) to find which parameter a nearly singular
 * Jacobian cannot identify, and least squares (dgels) with the inverse
 * normal matrix (dpotrf/dpotri) for the linear laws.
 * The one file that includes lapacke.h / cblas.h (see linalg.h).
 */
#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/grow.h"
#include "linalg.h"

void
wc_linalg_pin_single_thread(void)
{
	/* A global setting: threaded callers must not let OpenBLAS spawn its
	 * own pool per call (OpenBLAS FAQ; issues #2809, #3917). */
	openblas_set_num_threads(1);
}

int
fit_linalg_svd_weakest(double *a, int n, int p, double *sing, double *v_weak)
{
	double *vt = wc_alloc_array((size_t)p * (size_t)p, sizeof *vt);
	double *superb = wc_alloc_array((size_t)(p > 1 ? p : 2), sizeof *superb);
	int info = -1;
	if (vt && superb) {
		info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', n, p, a, p, sing, NULL, 1, vt, p,
		                      superb);
		if (info == 0)
			memcpy(v_weak, vt + (size_t)(p - 1) * (size_t)p, (size_t)p * sizeof *v_weak);
	}
	free(vt);
	free(superb);
	return info;
}

int
fit_linalg_lstsq(double *a, double *b, int n, int p)
{
	return LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', n, p, 1, a, p, b, 1);
}

int
fit_linalg_normal_inverse(const double *a, int n, int p, double *inv)
{
	for (int i = 0; i < p; i++)
		for (int j = 0; j < p; j++) {
			double s = 0.0;
			for (int k = 0; k < n; k++)
				s += a[(size_t)k * p + i] * a[(size_t)k * p + j];
			inv[i * p + j] = s;
		}
	int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', p, inv, p);
	if (info == 0)
		info = LAPACKE_dpotri(LAPACK_ROW_MAJOR, 'U', p, inv, p);
	/* dpotri fills the upper triangle only. */
	for (int i = 0; info == 0 && i < p; i++)
		for (int j = 0; j < i; j++)
			inv[i * p + j] = inv[j * p + i];
	return info;
}
