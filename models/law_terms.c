/*
 * Covariates and names of the inference law's structure terms
 * (models/law.h, docs/inference-law.md "Structure terms").
 */
#include "models/evaluate.h"

#include "models/capacity_model.h"
#include "models/catalog.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *
wc_law_term_name(wc_law_term k)
{
	static const char *const names[WC_LT_COUNT] = { "arch_moe", "arch_hybrid", "log_tp", "prompt_share" };
	return (unsigned)k < WC_LT_COUNT ? names[k] : "?";
}

/* The groups a list may name, and the terms each adds. */
static const struct {
	const char *name;
	unsigned mask;
} groups[] = {
	{ "arch", WC_LT_BIT(WC_LT_MOE) | WC_LT_BIT(WC_LT_HYBRID) },
	{ "moe", WC_LT_BIT(WC_LT_MOE) },
	{ "hybrid", WC_LT_BIT(WC_LT_HYBRID) },
	{ "tp", WC_LT_BIT(WC_LT_TP) },
	{ "prompt", WC_LT_BIT(WC_LT_PROMPT) },
	{ "none", 0u },
};

int
wc_law_terms_parse(const char *list, unsigned *mask, wc_error *err)
{
	*mask = 0;
	const char *p = list ? list : "";
	int items = 0, none = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		size_t g = 0, n = sizeof groups / sizeof groups[0];
		while (g < n && !(strlen(groups[g].name) == len && strncmp(groups[g].name, p, len) == 0))
			g++;
		if (g == n)
			return wc_error_set(err, WC_EINVAL,
			                    "law-terms: unknown term '%.*s' (choose from arch, moe, hybrid, tp, "
			                    "prompt or none, comma-separated)", (int)len, p);
		/* A list that says a term twice, or none beside terms, asks two
		 * things; read as their union it passed for the other request
		 * (docs/cli.md, "fit inference"). */
		if (*mask & groups[g].mask)
			return wc_error_set(err, WC_EINVAL,
			                    "law-terms: '%s' names a term given already in '%.64s'%s: name each term "
			                    "once", groups[g].name, list, strstr(list, "arch") ? " (arch is moe and hybrid)" : "");
		none |= groups[g].mask == 0;
		items++;
		if (none && items > 1)
			return wc_error_set(err, WC_EINVAL,
			                    "law-terms: 'none' beside other items in '%.64s': give none alone, or the "
			                    "terms without it", list);
		*mask |= groups[g].mask;
		if (p[len] == '\0')
			return WC_OK;
		p += len + 1;
	}
}

double
wc_config_input_tokens(const wc_config *c, const wc_capacity_params *cap)
{
	if (c->input_tokens > 0.0)
		return c->input_tokens;
	const wc_capacity_workload *w = cap && cap->present && c->set ? wc_capacity_workload_find(cap, c->set) : NULL;
	return w && w->input_tokens.value > 0.0 ? w->input_tokens.value : 0.0;
}

double
wc_law_term_covariate(wc_law_term k, const wc_config *c, const wc_capacity_params *cap)
{
	const wc_architecture a = c->arch ? c->arch->architecture : WC_ARCH_UNKNOWN;
	switch (k) {
	case WC_LT_MOE:
		return a == WC_ARCH_MOE ? 1.0 : 0.0;
	case WC_LT_HYBRID:
		return a == WC_ARCH_HYBRID ? 1.0 : 0.0;
	case WC_LT_TP:
		return c->tp >= 1 ? log((double)c->tp) : 0.0;
	case WC_LT_PROMPT: {
		const double in = wc_config_input_tokens(c, cap);
		if (in > 0.0 && c->output_tokens > 0.0 && isfinite(in + c->output_tokens))
			return in / (in + c->output_tokens) - 0.5;
		return 0.0;
	}
	default:
		return 0.0;
	}
}
