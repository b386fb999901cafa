/*
 * The real A100 trace-replay smoke run of ../shared/data/real/powertrace-sim
 * (label realdata; four prompts of 4 129-5 115 tokens) rewritten as SGLang
 * exports it: the same gauges under SGLang's names, and its
 * prompt_tokens_total and generation_tokens_total raised by each request's
 * tokens when it finishes (TokenizerMetricsCollector.
 * observe_one_finished_request), as the request log's completions say.
 * They were read as vLLM's counters, which count tokens as generated
 * (docs/formats/telemetry.md, "engine.csv"):
 *  - `--segment 2`: a segment with requests in flight at its ends read
 *    0 tok/s (J/token blank, not excluded) where vLLM's counter gives
 *    77.6 tok/s, 3.97 J/token, the next 116.9 tok/s (2.87 J/token) for
 *    68.1; such rows are blank now, said naming the counter and why, and
 *    the one whose ends are idle equals vLLM's;
 *  - the whole run, a request running at its end, 5.985 J/token for
 *    vLLM's 5.408 without a word: kept, with the requests in flight said,
 *    the remedy before the counts (under a long path it was cut);
 *  - its request log on the load generator's clock (`start_times`) was
 *    placed by generated tokens 2.09 s late (running 0.649 for 0.954);
 *    it is placed by the requests in flight against the gauges, said so;
 *  - `envelope --measured` replayed 7 arrivals (the prompt counter's
 *    steps at completions) for the run's 4.
 */
#include "data/data.h"
#include "data/engine_log.h"
#include "data/request_log.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LABELS "{model_name=\"Qwen/Qwen3-8B\",engine_type=\"unified\",tp_rank=\"0\",pp_rank=\"0\"}"

/* Copy `name` from src to dst. */
static void
copy(const char *src, const char *dst, const char *name)
{
	char *a = path_join(src, name), *b = path_join(dst, name), *text = NULL;
	size_t n;
	wc_error err;
	CHECK_INT(wc_read_file(a, 1u << 24, &text, &n, &err), WC_OK);
	if (text)
		CHECK_INT(write_text(b, text), 0);
	free(text);
	free(a);
	free(b);
}

/* The run in `dst` as SGLang exports it; with `placed` 0 its request log
 * on the load generator's clock (start_times), else none. */
static int
sglang_form(const char *src, const char *dst, int with_log)
{
	char *eng_path = path_join(src, "engine.csv"), *req_path = path_join(src, "requests.json");
	wc_telemetry_options o;
	wc_engine_log *e = NULL;
	wc_request_log *log = NULL;
	wc_error err;
	memset(&o, 0, sizeof o);
	o.max_bad_fraction = 0.01;
	int ok = wc_engine_read(eng_path, &o, 0, &e, &err) == WC_OK && wc_request_log_read(req_path, &o, &log, &err) ==
	         WC_OK;
	CHECK(ok);
	if (ok) {
		char *buf = NULL, *out = path_join(dst, "engine.csv");
		size_t len = 0, cap = 0;
		mkdir(dst, 0755);
		test_appendf(&buf, &len, &cap, "timestamp,sglang:num_running_reqs" LABELS ",sglang:num_queue_reqs" LABELS
		             ",sglang:token_usage" LABELS ",sglang:prompt_tokens_total" LABELS ",sglang:generation_tokens_total"
		             LABELS "\n");
		for (size_t k = 0; k < e->n; k++) {
			double in = 0, gen = 0;
			for (size_t i = 0; i < log->n; i++)
				if (log->completion[i] <= e->t[k]) {
					in += log->input_tokens[i];
					gen += log->output_tokens[i];
				}
			test_appendf(&buf, &len, &cap, "%.17g,%.0f,%.0f,%.17g,%.1f,%.1f\n", e->t[k], e->col[WC_ENG_RUNNING][k],
			             e->col[WC_ENG_WAITING][k], e->col[WC_ENG_CACHE_USAGE][k], in, gen);
		}
		CHECK_INT(write_text(out, buf), 0);
		free(buf);
		free(out);
		copy(src, dst, "power.csv");
		copy(src, dst, "manifest.json");
	}
	if (ok && with_log) {
		json_t *j = json_load_file(req_path, 0, NULL), *ts = json_object_get(j, "request_timestamps");
		json_t *st = json_array();
		size_t i;
		json_t *v;
		json_array_foreach(ts, i, v)
			json_array_append_new(st, json_real(json_number_value(v) - 1784000000.0));
		json_object_set_new(j, "start_times", st);
		json_object_del(j, "request_timestamps");
		char *out = path_join(dst, "requests.json");
		CHECK(json_dump_file(j, out, 0) == 0);
		free(out);
		json_decref(j);
	}
	wc_engine_free(e);
	wc_request_log_free(log);
	free(eng_path);
	free(req_path);
	return ok;
}

static int
ingest(const char *dir, double segment_s, wc_ingest_result *res, test_warnings *w)
{
	wc_ingest_options o;
	wc_error err;
	wc_ingest_options_init(&o);
	o.segment_s = segment_s;
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	memset(res, 0, sizeof *res);
	int rc = wc_ingest_run(dir, &o, res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s: %s\n", dir, err.msg);
	return rc == WC_OK;
}

static long
measured_arrivals(const char *dir)
{
	const char *argv[] = { "wattcast", "envelope", "--measured", dir, "--json", NULL };
	run_result r;
	long n = -1;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	const json_t *m = json_object_get(json_object_get(j, "measured"), "arrivals");
	if (json_is_integer(m))
		n = (long)json_integer_value(m);
	else if (json_is_number(m))
		n = lround(json_number_value(m));
	json_decref(j);
	run_result_free(&r);
	return n;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char *src = path_join(shared, "data/real/powertrace-sim/trace_replay_smoke_qwen3-8b_a100/"
	                              "a100_trace_replay_tp1_1784415083");
	char *root = test_tmpdir("real_sglang_at_end");
	char *sg = path_join(root, "sg"), *sgp = path_join(root, "sgp"), *vl = path_join(root, "vl");
	if (!sglang_form(src, sg, 0) || !sglang_form(src, sgp, 1))
		return check_report("test_real_sglang_at_end");
	/* vLLM's form without its request log, as the SGLang form's */
	mkdir(vl, 0755);
	copy(src, vl, "power.csv");
	copy(src, vl, "engine.csv");
	copy(src, vl, "manifest.json");
	wc_ingest_result a, b;
	test_warnings w;

	/* Segments: those with requests at their ends blank, said. */
	if (ingest(vl, 2, &a, &w) && ingest(sg, 2, &b, &w) && a.n_rows == 3 && b.n_rows == 3) {
		CHECK_NEAR(a.rows[1].run.throughput_tok_s, 77.6158, 1e-4);
		CHECK_NEAR(a.rows[2].run.throughput_tok_s, 68.1051, 1e-4);
		/* the first ends idle by the gauges: the counts agree */
		CHECK_NEAR(b.rows[0].run.throughput_tok_s, a.rows[0].run.throughput_tok_s, 1e-9);
		for (int k = 1; k < 3; k++) {
			CHECK(isnan(b.rows[k].run.throughput_tok_s));
			CHECK(isnan(b.rows[k].run.energy_per_token_j));
		}
		CHECK_CONTAINS(w.text, "2 of 3 rows have no output-token count (sglang:generation_tokens_total counts a "
		                       "request's tokens when it finishes, not over a row with requests at its ends");
	} else {
		CHECK(0);
	}
	wc_ingest_result_clear(&a);
	wc_ingest_result_clear(&b);

	/* The whole run, a request running at its end: kept, said. */
	if (ingest(vl, 0, &a, &w) && ingest(sg, 0, &b, &w) && a.n_rows == 1 && b.n_rows == 1) {
		CHECK_NEAR(a.rows[0].run.energy_per_token_j, 5.40805, 1e-5);
		CHECK_NEAR(b.rows[0].run.energy_per_token_j, 5.98532, 1e-5);
		CHECK_CONTAINS(w.text, "/sg: sglang:generation_tokens_total counts a request's tokens when it finishes: "
		                       "throughput and energy per token are off unless the run starts and ends idle "
		                       "(requests in flight: 0 at its start, 1 at its end)\n");
	} else {
		CHECK(0);
	}
	wc_ingest_result_clear(&a);
	wc_ingest_result_clear(&b);

	/* Under a deep folder, in the run's own long-named one: the reason
	 * and the remedy whole within 255 bytes (the remedy was cut, and the
	 * counts with it, by the run id and counts before it). */
	char deep[160];
	memset(deep, 'd', 150);
	deep[150] = '\0';
	char *deep_root = path_join(root, deep), *long_sg = path_join(deep_root, "a100_trace_replay_tp1_1784415083");
	mkdir(deep_root, 0755);
	if (sglang_form(src, long_sg, 0) && ingest(long_sg, 0, &b, &w)) {
		const char *at = strstr(w.text, "...");
		const char *line = at, *eol = at ? strchr(at, '\n') : NULL;
		while (line && line > w.text && line[-1] != '\n')
			line--;
		CHECK(eol && (size_t)(eol - line) <= 255);
		CHECK_CONTAINS(w.text, ".../a100_trace_replay_tp1_1784415083: sglang:generation_tokens_total counts a "
		                       "request's tokens when it finishes: throughput and energy per token are off unless "
		                       "the run starts and ends idle (requests in flight: 0 at its start, 1 at its end)\n");
	}
	wc_ingest_result_clear(&b);
	free(long_sg);
	free(deep_root);

	/* start_times placed by the requests in flight, not by tokens. */
	if (ingest(sgp, 0, &b, &w)) {
		CHECK_CONTAINS(w.text, "(requests in flight against running + waiting");
		CHECK_CONTAINS(w.text, "; sglang:generation_tokens_total counts at completion");
		CHECK(!strstr(w.text, "generated tokens against"));
	}
	wc_ingest_result_clear(&b);

	/* envelope --measured: the run's 4 arrivals, by the gauges */
	CHECK_INT(measured_arrivals(vl), 4);
	CHECK_INT(measured_arrivals(sg), 4);

	free(sg);
	free(sgp);
	free(vl);
	free(root);
	free(src);
	return check_report("test_real_sglang_at_end");
}
