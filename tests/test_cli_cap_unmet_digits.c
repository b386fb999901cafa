/*
 * A cap no clock meets names the draw above it with digits enough that it
 * never reads as the cap (the span rule of docs/inference-law.md, "Unseen
 * configurations"). H100, Qwen3-8B, 500 running under 200 W draws
 * 200.027 W at 345 MHz, and `predict inference` said "still above the
 * 200 W cap" beside "node power 200.0 W" and "it draws 200.0 W per GPU
 * while serving"; a series' unmet steps read "those steps draw 200.0 W per
 * GPU on average" the same way. Now 200.03.
 */
#include "predict/capacity_predict.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <string.h>

int
main(void)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B", "--tp",
		               "1", "--concurrency", "500", "--power-cap", "200", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	const char *out = r.out ? r.out : "";
	CHECK_CONTAINS(out, "still above the 200 W cap per GPU");
	CHECK_CONTAINS(out, "node power       200.03 W");
	CHECK_CONTAINS(out, "per-GPU power    200.03 W");
	CHECK_CONTAINS(out, "at the clock of least power (345 MHz) it draws 200.03 W per GPU while serving");
	CHECK(strstr(out, "200.0 W") == NULL);
	run_result_free(&r);

	/* a series' unmet steps, and a draw one decimal tells apart, as before */
	char note[WC_WARNING_LEN];
	wc_predict_cap_unmet_note(200, "H100", 345, 0.5, 200.027, note, sizeof note);
	CHECK_CONTAINS(note, "those steps draw 200.03 W per GPU on average");
	wc_predict_cap_unmet_note(150, "H100", 345, 0.5, 184.93, note, sizeof note);
	CHECK_CONTAINS(note, "those steps draw 184.9 W per GPU on average");
	char buf[40];
	CHECK(strcmp(wc_predict_power_text(buf, sizeof buf, 300.0, 300.0), "300.0") == 0);
	return check_report("test_cli_cap_unmet_digits");
}
