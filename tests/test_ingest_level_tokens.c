/*
 * A TGI run's tokens from wattcast's own manifest (docs/formats/
 * telemetry.md, "wattcast's own manifest"): TGI exports no token counter,
 * and its tokens come from a request log or a manifest's level totals.
 * Only PowerTrace-Sim's manifest could state them: wattcast-run.json
 * refused a level's token count as an unknown key, and a run whose level
 * stated its requests alone was said to have "no request log or level
 * count". Schema 4 takes a level's total_input_tokens and
 * total_output_tokens, PowerTrace-Sim's summary's, with its requests; an
 * older schema carrying them, or totals without the requests they are of,
 * is refused naming the key; the warning says "no token count".
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

/* The two requests of tests/support/synth_pair.h with TGI's gauges to
 * 9.5 s and no request log, one level over 0-10 s: `schema` and the
 * level's keys after its window (`level`). */
static char *
write_run(const char *root, const char *name, const char *schema, const char *level)
{
	char *d = synth_pair_folder(root, name, SYNTH_PAIR_TGI, 9.5, 0), buf[1024];
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"%s\", \"run_id\": \"%s\", \"platform\": \"A100\", \"tp\": 1,"
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"poisson\","
	         " \"levels\": [{\"label\": \"all\", \"start_epoch\": %.3f, \"end_epoch\": %.3f, \"request_rate\": 0.2%s}]}\n",
	         schema, name, T0, T0 + 10.0, level);
	free(test_fixture(d, "wattcast-run.json", buf));
	return d;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_level_tokens");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;

	/* The level's 2 requests, 200 and 482 tokens: the row's throughput,
	 * its per-request means, and no word of a missing count */
	char *d = write_run(root, "stated", "wattcast.run/4",
	                    ", \"requests\": 2, \"total_input_tokens\": 200, \"total_output_tokens\": 482");
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		const wc_ingest_row *r = &res.rows[0];
		CHECK_NEAR(r->end_epoch - r->start_epoch, 10.0, 1e-6);
		CHECK_NEAR(r->run.throughput_tok_s * 10.0, 482.0, 1e-6);
		CHECK_NEAR(r->run.output_tokens, 241.0, 1e-9);
		CHECK_NEAR(r->run.input_tokens, 100.0, 1e-9);
		CHECK_NEAR(r->run.energy_per_token_j, 3000.0 / 482.0, 1e-6);
	}
	CHECK(strstr(w.text, "output-token count") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* The requests alone: no token count, said so */
	d = write_run(root, "requests_only", "wattcast.run/4", ", \"requests\": 2");
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	if (res.n_rows == 1)
		CHECK(isnan(res.rows[0].run.throughput_tok_s));
	CHECK_CONTAINS(w.text, ": 1 of 1 rows have no output-token count (engine.csv has no generation_tokens_total, "
	                       "as TGI's has none; no request log or token count)");
	wc_ingest_result_clear(&res);
	free(d);

	/* Schema 3 has no token totals; totals need the requests they are of */
	d = write_run(root, "schema3", "wattcast.run/3", ", \"requests\": 2, \"total_output_tokens\": 482");
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:295: /levels/0/total_output_tokens: needs \"schema\": "
	                        "\"wattcast.run/4\"");
	wc_ingest_result_clear(&res);
	free(d);
	/* levels came with schema 2: a schema-1 file is told so, not /3 */
	d = write_run(root, "schema1", "wattcast.run/1", ", \"requests\": 2");
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:158: /levels: needs \"schema\": \"wattcast.run/2\"");
	wc_ingest_result_clear(&res);
	free(d);
	d = write_run(root, "no_requests", "wattcast.run/4", ", \"total_output_tokens\": 482");
	CHECK(test_ingest_run(d, 0, &res, &w, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "wattcast-run.json:1:284: /levels/0/total_output_tokens: needs the level's \"requests\"");
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_level_tokens");
}
