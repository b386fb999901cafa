/*
 * The caveat of a law without a prefill term ("input_tokens: prefill takes
 * N % of the engine's time ...", docs/inference-law.md, "Prefill-aware
 * form") quotes, for an open loop, the open loop's own share of its busy
 * time, lambda t_pre / P(N >= 1) (docs/capacity.md, "Closed loop, open
 * loop, energy"), the share a prefill-aware set mixes into the same answer
 * -- not the closed loop's at the mean count m, max(m, 1) t_pre /
 * latency(max(m, 1)), which it quoted: A100 Qwen3-8B at 0.2/s of 32 000 +
 * 256 tokens said 70 % where the open loop prefills 63 % of its busy
 * time, at 0.05/s of 32 000 + 512 28 % for 30 %, and H100 Llama-3.1-8B at
 * 0.1/s of 16 000 + 1 024 4 % for 6 % (the span form of the caveat). The
 * built-in measured profile (no prefill term); t_pre read back from the
 * answer's own times, t_pre = (L_out ttft - latency) / (L_out - 1) (its
 * latency L_out t_dec + n t_pre, its TTFT t_pre + t_dec + (n - 1) t_pre /
 * L_out, at the count n it takes); P(N >= 1) of the M/M/c count with c
 * the KV cache's limit. The quoted whole per cent is the open loop's
 * share rounded, and differs from the closed loop's.
 */
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* t_pre from an answer's latency and TTFT (at any count it takes). */
static double
t_pre_of(const json_t *j, double out_tokens)
{
	return (out_tokens * test_json_num(j, "capacity/ttft_s") - test_json_num(j, "capacity/latency_s")) /
	       (out_tokens - 1.0);
}

/* P(N >= 1) of the M/M/c count in service at offered load m. */
static double
busy_share(double m, double c)
{
	double term = 1.0, sum = 0.0;
	for (int k = 0; k < (int)c; k++) {
		sum += term;
		term *= m / (k + 1);
	}
	return 1.0 - 1.0 / (sum + term / (1.0 - m / c));
}

/* The whole per cent the caveat quotes; -1 when it says none. */
static int
quoted_percent(const json_t *j)
{
	const json_t *w = json_object_get(j, "warnings");
	for (size_t i = 0; i < json_array_size(w); i++) {
		const char *s = json_string_value(json_array_get(w, i)), *at = s ? strstr(s, "prefill takes ") : NULL;
		int pct;
		if (at && sscanf(at, "prefill takes %d %%", &pct) == 1)
			return pct;
	}
	return -1;
}

static void
quotes_open_share(const char *platform, const char *model, const char *in, const char *out, const char *rate)
{
	const char *open[] = { "wattcast", "predict", "inference", "--platform", platform, "--model", model,
		               "--concurrency", "256", "--input-tokens", in, "--output-tokens", out, "--rate", rate,
		               "--json", NULL };
	json_t *o = test_run_json(open, NULL);
	const double l_out = atof(out), lambda = atof(rate), m = test_json_num(o, "mean_running"),
	             c = test_json_num(o, "max_concurrency_fit");
	const double share = lambda * t_pre_of(o, l_out) / busy_share(m, c);
	char at[32];
	snprintf(at, sizeof at, "%.12g", m);
	const char *closed[] = { "wattcast", "predict", "inference", "--platform", platform, "--model", model,
		                 "--concurrency", at, "--input-tokens", in, "--output-tokens", out, "--json", NULL };
	json_t *k = test_run_json(closed, NULL);
	const double n = fmax(m, 1.0), closed_share = n * t_pre_of(k, l_out) / test_json_num(k, "capacity/latency_s");
	const int pct = quoted_percent(o);
	fprintf(stderr, "%s %s %s + %s at %s/s: %.3f running of %g, open share %.4f, closed %.4f, quoted %d %%\n",
	        platform, model, in, out, rate, m, c, share, closed_share, pct);
	CHECK(m < 0.9 * c); /* a steady queue, well below the limit */
	CHECK_INT(pct, (int)lround(100.0 * share));
	CHECK(pct != (int)lround(100.0 * closed_share)); /* the case tells the two apart */
	json_decref(o);
	json_decref(k);
}

int
main(void)
{
	quotes_open_share("A100", "Qwen3-8B", "32000", "256", "0.2");
	quotes_open_share("A100", "Qwen3-8B", "32000", "512", "0.05");
	quotes_open_share("H100", "Llama-3.1-8B", "16000", "1024", "0.1");
	return check_report("test_open_loop_prefill_caveat");
}
