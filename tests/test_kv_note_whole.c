/*
 * The KV cache's preemption warning stays whole at its longest
 * (docs/capacity.md, "Memory as vLLM does it"): a running_series of the
 * largest counts the inputs allow (10^6 asked, one fewer held), 10^8-token
 * lengths and the largest group's cache (MI325X's 256 GB x 4096 GPUs),
 * its share of time in %.3g's longest form. Worded as it was, the series'
 * warning took 279 bytes (301 without lengths) and was cut to 255 before
 * the share of time it is there to give, already with four-digit counts.
 */
#include "predict/predict_internal.h"
#include "data/params_file.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <string.h>

static void
whole(const char *note, const char *numbers[])
{
	const size_t n = strlen(note);
	CHECK(n <= WC_WARNING_LEN - 1);
	CHECK(n > 0 && note[n - 1] == ')');          /* its last word, not a cut */
	CHECK(strstr(note, "...") == NULL);
	for (int i = 0; numbers[i]; i++)
		CHECK_CONTAINS(note, numbers[i]);
	if (n > WC_WARNING_LEN - 1 || note[n - 1] != ')')
		fprintf(stderr, "  %zu bytes: %s\n", n, note);
}

int
main(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_predictor *pr = test_measured_predictor(&p);
	wc_config c = test_catalog_config("MI325X", 4096, "Qwen3-8B", 999999);
	char note[4 * WC_WARNING_LEN];
	/* the series, with lengths: its share of time kept */
	c.input_tokens = 1e8;
	c.output_tokens = 1e8;
	wc__predict_kv_wait_note(&p, &c, "running_series", 999999, 999998, 1.23456e-7, 0, note, WC_WARNING_LEN);
	whole(note, (const char *[]){ "running_series: up to 999999 requests asked", "holds about 999998",
	                              "at a mean 150000008 tokens each", "at most 999998", "1.23e-05 % of its time",
	                              " GB after the weights, bf16)", NULL });
	/* the same without lengths: one block each */
	c.input_tokens = c.output_tokens = 0;
	wc__predict_kv_wait_note(&p, &c, "running_series", 999999, 999998, 1.23456e-7, 0, note, WC_WARNING_LEN);
	whole(note, (const char *[]){ "of one 16-token block each", "at most 999998", "1.23e-05 % of its time",
	                              NULL });
	/* a concurrency's, whose latency includes the wait, and the plain one */
	c.input_tokens = c.output_tokens = 1e8;
	wc__predict_kv_wait_note(&p, &c, "concurrency", 999999, 999998, -1.0, 1, note, WC_WARNING_LEN);
	whole(note, (const char *[]){ "concurrency: 999999 requests asked", "latency and time to first token", NULL });
	wc__predict_kv_wait_note(&p, &c, "concurrency", 999999, 999998, -1.0, 0, note, WC_WARNING_LEN);
	whole(note, (const char *[]){ "runs 999998 and preempts the rest", NULL });
	wc_predictor_free(pr);
	wc_params_clear(&p);
	return check_report("test_kv_note_whole");
}
