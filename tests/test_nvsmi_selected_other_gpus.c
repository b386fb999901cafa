/*
 * A node-wide log read with gpu_uuids (docs/formats/telemetry.md,
 * "GPUs"): rows of a GPU the run does not use count for nothing.
 * A real A100 run's log with a second GPU added was read right when that
 * GPU read 60 W, but refused when its cells were [N/A] on 5 % of its rows
 * ("15 of 596 data lines are malformed", --max-bad suggested), on all of
 * them ("GPU index 1 never reports power") or read 900 W ("the platform is
 * likely wrong" for a right platform). Now each reads as the log without
 * that GPU, its bad cells said in one warning; and the bad-line share is
 * of the run's GPUs' lines, not diluted by the others'.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPS 400

typedef struct {
	int n;
	double sum;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	s->sum += w[0];
	s->n += n_gpus == 1;
	return 0;
}

/* GPU 0 (the run's) reads 200 + k % 50 W in sweep k, [N/A] every
 * `own_na`-th sweep (0: never); GPU 1 (another) reads `other`, or [N/A]
 * every `other_na`-th sweep (1: always); with GPU 1's rows when `other`. */
static char *
log_text(int own_na, const char *other, int other_na)
{
	size_t cap = 2 * SWEEPS * 96 + 128, used = 0;
	char *s = malloc(cap);
	used += (size_t)snprintf(s, cap, "timestamp, index, uuid, power.draw [W]\n");
	for (int k = 0; k < SWEEPS; k++) {
		long ms = 250L * k;
		char w[32];
		snprintf(w, sizeof w, "%d.00", 200 + k % 50);
		used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:%02ld:%02ld.%03ld, 0, GPU-0000, %s W\n",
		                         57 + ms / 60000, ms / 1000 % 60, ms % 1000,
		                         own_na && k % own_na == 0 ? "[N/A]" : w);
		if (other)
			used += (size_t)snprintf(s + used, cap - used, "2026/07/18 15:%02ld:%02ld.%03ld, 1, GPU-ffff, %s W\n",
			                         57 + ms / 60000, ms / 1000 % 60, ms % 1000,
			                         other_na && k % other_na == 0 ? "[N/A]" : other);
	}
	return s;
}

static int
read_log(const char *dir, const char *text, seen *s, wc_nvsmi_info *info, test_warnings *w, wc_error *err)
{
	static const char *const sel[] = { "GPU-0000" };
	char *p = path_join(dir, "power.csv");
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	opt.gpu_uuids = sel;
	opt.n_gpu_uuids = 1;
	opt.max_power_w = 800.0; /* A100's 400 W board limit, twice */
	opt.platform_origin = "manifest.json";
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	memset(err, 0, sizeof *err);
	CHECK(write_text(p, text) == 0);
	int rc = wc_nvsmi_read(p, &opt, keep, s, info, err);
	if (rc != WC_OK)
		fprintf(stderr, "  refused: %s\n", err->msg);
	free(p);
	return rc;
}

/* GPU 1 as given: read as the log without it. */
static void
same_as_alone(const char *dir, const seen *alone, const char *other, int other_na, const char *what)
{
	char *text = log_text(0, other, other_na);
	seen s;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	fprintf(stderr, "%s\n", what);
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_OK);
	CHECK_INT(s.n, alone->n);
	CHECK(fabs(s.sum - alone->sum) < 1e-9);
	CHECK_INT(info.bad_lines, 0);
	CHECK_INT(info.implausible_lines, 0);
	CHECK(strstr(w.text, "platform") == NULL);
	if (other_na || strcmp(other, "900.00") == 0)
		CHECK(strstr(w.text, "outside gpu_uuids") != NULL);
	free(text);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_selected_other_gpus");
	seen alone;
	wc_nvsmi_info info;
	test_warnings w;
	wc_error err;
	char *text = log_text(0, NULL, 0);
	CHECK_INT(read_log(dir, text, &alone, &info, &w, &err), WC_OK);
	CHECK_INT(alone.n, SWEEPS);
	free(text);
	same_as_alone(dir, &alone, "60.00", 0, "GPU 1 at 60 W");
	same_as_alone(dir, &alone, "60.00", 20, "GPU 1 [N/A] on 5 % of its rows");
	same_as_alone(dir, &alone, "60.00", 1, "GPU 1 [N/A] on every row (no sensor)");
	same_as_alone(dir, &alone, "900.00", 0, "GPU 1 at 900 W, beyond the A100's plausible 800 W");

	/* The run's GPU [N/A] on 2 % of its rows, over the 1 % allowed: a
	 * share of the run's lines, not 1 % of a log twice as long. */
	fprintf(stderr, "GPU 0 [N/A] on 2 %% of its rows, GPU 1 clean\n");
	seen s;
	text = log_text(50, "60.00", 0);
	CHECK_INT(read_log(dir, text, &s, &info, &w, &err), WC_EPARSE);
	CHECK(strstr(err.msg, "8 of 400") != NULL);
	free(text);
	free(dir);
	return check_report("test_nvsmi_selected_other_gpus");
}
