/*
 * The last line of an nvidia-smi logger killed while writing it, in units
 * mode (`--format=csv`): `..., 488.79 W` cut to `..., 4` still parses, and
 * was read as a 4 W sample (a real-format 50 s A100 log: 12 521.5 J where
 * the whole log has 12 582.0 J). Every other line's reading carries the
 * unit word, so one without it is cut: it is dropped with the warning of
 * an unparseable cut line (docs/formats/telemetry.md, "A log still being
 * written"). Also a number cut at its point (`488.`). A whole last reading
 * without a newline is still read, and in nounits mode (no line has the
 * word) a cut reading cannot be told from a whole one: read.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int n;
	double last_w, sum_w;
} seen;

static int
keep(double t, const double *w, int n_gpus, void *payload)
{
	seen *s = payload;
	(void)t;
	s->n++;
	s->last_w = 0.0;
	for (int g = 0; g < n_gpus; g++)
		s->last_w += w[g];
	s->sum_w += s->last_w;
	return 0;
}

/* 40 sweeps of `gpus` GPUs every 250 ms, GPU g reading 100 (g + 1) + k
 * W in sweep k, with " W" after each reading when `units`; then `last`
 * (no newline). */
static char *
write_log(const char *dir, const char *name, int gpus, int units, const char *last)
{
	char body[16384];
	size_t len = (size_t)snprintf(body, sizeof body, "timestamp, index, uuid, power.draw [W]\n");
	for (int k = 0; k < 40; k++)
		for (int g = 0; g < gpus; g++)
			len += (size_t)snprintf(body + len, sizeof body - len,
			                        "2026/07/18 16:01:%02d.%03d, %d, GPU-%04d, %d.50%s\n", 4 + k / 4, 250 * (k % 4),
			                        g, g, 100 * (g + 1) + k, units ? " W" : "");
	snprintf(body + len, sizeof body - len, "%s", last);
	return test_fixture(dir, name, body);
}

static int
read_log(const char *path, seen *s, test_warnings *w, wc_error *err)
{
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_nvsmi_info info;
	memset(s, 0, sizeof *s);
	memset(w, 0, sizeof *w);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	int rc = wc_nvsmi_read(path, &opt, keep, s, &info, err);
	CHECK_INT((int)info.bad_lines, 0);
	return rc;
}

/* `last` after a units-mode log of `gpus` GPUs is dropped: the 40 whole
 * sweeps and the warning naming its line, `line`; `warnings` in all. */
static void
dropped(const char *dir, const char *name, int gpus, const char *last, int line, int warnings)
{
	seen s;
	test_warnings w;
	wc_error err;
	char *p = write_log(dir, name, gpus, 1, last), want[600];
	fprintf(stderr, "%s: '%s'\n", name, last);
	CHECK_INT(read_log(p, &s, &w, &err), WC_OK);
	CHECK_INT(s.n, 40);
	CHECK_NEAR(s.last_w, gpus == 1 ? 139.5 : 139.5 + 239.5, 1e-9);
	snprintf(want, sizeof want, "%s:%d: unfinished last line (no newline: the log was still being written); dropped",
	         p, line);
	CHECK_CONTAINS(w.text, want);
	CHECK_CONTAINS(w.text, "lacks the unit");
	CHECK_INT(w.count, warnings);
	free(p);
}

/* `last` is read as a sample of `watts` (group), without a warning. */
static void
read_as(const char *dir, const char *name, int units, const char *last, double watts)
{
	seen s;
	test_warnings w;
	wc_error err;
	char *p = write_log(dir, name, 1, units, last);
	fprintf(stderr, "%s: '%s'\n", name, last);
	CHECK_INT(read_log(p, &s, &w, &err), WC_OK);
	CHECK_INT(s.n, 41);
	CHECK_NEAR(s.last_w, watts, 1e-9);
	CHECK_INT(w.count, 0);
	free(p);
}

int
main(void)
{
	char *dir = test_tmpdir("nvsmi_cut_unit");
	const char *cut = "2026/07/18 16:01:14.000, 0, GPU-0000, 4";

	/* the tester's line: 488.79 W cut to 4, and to 488. */
	dropped(dir, "cut_units.csv", 1, cut, 42, 1);
	dropped(dir, "cut_point.csv", 1, "2026/07/18 16:01:14.000, 0, GPU-0000, 488.", 42, 1);
	/* cut before the unit's word, after its blank */
	dropped(dir, "cut_blank.csv", 1, "2026/07/18 16:01:14.000, 0, GPU-0000, 488.79 ", 42, 1);
	/* the second GPU's row of a sweep: the sweep is incomplete, said too */
	dropped(dir, "cut_two.csv", 2,
	        "2026/07/18 16:01:14.000, 0, GPU-0000, 140.50 W\n2026/07/18 16:01:14.000, 1, GPU-0001, 24", 83, 2);

	/* whole: read */
	read_as(dir, "whole_units.csv", 1, "2026/07/18 16:01:14.000, 0, GPU-0000, 488.79 W", 488.79);
	/* nounits: a cut reading cannot be told from a whole one */
	read_as(dir, "cut_nounits.csv", 0, cut, 4.0);

	/* The command reads it as the library does: the energy of the log
	 * without the cut line. */
	char *p = write_log(dir, "cli_cut.csv", 1, 1, cut), *q = write_log(dir, "cli_whole.csv", 1, 1, "");
	const char *argv_cut[] = { "wattcast", "metrics", p, "--json", NULL };
	const char *argv_whole[] = { "wattcast", "metrics", q, "--json", NULL };
	run_result a, b;
	CHECK_INT(run_wattcast(argv_cut, NULL, &a), 0);
	CHECK_INT(run_wattcast(argv_whole, NULL, &b), 0);
	CHECK_INT(a.status, 0);
	CHECK_INT(b.status, 0);
	CHECK_CONTAINS(a.err, "unfinished last line");
	json_t *ja = json_loads(a.out, 0, NULL), *jb = json_loads(b.out, 0, NULL);
	CHECK(ja && jb);
	if (ja && jb) {
		double ea = json_real_value(json_object_get(json_object_get(ja, "group"), "energy_j"));
		double eb = json_real_value(json_object_get(json_object_get(jb, "group"), "energy_j"));
		CHECK(eb > 0);
		CHECK_NEAR(ea, eb, 1e-9);
		CHECK_INT((int)json_integer_value(json_object_get(json_object_get(ja, "group"), "samples")), 40);
	}
	json_decref(ja);
	json_decref(jb);
	run_result_free(&a);
	run_result_free(&b);
	free(p);
	free(q);
	free(dir);
	return check_report("test_nvsmi_cut_unit");
}
