/*
 * `fit intervals` takes its quantile from loaded runs only
 * (docs/intervals.md, "Where it applies"): an idle row (running 0) is
 * predicted as G x P0, its answer has no interval, and its residual of
 * about 0 is no miss of the law. Counted in, idle rows shrank the 95 %
 * quantile and counted toward the 19-residual floor: 14 loaded segments
 * of a real trace plus its 5 idle ones gave q 0.083, which covered 21 of
 * 48 loaded runs. Here: a simulated table (multiplicative noise 0.03 on
 * every run) with idle rows added, each at its run's own idle draw.
 */
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The line `row` (no quotes in a simulated table) made idle: running 0,
 * mean power tp x idle, its run_id suffixed -idle, appended to *buf. */
static void
idle_row(const char *row, int c_tp, int c_run, int c_mean, int c_idle, char **buf, size_t *len, size_t *cap)
{
	char fields[64][96];
	int n = 0;
	memset(fields, 0, sizeof fields);
	for (const char *p = row; n < 64;) { /* an empty last field too */
		size_t w = strcspn(p, ",\n");
		snprintf(fields[n++], sizeof fields[0], "%.*s", (int)(w < 95 ? w : 95), p);
		p += w;
		if (*p != ',')
			break;
		p++;
	}
	CHECK(c_tp < n && c_run < n && c_mean < n && c_idle < n);
	double tp = atof(fields[c_tp]), idle = atof(fields[c_idle]);
	size_t id = strlen(fields[0]); /* run_id, first: another run's */
	snprintf(fields[0] + id, sizeof fields[0] - id, "-idle");
	snprintf(fields[c_run], sizeof fields[c_run], "0");
	snprintf(fields[c_mean], sizeof fields[c_mean], "%.4f", tp * idle);
	for (int k = 0; k < n; k++)
		test_appendf(buf, len, cap, "%s%s", k ? "," : "", fields[k]);
	test_appendf(buf, len, cap, "\n");
}

/* A table of the header and the first `loaded` data rows of `sim`, then
 * the first `idle` of them made idle; written to `path`. */
static void
table(const char *sim, int loaded, int idle, const char *path)
{
	const char *header = sim;
	while (*header == '#')
		header = strchr(header, '\n') + 1;
	const char *rows = strchr(header, '\n') + 1;
	int c_tp = test_csv_column(header, "tp"), c_run = test_csv_column(header, "running"),
	    c_mean = test_csv_column(header, "mean_power_w"), c_idle = test_csv_column(header, "idle_power_w");
	CHECK(c_tp >= 0 && c_run >= 0 && c_mean >= 0 && c_idle >= 0);
	char *buf = NULL;
	size_t len = 0, cap = 0;
	test_appendf(&buf, &len, &cap, "%.*s", (int)(rows - header), header);
	const char *p = rows;
	for (int i = 0; i < loaded && *p; i++) {
		const char *end = strchr(p, '\n');
		test_appendf(&buf, &len, &cap, "%.*s\n", (int)(end - p), p);
		p = end + 1;
	}
	p = rows;
	for (int i = 0; i < idle && *p; i++) {
		idle_row(p, c_tp, c_run, c_mean, c_idle, &buf, &len, &cap);
		p = strchr(p, '\n') + 1;
	}
	CHECK(write_text(path, buf) == 0);
	free(buf);
}

/* The report's pooled line ("(pooled)  n  q  [lo, hi]"), copied. */
static void
pooled(const char *out, char *line, size_t cap)
{
	const char *at = out ? strstr(out, "(pooled)") : NULL;
	line[0] = '\0';
	if (at)
		snprintf(line, cap, "%.*s", (int)strcspn(at, "\n"), at);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_intervals_idle");
	char *sim = path_join(dir, "sim.csv"), *loaded = path_join(dir, "loaded.csv"), *mixed = path_join(dir, "mixed.csv"),
	     *few = path_join(dir, "few.csv"), *out = path_join(dir, "p.json");
	const char *make[] = { "wattcast", "simulate", "inference", "--seed", "5", "-o", sim, NULL };
	test_run_ok(make);
	char *text = test_slurp(sim);
	table(text, 100, 0, loaded);
	table(text, 100, 40, mixed);
	table(text, 14, 5, few);
	free(text);

	/* The loaded rows' quantile, with or without the idle rows beside them. */
	run_result r;
	char want[160], got[160];
	const char *fl[] = { "wattcast", "fit", "intervals", loaded, "--profile", "paper", "--folds", "frozen", "-o",
		             out, NULL };
	CHECK_INT(run_wattcast(fl, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	pooled(r.out, want, sizeof want);
	CHECK_CONTAINS(want, " 100 ");
	CHECK(r.out && !strstr(r.out, "idle row"));
	run_result_free(&r);

	const char *fm[] = { "wattcast", "fit", "intervals", mixed, "--profile", "paper", "--folds", "frozen", "-o",
		             out, NULL };
	CHECK_INT(run_wattcast(fm, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	pooled(r.out, got, sizeof got);
	CHECK(!strcmp(got, want)); /* n 100 and the same q: without the rule, n 140 and a narrower q */
	CHECK_CONTAINS(r.out, "  40 idle row(s) (running 0 throughout) left out of the quantiles: the held-out error "
	                      "is of loaded runs\n");
	CHECK(r.out && !strstr(r.out, "not predicted"));
	run_result_free(&r);
	/* the file's record of the residuals says it */
	char *written = test_slurp(out);
	CHECK_CONTAINS(written, "mixed.csv (sha256 ");
	CHECK_CONTAINS(written, "; 40 idle row(s) left out\"");
	free(written);

	/* Idle rows do not make up the 19 residuals a 95 % quantile needs. */
	const char *ff[] = { "wattcast", "fit", "intervals", few, "--profile", "paper", "--folds", "frozen", "-o",
		             out, NULL };
	CHECK_INT(run_wattcast(ff, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "runs: 14 held-out prediction(s) are too few for a 95 % quantile (at least 19); 5 idle "
	                      "(running 0) left out: the error is of loaded runs");
	CHECK(r.err && strlen(r.err) <= 255 + strlen("wattcast fit intervals: \n"));
	run_result_free(&r);

	free(sim);
	free(loaded);
	free(mixed);
	free(few);
	free(out);
	free(dir);
	return check_report("test_cli_intervals_idle");
}
