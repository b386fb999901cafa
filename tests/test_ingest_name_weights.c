/*
 * A run whose files state no weights, served as "Qwen/Qwen3-8B-FP8":
 * ingest writes the row in the precision the name's suffix states, as
 * predict reads the same name (docs/formats/runs-table.md, "How wattcast writes tables").
 * The row was written bf16 (no weights column), so fit took an fp8 run
 * as bf16. A name stating none stays bf16.
 */
#include "tests/support/support.h"
#include "tests/support/synth_epoch.h"
#include "trace/ingest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1700000000.0

/* The weights of the one row `model`'s run is ingested to (-1: none). */
static int
row_weights(const char *dir, const char *model)
{
	wc_ingest_options opt;
	wc_ingest_result res = { NULL, 0, 0 };
	wc_error err;
	wc_ingest_options_init(&opt);
	snprintf(opt.defaults.platform, sizeof opt.defaults.platform, "A100");
	snprintf(opt.defaults.model, sizeof opt.defaults.model, "%s", model);
	opt.defaults.tp = 1;
	opt.defaults.active_params_b = 8.19;
	opt.defaults.utc_offset_s = 0;
	int rc = wc_ingest_run(dir, &opt, &res, &err), w = -1;
	CHECK_INT(rc, WC_OK);
	if (rc != WC_OK)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(res.n_rows >= 1);
	if (res.n_rows >= 1)
		w = (int)res.rows[0].run.weights;
	wc_ingest_result_clear(&res);
	return w;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_name_weights"), *d = path_join(root, "run");
	mkdir(d, 0755);
	static const int running[] = { 4, 4, 4, 4, 4, 4, 4 };
	synth_epoch_power(d, T0, 60, 200.0, 1.0);
	synth_epoch_tgi(d, T0, 1.0, running, 7);
	CHECK_INT(row_weights(d, "Qwen/Qwen3-8B-FP8"), WC_PREC_FP8);
	CHECK_INT(row_weights(d, "Qwen/Qwen3-8B-AWQ"), WC_PREC_INT4);
	CHECK_INT(row_weights(d, "Qwen/Qwen3-8B"), WC_PREC_BF16);
	free(d);
	free(root);
	return check_report("test_ingest_name_weights");
}
