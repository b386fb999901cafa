/*
 * The A100 figures docs/fitting.md ("Physical bounds", "Platforms without
 * a fitted level") and docs/capacity.md (the knee of "predict
 * flexibility") quote from the `measured` profile are the binary's: after
 * A100's idle became the real runs' 84.21 W (2026-12-07) the pages kept
 * 199 W for the A100's 210.3 W at one running Qwen3-8B, 233 W for the
 * A100-40GB's 235.0 W, 292 W for the H100 NVL's 294.4 W, 499 W for the
 * saturation P0 + S the warning says is 510 W, and 110.1 W against
 * 110.6 W for the knee's 111.6 W against 112.0 W unconstrained.
 */
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after `label` in the output of `argv` (NAN when absent). */
static double
said_after(const char *const *argv, const char *label)
{
	char *out = test_run_said(argv);
	const char *p = out ? strstr(out, label) : NULL;
	double v = p ? strtod(p + strlen(label), NULL) : NAN;
	free(out);
	return v;
}

static double
node_power(const char *platform, const char *concurrency)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--profile", "measured", "--platform", platform,
		               "--model", "Qwen3-8B", "--concurrency", concurrency, NULL };
	return said_after(argv, "node power");
}

static void
page_says(const char *rel, const char *fmt, double a, double b)
{
	char phrase[256];
	snprintf(phrase, sizeof phrase, fmt, a, b);
	CHECK(test_doc_says(rel, phrase)); /* which says what it missed */
}

int
main(void)
{
	const double a100 = node_power("A100", "1"), a40 = node_power("A100-40GB", "1"),
	             nvl = node_power("H100-NVL", "32");
	page_says("docs/fitting.md", "answers Qwen3-8B at 1 running %.0f W", a100, 0);
	page_says("docs/fitting.md", "%.0f W per GPU at one running Qwen3-8B under `measured` where the A100 level says "
	          "%.0f W", a40, a100);
	page_says("docs/fitting.md", "the `measured` profile says %.0f W", nvl, 0);
	const char *sat[] = { "wattcast", "predict", "inference", "--profile", "measured", "--platform", "A100", "--model",
		              "Qwen3-32B", "--concurrency", "2000", NULL };
	page_says("docs/fitting.md", "The `measured` profile's A100 (%.0f W)", said_after(sat, "saturates at P0 + S ="),
	          0);
	const char *flex[] = { "wattcast", "predict", "flexibility", "--profile", "measured", "--platform", "A100-PCIe",
		               "--model", "Qwen3-8B", "--rate", "0.5", "--concurrency", "8", "--input-tokens", "8192",
		               "--output-tokens", "16", NULL };
	const double free_w = said_after(flex, "unconstrained: node power");
	char *out = test_run_said(flex);
	/* the knee's row: "1192 <cap> <node W> ..." */
	const char *row = out ? strstr(out, "\n       1192 ") : NULL;
	double cap = NAN, knee = NAN;
	CHECK(row && sscanf(row, " 1192 %lf %lf", &cap, &knee) == 2);
	CHECK(out && strstr(out, "knee 1192 MHz"));
	free(out);
	page_says("docs/capacity.md", "at 1192 MHz now, %.1f W against %.1f W", knee, free_w);
	return check_report("test_fitting_docs_a100");
}
