/*
 * What an answer says of its weights' and KV cache's precision where the
 * power law has no term for it (docs/inference-law.md, "Precision terms"),
 * and of weights a model name states in a quantization wattcast counts as
 * another precision's bytes (docs/capacity.md, "Model names").
 */
#include "predict/predict.h"
#include "predict_internal.h"
#include "models/warnings.h"

#include <math.h>
#include <stdio.h>

int
wc__predict_precision_notes(const wc_params *p, const wc_level *lvl, const wc_config *c,
                            char notes[2][WC_WARNING_LEN])
{
	const struct {
		wc_setting setting;
		wc_precision prec;
	} used[2] = { { WC_SETTING_WEIGHTS, c->weights }, { WC_SETTING_KV, c->kv } };
	int n = 0;
	for (int i = 0; i < 2; i++) {
		/* "-GPTQ-Int8" is counted as fp8: int8 has no term of its own */
		const char *format =
			used[i].setting == WC_SETTING_WEIGHTS ? wc_model_name_counted(c->model, used[i].prec) : NULL;
		const int kept = wc_params_find_term(p, used[i].setting, used[i].prec, lvl->name) != NULL;
		if (used[i].prec == WC_PREC_BF16 || (kept && !format))
			continue;
		const char *field = used[i].setting == WC_SETTING_KV ? "kv_cache" : "weights";
		/* Prefill's FLOPs run at the datasheet's dense BF16 rate whatever
		 * the weights (docs/capacity.md, "Step time"): fp8 GEMMs on
		 * Hopper, Blackwell or MI300 may run up to twice as fast, which
		 * no step time here takes (the catalog's fp8_tflops is not used). */
		const char *rate = used[i].setting == WC_SETTING_WEIGHTS ? "; prefill computes at the BF16 rate" : "";
		const char *name = wc_precision_name(used[i].prec);
		if (kept) { /* the power of the precision it is counted as */
			snprintf(notes[n++], WC_WARNING_LEN, "%s: %s on %s has no term of its own; its power is predicted as "
			         "%s's (step times and memory use %s's bytes%s)", field, format, lvl->name, name, name, rate);
			continue;
		}
		char what[48];
		if (format)
			snprintf(what, sizeof what, "%s (counted as %s)", format, name);
		else
			snprintf(what, sizeof what, "%s", name);
		const wc_precision_term *t =
			wc_params_find_tested_term(p, used[i].setting, used[i].prec, lvl->name);
		/* only the power law falls back: the capacity model's step times
		 * and memory count the precision's own bytes (docs/fitting.md) */
		if (t && isfinite(t->p_value))
			snprintf(notes[n++], WC_WARNING_LEN, "%s: %s on %s has no fitted term (tested on %d pairs, p = %.2g, "
			         "not significant); its power is predicted as bf16's (step times and memory use %s's "
			         "bytes%s)", field, what, lvl->name, t->pairs, t->p_value, name, rate);
		else
			snprintf(notes[n++], WC_WARNING_LEN, "%s: %s on %s has no fitted term; its power is predicted as "
			         "bf16's (step times and memory use %s's bytes%s)", field, what, lvl->name, name, rate);
	}
	return n;
}
