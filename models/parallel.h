/*
 * Running a fixed set of jobs on threads. Bootstraps, calibration and
 * envelope replicas split their work into one job per thread, each job
 * writing only its own share, so the result does not depend on which
 * thread runs which job (docs/fitting.md, "Determinism").
 */
#ifndef WC_MODELS_PARALLEL_H
#define WC_MODELS_PARALLEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Run `worker` on each of the `n` jobs of the array `jobs` (job k at
 *  (char *)jobs + k * job_size) and return when all are done: job 0 on
 *  this thread, the others on threads of their own. A job whose thread
 *  cannot be started (or every job, when the bookkeeping cannot be
 *  allocated) runs on this thread instead. Jobs report failures in their
 *  own fields; this function cannot fail. */
void wc_run_jobs(void *jobs, size_t job_size, int n, void *(*worker)(void *));

#ifdef __cplusplus
}
#endif

#endif
