/*
 * LAPACKE adapter: SVD (dgesvd) to find which parameter a nearly singular
 * Jacobian cannot identify, and least squares (dgels) with the inverse
 * normal matrix (dpotrf/dpotri) for the linear laws.
 * The one file that includes lapacke.h (see linalg.h).
 *
 * OpenBLAS and LAPACKE are loaded with dlopen on first use, not linked:
 * OpenBLAS needs libgfortran, whose libquadmath registers printf handlers
 * when it is loaded, and that puts every printf of the process (jansson's
 * %.17g included) on glibc's slow path. Commands that never call LAPACK
 * (serve, predict) so never load them (docs/architecture.md, "Linking").
 * OpenBLAS is opened first with RTLD_GLOBAL so that LAPACKE's LAPACK calls
 * resolve to the same library a link-time build used.
 */
#include <dlfcn.h>
#include <lapacke.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/fit.h"
#include "models/grow.h"
#include "linalg.h"

/* Full paths and sonames come from pkg-config at configure time
 * (CMakeLists.txt); the bare sonames are the fallback for a library that
 * moved. */
#ifndef WC_OPENBLAS_PATH
#define WC_OPENBLAS_PATH "libopenblas.so.0"
#endif
#ifndef WC_LAPACKE_PATH
#define WC_LAPACKE_PATH "liblapacke.so.3"
#endif

typedef void (*set_threads_fn)(int);

static struct {
	pthread_once_t once;
	int ok;
	char why[256];
	set_threads_fn set_threads;
	__typeof__(LAPACKE_dgesvd) *dgesvd;
	__typeof__(LAPACKE_dgels) *dgels;
	__typeof__(LAPACKE_dpotrf) *dpotrf;
	__typeof__(LAPACKE_dpotri) *dpotri;
} g_lapack = { .once = PTHREAD_ONCE_INIT };
static atomic_int g_pin_single, g_loaded;

static void *
linalg_open(const char *path, int flags)
{
	void *h = dlopen(path, flags);
	const char *slash = strrchr(path, '/');
	if (!h && slash) /* the library moved: let the loader search */
		h = dlopen(slash + 1, flags);
	if (!h)
		snprintf(g_lapack.why, sizeof g_lapack.why, "cannot load %s: %s", path, dlerror());
	return h;
}

static void *
linalg_sym(void *h, const char *name)
{
	void *f = dlsym(h, name);
	if (!f && !g_lapack.why[0])
		snprintf(g_lapack.why, sizeof g_lapack.why, "%s: symbol %s missing", WC_LAPACKE_PATH,
		         name);
	return f;
}

static void
linalg_load(void)
{
	/* Handles stay open for the life of the process (never dlclosed). */
	void *blas = linalg_open(WC_OPENBLAS_PATH, RTLD_NOW | RTLD_GLOBAL);
	void *lapacke = blas ? linalg_open(WC_LAPACKE_PATH, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lapacke)
		return;
	/* POSIX: a data pointer from dlsym converts to a function pointer. */
	*(void **)&g_lapack.set_threads = dlsym(blas, "openblas_set_num_threads");
	*(void **)&g_lapack.dgesvd = linalg_sym(lapacke, "LAPACKE_dgesvd");
	*(void **)&g_lapack.dgels = linalg_sym(lapacke, "LAPACKE_dgels");
	*(void **)&g_lapack.dpotrf = linalg_sym(lapacke, "LAPACKE_dpotrf");
	*(void **)&g_lapack.dpotri = linalg_sym(lapacke, "LAPACKE_dpotri");
	g_lapack.ok = g_lapack.dgesvd && g_lapack.dgels && g_lapack.dpotrf && g_lapack.dpotri;
	/* Whichever of this and a concurrent pin runs second sees the other's
	 * flag (sequentially consistent atomics), so the pin is never lost. */
	atomic_store(&g_loaded, 1);
	if (g_lapack.set_threads && atomic_load(&g_pin_single))
		g_lapack.set_threads(1);
}

/* 1 when LAPACKE is usable; otherwise says why on stderr once and 0
 * (the callers turn that into their own error code). */
static int
linalg_ready(void)
{
	static atomic_int said;
	pthread_once(&g_lapack.once, linalg_load);
	if (!g_lapack.ok && !atomic_exchange(&said, 1))
		fprintf(stderr, "wattcast: LAPACK unavailable: %s\n", g_lapack.why);
	return g_lapack.ok;
}

void
wc_linalg_pin_single_thread(void)
{
	/* A global setting: threaded callers must not let OpenBLAS spawn its
	 * own pool per call (OpenBLAS FAQ; issues #2809, #3917). Recorded
	 * here and applied when OpenBLAS is loaded, so pinning loads nothing. */
	atomic_store(&g_pin_single, 1);
	if (atomic_load(&g_loaded) && g_lapack.set_threads)
		g_lapack.set_threads(1);
}

int
fit_linalg_svd_weakest(double *a, int n, int p, double *sing, double *v_weak)
{
	if (!linalg_ready())
		return -1;
	double *vt = wc_alloc_array((size_t)p * (size_t)p, sizeof *vt);
	double *superb = wc_alloc_array((size_t)(p > 1 ? p : 2), sizeof *superb);
	int info = -1;
	if (vt && superb) {
		info = g_lapack.dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', n, p, a, p, sing, NULL, 1, vt, p,
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
	if (!linalg_ready())
		return -1;
	return g_lapack.dgels(LAPACK_ROW_MAJOR, 'N', n, p, 1, a, p, b, 1);
}

int
fit_linalg_normal_inverse(const double *a, int n, int p, double *inv)
{
	if (!linalg_ready())
		return -1;
	for (int i = 0; i < p; i++)
		for (int j = 0; j < p; j++) {
			double s = 0.0;
			for (int k = 0; k < n; k++)
				s += a[(size_t)k * p + i] * a[(size_t)k * p + j];
			inv[i * p + j] = s;
		}
	int info = g_lapack.dpotrf(LAPACK_ROW_MAJOR, 'U', p, inv, p);
	if (info == 0)
		info = g_lapack.dpotri(LAPACK_ROW_MAJOR, 'U', p, inv, p);
	/* dpotri fills the upper triangle only. */
	for (int i = 0; info == 0 && i < p; i++)
		for (int j = 0; j < i; j++)
			inv[i * p + j] = inv[j * p + i];
	return info;
}
