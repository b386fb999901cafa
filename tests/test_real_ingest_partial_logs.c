/*
 * The engine-log defects of `wattcast ingest` on a real run read in place
 * (label realdata): the H100 Poisson run of ../shared/data/real/
 * powertrace-sim (output_tokens 213.44 per request, 0.541 J per token,
 * 200 requests), its engine.csv edited as logs get broken
 * (docs/formats/telemetry.md, "engine.csv" and "Clocks and UTC offsets"):
 *  - cut after 129 rows: the row kept the whole level, 1.533 J per token
 *    (2.8x) and 200 requests; now it is cut to the engine log's span;
 *  - one scraped row of zeros: read as a restart, +47 % output tokens;
 *    one row of 1e300 tokens: 1.5e298 tok/s; now both are bad lines and
 *    the numbers are the run's;
 *  - its last line cut while written: now dropped like power.csv's.
 */
#include "data/data.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *src, *root;

/* A copy of the run in `name` whose engine.csv is `engine` (len bytes). */
static char *
run_with_engine(const char *name, const char *engine, size_t len)
{
	char *d = path_join(root, name);
	mkdir(d, 0755);
	const char *files[] = { "power.csv", "manifest.json" };
	for (int k = 0; k < 2; k++) {
		char *from = path_join(src, files[k]), *to = path_join(d, files[k]), *text = NULL;
		size_t n;
		wc_error err;
		CHECK_INT(wc_read_file(from, 1u << 24, &text, &n, &err), WC_OK);
		CHECK(text && write_text(to, text) == 0);
		free(text);
		free(from);
		free(to);
	}
	char *e = path_join(d, "engine.csv");
	FILE *f = fopen(e, "wb");
	CHECK(f && fwrite(engine, 1, len, f) == len);
	if (f)
		fclose(f);
	free(e);
	return d;
}

/* Line `k` (1-based) of `text`, its offset and length (without newline). */
static size_t
line_at(const char *text, int k, size_t *len)
{
	const char *p = text;
	for (int i = 1; i < k && p; i++)
		if ((p = strchr(p, '\n')))
			p++;
	const char *nl = p ? strchr(p, '\n') : NULL;
	*len = p ? (nl ? (size_t)(nl - p) : strlen(p)) : 0;
	return p ? (size_t)(p - text) : 0;
}

/* `text` with line `k` replaced by `with`. */
static char *
replace_line(const char *text, int k, const char *with)
{
	size_t len, off = line_at(text, k, &len), n = strlen(text);
	char *out = malloc(n + strlen(with) + 1);
	memcpy(out, text, off);
	strcpy(out + off, with);
	strcat(out, text + off + len);
	return out;
}

static wc_ingest_row
ingest(const char *dir, test_warnings *w)
{
	wc_ingest_options o;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_ingest_row row;
	wc_error err;
	wc_ingest_options_init(&o);
	o.warn = test_collect_warning;
	o.warn_payload = w;
	memset(w, 0, sizeof *w);
	memset(&row, 0, sizeof row);
	row.run.energy_per_token_j = row.run.throughput_tok_s = row.run.output_tokens = NAN;
	int rc = wc_ingest_run(dir, &o, &res, &err);
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		row = res.rows[0];
		row.series_t = row.series_running = NULL;
	}
	wc_ingest_result_clear(&res);
	return row;
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	src = path_join(shared, "data/real/powertrace-sim/validate_qwen3-8b/"
	                        "h100_validate_tp1_r4p0_b1p0_s20260712_1784422665");
	root = test_tmpdir("real_ingest_partial_logs");
	char *ep = path_join(src, "engine.csv"), *engine = NULL;
	size_t elen;
	wc_error err;
	test_warnings w;
	CHECK_INT(wc_read_file(ep, 1u << 24, &engine, &elen, &err), WC_OK);
	if (!engine)
		return check_report("test_real_ingest_partial_logs");

	/* The run as measured. */
	char *d = run_with_engine("whole", engine, elen);
	wc_ingest_row whole = ingest(d, &w);
	CHECK_NEAR(whole.run.output_tokens, 213.44, 0.01);
	CHECK_NEAR(whole.run.energy_per_token_j, 0.541, 0.001);
	CHECK_NEAR(whole.requests, 200.0, 0.0);
	free(d);

	/* Cut after 129 data rows: the row covers what the engine log does. */
	size_t len, off = line_at(engine, 131, &len);
	d = run_with_engine("engine_part", engine, off);
	wc_ingest_row part = ingest(d, &w);
	CHECK(part.end_epoch - part.start_epoch < 34.0);
	CHECK(part.run.energy_per_token_j > 0.55 && part.run.energy_per_token_j < 0.70);
	CHECK(isnan(part.requests) && isnan(part.run.output_tokens));
	CHECK_CONTAINS(w.text, "the span both logs cover (power ");
	free(d);

	/* One row of zeros, one row of 1e300 tokens: the run's numbers. */
	size_t l150;
	line_at(engine, 150, &l150);
	char zero[600], *row150 = strndup(engine + line_at(engine, 150, &l150), l150);
	char *cells[16], *save = NULL;
	int nc = 0;
	for (char *c = strtok_r(row150, ",", &save); c && nc < 16; c = strtok_r(NULL, ",", &save))
		cells[nc++] = c;
	CHECK(nc >= 12);
	snprintf(zero, sizeof zero, "%s,%s,%s,%s,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0", cells[0], cells[1],
	         cells[2], cells[3]);
	for (int k = 12; k < nc; k++)
		snprintf(zero + strlen(zero), sizeof zero - strlen(zero), ",%s", cells[k]);
	char *edited = replace_line(engine, 150, zero);
	d = run_with_engine("zeros", edited, strlen(edited));
	wc_ingest_row z = ingest(d, &w);
	CHECK_NEAR(z.run.output_tokens, whole.run.output_tokens, 1e-9);
	CHECK_NEAR(z.run.throughput_tok_s, whole.run.throughput_tok_s, 1e-9);
	CHECK_CONTAINS(w.text, "engine.csv:150: prompt_tokens_total = 0 against");
	free(edited);
	free(d);

	char spike[600] = "";
	for (int k = 0; k < nc; k++)
		snprintf(spike + strlen(spike), sizeof spike - strlen(spike), "%s%s", k ? "," : "",
		         k == 5 ? "1e300" : cells[k]);
	edited = replace_line(engine, 150, spike);
	d = run_with_engine("spike", edited, strlen(edited));
	wc_ingest_row s = ingest(d, &w);
	CHECK_NEAR(s.run.throughput_tok_s, whole.run.throughput_tok_s, 1e-9);
	/* named at its cell, the sixth: the bytes of the five before it and their commas, from 1 */
	size_t col6 = 1;
	for (int k = 0; k < 5; k++)
		col6 += strlen(cells[k]) + 1;
	char want[96];
	snprintf(want, sizeof want, "engine.csv:150:%zu: generation_tokens_total = 1e+300 is no counter value", col6);
	CHECK_CONTAINS(w.text, want);
	free(edited);
	free(d);
	free(row150);

	/* The last line cut 40 bytes short. */
	d = run_with_engine("cut_line", engine, elen - 40);
	wc_ingest_row c = ingest(d, &w);
	CHECK_NEAR(c.run.output_tokens, whole.run.output_tokens, 1e-9);
	CHECK_CONTAINS(w.text, "engine.csv:261: unfinished last line");
	free(d);

	free(engine);
	free(ep);
	free(src);
	free(root);
	return check_report("test_real_ingest_partial_logs");
}
