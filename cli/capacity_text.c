/* cli/: the capacity answer of `predict inference` for people: one line
 * per quantity with its interval, what the intervals cover, the memory
 * line and the warnings (docs/cli.md, "predict inference"). */
#include "cli_flexibility.h"
#include "predict/capacity_predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
print_value(const char *label, const wc_capacity_prediction *cp, int k, const char *unit, const char *fmt)
{
	if (!isfinite(cp->value[k]))
		return;
	printf("  %-28s ", label);
	printf(fmt, cp->value[k]);
	printf(" %s", unit);
	if (isfinite(cp->lo[k])) {
		printf("   95 %% ");
		printf(fmt, cp->lo[k]);
		printf("-");
		printf(fmt, cp->hi[k]);
	}
	putchar('\n');
}

/* What the intervals cover, one line per kind (docs/intervals.md). */
static void
print_covers(const wc_capacity_prediction *cp)
{
	for (int k = 0; k < WC_CAPQ_COUNT; k++) {
		int first = 1;
		if (!isfinite(cp->lo[k]) || !cp->covers[k])
			continue;
		for (int j = 0; j < k && first; j++)
			first = !(isfinite(cp->lo[j]) && cp->covers[j] && strcmp(cp->covers[j], cp->covers[k]) == 0);
		if (!first)
			continue;
		printf("  intervals of %s", wc_capacity_output_name(k));
		for (int j = k + 1; j < WC_CAPQ_COUNT; j++)
			if (isfinite(cp->lo[j]) && cp->covers[j] && strcmp(cp->covers[j], cp->covers[k]) == 0)
				printf(", %s", wc_capacity_output_name(j));
		printf(" cover: %s\n", cp->covers[k]);
	}
	for (int k = 0; k < WC_CAPQ_COUNT; k++)
		if (isfinite(cp->value[k]) && !isfinite(cp->lo[k]) && cp->covers[k])
			printf("  interval of %s: %s\n", wc_capacity_output_name(k), cp->covers[k]);
}

void
cli_print_capacity(const wc_config *c, const wc_capacity_prediction *cp)
{
	/* the counts as given (WC_NUM_TEXT): %g printed 1234567 as 1.23457e+06 */
	printf("  capacity: %s, %s input + %s output tokens per request", cp->open_loop ? "open loop" : "closed loop",
	       WC_NUM_TEXT(c->input_tokens), WC_NUM_TEXT(c->output_tokens));
	if (cp->open_loop)
		/* the rate to the capacity's ten digits, so the two compare on
		 * screen as they do in the answer (docs/cli.md) */
		printf(", %.10g requests/s (capacity %.10g requests/s%s)", c->request_rate, cp->capacity_rate,
		       !cp->over_capacity ? "" : wc_capacity_rate_at(c->request_rate, cp->capacity_rate) ? ": AT CAPACITY"
		                                                                                       : ": OVER CAPACITY");
	putchar('\n');
	print_value("mean running requests", cp, WC_CAPQ_RUNNING, "", "%.4g");
	print_value("latency", cp, WC_CAPQ_LATENCY, "s", "%.4g");
	print_value("time to first token", cp, WC_CAPQ_TTFT, "s", "%.4g");
	print_value("throughput", cp, WC_CAPQ_THROUGHPUT, "tokens/s", "%.5g");
	print_value("energy per output token", cp, WC_CAPQ_E_TOKEN, "J", "%.4g");
	print_value("energy per request", cp, WC_CAPQ_E_REQUEST, "J", "%.5g");
	print_value("energy per hour", cp, WC_CAPQ_E_HOUR, "kWh", "%.4g");
	print_value("cost per request", cp, WC_CAPQ_COST_REQUEST, "", "%.4g");
	print_value("cost per million tokens", cp, WC_CAPQ_COST_MTOK, "", "%.4g");
	print_value("cost per hour", cp, WC_CAPQ_COST_HOUR, "", "%.4g");
	print_value("CO2 per request", cp, WC_CAPQ_CO2_REQUEST, "g", "%.4g");
	print_value("CO2 per million tokens", cp, WC_CAPQ_CO2_MTOK, "g", "%.5g");
	print_value("CO2 per hour", cp, WC_CAPQ_CO2_HOUR, "g", "%.5g");
	printf("  %-28s %.0f (memory %.1f of %.1f GB usable at this load, %.1f GB more kept for the engine's "
	       "workspace)\n", "max concurrency that fits", cp->max_concurrency_fit, cp->memory_need_gb,
	       cp->memory_available_gb - cp->memory_workspace_gb, cp->memory_workspace_gb);
	print_covers(cp);
	for (int i = 0; i < cp->n_warnings; i++)
		printf("  warning: %s\n", cp->warnings[i]);
}
