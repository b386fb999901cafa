/*
 * `wattcast ingest`: the warning on rows without an output-token count
 * names the serving stack engine.csv's header is of, or none
 * (docs/formats/telemetry.md, "What ingest derives", Tokens). It said
 * "engine.csv has no generation_tokens_total, as TGI's has none" of every
 * log without that counter, an SGLang one (sglang:num_running_reqs, no
 * token counter) too, blaming a stack the file is not of.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "tests/support/synth_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two-request run with TGI's gauges (no token counter), its header
 * then `header` (two gauges, as TGI's). What the warning says, into w. */
static void
check_said(const char *root, const char *name, const char *header, const char *said)
{
	char *d = synth_pair_folder(root, name, SYNTH_PAIR_TGI, 10.0, 0);
	char *e = path_join(d, "engine.csv");
	char *text = test_slurp(e);
	CHECK(text != NULL);
	if (text) {
		char *body = strchr(text, '\n');
		size_t cap = strlen(header) + strlen(body) + 1;
		char *out = malloc(cap);
		snprintf(out, cap, "%s%s", header, body);
		CHECK(write_text(e, out) == 0);
		free(out);
	}
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	wc_error err;
	CHECK_INT(test_ingest_run(d, 0, &res, &w, &err), WC_OK);
	char want[700];
	snprintf(want, sizeof want, "%s: 1 of 1 rows have no output-token count (%s; no request log or token count)",
	         d, said);
	CHECK_CONTAINS(w.text, want);
	wc_ingest_result_clear(&res);
	free(text);
	free(e);
	free(d);
}

int
main(void)
{
	char *root = test_tmpdir("ingest_stack_named");
	/* SGLang's names: SGLang named, not TGI */
	check_said(root, "sglang", "timestamp,sglang:num_running_reqs,sglang:num_queue_reqs",
	           "engine.csv (SGLang's) has no generation_tokens_total");
	check_said(root, "sglang_bare", "timestamp,num_running_reqs,num_queue_reqs",
	           "engine.csv (SGLang's) has no generation_tokens_total");
	/* vLLM's */
	check_said(root, "vllm", "timestamp,num_requests_running,num_requests_waiting",
	           "engine.csv (vLLM's) has no generation_tokens_total");
	/* two stacks' names: none named */
	check_said(root, "mixed", "timestamp,vllm:num_requests_running,sglang:num_queue_reqs",
	           "engine.csv has no generation_tokens_total");
	/* TGI's, as before: it exports none */
	check_said(root, "tgi", "timestamp,tgi_batch_current_size,tgi_queue_size",
	           "engine.csv has no generation_tokens_total, as TGI's has none");
	free(root);
	return check_report("test_ingest_stack_named");
}
