/*
 * The command line's progress reporter (docs/cli.md, "Progress"): one
 * line on stderr, rewritten in place at most four times a second, with the
 * share done and a time estimate from the rate so far. Only when stderr is
 * a terminal and --quiet was not given: a log file or a pipe gets nothing.
 */
#include "cli.h"
#include "models/progress.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

static double started, last_print;
static int line_open;

double
cli_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Called under the progress lock (models/progress.c), so never twice at once. */
static void
report(const char *task, double done, double total)
{
	double t = cli_now_s();
	int final = total < 0 || (total > 0 && done >= total);
	if (done == 0) {
		/* A task that begins, or ends having done nothing (`ingest
		 * --help`), prints nothing; it only closes a line left open. */
		started = t;
		last_print = t;
		if (final && line_open) {
			fputc('\n', stderr);
			line_open = 0;
		}
		return;
	}
	if (!final && t - last_print < 0.25)
		return;
	last_print = t;
	if (total > 0) {
		double rate = done / fmax(t - started, 1e-9);
		double left = rate > 0 ? (total - done) / rate : NAN;
		fprintf(stderr, "\r%s: %.0f/%.0f (%.0f %%)", task, done, total, 100.0 * done / total);
		if (!final && isfinite(left) && t - started > 1.0)
			fprintf(stderr, ", about %.0f s left ", left);
		else
			fputs("               ", stderr);
	} else {
		fprintf(stderr, "\r%s: %.1f   ", task, done);
	}
	line_open = 1;
	if (final) {
		fputc('\n', stderr);
		line_open = 0;
	}
	fflush(stderr);
}

static int quiet_given;

int
cli_quiet(void)
{
	return quiet_given;
}

void
cli_progress_setup(int quiet)
{
	quiet_given = quiet;
	if (!quiet && isatty(STDERR_FILENO))
		wc_progress_install(report);
}
