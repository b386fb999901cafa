/*
 * A level's stated totals (docs/formats/telemetry.md, "wattcast's own
 * manifest"). Its requests and token totals took any number: a total of
 * 1e20 tokens gave a throughput of 1e18 tok/s, 482.5 half a token, 2.5
 * requests were kept, and -5 was refused as outside [0, 1e+300], a bound
 * no count has. Each is a whole number to WC_RUN_MAX_REQUESTS requests
 * and WC_CAPACITY_MAX_TOKENS tokens each, refused naming its pointer and
 * the bound, PowerTrace-Sim's summary by the same rule. A stated total
 * that the engine's counters contradict (ten times their tokens) was
 * dropped without a word: said once, both figures and the one used.
 * A total is also at most 1e8 tokens for each of the level's requests,
 * stated or counted by the request log (1e17 over 10 requests under TGI
 * gave 1.4e15 tok/s), and the warning names what counted it: the request
 * log alone was said to be "the request log and engine.csv". The
 * counters of an engine.csv that dropped rows stood over a stated total
 * (the real A100 run with rows lost: 2259 of 42672 output tokens); the
 * stated one stands there now, said however near -- past the share as
 * the refusal counts it (a clock glitch's three rows, one glitch, gave
 * way too) and only where a bad line lies outside the kept rows: bad
 * lines between them lose the cumulative counters no work. Manifest values are refused at their
 * file:line:column (the JSON path alone before).
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "tests/support/synth_pair.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 SYNTH_PAIR_T0

/* The two requests of tests/support/synth_pair.h (482 output tokens over
 * 0-10 s), one level over 0-10 s: `top` at the manifest's top, `level`
 * after the level's window. */
static char *
write_run_log(const char *root, const char *name, synth_pair_engine engine, const char *top, const char *level,
              int with_log)
{
	char *d = synth_pair_folder(root, name, engine, engine == SYNTH_PAIR_TGI ? 9.5 : 10.0, with_log), buf[1024];
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"wattcast.run/4\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1,"
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"poisson\"%s,"
	         " \"levels\": [{\"label\": \"all\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, \"request_rate\": 0.2%s}]}\n",
	         name, top, T0, T0 + 10.0, level);
	free(test_fixture(d, "wattcast-run.json", buf));
	return d;
}

static char *
write_run(const char *root, const char *name, synth_pair_engine engine, const char *top, const char *level)
{
	return write_run_log(root, name, engine, top, level, 0);
}

/* engine.csv's data rows `from` to `to` - 1 (0-based) made bad lines:
 * no timestamp, or (`whole`) one field for the whole line -- a log's
 * first row, whose timestamp says its format, is refused bad. */
static void
drop_engine_rows(const char *d, int from, int to, int whole)
{
	char *p = path_join(d, "engine.csv"), line[256], text[8192];
	FILE *f = fopen(p, "r");
	size_t len = 0;
	int row = -1;
	CHECK(f != NULL);
	for (; f && fgets(line, sizeof line, f); row++) {
		const char *comma = strchr(line, ',');
		if (row >= from && row < to && comma)
			len += (size_t)snprintf(text + len, sizeof text - len, "x%s", whole ? "\n" : comma);
		else
			len += (size_t)snprintf(text + len, sizeof text - len, "%s", line);
	}
	if (f)
		fclose(f);
	free(test_fixture(d, "engine.csv", text));
	free(p);
}

/* test_ingest_run with a share of bad lines `max_bad`. */
static int
ingest_share(const char *d, double max_bad, wc_ingest_result *res, test_warnings *w, wc_error *err)
{
	wc_ingest_options o;
	wc_ingest_options_init(&o);
	o.max_bad_fraction = max_bad;
	return test_ingest_with(d, &o, res, w, err);
}

static void
refused(const char *root, const char *name, const char *top, const char *level, const char *want)
{
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	char *d = write_run(root, name, SYNTH_PAIR_TGI, top, level);
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, want);
	CHECK(strlen(err.msg) <= 255);
	wc_ingest_result_clear(&res);
	free(d);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_level_totals");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	refused(root, "huge", "", ", \"requests\": 2, \"total_output_tokens\": 1e20",
	        "wattcast-run.json:1:292: /levels/0/total_output_tokens: 1e+20 is no token total (a whole number, 0 to "
	        "1e+17)");
	refused(root, "frac", "", ", \"requests\": 2, \"total_output_tokens\": 482.5",
	        "/levels/0/total_output_tokens: 482.5 is no token total (a whole number, 0 to 1e+17)");
	refused(root, "negative", "", ", \"requests\": 2, \"total_output_tokens\": -5",
	        "/levels/0/total_output_tokens: -5 is no token total (a whole number, 0 to 1e+17)");
	refused(root, "in_frac", "", ", \"requests\": 2, \"total_input_tokens\": 0.5, \"total_output_tokens\": 482",
	        "/levels/0/total_input_tokens: 0.5 is no token total (a whole number, 0 to 1e+17)");
	refused(root, "req_frac", "", ", \"requests\": 2.5, \"total_output_tokens\": 482",
	        "/levels/0/requests: 2.5 is no request count (a whole number, 0 to 1e+09)");
	refused(root, "req_huge", "", ", \"requests\": 1e15",
	        "/levels/0/requests: 1e+15 is no request count (a whole number, 0 to 1e+09)");
	refused(root, "run_req", ", \"requests\": 200.5", "",
	        "wattcast-run.json:1:160: /requests: 200.5 is no request count (a whole number, 0 to 1e+09)");

	/* A total the level's own requests cannot hold, 1e8 tokens each: 1e17
	 * over 2 requests passed the fixed bound (1e15 tok/s over TGI) */
	refused(root, "over_req", "", ", \"requests\": 2, \"total_output_tokens\": 99999999999999999",
	        "wattcast-run.json:1:296: /levels/0/total_output_tokens: 1e+17 is more than 2 requests hold (at most "
	        "200000000, 1e+08 tokens a request)");
	refused(root, "over_req_in", "", ", \"requests\": 2, \"total_input_tokens\": 200000001",
	        "/levels/0/total_input_tokens: 200000001 is more than 2 requests hold (at most 200000000");

	/* The request log's 2 requests bound them alike, a stated 1e9 aside */
	{
		char *dl = write_run_log(root, "over_log", SYNTH_PAIR_TGI, "",
		                         ", \"requests\": 1000000000, \"total_output_tokens\": 1e17", 1);
		CHECK(test_ingest_run(dl, 0, &res, &w, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "over_log/wattcast-run.json: /levels/0/total_output_tokens: 1e+17 is more than "
		                        "2 requests hold (at most 200000000, 1e+08 tokens a request), as many as "
		                        "requests.json counts");
		CHECK(strlen(err.msg) <= 255);
		wc_ingest_result_clear(&res);
		free(dl);
	}

	/* PowerTrace-Sim's summary, by the same rule */
	char *d = synth_pair_folder(root, "pts", SYNTH_PAIR_TGI, 9.5, 0), buf[1024];
	snprintf(buf, sizeof buf,
	         "{\"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1, \"probe\": {\"levels\": [{\"label\": \"L\","
	         " \"t_start_epoch\": %.3f, \"t_end_epoch\": %.3f, \"summary\": {\"completed\": 2,"
	         " \"total_input_tokens\": 200, \"total_output_tokens\": 482.5}}]}}\n", T0, T0 + 10.0);
	free(test_fixture(d, "manifest.json", buf));
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "manifest.json:1:235: /probe/levels/0/summary/total_output_tokens: 482.5 is no token total "
	                        "(a whole number, 0 to 1e+17)");
	wc_ingest_result_clear(&res);
	free(d);

	/* ... its completed requests bounding its totals */
	d = synth_pair_folder(root, "pts_over", SYNTH_PAIR_TGI, 9.5, 0);
	snprintf(buf, sizeof buf,
	         "{\"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1, \"probe\": {\"levels\": [{\"label\": \"L\","
	         " \"t_start_epoch\": %.3f, \"t_end_epoch\": %.3f, \"summary\": {\"completed\": 2,"
	         " \"total_input_tokens\": 200, \"total_output_tokens\": 1e12}}]}}\n", T0, T0 + 10.0);
	free(test_fixture(d, "manifest.json", buf));
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "manifest.json:1:235: /probe/levels/0/summary/total_output_tokens: 1000000000000 is more "
	                        "than 2 requests hold (at most 200000000, 1e+08 tokens a request)");
	wc_ingest_result_clear(&res);
	free(d);

	/* The bound itself is a count */
	d = write_run(root, "bound", SYNTH_PAIR_TGI, "", ", \"requests\": 1000000000, \"total_output_tokens\": 1e17");
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	wc_ingest_result_clear(&res);
	free(d);

	/* Ten times the counters' 482: said, and the counters' used */
	d = write_run(root, "x10", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 4820");
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1)
		CHECK_NEAR(res.rows[0].run.throughput_tok_s * 10.0, 482.0, 1e-6);
	CHECK_CONTAINS(w.text, "x10: level 0 ('all'): total_output_tokens stated 4820, counted 482 (-90 %), more than "
	                       "5 % apart: the counted figure (from engine.csv's counters) used");
	wc_ingest_result_clear(&res);
	free(d);

	/* The counters of an engine.csv that dropped rows before its first
	 * kept one (or after its last) may miss work: the stated total
	 * stands over them, said so. The real A100 run with four rows an
	 * hour ahead kept one of them last and lost 190 after it: its
	 * counted 2259 output tokens of a stated 42672 were used, 30.18
	 * tok/s, not 570.29 */
	d = write_run(root, "dropped", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 4820");
	drop_engine_rows(d, 0, 1, 1);
	CHECK_INT(ingest_share(d, 0.5, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1)
		CHECK_NEAR(res.rows[0].run.throughput_tok_s * 10.0, 4820.0, 1e-6);
	CHECK_CONTAINS(w.text, "dropped: level 0 ('all'): total_output_tokens stated 4820, counted 482 (-90 %), more "
	               "than 5 % apart: the stated figure used (engine.csv dropped 1 bad line: its counters may miss "
	               "work)");
	wc_ingest_result_clear(&res);
	free(d);

	/* ... said too when the two are within 5 %: 490 stood for the
	 * counted 482 without a word (the real A100 run, 331.78 input
	 * tokens a request for 335.575) */
	d = write_run(root, "dropped_near", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 490");
	drop_engine_rows(d, 0, 1, 1);
	CHECK_INT(ingest_share(d, 0.5, &res, &w, &err), WC_OK);
	if (res.n_rows == 1)
		CHECK_NEAR(res.rows[0].run.throughput_tok_s * 10.0, 490.0, 1e-6);
	CHECK_CONTAINS(w.text, "dropped_near: level 0 ('all'): total_output_tokens stated 490, counted 482 (-2 %): the "
	               "stated figure used (engine.csv dropped 1 bad line: its counters may miss work)");
	wc_ingest_result_clear(&res);
	free(d);

	/* Bad lines between kept rows, however many (five of 41 here, over
	 * 1 %), lose none of the cumulative counters' work: they stand. The
	 * real A100 run with lines 100-102 garbage under --max-bad 0.05 put
	 * the stated 331.78 input tokens a request and 570.08 tok/s in place
	 * of the counted 335.575 and 570.29 without a word */
	d = write_run(root, "inside", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 490");
	drop_engine_rows(d, 10, 15, 0);
	CHECK_INT(ingest_share(d, 0.5, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_INT(res.rows[0].bad_lines, 5);
		CHECK_NEAR(res.rows[0].run.throughput_tok_s * 10.0, 482.0, 1e-6);
	}
	CHECK(strstr(w.text, "stated figure") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* One clock glitch mid-log, three rows of 201 an hour ahead, counts
	 * once toward the share as the refusal counts it (1 of 201, under
	 * 1 %): the counters lost no work and stand. Each row was counted
	 * (3, over 1 %), so the stated total stood over them: the real A100
	 * run with lines 100-102 an hour ahead read the stated 331.78 input
	 * tokens a request, not the counted 335.575, with no word */
	d = write_run(root, "glitch", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 4820");
	synth_pair_engine_rows(d, 0.05, 100, 3, 3600.0);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		CHECK_INT(res.rows[0].bad_lines, 3);
		CHECK_NEAR(res.rows[0].run.throughput_tok_s * 10.0, 482.0, 1e-6);
	}
	CHECK_CONTAINS(w.text, "glitch: level 0 ('all'): total_output_tokens stated 4820, counted 482 (-90 %), more "
	               "than 5 % apart: the counted figure (from engine.csv's counters) used");
	wc_ingest_result_clear(&res);
	free(d);

	/* Counted by the request log alone (no token counter): it is named,
	 * not engine.csv */
	d = write_run_log(root, "x10log", SYNTH_PAIR_TGI, "", ", \"requests\": 2, \"total_output_tokens\": 4820", 1);
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_CONTAINS(w.text, "x10log: level 0 ('all'): total_output_tokens stated 4820, counted 482 (-90 %), more "
	                       "than 5 % apart: the counted figure (from requests.json) used");
	CHECK(strstr(w.text, "engine.csv") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* Within the tolerance (1.7 %): no word */
	d = write_run(root, "near", SYNTH_PAIR_VLLM, "", ", \"requests\": 2, \"total_output_tokens\": 490");
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK(strstr(w.text, "apart") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_level_totals");
}
