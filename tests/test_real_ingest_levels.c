/*
 * Rows follow the manifest's load levels, and idle power comes only from
 * where nothing runs (docs/formats/telemetry.md, "Load levels and idle
 * windows"). Built from a real run read in place (label realdata): the
 * H100 Poisson run of ../shared/data/real/powertrace-sim, given 30 s of
 * idle before and after its load and a wattcast-run.json that splits its
 * load into two levels and states the idle window. Each level's row must
 * equal an independent trapezoid over exactly its window (mean to 0.1 %,
 * energy = mean x duration), the idle tails must stay out of every row,
 * the idle window's mean must be the idle power, and an idle window that
 * overlaps load must be refused with the reason.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UTC_OFFSET_S (-25200.0)
#define PAD 120 /* samples of idle on each side: 30 s at 0.25 s */
#define MAXS 4096

static double t_ep[MAXS], p_w[MAXS];
static size_t n_s;

/* "2026/07/18 HH:MM:SS.mmm" for epoch t (local time, no midnight crossing). */
static void
local_stamp(double t, const char *date, char *out, size_t cap)
{
	double day = fmod(t + UTC_OFFSET_S, 86400.0);
	int ms = (int)lround(day * 1000.0);
	snprintf(out, cap, "%s %02d:%02d:%02d.%03d", date, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60,
	         ms % 1000);
}

/* The real power log with idle padding on both sides, written to `out`;
 * the samples (epoch, W) are kept in t_ep/p_w for the independent sums. */
static int
write_padded_power(const char *src, const char *out)
{
	char *text = NULL, line[512], rest[256] = "", date[16] = "";
	size_t len;
	if (wc_read_file(src, 1u << 22, &text, &len, NULL) != WC_OK)
		return -1;
	FILE *f = fopen(out, "w");
	char *save = NULL, *l = strtok_r(text, "\n", &save);
	fprintf(f, "%s\n", l); /* header */
	double real_t[MAXS], real_p[MAXS];
	size_t n_real = 0;
	while ((l = strtok_r(NULL, "\n", &save)) && n_real < MAXS - 2 * PAD) {
		char ts[32];
		double w, t;
		if (sscanf(l, "%31[^,],%*d,%*[^,],%lf,%255[^\n]", ts, &w, rest) != 3 ||
		    wc_nvsmi_parse_time(ts, strlen(ts), &t) != WC_OK)
			continue;
		snprintf(date, sizeof date, "%.10s", ts);
		real_t[n_real] = t - UTC_OFFSET_S;
		real_p[n_real++] = w;
	}
	n_s = 0;
	for (int k = PAD; k >= 1; k--) { /* idle before */
		t_ep[n_s] = real_t[0] - 0.25 * k;
		p_w[n_s++] = 121.0 + 0.5 * sin(k);
	}
	for (size_t i = 0; i < n_real; i++) {
		t_ep[n_s] = real_t[i];
		p_w[n_s++] = real_p[i];
	}
	for (int k = 1; k <= PAD; k++) { /* idle after */
		t_ep[n_s] = real_t[n_real - 1] + 0.25 * k;
		p_w[n_s++] = 121.0 + 0.5 * cos(k);
	}
	for (size_t i = 0; i < n_s; i++) {
		local_stamp(t_ep[i], date, line, sizeof line);
		fprintf(f, "%s,0,GPU-171e341c-4c74-fca8-094f-1cbff4dbdd21,%.2f,1830,2619,0,0,74153,48\n", line,
		        p_w[i]);
		p_w[i] = round(p_w[i] * 100.0) / 100.0; /* what the file holds */
	}
	fclose(f);
	free(text);
	return 0;
}

/* The real engine log with quiet rows (nothing running or waiting, the
 * counters held) over the padding. */
static int
write_padded_engine(const char *src, const char *out)
{
	char *text = NULL, first[4096] = "", last[4096] = "";
	size_t len;
	if (wc_read_file(src, 1u << 22, &text, &len, NULL) != WC_OK)
		return -1;
	FILE *f = fopen(out, "w");
	char *save = NULL, *l = strtok_r(text, "\r\n", &save);
	fprintf(f, "%s\n", l);
	char **rows = calloc(MAXS, sizeof *rows);
	size_t n = 0;
	while ((l = strtok_r(NULL, "\r\n", &save)) && n < MAXS)
		rows[n++] = l;
	/* counters after the 4th column: copied from the first / last row */
	snprintf(first, sizeof first, "%s", strchr(strchr(strchr(strchr(rows[0], ',') + 1, ',') + 1, ',') + 1, ',') + 1);
	snprintf(last, sizeof last, "%s", strchr(strchr(strchr(strchr(rows[n - 1], ',') + 1, ',') + 1, ',') + 1, ',') + 1);
	for (int k = PAD; k >= 1; k--)
		fprintf(f, "%.4f,0.0,0.0,0.0,%s\n", t_ep[0] + 0.25 * (PAD - k), first);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n", rows[i]);
	for (int k = 1; k <= PAD; k++)
		fprintf(f, "%.4f,0.0,0.0,0.0,%s\n", t_ep[n_s - 1] - 0.25 * (PAD - k), last);
	fclose(f);
	free(rows);
	free(text);
	return 0;
}

/* Trapezoid of the padded trace over [a, b], interpolated at the ends. */
static double
energy_over(double a, double b)
{
	double e = 0;
	for (size_t i = 1; i < n_s; i++) {
		double lo = fmax(t_ep[i - 1], a), hi = fmin(t_ep[i], b);
		if (!(hi > lo))
			continue;
		double s = (p_w[i] - p_w[i - 1]) / (t_ep[i] - t_ep[i - 1]);
		e += 0.5 * (p_w[i - 1] + s * (lo - t_ep[i - 1]) + p_w[i - 1] + s * (hi - t_ep[i - 1])) * (hi - lo);
	}
	return e;
}

static void
write_manifest(const char *path, double idle_a, double idle_b, const double *cut, int n_levels)
{
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"schema\": \"wattcast.run/2\", \"run_id\": \"synthetic-levels\", \"platform\": \"H100\",\n"
	           " \"tp\": 1, \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": -25200,\n"
	           " \"idle_window\": {\"start_epoch\": %.6f, \"end_epoch\": %.6f}", idle_a, idle_b);
	static const char *const labels[] = { "first", "second half" };
	for (int i = 0; i < n_levels; i++)
		fprintf(f, "%s{\"label\": \"%s\", \"start_epoch\": %.6f, \"end_epoch\": %.6f, \"request_rate\": 4}",
		        i ? ", " : ",\n \"levels\": [", labels[i], cut[i], cut[i + 1]);
	fprintf(f, "%s}\n", n_levels ? "]" : "");
	fclose(f);
}

static void
warn_to(const char *msg, void *payload)
{
	snprintf(payload, 512, "%s", msg);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b/"
	                              "h100_validate_tp1_r4p0_b1p0_s20260712_1784422665");
	char *dir = test_tmpdir("real_ingest_levels");
	char *sp = path_join(src, "power.csv"), *se = path_join(src, "engine.csv");
	char *dp = path_join(dir, "power.csv"), *de = path_join(dir, "engine.csv");
	char *dm = path_join(dir, "wattcast-run.json");
	CHECK_INT(write_padded_power(sp, dp), 0);
	CHECK_INT(write_padded_engine(se, de), 0);
	/* the real load as two levels; idle window inside the front padding */
	const double load_a = 1784422669.2686105, load_b = 1784422735.6082947;
	const double cut[3] = { load_a, 0.5 * (load_a + load_b), load_b };
	const double idle_a = t_ep[0] + 1.0, idle_b = t_ep[PAD - 1] - 1.0;
	write_manifest(dm, idle_a, idle_b, cut, 2);

	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	wc_ingest_options_init(&o);
	CHECK_INT(wc_ingest_run(dir, &o, &res, &err), WC_OK);
	CHECK_INT(res.n_rows, 2);
	for (size_t i = 0; i < res.n_rows && i < 2; i++) {
		const wc_ingest_row *r = &res.rows[i];
		double a = fmax(cut[i], t_ep[0]), b = fmin(cut[i + 1], t_ep[n_s - 1]);
		double mean = energy_over(a, b) / (b - a);
		CHECK(strcmp(r->window, "level") == 0);
		CHECK_NEAR(r->run.mean_power_w, mean, 1e-3 * mean);
		CHECK_NEAR(r->metrics.duration_s, b - a, 1e-6);
		CHECK_NEAR(r->metrics.energy_j, r->run.mean_power_w * r->metrics.duration_s, 1e-9 * r->metrics.energy_j);
		CHECK(r->run.mean_power_w > 200); /* no idle minute diluting it */
		CHECK(r->run.workload == WC_WORKLOAD_POISSON && r->request_rate == 4);
		printf("  %s: %.3f-%.3f mean %.2f W (independent %.2f W)\n", r->run.run_id, a, b,
		       r->run.mean_power_w, mean);
	}
	CHECK(strcmp(res.rows[0].run.run_id, "synthetic-levels#first") == 0);
	CHECK(strcmp(res.rows[1].run.run_id, "synthetic-levels#second_half") == 0);
	/* The idle window's samples give the idle power. */
	double sum = 0;
	int cnt = 0;
	for (size_t i = 0; i < n_s; i++)
		if (t_ep[i] >= idle_a && t_ep[i] <= idle_b) {
			sum += p_w[i];
			cnt++;
		}
	CHECK(strcmp(res.rows[0].idle_source, "window") == 0);
	CHECK_NEAR(res.rows[0].run.idle_power_w, sum / cnt, 1e-9);
	wc_ingest_result_clear(&res);

	/* Without levels the log is one row, less the stated idle window,
	 * cut off the end it lies nearer to (docs/formats/telemetry.md); it
	 * used to be included, which read the load's mean far lower. */
	write_manifest(dm, idle_a, idle_b, cut, 0);
	CHECK_INT(wc_ingest_run(dir, &o, &res, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		double a = t_ep[0], b = t_ep[n_s - 1];
		if (idle_a - a <= b - idle_b)
			a = idle_b;
		else
			b = idle_a;
		double whole = energy_over(a, b) / (b - a);
		CHECK(strcmp(res.rows[0].window, "log") == 0);
		CHECK_NEAR(res.rows[0].run.mean_power_w, whole, 1e-3 * whole);
		CHECK_NEAR(res.rows[0].start_epoch, a, 1e-6);
	}
	wc_ingest_result_clear(&res);

	/* An idle window inside the load is refused with the reason: by the
	 * manifest when it overlaps a level, by the engine log otherwise. */
	write_manifest(dm, cut[1] - 5, cut[1] + 5, cut, 2);
	CHECK(wc_ingest_run(dir, &o, &res, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "overlaps");
	write_manifest(dm, cut[1] - 5, cut[1] + 5, cut, 0);
	CHECK(wc_ingest_run(dir, &o, &res, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "idle_window");
	CHECK_CONTAINS(err.msg, "overlaps load");
	CHECK_INT(res.n_rows, 0);

	/* The CLI writes one row per level with the window columns. */
	char warned[512] = "";
	o.warn = warn_to;
	o.warn_payload = warned;
	write_manifest(dm, idle_a, idle_b, cut, 2);
	char *out = path_join(dir, "rows.csv");
	const char *argv[] = { "wattcast", "ingest", dir, "-o", out, "--quiet", NULL };
	run_result rr;
	CHECK(run_wattcast(argv, NULL, &rr) == 0);
	CHECK_INT(rr.status, 0);
	run_result_free(&rr);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (t) {
		CHECK_INT(t->n_runs, 2);
		CHECK(strcmp(wc_runs_get_extra(t, 1, "window"), "level") == 0);
		CHECK(strcmp(wc_runs_get_extra(t, 1, "level"), "second half") == 0);
		wc_runs_free(t);
	}
	free(out);
	free(src);
	free(sp);
	free(se);
	free(dp);
	free(de);
	free(dm);
	free(dir);
	return check_report("test_real_ingest_levels");
}
