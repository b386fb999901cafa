#include "tests/support/synth_pair.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#define POWER_W 300.0
#define ITL 0.02

static const double arrival[2] = { 0.5, 8.0 }, ttft[2] = { 0.5, 0.2 }, out_len[2] = { 401, 81 };

static double
tokens_of(int i, double s)
{
	double f = arrival[i] + ttft[i], c = f + ITL * (out_len[i] - 1);
	return s < f ? 0.0 : s >= c ? out_len[i] : 1.0 + floor((s - f) / ITL);
}

double
synth_pair_tokens_by(double s)
{
	return tokens_of(0, s) + tokens_of(1, s);
}

/* One engine.csv row at `s` s from T0, stamped `shift` s away. */
static void
engine_row(FILE *fe, synth_pair_engine engine, double s, double shift)
{
	double t = SYNTH_PAIR_T0 + s + shift, tok = synth_pair_tokens_by(s);
	int running = 0;
	for (int i = 0; i < 2; i++)
		running += s >= arrival[i] && s < arrival[i] + ttft[i] + ITL * (out_len[i] - 1);
	if (engine == SYNTH_PAIR_TGI)
		fprintf(fe, "%.3f,%d.0,0.0\n", t, running);
	else
		fprintf(fe, "%.3f,%d,0,%.1f,%.1f\n", t, running, tok, tok);
}

static const char *const engine_header[] = {
	[SYNTH_PAIR_VLLM] = "timestamp,num_requests_running,num_requests_waiting,generation_tokens_total,"
	                    "iteration_tokens_total_count\n",
	[SYNTH_PAIR_TGI] = "timestamp,tgi_batch_current_size,tgi_queue_size\n",
};

void
synth_pair_engine_rows(const char *d, double step, int from, int count, double shift)
{
	char *e = path_join(d, "engine.csv");
	FILE *fe = fopen(e, "w");
	CHECK(fe != NULL);
	if (!fe)
		exit(1);
	fputs(engine_header[SYNTH_PAIR_VLLM], fe);
	for (int k = 0; k * step <= 10.0 + 1e-9; k++)
		engine_row(fe, SYNTH_PAIR_VLLM, k * step, k >= from && k < from + count ? shift : 0.0);
	fclose(fe);
	free(e);
}

char *
synth_pair_folder(const char *root, const char *name, synth_pair_engine engine, double e1, int with_log)
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
	fputs(engine_header[engine], fe);
	for (int k = 0; k <= 40; k++) {
		double s = 0.25 * k, t = SYNTH_PAIR_T0 + s;
		long ms = (long)llround(fmod(t, 86400.0) * 1000.0);
		fprintf(fp, "2026/07/18 %02ld:%02ld:%02ld.%03ld, 0, %.2f W\n", ms / 3600000, ms / 60000 % 60,
		        ms / 1000 % 60, ms % 1000, POWER_W);
		if (s <= e1 + 1e-9)
			engine_row(fe, engine, s, 0.0);
	}
	fclose(fp);
	fclose(fe);
	char json[400];
	snprintf(json, sizeof json,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1, "
	         "\"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"requests\": 2}\n", name);
	CHECK(write_text(m, json) == 0);
	if (with_log) {
		snprintf(json, sizeof json,
		         "{\"request_timestamps\": [%.3f, %.3f], \"ttfts\": [%g, %g], \"itls\": [%g, %g], "
		         "\"input_lens\": [100, 100], \"output_lens\": [%g, %g]}\n",
		         SYNTH_PAIR_T0 + arrival[0], SYNTH_PAIR_T0 + arrival[1], ttft[0], ttft[1], ITL, ITL, out_len[0],
		         out_len[1]);
		CHECK(write_text(q, json) == 0);
	}
	free(p);
	free(e);
	free(m);
	free(q);
	return d;
}
