/*
 * The ingest call of the Prometheus scrape tests (tests/support/
 * prom_ingest.h).
 */
#include "tests/support/prom_ingest.h"

#include <stdio.h>
#include <stdlib.h>

void
test_prom_ingest(const char *dir, const char *name, const char *text, const char *const *extra, run_result *r,
                 wc_runs_table **t)
{
	char *in = path_join(dir, name), *out = path_join(dir, "out.csv");
	const char *argv[8 + 9] = { "wattcast", "ingest", "--scrapes", in, "--step", "15", "-o", out };
	size_t n = 8;
	for (size_t j = 0; extra && extra[j] && j < 8; j++)
		argv[n++] = extra[j];
	argv[n] = NULL;
	*t = NULL;
	CHECK(write_text(in, text) == 0);
	CHECK(run_wattcast(argv, NULL, r) == 0);
	CHECK_INT(r->status, 0);
	fprintf(stderr, "%s", r->err ? r->err : "");
	if (r->status == 0 && wc_runs_read(out, t, NULL) != WC_OK)
		*t = NULL;
	free(in);
	free(out);
}

wc_runs_table *
test_prom_rows_each(const char *out, size_t n, double running, double power_w, double tok_s)
{
	wc_runs_table *t = NULL;
	if (wc_runs_read(out, &t, NULL) != WC_OK) {
		CHECK(0);
		return NULL;
	}
	CHECK_INT(t->n_runs, n);
	for (size_t i = 0; i < t->n_runs; i++) {
		CHECK_NEAR(t->runs[i].running, running, 1e-12);
		CHECK_NEAR(t->runs[i].mean_power_w, power_w, 1e-9);
		CHECK_NEAR(t->runs[i].throughput_tok_s, tok_s, 1e-9);
	}
	return t;
}
