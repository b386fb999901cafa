/*
 * The examples of docs/envelopes.md that the tester re-ran are what the
 * program prints: the budget plan of 57 A100 servers ("Budget plans"),
 * the closed loop sampled twice ("Outputs") and the H100 clients thinking
 * 10 s ("Workloads"). They said 19 871.45 W [13 581.7, 25 080] W while
 * the same page said 19 950.37 W, max 306.04 W under 314.33 W for
 * 317.32 under 325.88 W, and 213.85 W for 214.83 W.
 */
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *
answer(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *j = json_loads(r.out ? r.out : "", 0, NULL);
	CHECK(j != NULL);
	run_result_free(&r);
	return j;
}

static double
summary(const json_t *j, const char *key)
{
	return json_number_value(
	        json_object_get(json_object_get(json_object_get(json_object_get(j, "server"), "summary"), key), "value"));
}

/* 19950.37 as the page writes it: "19 950.37" */
static void
grouped(char *buf, size_t cap, double v, int decimals)
{
	char t[64];
	snprintf(t, sizeof t, "%.*f", decimals, v);
	int whole = 0;
	while (t[whole] && t[whole] != '.')
		whole++;
	size_t n = 0;
	for (int i = 0; t[i] && n + 2 < cap; i++) {
		if (i > 0 && i < whole && (whole - i) % 3 == 0)
			buf[n++] = ' ';
		buf[n++] = t[i];
	}
	buf[n] = '\0';
}

int
main(void)
{
	const char *page = "docs/envelopes.md";
	char phrase[256], a[32], b[32];
	const char *plan[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--poisson", "3",
		               "--budget", "20000", "--json", "--quiet", NULL };
	json_t *j = answer(plan);
	const json_t *p = json_object_get(j, "plan");
	CHECK_INT((int)json_integer_value(json_object_get(p, "fleet_size")), 57);
	grouped(a, sizeof a, json_number_value(json_object_get(p, "stat_w")), 2);
	grouped(b, sizeof b, json_number_value(json_object_get(json_object_get(p, "stat_interval_95"), "lo")), 1);
	snprintf(phrase, sizeof phrase, "keep the p95 at %s W ≤ 20 000 W, interval [%s, 25 080] W", a, b);
	CHECK(test_doc_says(page, phrase));
	json_decref(j);

	const char *closed[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		                 "--horizon", "10", "--sample", "9.95", "--json", "--quiet", NULL };
	j = answer(closed);
	snprintf(phrase, sizeof phrase, "2 samples, max %.2f W under a mean of %.2f W", summary(j, "max_w"),
	         summary(j, "mean_w"));
	CHECK(test_doc_says(page, phrase));
	json_decref(j);
	const char *warm[] = { "wattcast", "envelope", "--platform", "A100", "--model", "Qwen3-8B", "--closed", "8",
		               "--horizon", "10", "--sample", "9.95", "--warmup", "5", "--json", "--quiet", NULL };
	j = answer(warm);
	snprintf(phrase, sizeof phrase, "with `--warmup 5`, %.2f W under %.2f W", summary(j, "max_w"), summary(j, "mean_w"));
	CHECK(test_doc_says(page, phrase));
	json_decref(j);

	const char *think[] = { "wattcast", "envelope", "--platform", "H100", "--model", "Qwen3-8B", "--closed", "32",
		                "--think", "10", "--json", "--quiet", NULL };
	j = answer(think);
	snprintf(phrase, sizeof phrase, "10 s at 512 + 256 tokens answers a mean of %.2f W", summary(j, "mean_w"));
	CHECK(test_doc_says(page, phrase));
	json_decref(j);
	return check_report("test_cli_envelope_docs_examples");
}
