/*
 * `predict inference --cache-layers` over a catalog model with a sliding
 * window (docs/capacity.md, "Bytes and FLOPs"; docs/cli.md): every layer
 * caching the whole context (cache_layers = layers, or 0 = every layer)
 * given alone drops the inherited window, as --sliding-window 0 would,
 * and the answer says so; it was refused on --sliding-window, a flag not
 * given, telling the user to lower --cache-layers. gemma-3-27b on one
 * H100 at 8 requests of 8000 + 100 tokens: 19 fit with its 1024-token
 * window on 52 of 62 layers, 5 with every layer full.
 */
#include "tests/support/support.h"

#include <string.h>

#define PREDICT(...)                                                                                        \
	((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100", "--model", "gemma-3-27b", \
	                        "--concurrency", "8", "--input-tokens", "8000", "--output-tokens", "100",           \
	                        __VA_ARGS__, NULL })

static const char dropped[] = "warning: sliding_window: gemma-3-27b's 1024-token window no longer applies: "
                              "every layer is charged the whole context";

/* Exit 0; `fits` requests fit; the window's warning iff `warned`. */
static void
answered(const char *const *argv, const char *fits, int warned)
{
	run_result r;
	char want[64];
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "  %s: stderr: %s", argv[14], r.err);
	snprintf(want, sizeof want, "max concurrency that fits    %s ", fits);
	CHECK_CONTAINS(r.out, want);
	CHECK_INT(strstr(r.out, dropped) != NULL, warned);
	run_result_free(&r);
}

int
main(void)
{
	/* every layer full, said three ways alone and once with the window off */
	answered(PREDICT("--cache-layers", "62"), "5", 1);
	answered(PREDICT("--cache-layers", "0"), "5", 1);
	answered(PREDICT("--sliding-window", "0"), "5", 1);
	answered(PREDICT("--cache-layers", "62", "--sliding-window", "0"), "5", 1);
	/* fewer full layers keep the catalog's window */
	answered(PREDICT("--cache-layers", "10"), "19", 0);
	/* a window given with every layer full is still refused, on the flag
	 * given, for the reason true of it */
	run_result r;
	CHECK(run_wattcast(PREDICT("--cache-layers", "62", "--sliding-window", "1024"), NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, "wattcast predict inference: --sliding-window: no layer attends within it");
	run_result_free(&r);
	return check_report("test_cli_window_override");
}
