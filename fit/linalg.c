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
	 * own pool per call (OpenBLAS's FAQ, "multi-threaded
	 * program", https://github.com/OpenMathLib/OpenBLAS/wiki/Faq). */
	openblas_set_num_threads(1);
}

/* OpenBLAS exports this (its own fork handler calls it) and starts the pool
 * again on a later threaded call. Weak: another BLAS without it leaves this
 * NULL, and there is nothing to stop. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

void
wc_linalg_stop_pool(void)
{
	/* OpenBLAS starts its thread pool when the program loads, and each idle
	 * pool thread spins on sched_yield for about 2^28 clock cycles before it
	 * sleeps (THREAD_TIMEOUT in its blas_server.c): 30-80 ms of CPU per
	 * process, taken from our own threads (docs/results.md, "Telemetry
	 * reading"). */
	if (blas_thread_shutdown_)
		blas_thread_shutdown_();
}

int
wc__fit_linalg_svd_weakest(double *a, int n, int p, double *sing, double *v_weak)
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
wc__fit_linalg_lstsq(double *a, double *b, int n, int p)
{
	return LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', n, p, 1, a, p, b, 1);
}

int
wc__fit_linalg_normal_inverse(const double *a, int n, int p, double *inv)
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
