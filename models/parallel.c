/* Running jobs on threads (models/parallel.h). */
#include "models/parallel.h"
#include "models/grow.h"

#include <pthread.h>
#include <stdlib.h>

void
wc_run_jobs(void *jobs, size_t job_size, int n, void *(*worker)(void *))
{
	char *base = jobs;
	pthread_t *tids = n > 1 ? wc_alloc_zeroed((size_t)n, sizeof *tids) : NULL;
	unsigned char *started = n > 1 ? wc_alloc_zeroed((size_t)n, 1) : NULL;
	if (!tids || !started) {
		free(tids);
		free(started);
		tids = NULL;
		started = NULL;
	}
	for (int k = 1; k < n && started; k++)
		started[k] = pthread_create(&tids[k], NULL, worker, base + (size_t)k * job_size) == 0;
	for (int k = 0; k < n; k++)
		if (!started || !started[k])
			worker(base + (size_t)k * job_size);
	for (int k = 1; k < n && started; k++)
		if (started[k])
			pthread_join(tids[k], NULL);
	free(tids);
	free(started);
}
