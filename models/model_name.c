/*
 * A model name as a user gives it (docs/capacity.md, "Model names"): the
 * catalog entry that answers it, the weights' precision its suffix states,
 * and whether the suffix says anything the rule does not know -- then the
 * answer is the entry's and says so. One rule for the CLI and HTTP; the
 * fit and import read their own precision columns and keep wc_model_lookup.
 */
#include "models/catalog.h"
#include "models/error.h"
#include "models/law.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Words a suffix may carry without changing the weights' shape: tuning
 * ("-Instruct", "-it") and release tags ("-2507", "-v2") of the same
 * architecture, as the repository's runs name them. */
static int
is_tag(const char *w, size_t n)
{
	static const char *const tags[] = { "Instruct", "Thinking", "Chat", "Base", "it", "pt", "hf" };
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		if (strlen(tags[i]) == n && strncasecmp(w, tags[i], n) == 0)
			return 1;
	size_t d = (n > 1 && (w[0] == 'v' || w[0] == 'V')) ? 1 : 0; /* "v2", "v0.3" */
	if (n == d || (d == 0 && n != 4))                           /* else a date: "2507" */
		return 0;
	for (size_t i = d; i < n; i++) /* a version's dots only between digits: Mistral's "v0.1" */
		if (!isdigit((unsigned char)w[i]) && !(d && w[i] == '.' && i > d && i + 1 < n &&
		                                       isdigit((unsigned char)w[i - 1]) && isdigit((unsigned char)w[i + 1])))
			return 0;
	return 1;
}

/* Words that say nothing of the weights' size (docs/capacity.md, "Model
 * names"), read as if absent so a precision the name states holds: the
 * publisher's own name repeated after the model's (unsloth's
 * "unsloth/Qwen2.5-72B-Instruct-unsloth-bnb-4bit", `org` the part of the
 * id before its '/', `org_n` its length, 0 when none), and the words of
 * how a quantization was chosen, not its width: Unsloth's "unsloth" (its
 * Dynamic 4-bit quants) and "dynamic" (activation scales taken at run
 * time, "FP8-Dynamic"). The one list; a word that is neither a tag, a
 * precision nor one of these is not understood. */
static int
says_no_size(const char *w, size_t n, const char *org, size_t org_n)
{
	static const char *const words[] = { "unsloth", "dynamic" };
	if (org_n && n == org_n && strncasecmp(w, org, n) == 0)
		return 1;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && strncasecmp(w, words[i], n) == 0)
			return 1;
	return 0;
}

/* A word that states the weights' bytes (docs/capacity.md, "Model
 * names"). `format`: the quantization it names when wattcast has no
 * precision of its own for it and counts it as `p`'s bytes -- 8-bit
 * integers as fp8 (one byte a weight), 4-bit floats and NF4 as int4 (half
 * a byte), as MXFP4 already is. A `method` ("GPTQ", "bnb") takes the
 * width another word of the name states ("GPTQ-Int8"), else its own `p`
 * (-1: it has none, and alone says nothing); its 4-bit form is `format`. */
typedef struct {
	const char *word;
	int p;
	const char *format;
	int method;
} quant_word;

static const quant_word *
quant_word_find(const char *w, size_t n)
{
	static const quant_word words[] = {
		{ "FP8", WC_PREC_FP8, NULL, 0 },      { "BF16", WC_PREC_BF16, NULL, 0 },
		{ "Int4", WC_PREC_INT4, NULL, 0 },    { "AWQ", WC_PREC_INT4, NULL, 0 },
		{ "W4A16", WC_PREC_INT4, NULL, 0 },   { "4bit", WC_PREC_INT4, NULL, 0 },
		{ "Int8", WC_PREC_FP8, "int8", 0 },   { "W8A8", WC_PREC_FP8, "int8", 0 },
		{ "W8A16", WC_PREC_FP8, "int8", 0 },  { "8bit", WC_PREC_FP8, "int8", 0 },
		{ "FP4", WC_PREC_INT4, "fp4", 0 },    { "NVFP4", WC_PREC_INT4, "nvfp4", 0 },
		{ "MXFP4", WC_PREC_INT4, "mxfp4", 0 }, { "NF4", WC_PREC_INT4, "nf4", 0 },
		{ "GPTQ", WC_PREC_INT4, NULL, 1 },    { "bnb", -1, "nf4", 1 }, /* bitsandbytes' 4-bit is NF4 */
	};
	if (n > 10 && strncasecmp(w, "quantized.", 10) == 0) { /* Red Hat's "-quantized.w4a16", ".w8a8" */
		w += 10;
		n -= 10;
	}
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i].word) == n && strncasecmp(w, words[i].word, n) == 0)
			return &words[i];
	return NULL;
}

void
wc_model_name_read(const char *name, wc_model_name *out)
{
	memset(out, 0, sizeof *out);
	out->weights = WC_PREC_BF16;
	wc_model_match mm;
	wc_model_match_name(name, &mm);
	out->prefix = mm.prefix;
	out->embedded = mm.embedded;
	if (!(out->entry = mm.entry))
		return;
	const char *s = mm.rest;
	const char *slash = strrchr(name, '/'), *org = name;
	for (const char *o = name; slash && o < slash; o++) /* "hf.co/unsloth/...": the segment before the model */
		if (*o == '/')
			org = o + 1;
	const size_t org_n = slash ? (size_t)(slash - org) : 0;
	const quant_word *method = NULL;
	int after_precision = 0;
	while (*s == '-') {
		const char *w = ++s;
		size_t n = strcspn(w, "-");
		const quant_word *q = quant_word_find(w, n);
		if (!q && after_precision && n == 2 && strncasecmp(w, "KV", 2) == 0) {
			/* Neural Magic's "-FP8-KV": the checkpoint carries KV-cache
			 * scales beside its weights, which the precision before it
			 * states (docs/capacity.md, "Model names") */
			out->kv_scales = 1;
		} else if (q && q->method) {
			if (method)
				out->renamed = 1; /* "GPTQ-bnb" */
			method = q;
		} else if (q) {
			if (out->states_weights && (wc_precision)q->p != out->weights)
				out->renamed = 1; /* "-FP8-AWQ": no one precision */
			out->states_weights = 1;
			out->weights = (wc_precision)q->p;
			out->format = q->format;
		} else if (!is_tag(w, n) && !says_no_size(w, n, org, org_n) &&
		           !wc_model_match_size_word(w, n, out->entry)) { /* "12B" of Mistral-Nemo: its own size */
			out->renamed = 1; /* "Banana", "exl2", "GGUF" */
		}
		after_precision = q && !q->method;
		s = w + n;
	}
	if (method && out->states_weights && out->weights == WC_PREC_INT4 && !out->format)
		out->format = method->format; /* "bnb-4bit": NF4 */
	else if (method && !out->states_weights && method->p >= 0) {
		out->states_weights = 1; /* "GPTQ" alone: int4 */
		out->weights = (wc_precision)method->p;
	} else if (method && !out->states_weights) {
		out->renamed = 1; /* "bnb" without its width */
	}
	if (out->renamed) { /* a name not understood states nothing */
		out->states_weights = 0;
		out->weights = WC_PREC_BF16;
		out->format = NULL;
	}
	if (!out->states_weights) /* the precision it is published in */
		out->weights = (wc_precision)out->entry->weights;
}

const char *
wc_model_name_counted(const char *name, wc_precision weights)
{
	wc_model_name mn;
	wc_model_name_read(name, &mn);
	return mn.entry && mn.format && mn.weights == weights ? mn.format : NULL;
}

wc_precision
wc_model_name_run_weights(const char *name, wc_precision otherwise)
{
	wc_model_name mn;
	wc_model_name_read(name, &mn);
	return mn.entry && mn.states_weights ? mn.weights : otherwise;
}

int
wc_model_name_apply(const char *name, int weights_given, wc_config *c, wc_error *err)
{
	wc_model_name mn;
	wc_model_name_read(name, &mn);
	if (!mn.entry)
		return wc_error_set(err, WC_ENOTFOUND, "model: unknown model '%.64s'", name ? name : "");
	if (mn.states_weights && weights_given && c->weights != mn.weights) {
		char counted[32] = ""; /* "int8 weights (counted as fp8)": the weights it accepts */
		if (mn.format)
			snprintf(counted, sizeof counted, " (counted as %s)", wc_precision_name(mn.weights));
		return wc_error_set(err, WC_EINVAL, "weights: '%.64s' names %s weights%s, but weights %s were given",
		                    name, mn.format ? mn.format : wc_precision_name(mn.weights), counted,
		                    wc_precision_name(c->weights));
	}
	if (mn.states_weights || !weights_given)
		c->weights = mn.weights; /* the name's, else as published: gpt-oss in MXFP4 */
	wc_config_set_model(c, name); /* a caller amending the architecture points c->arch at its copy after */
	return WC_OK;
}

int
wc_model_name_custom(const char *name, double active_params_b, wc_config *c, wc_error *err)
{
	wc_model_name mn;
	/* Model terms keep a name of up to WC_MODEL_NAME_MAX - 1 bytes whole,
	 * as runs tables take it (docs/formats/runs-table.md): a longer one
	 * could only be matched by a cut, which merges names that differ late. */
	size_t len = name ? strlen(name) : 0;
	if (len >= WC_MODEL_NAME_MAX)
		return wc_error_set(err, WC_ERANGE, "model: %zu bytes, more than the %d a model name may have", len,
		                    WC_MODEL_NAME_MAX - 1);
	wc_model_name_read(name, &mn);
	if (mn.entry)
		return wc_error_set(err, WC_EINVAL, "model: '%.64s' is %s %s (%g B active): give the model or its "
		                    "active parameters, not both", name, mn.embedded ? "answered as the" : "the catalog's",
		                    mn.entry->name, mn.entry->active_params_b);
	c->model = name;
	c->active_params_b = active_params_b;
	c->arch = NULL;
	return WC_OK;
}

void
wc_model_name_note(const char *name, int weights, int kv, char *buf, size_t cap)
{
	wc_model_name mn;
	wc_model_name_read(name, &mn);
	if (cap)
		buf[0] = '\0';
	/* a word not read left the weights as given or published: which were
	 * sized, in the words of a refusal of memory */
	char taken[96] = "";
	if (mn.entry && mn.renamed && weights >= 0)
		wc_model_name_taken(name, (wc_precision)weights, taken, sizeof taken);
	if (mn.entry && mn.embedded)
		snprintf(buf, cap, "model: '%.64s' answered as the architecture of %s named in it, not as the catalog's "
		         "%s%s", name, mn.entry->name, mn.prefix->name, taken);
	else if (mn.entry && mn.renamed)
		snprintf(buf, cap, "model: '%.64s' answered as the catalog's %s%s", name, mn.entry->name, taken);
	else if (mn.entry && mn.kv_scales && kv >= 0 && kv != WC_PREC_FP8)
		snprintf(buf, cap, "model: '%.64s' carries fp8 KV-cache scales, but the KV cache is sized as kv %s: "
		         "give kv fp8 if the engine stores it in fp8", name, wc_precision_name((wc_precision)kv));
}

void
wc_model_name_taken(const char *name, wc_precision weights, char *buf, size_t cap)
{
	wc_model_name mn;
	wc_model_name_read(name, &mn);
	if (cap)
		buf[0] = '\0';
	/* the name's words did not set the weights: say which were sized */
	if (mn.entry && mn.renamed)
		snprintf(buf, cap, " (weights taken as %s: give weights if not)", wc_precision_name(weights));
}

int
wc_model_name_other(const char *name, char *buf, size_t cap)
{
	wc_model_match mm;
	wc_model_match_name(name, &mm);
	if (cap)
		buf[0] = '\0';
	if (mm.entry || !mm.prefix)
		return 0;
	/* the word cut as a name is (docs/capacity.md, "Model names") */
	snprintf(buf, cap, "its word '%.*s' names a size other than the catalog's %s (%g B active)",
	         (int)(mm.word_n < 32 ? mm.word_n : 32), mm.word, mm.prefix->name, mm.prefix->active_params_b);
	return 1;
}
