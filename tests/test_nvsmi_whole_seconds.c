/*
 * Whole-second timestamps at a sub-second cadence (docs/formats/
 * telemetry.md, "Timestamps"): a real 0.25 s A100 log re-exported without
 * milliseconds was refused suggesting --max-bad, and with --max-bad 0.7 it
 * wrote 82.3 W, 951 J, 11.6 s for 251.4 W, 18 819 J, 74.9 s: every loaded
 * second had four readings of GPU 0 at one time and was dropped. Now it is
 * refused naming the cause, whatever --max-bad allows; a 1 s log with
 * whole-second stamps is still read.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS 120

static int
count(double t, const double *w, int n_gpus, void *payload)
{
	(void)t;
	(void)w;
	(void)n_gpus;
	++*(int *)payload;
	return 0;
}

/* One GPU, `per_s` rows a second, stamped with whole seconds. */
static int
read_log(const char *dir, int per_s, double max_bad, int *n, wc_error *err)
{
	size_t cap = (size_t)SECONDS * per_s * 64 + 64, used = 0;
	char *s = malloc(cap), *p = path_join(dir, "power.csv");
	used += (size_t)snprintf(s, cap, "timestamp, index, uuid, power.draw [W]\n");
	for (int k = 0; k < SECONDS * per_s; k++)
		used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:%02d:%02d, 0, GPU-0000, %d.00 W\n",
		                         57 + k / per_s / 60, k / per_s % 60, 100 + k % 97);
	CHECK(write_text(p, s) == 0);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.max_bad_fraction = max_bad;
	*n = 0;
	memset(err, 0, sizeof *err);
	wc_nvsmi_info info;
	int rc = wc_nvsmi_read(p, &opt, count, n, &info, err);
	fprintf(stderr, "  %d rows/s, max bad %g: rc %d, %d samples: %s\n", per_s, max_bad, rc, *n, err->msg);
	free(s);
	free(p);
	return rc;
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_whole_seconds");
	wc_error err;
	int n;
	CHECK_INT(read_log(dir, 1, WC_TELEMETRY_MAX_BAD, &n, &err), WC_OK);
	CHECK_INT(n, SECONDS);
	CHECK_INT(read_log(dir, 4, WC_TELEMETRY_MAX_BAD, &n, &err), WC_EPARSE);
	CHECK(strstr(err.msg, "whole seconds") && strstr(err.msg, "milliseconds"));
	CHECK(strstr(err.msg, "allow more with") == NULL);
	CHECK(strlen(err.msg) <= 255);
	CHECK_INT(read_log(dir, 4, 0.9, &n, &err), WC_EPARSE);
	CHECK(strstr(err.msg, "whole seconds") != NULL);
	free(dir);
	return check_report("test_nvsmi_whole_seconds");
}
