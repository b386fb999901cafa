/*
 * Serving stacks an answer may be asked for (docs/capacity.md, "Serving
 * stacks"). The laws are calibrated on vLLM runs; naming another stack
 * does not change a number, it makes the answer say whose it is.
 */
#include "models/catalog.h"
#include "models/law.h"

#include <ctype.h>
#include <string.h>

/* What is documented of each stack's draw against vLLM's at the same batch
 * (docs/capacity.md, "Serving stacks"): TensorRT-LLM, DeepSpeed-MII and
 * eager Transformers were measured to draw differently; SGLang and TGI
 * were not measured. */
static const wc_engine_info engines[] = {
	{ "vllm", "vLLM", 1, NULL },
	{ "sglang", "SGLang", 0, NULL },
	{ "tensorrt-llm", "TensorRT-LLM", 1, "on H100 its power stays nearly flat with batch size" },
	{ "tgi", "TGI", 0, NULL },
	{ "deepspeed-mii", "DeepSpeed-MII", 1, NULL },
	{ "transformers", "HF Transformers", 1, "run eager, it is far slower per token" },
};

/* Other spellings people use: the package and image names. */
static const char *const aliases[][2] = {
	{ "trtllm", "tensorrt-llm" },
	{ "trt-llm", "tensorrt-llm" },
	{ "text-generation-inference", "tgi" },
	{ "mii", "deepspeed-mii" },
	{ "hf-transformers", "transformers" },
};

#define N_ENGINES (sizeof engines / sizeof engines[0])

size_t
wc_engine_count(void)
{
	return N_ENGINES;
}

const wc_engine_info *
wc_engine_at(size_t i)
{
	return i < N_ENGINES ? &engines[i] : NULL;
}

const char *
wc_engine_choices(void)
{
	return "vllm, sglang, tensorrt-llm, tgi, deepspeed-mii, transformers";
}

/* `s` lower case, '_' as '-' ("TensorRT_LLM" -> "tensorrt-llm"); 0 when
 * longer than the longest name could be. */
static size_t
engine_key(const char *s, char *out, size_t cap)
{
	size_t n = strlen(s);
	if (n + 1 > cap)
		return 0;
	for (size_t i = 0; i < n; i++)
		out[i] = s[i] == '_' ? '-' : (char)tolower((unsigned char)s[i]);
	out[n] = '\0';
	return n;
}

static const wc_engine_info *
by_name(const char *key)
{
	for (size_t i = 0; i < N_ENGINES; i++)
		if (strcmp(engines[i].name, key) == 0)
			return &engines[i];
	return NULL;
}

const wc_engine_info *
wc_engine_lookup(const char *name)
{
	char key[WC_NAME_SUGGEST_MAX + 1];
	if (!name || !engine_key(name, key, sizeof key))
		return NULL;
	const wc_engine_info *e = by_name(key);
	for (size_t i = 0; !e && i < sizeof aliases / sizeof aliases[0]; i++)
		if (strcmp(aliases[i][0], key) == 0)
			e = by_name(aliases[i][1]);
	return e;
}

/* The stack a name wc_engine_lookup does not know is likely a typo of,
 * by the models' rule (wc_model_suggest). */
static const char *
suggest(const char *name)
{
	char key[WC_NAME_SUGGEST_MAX + 1];
	size_t nk = engine_key(name, key, sizeof key), best_d = (size_t)-1, best_len = 0;
	const char *best = NULL;
	int unique = 0;
	for (size_t i = 0; nk && i < N_ENGINES + sizeof aliases / sizeof aliases[0]; i++) {
		const char *cand = i < N_ENGINES ? engines[i].name : aliases[i - N_ENGINES][0];
		const char *stack = i < N_ENGINES ? cand : aliases[i - N_ENGINES][1];
		size_t d = wc_name_edit_distance(key, nk, cand, strlen(cand));
		if (d < best_d) {
			best_d = d;
			best_len = strlen(cand); /* the spelling it is a typo of */
			best = stack;
			unique = 1;
		} else if (d == best_d && strcmp(stack, best) != 0) {
			unique = 0; /* as near to another stack: no guess */
		}
	}
	return best && wc_name_is_typo(best_d, best_len, unique) ? best : NULL;
}

int
wc_engine_parse(const char *name, const char **out, wc_error *err)
{
	if (!name) {
		*out = WC_CALIBRATED_ENGINE;
		return WC_OK;
	}
	const wc_engine_info *e = wc_engine_lookup(name);
	if (e) {
		*out = e->name;
		return WC_OK;
	}
	const char *typo = suggest(name);
	return wc_error_set(err, WC_EINVAL, "engine: unknown serving stack '%.40s'%s%s%s (accepted: %s)", name,
	                    typo ? ": did you mean " : "", typo ? typo : "", typo ? "?" : "", wc_engine_choices());
}

const char *
wc_config_engine(const wc_config *c)
{
	return c->engine ? c->engine : WC_CALIBRATED_ENGINE;
}
