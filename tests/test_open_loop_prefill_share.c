/*
 * An open loop's prefill share under the prefill-aware form
 * (docs/capacity.md, "Closed loop, open loop, energy"): the share of its
 * busy time spent prefilling, lambda t_pre / P(N >= 1), with t_pre the
 * closed loop's at the count a request meets, 1 + m for the Poisson count
 * (read back from the closed loop there: rho_c = n t_pre / latency(n), whose
 * latency is the open loop's). It was the closed loop's share at m: A100
 * Llama-3.1-8B at 0.05/s of 16 000 + 2 048 tokens said 0.370 of busy time
 * and 324.5 W, where lambda t_pre / P(N >= 1) is 0.331 (320.8 W). Each
 * workload far below its limit (P(N >= 1) = 1 - exp(-m)); the share to 1e-6.
 */
#include "tests/support/run_json.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void
same_share(const char *platform, const char *model, const char *in, const char *out, const char *rate)
{
	const char *open[] = { "wattcast", "predict", "inference", "--profile", "paper-prefill", "--platform", platform,
		               "--model", model, "--concurrency", "256", "--input-tokens", in, "--output-tokens", out,
		               "--rate", rate, "--json", NULL };
	json_t *o = test_run_json(open, NULL);
	const double m = test_json_num(o, "mean_running"), lat = test_json_num(o, "capacity/latency_s"),
	             rho = test_json_num(o, "prefill_share"), lambda = atof(rate);
	char met[32];
	snprintf(met, sizeof met, "%.12g", 1.0 + m);
	const char *closed[] = { "wattcast", "predict", "inference", "--profile", "paper-prefill", "--platform", platform,
		                 "--model", model, "--concurrency", met, "--input-tokens", in, "--output-tokens", out,
		                 "--json", NULL };
	json_t *c = test_run_json(closed, NULL);
	const double rho_c = test_json_num(c, "prefill_share"), lat_c = test_json_num(c, "capacity/latency_s");
	const double t_pre = rho_c * lat_c / (1.0 + m), want = lambda * t_pre / (1.0 - exp(-m));
	fprintf(stderr, "%s %s %s + %s at %s/s: m %.4f, latency %.3f s (closed at %s: %.3f s), share %.4f, "
	        "lambda t_pre / P(N >= 1) %.4f\n", platform, model, in, out, rate, m, lat, met, lat_c, rho, want);
	CHECK(fabs(lat_c / lat - 1.0) < 1e-6); /* the open loop's times are the closed loop's at 1 + m */
	CHECK(fabs(rho / want - 1.0) < 1e-6);
	json_decref(o);
	json_decref(c);
}

int
main(void)
{
	same_share("A100", "Llama-3.1-8B", "16000", "2048", "0.05");
	same_share("A100", "Qwen3-8B", "32000", "2048", "0.02");
	same_share("H100", "Llama-3.1-8B", "16000", "1024", "0.1");
	return check_report("test_open_loop_prefill_share");
}
