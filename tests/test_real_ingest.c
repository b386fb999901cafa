/*
 * Every measured run of ../shared/data/real/powertrace-sim ingests, read
 * in place: energy equals mean power x duration to 0.1 % and matches a
 * trapezoid recomputed here from the raw power.csv over the row's window
 * (the manifest's load level when it states one),
 * p5 <= p50 <= p95 <= max, idle power per GPU is plausible for the
 * platform (A100 40-120 W, H100 60-160 W) or unknown, segments add up to
 * the row (energy, and phase energies where they are known), and
 * the CLI writes all runs into one table that the runs-table reader loads
 * back. Skipped (77) when ../shared is absent.
 */
#include "data/data.h"
#include "trace/trace.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The runs were logged at UTC-7 (their manifests say so; the flags say
 * it for the one without a manifest). */
#define UTC_OFFSET_S (-25200.0)

/* Trapezoid of the piecewise-linear trace (t, p) over [a, b] only. */
static double
clipped(double t0, double p0, double t1, double p1, double a, double b)
{
	double lo = fmax(t0, a), hi = fmin(t1, b);
	if (!(hi > lo) || !(t1 > t0))
		return 0.0;
	double pl = p0 + (p1 - p0) * (lo - t0) / (t1 - t0), ph = p0 + (p1 - p0) * (hi - t0) / (t1 - t0);
	return 0.5 * (pl + ph) * (hi - lo);
}

/* A second, deliberately naive reading of power.csv: sum the power.draw
 * column (4th) of rows sharing a timestamp, trapezoid over the sums cut to
 * the row's window [a, b] (epoch seconds, read back as local seconds of
 * the day). */
static double
naive_energy(const char *run_dir, double a_epoch, double b_epoch, double *duration)
{
	char path[1024], line[1024], prev_ts[64] = "";
	double e = 0, t_prev = NAN, p_prev = NAN, t = NAN, p = 0, t_first = NAN;
	const double a = fmod(a_epoch + UTC_OFFSET_S, 86400.0), b = a + (b_epoch - a_epoch);
	snprintf(path, sizeof path, "%s/power.csv", run_dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	if (!fgets(line, sizeof line, f)) {
		fclose(f);
		return NAN;
	}
	while (fgets(line, sizeof line, f)) {
		char ts[64];
		int idx, hh, mm;
		double ss, w;
		if (sscanf(line, "%63[^,],%d,%*[^,],%lf", ts, &idx, &w) != 3 ||
		    sscanf(ts, "%*d/%*d/%*d %d:%d:%lf", &hh, &mm, &ss) != 3)
			continue;
		if (strcmp(ts, prev_ts) != 0) {
			if (!isnan(t)) {
				if (!isnan(t_prev))
					e += clipped(t_prev, p_prev, t, p, a, b);
				t_prev = t;
				p_prev = p;
			}
			snprintf(prev_ts, sizeof prev_ts, "%s", ts);
			t = hh * 3600.0 + mm * 60.0 + ss; /* runs do not cross midnight */
			if (isnan(t_first))
				t_first = t;
			p = 0;
		}
		p += w;
	}
	fclose(f);
	e += clipped(t_prev, p_prev, t, p, a, b);
	*duration = fmin(t, b) - fmax(t_first, a);
	return e;
}

static int
has_manifest(const char *run_dir)
{
	char path[1024];
	struct stat st;
	snprintf(path, sizeof path, "%s/manifest.json", run_dir);
	return stat(path, &st) == 0;
}

/* The facts a user without a manifest gives on the command line (the
 * burstgpt run: A100, TP 1, Qwen3-8B, logged at UTC-7). */
static void
user_flags(wc_ingest_options *o)
{
	snprintf(o->defaults.platform, sizeof o->defaults.platform, "A100");
	o->defaults.tp = 1;
	snprintf(o->defaults.model, sizeof o->defaults.model, "Qwen/Qwen3-8B");
	o->defaults.utc_offset_s = -25200;
	o->defaults.workload = WC_WORKLOAD_REPLAY;
}

static void
check_row(const char *run_dir, const wc_ingest_row *r)
{
	const wc_trace_metrics *m = &r->metrics;
	double lo = strcmp(r->run.platform, "H100") == 0 ? 60 : 40;
	double hi = strcmp(r->run.platform, "H100") == 0 ? 160 : 120;
	CHECK(strcmp(r->run.platform, "A100") == 0 || strcmp(r->run.platform, "H100") == 0);
	CHECK(r->run.tp >= 1 && r->run.tp == r->n_gpus);
	CHECK(r->run.active_params_b > 0);
	CHECK(m->duration_s > 5 && m->samples > 20);
	/* Energy and mean power agree to 0.1 %. */
	CHECK(fabs(m->energy_j - r->run.mean_power_w * m->duration_s) <= 1e-3 * m->energy_j);
	CHECK(m->p5_w <= m->p50_w && m->p50_w <= m->p95_w && m->p95_w <= m->max_w);
	CHECK(r->run.mean_power_w <= m->max_w && r->run.mean_power_w > 0);
	/* Idle power is plausible for the platform, or honestly unknown: the
	 * short agentic replays have no moment without a request running or
	 * waiting, and must not pass busy power off as idle. */
	for (int g = 0; g < r->n_gpus; g++) {
		int none = strcmp(r->idle_source, "none") == 0;
		CHECK(none ? isnan(r->idle_gpu_w[g]) : r->idle_gpu_w[g] >= lo && r->idle_gpu_w[g] <= hi);
		if (!none && !(r->idle_gpu_w[g] >= lo && r->idle_gpu_w[g] <= hi))
			fprintf(stderr, "  %s GPU %d idle %.1f W outside %g-%g\n", r->run.run_id, g,
			        r->idle_gpu_w[g], lo, hi);
	}
	CHECK(isnan(r->run.idle_power_w) || r->run.mean_power_w > r->run.tp * r->run.idle_power_w);
	CHECK(r->run.running > 0 && r->series_len > 10);
	CHECK(isnan(m->spectral_entropy) || (m->spectral_entropy >= 0 && m->spectral_entropy <= 1));
	CHECK(m->ramp_w_per_s >= 0 && m->ramp_p95_w_per_s >= m->ramp_w_per_s * 0.5);
	CHECK(isnan(r->run.energy_per_token_j) || r->run.energy_per_token_j > 0);
	CHECK(r->run.throughput_tok_s > 0);
	/* Phases, where attributed, add up to the energy. */
	if (!isnan(r->prefill_energy_j))
		CHECK(fabs(r->prefill_energy_j + r->decode_energy_j + r->idle_energy_j - m->energy_j) <=
		      1e-6 * m->energy_j);
	/* Independent recomputation from the raw file. */
	double dur = NAN, e = naive_energy(run_dir, r->start_epoch, r->end_epoch, &dur);
	CHECK(fabs(e - m->energy_j) <= 1e-6 * m->energy_j);
	CHECK(fabs(dur - m->duration_s) <= 1e-6);
	printf("%-50.50s %s tp%d idle %6.1f W (%-13s) P %6.1f W n %5.2f dur %6.1f s E %8.0f J "
	       "p5/50/95/max %5.1f/%5.1f/%5.1f/%5.1f ramp %5.1f/%5.1f H %.3f T %5.2f\n",
	       r->run.run_id, r->run.platform, r->run.tp, r->run.idle_power_w, r->idle_source,
	       r->run.mean_power_w, r->run.running, m->duration_s, m->energy_j, m->p5_w, m->p50_w,
	       m->p95_w, m->max_w, m->ramp_w_per_s, m->ramp_p95_w_per_s, m->spectral_entropy,
	       m->period_s);
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *root = path_join(shared, "data/real/powertrace-sim");
	char **runs = NULL;
	size_t n = 0;
	wc_error err;
	CHECK_INT(wc_ingest_find_runs(root, &runs, &n, &err), WC_OK);
	CHECK(n >= 8);
	int h100 = 0, tp2 = 0, replay_without_manifest = 0, with_idle = 0, levels = 0, phases_add_up = 0;
	for (size_t i = 0; i < n; i++) {
		wc_ingest_options o;
		wc_ingest_result res = { NULL, 0, 0 };
		wc_ingest_options_init(&o);
		if (!has_manifest(runs[i])) {
			/* Without flags the run cannot be placed ... */
			CHECK_INT(wc_ingest_run(runs[i], &o, &res, &err), WC_EINVAL);
			CHECK_CONTAINS(err.msg, "platform, model and UTC offset unknown (no manifest states them); give "
			                        "--platform, --model and --utc-offset");
			CHECK_INT(res.n_rows, 0);
			/* ... and a catalog model given, only the platform and the
			 * offset are missing: its active parameters are known */
			snprintf(o.defaults.model, sizeof o.defaults.model, "Qwen3-8B");
			CHECK_INT(wc_ingest_run(runs[i], &o, &res, &err), WC_EINVAL);
			CHECK_CONTAINS(err.msg, "platform and UTC offset unknown (no manifest states them); give "
			                        "--platform and --utc-offset");
			CHECK(!strstr(err.msg, "active"));
			user_flags(&o);
			replay_without_manifest++;
		}
		int rc = wc_ingest_run(runs[i], &o, &res, &err);
		CHECK_INT(rc, WC_OK);
		if (rc != WC_OK) {
			fprintf(stderr, "  %s: %s\n", runs[i], err.msg);
			continue;
		}
		CHECK_INT(res.n_rows, 1);
		check_row(runs[i], &res.rows[0]);
		h100 += strcmp(res.rows[0].run.platform, "H100") == 0;
		with_idle += strcmp(res.rows[0].idle_source, "none") != 0;
		levels += strcmp(res.rows[0].window, "level") == 0;
		tp2 += res.rows[0].run.tp == 2;
		double whole = res.rows[0].metrics.energy_j, whole_idle = res.rows[0].idle_energy_j;
		double whole_busy = res.rows[0].prefill_energy_j + res.rows[0].decode_energy_j;
		wc_ingest_result_clear(&res);

		/* Segments of 10 s: where the run's phases are known, so are the
		 * segments' (one that ran nothing is all idle), and the idle
		 * energies add up, as do prefill + decode (docs/trace-metrics.md,
		 * "Phases"). The validate A100 run's idle first segment was blank
		 * and its segments' idle energy 834.8 J of 1657.4 J. */
		o.segment_s = 10;
		CHECK_INT(wc_ingest_run(runs[i], &o, &res, &err), WC_OK);
		double idle = 0, busy = 0;
		size_t known = 0;
		for (size_t k = 0; k < res.n_rows; k++) {
			known += isfinite(res.rows[k].idle_energy_j);
			idle += res.rows[k].idle_energy_j;
			busy += res.rows[k].prefill_energy_j + res.rows[k].decode_energy_j;
		}
		if (strstr(runs[i], "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439"))
			CHECK_INT(known, res.n_rows);
		if (known == res.n_rows && isfinite(whole_idle)) {
			phases_add_up++;
			CHECK_NEAR(idle, whole_idle, 1e-9 * whole);
			CHECK_NEAR(busy, whole_busy, 1e-9 * whole);
		}
		wc_ingest_result_clear(&res);

		/* Segments of 30 s cut the same trace: energies add up. */
		o.segment_s = 30;
		CHECK_INT(wc_ingest_run(runs[i], &o, &res, &err), WC_OK);
		double sum = 0;
		for (size_t k = 0; k < res.n_rows; k++) {
			sum += res.rows[k].metrics.energy_j;
			CHECK(strstr(res.rows[k].run.run_id, "#seg") != NULL);
			CHECK(res.rows[k].metrics.p5_w <= res.rows[k].metrics.max_w);
		}
		CHECK(fabs(sum - whole) <= 1e-9 * whole);
		wc_ingest_result_clear(&res);
	}
	CHECK_INT(h100, 1);
	CHECK_INT(tp2, 1);
	CHECK_INT(replay_without_manifest, 1);
	CHECK(with_idle >= 6);  /* every run with quiet stretches */
	CHECK_INT(levels, 5);   /* the validate runs' manifests state their level */
	fprintf(stderr, "%d runs: 10-s segments' phase energies add up to the run's\n", phases_add_up);
	CHECK(phases_add_up >= 1);

	/* All of them through the CLI into one table, read back. */
	char *tmp = test_tmpdir("real_ingest"), *out = path_join(tmp, "runs.csv");
	const char *argv[] = { "wattcast", "ingest", root, "-o", out, "--platform", "A100", "--tp", "1",
		               "--model", "Qwen/Qwen3-8B", "--utc-offset", "-25200", "--workload", "replay",
		               "--segment", "120", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status)
		fprintf(stderr, "%s", r.err);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	CHECK_INT(wc_runs_read(out, &t, &err), WC_OK);
	if (t) {
		CHECK_INT(t->n_runs, n);
		for (size_t i = 0; i < t->n_runs; i++) {
			CHECK(t->runs[i].series.len >= 1);
			CHECK(wc_runs_get_extra(t, i, "spectral_entropy") != NULL);
		}
		wc_runs_free(t);
	}
	for (size_t i = 0; i < n; i++)
		free(runs[i]);
	free(runs);
	free(root);
	free(tmp);
	free(out);
	return check_report("test_real_ingest");
}
