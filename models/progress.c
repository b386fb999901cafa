/* Progress of long work (models/progress.h). A mutex, not atomics, keeps
 * the count and the reporter's calls in order; steps are coarse (a
 * bootstrap replicate, a buffer of a file), so it is never contended. */
#include "models/progress.h"

#include <pthread.h>
#include <stddef.h>

static wc_progress_fn reporter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *current;
static double done, total;

void
wc_progress_install(wc_progress_fn fn)
{
	reporter = fn;
}

void
wc_progress_begin(const char *task, double steps)
{
	if (!reporter)
		return;
	pthread_mutex_lock(&lock);
	current = task;
	done = 0.0;
	total = steps > 0 ? steps : 0.0;
	reporter(current, done, total);
	pthread_mutex_unlock(&lock);
}

void
wc_progress_add(double amount)
{
	if (!reporter)
		return;
	pthread_mutex_lock(&lock);
	if (current) {
		done += amount;
		reporter(current, done, total);
	}
	pthread_mutex_unlock(&lock);
}

void
wc_progress_end(void)
{
	if (!reporter)
		return;
	pthread_mutex_lock(&lock);
	if (current)
		reporter(current, total > 0 ? total : done, total > 0 ? total : -1.0);
	current = NULL;
	pthread_mutex_unlock(&lock);
}
