/*
 * wc_run_jobs (models/parallel.h): every job runs exactly once and is
 * finished when the call returns, job 0 on the calling thread and the
 * others on threads of their own; n = 0 runs nothing and n = 1 starts no
 * thread.
 */
#include "models/parallel.h"
#include "tests/support/check.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct {
	int index;
	atomic_int runs;
	pthread_t ran_on;
	double sum; /* the job's own result, written by the job alone */
} job;

static void *
count_job(void *arg)
{
	job *j = arg;
	atomic_fetch_add(&j->runs, 1);
	j->ran_on = pthread_self();
	double s = 0.0;
	for (int k = 1; k <= 1000 * (j->index + 1); k++)
		s += 1.0 / k;
	j->sum = s;
	return NULL;
}

static void
check_jobs(int n)
{
	job jobs[8];
	for (int k = 0; k < 8; k++) {
		jobs[k].index = k;
		atomic_init(&jobs[k].runs, 0);
		jobs[k].sum = -1.0;
	}
	wc_run_jobs(jobs, sizeof jobs[0], n, count_job);
	for (int k = 0; k < 8; k++) {
		CHECK_INT(atomic_load(&jobs[k].runs), k < n ? 1 : 0);
		if (k < n)
			CHECK(jobs[k].sum > 1.0); /* finished before the call returned */
		else
			CHECK(jobs[k].sum == -1.0);
	}
	if (n >= 1)
		CHECK(pthread_equal(jobs[0].ran_on, pthread_self()));
	for (int k = 1; k < n; k++)
		CHECK(!pthread_equal(jobs[k].ran_on, pthread_self()));
}

int
main(void)
{
	check_jobs(0);
	check_jobs(1);
	check_jobs(2);
	check_jobs(8);
	return check_report("test_parallel");
}
