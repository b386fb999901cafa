/*
 * validate envelope --per-run names each run's model: the `measured` law's
 * model term and `moe` structure term depend on it, and the file told the
 * PowerTrace-Sim Gemma MoE run from the Qwen3-8B runs by active_params_b
 * alone. `model` is the last input column, so the columns before it keep
 * their places (docs/validation.md, "Envelopes"). The docs list every value
 * `service_times` takes, `capacity (in-sample)` among them.
 */
#include "tests/support/support.h"

#include "tests/support/synth_envelope.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
main(void)
{
	char *dir = test_tmpdir("cli_envelope_per_run_model");
	char *a = path_join(dir, "a"), *b = path_join(dir, "b"), *pr = path_join(dir, "pr.csv");
	mkdir(a, 0755);
	mkdir(b, 0755);
	free(synth_envelope_run(a, "r1", 0));
	free(synth_envelope_run(b, "r4", 12));
	const char *argv[] = { "wattcast", "validate", "envelope", "--profile", "paper", a, b, "--platform", "A100",
		               "--model", "Qwen3-8B", "--utc-offset", "0", "--replicas", "2", "--per-run", pr, NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	char *text = test_slurp(pr);
	size_t head_len = text ? strcspn(text, "\n") : 0;
	char head[2048];
	snprintf(head, sizeof head, "%.*s", (int)head_len, text ? text : "");
	/* the columns of 2026-12-07 in place, `model` appended to the inputs */
	CHECK_CONTAINS(head, "run_id,set,fold,platform,tp,active_params_b,arrivals,requests,horizon_s,response,tau_s,"
	                     "hold_s,decay_s,linger_bound_s,prefill_ratio,dynamic_scale,service_times,"
	                     "law_level_source,idle_power_w,interval_95_lo,interval_95_hi,model,quantity,");
	int col = test_csv_column(head, "model"), rows = 0;
	CHECK(col > 0);
	for (char *line = text && text[head_len] ? strtok(text + head_len + 1, "\n") : NULL; line && col > 0;
	     line = strtok(NULL, "\n")) {
		const char *cell = line;
		for (int c = 0; c < col && cell; c++) { /* no quoted cells before it */
			cell = strchr(cell, ',');
			cell = cell ? cell + 1 : NULL;
		}
		CHECK(cell && strncmp(cell, "Qwen3-8B,", 9) == 0);
		rows++;
	}
	CHECK_INT(rows, 10); /* two runs, five quantities */

	CHECK(test_doc_says("docs/validation.md", "the service-time source (`service_times`: `capacity` or "
	                                          "`roofline_standin`, as `--service` chose, with ` (in-sample)`"));
	CHECK(test_doc_says("docs/validation.md", "then `model`, the model the replay used"));

	free(text);
	free(pr);
	free(a);
	free(b);
	free(dir);
	return check_report("test_cli_envelope_per_run_model");
}
