/*
 * A perf_counter request log placed by requests in flight
 * (docs/formats/telemetry.md, "Request logs", Start times without an
 * epoch), against a gauge made as vLLM makes it: an engine that steps
 * (a 0.30 s prefill, 15 ms decode steps), takes a request in at the start
 * of its next step and sets running + waiting at each step's end, and
 * takes no step while idle; sampled every 0.26 s. Counted from their
 * arrivals, the requests placed 0.3-0.5 s late (their prefills) and ingest
 * said nothing; counted from the engine's first step at or after their
 * arrival, the offset comes back within 20 ms and the row equals the epoch
 * log's. A log holding half the requests fits the gauge nowhere: warned
 * with the rms in seconds and what it moves.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1784415000.0
#define PERF0 15000.0 /* the perf_counter reading at T0: the offset is T0 - PERF0 */
#define MAX_REQ 40
#define PREFILL 0.30
#define STEP 0.015
#define SAMPLE 0.26
#define SPAN 64.0

static double arrival[MAX_REQ], first_tok[MAX_REQ], done[MAX_REQ];
static int out_len[MAX_REQ], nreq;
static double eng_from, eng_to; /* the engine log's span (s from T0) */

/* Gauge values at step ends: steps[k] ends at step_t[k], the gauge then. */
static double step_t[20000], step_v[20000];
static size_t n_steps;

/* Arrivals (s from T0) of a load: gaps of 0.4-2.2 s, some while another
 * decodes, some into an idle engine, a few within a prefill. */
static void
mixed_load(void)
{
	double a = 1.0;
	nreq = MAX_REQ;
	eng_from = 0.05;
	eng_to = SPAN;
	for (int i = 0; i < nreq; i++) {
		arrival[i] = a + 0.0123 * ((i * 5) % 7);
		out_len[i] = 20 + (i * 37) % 90;
		a += 0.4 + 0.15 * ((i * 11) % 13);
	}
}

/* A replay as the real A100 smoke runs: one conversation, each turn sent
 * 0-0.12 s after the last one's answer, into an idle engine, the engine
 * logged from the first request's arrival to just before the last one's
 * end (nothing outside the requests pins the log). */
static void
turns(void)
{
	static const int len[6] = { 31, 44, 281, 41, 120, 35 };
	static const double gap[6] = { 0.122, 0.075, 0.0, 0.021, 0.05, 0.0 };
	double a = 1.3;
	nreq = 6;
	for (int i = 0; i < nreq; i++) {
		arrival[i] = a;
		out_len[i] = len[i];
		a += PREFILL + STEP * (len[i] - 1) + gap[i] + 0.001;
	}
	eng_from = arrival[0] + 0.0015;
	eng_to = a - gap[nreq - 1] - 0.001 - 0.03;
}

/* The engine: requests join at a step's start; one waiting is prefilled
 * in a step of PREFILL s (its first token at the end), the running ones
 * decode a token in each STEP; the gauge is set at every step's end. */
static void
simulate(void)
{
	int left[MAX_REQ], state[MAX_REQ]; /* 0 not arrived, 1 waiting, 2 running, 3 done */
	double t = 0.0;
	int finished = 0;
	memset(state, 0, sizeof state);
	n_steps = 0;
	while (finished < nreq) {
		int any = 0;
		for (int i = 0; i < nreq; i++) {
			if (state[i] == 0 && arrival[i] <= t)
				state[i] = 1;
			any |= state[i] == 1 || state[i] == 2;
		}
		if (!any) { /* idle: no step until the next arrival */
			double next = INFINITY;
			for (int i = 0; i < nreq; i++)
				if (state[i] == 0)
					next = fmin(next, arrival[i]);
			t = next;
			continue;
		}
		int pre = -1;
		for (int i = 0; i < nreq && pre < 0; i++)
			if (state[i] == 1)
				pre = i;
		double end = t + (pre >= 0 ? PREFILL : STEP);
		for (int i = 0; i < nreq; i++) {
			if (state[i] == 2 && --left[i] == 0) {
				state[i] = 3;
				done[i] = end;
				finished++;
			}
		}
		if (pre >= 0) {
			state[pre] = 2;
			first_tok[pre] = end;
			left[pre] = out_len[pre] - 1;
		}
		int count = 0;
		for (int i = 0; i < nreq; i++)
			count += state[i] == 1 || state[i] == 2;
		step_t[n_steps] = end;
		step_v[n_steps++] = count;
		t = end;
	}
}

static double
gauge_at(double s)
{
	double v = 0.0;
	for (size_t k = 0; k < n_steps && step_t[k] <= s; k++)
		v = step_v[k];
	return v;
}

/* The run folder: power (100 W, 150 W more for each request between its
 * arrival and completion, up to three), engine.csv with running + waiting only
 * (TGI's gauges, or vLLM without generation_tokens_total), and the log
 * of the requests below `keep` on the epoch or (perf) on perf_counter. */
static char *
write_run(const char *root, const char *name, int keep, int perf)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	char *p = path_join(d, "power.csv"), *e = path_join(d, "engine.csv");
	char *m = path_join(d, "wattcast-run.json"), *q = path_join(d, "requests.json");
	FILE *fp = fopen(p, "w"), *fe = fopen(e, "w");
	CHECK(fp && fe);
	if (!fp || !fe)
		exit(1);
	fprintf(fp, "timestamp, index, power.draw [W]\n");
	fprintf(fe, "timestamp,tgi_batch_current_size,tgi_queue_size\n");
	for (int k = 0; k * 0.25 <= SPAN; k++) {
		double s = 0.25 * k;
		int busy = 0;
		for (int i = 0; i < nreq; i++)
			busy += s >= arrival[i] && s < done[i];
		long ms = (long)llround(fmod(T0 + s, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, 100.0 + 150.0 * (busy < 3 ? busy : 3));
	}
	for (int k = 0; eng_from + SAMPLE * k <= eng_to; k++) {
		double s = eng_from + SAMPLE * k;
		fprintf(fe, "%.4f,%.0f,0\n", T0 + s, gauge_at(s));
	}
	fclose(fp);
	fclose(fe);
	char head[400];
	snprintf(head, sizeof head,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0}\n", name);
	CHECK(write_text(m, head) == 0);
	static char json[16384];
	char *w = json, *end = json + sizeof json;
	const char *keys[4] = { perf ? "start_times" : "request_timestamps", "ttfts", "itls", "output_lens" };
	w += snprintf(w, (size_t)(end - w), "{");
	for (int c = 0; c < 4; c++) {
		w += snprintf(w, (size_t)(end - w), "%s\"%s\": [", c ? ", " : "", keys[c]);
		for (int i = 0; i < keep; i++) {
			double v = c == 0 ? (perf ? PERF0 : T0) + arrival[i]
			         : c == 1 ? first_tok[i] - arrival[i]
			         : c == 2 ? (done[i] - first_tok[i]) / (out_len[i] - 1) : out_len[i];
			w += snprintf(w, (size_t)(end - w), "%s%.6f", i ? ", " : "", v);
		}
		w += snprintf(w, (size_t)(end - w), "]");
	}
	snprintf(w, (size_t)(end - w), "}\n");
	CHECK(write_text(q, json) == 0);
	free(p);
	free(e);
	free(m);
	free(q);
	return d;
}

/* The offset ingest said it placed the log at, NaN when none. */
static double
said_offset(const char *text)
{
	const char *p = strstr(text, "placed on the engine's at ");
	return p ? atof(p + strlen("placed on the engine's at ")) : NAN;
}

/* The load simulated, its log on the epoch and on perf_counter: the
 * perf_counter one placed within 20 ms, without doubt said, into the row
 * the epoch one gives. */
static void
check_placed(const char *root, const char *name)
{
	char epoch_name[64], perf_name[64];
	snprintf(epoch_name, sizeof epoch_name, "%s_epoch", name);
	snprintf(perf_name, sizeof perf_name, "%s_perf", name);
	wc_ingest_result epoch = { NULL, 0, 0 }, perf = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char *de = write_run(root, epoch_name, nreq, 0), *dp = write_run(root, perf_name, nreq, 1);
	CHECK_INT(test_ingest_run(de, 0.0, &epoch, &w, &err), WC_OK);
	CHECK(isnan(said_offset(w.text)));
	CHECK_INT(test_ingest_run(dp, 0.0, &perf, &w, &err), WC_OK);
	double off = said_offset(w.text);
	if (!(fabs(off - (T0 - PERF0)) <= 0.02))
		fprintf(stderr, "%s: offset %+.4f s from the truth\n%s\n", name, off - (T0 - PERF0), w.text);
	CHECK(fabs(off - (T0 - PERF0)) <= 0.02);
	CHECK_CONTAINS(w.text, "requests in flight against running + waiting: rms ");
	CHECK(strstr(w.text, "uncertain") == NULL);
	CHECK_INT((int)epoch.n_rows, 1);
	CHECK_INT((int)perf.n_rows, 1);
	if (epoch.n_rows == 1 && perf.n_rows == 1) {
		/* 20 ms moves a request's ends by at most one cell of n(t)'s
		 * 50 ms grid, and the share of a request crossing the row's
		 * end (the turns' engine log stops before the last answer
		 * does) by 20 ms of its 0.8 s: within 1 % */
		const wc_run *a = &epoch.rows[0].run, *b = &perf.rows[0].run;
		CHECK_NEAR(b->running, a->running, 0.01 * a->running);
		CHECK_NEAR(b->energy_per_token_j, a->energy_per_token_j, 0.01 * a->energy_per_token_j);
		CHECK_NEAR(perf.rows[0].requests, epoch.rows[0].requests, 0.01 * epoch.rows[0].requests);
	}
	wc_ingest_result_clear(&epoch);
	wc_ingest_result_clear(&perf);
	free(de);
	free(dp);
}

int
main(void)
{
	char *root = test_tmpdir("request_align_gauge");
	/* Turns into an idle engine: counted from their arrivals, each
	 * request's 0.30 s prefill read as running put the log 0.3 s and more
	 * late (the gauge shows it from its first token). */
	turns();
	simulate();
	check_placed(root, "turns");

	mixed_load();
	simulate();
	/* the simulation holds both kinds of arrival the rule tells apart */
	int into_idle = 0, while_busy = 0;
	for (int i = 1; i < nreq; i++) {
		int busy = 0;
		for (int j = 0; j < i; j++)
			busy |= first_tok[j] <= arrival[i] && arrival[i] < done[j];
		busy ? while_busy++ : into_idle++;
	}
	CHECK(into_idle >= 5 && while_busy >= 5);
	CHECK(done[nreq - 1] < SPAN - 1.0);
	check_placed(root, "mixed");

	/* Half the requests: the gauge's second half has no request of the
	 * log near it, wherever the log is put. Kept (no counter to take
	 * instead), warned with the rms in seconds and its effect. */
	wc_ingest_result half = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char *dh = write_run(root, "half", nreq / 2, 1);
	CHECK_INT(test_ingest_run(dh, 0.0, &half, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "half/requests.json: placed by requests in flight with starts and ends off the gauge's "
	                       "by rms ");
	CHECK_CONTAINS(w.text, "over half its 0.260-s sampling interval: uncertain; moved");
	CHECK_CONTAINS(w.text, "J/token changes by up to ");
	CHECK_CONTAINS(w.text, " and mean running by ");
	wc_ingest_result_clear(&half);
	free(dh);
	free(root);
	return check_report("test_request_align_gauge");
}
