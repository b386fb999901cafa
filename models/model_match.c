/*
 * Which catalog entry a model name is (docs/capacity.md, "Model names"):
 * the longest catalog name it starts with, unless a later word names
 * another catalog model or another size. Borrowed pointers into the
 * static catalog and into the name; no state.
 */
#include "models/catalog.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The longest catalog name `name` is, or starts with followed by '-'
 * ("Qwen3-8B-FP8", "Llama-3.1-8B-Instruct"), its length in *len. */
static const wc_model_info *
longest_prefix(const char *name, size_t *len)
{
	const wc_model_info *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < wc_model_count(); i++) {
		const wc_model_info *m = wc_model_at(i);
		size_t n = strlen(m->name);
		if (strcasecmp(name, m->name) == 0) {
			best = m;
			best_len = n;
			break;
		}
		if (strncasecmp(name, m->name, n) == 0 && name[n] == '-' && n > best_len) {
			best = m;
			best_len = n;
		}
	}
	*len = best_len;
	return best;
}

/* The parameters word w[0..n) states, billions, and in *unit what one
 * of its last digits is worth, per billion: "8B" (1), "0.5b" (10);
 * "135M" (1000: millions, written with three digits or more, as Qwen's
 * "-1M" names a context of a million tokens, not a size). 0 when it
 * states none ("A3B", "8x7B", "16E", "4bit", "v2"). */
static double
size_word(const char *w, size_t n, double *unit)
{
	size_t digits = 0, dot = 0;
	*unit = 1.0;
	if (n < 2 || n > 16)
		return 0.0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (isdigit((unsigned char)w[i]))
			digits++;
		else if (w[i] == '.' && !dot && digits && i + 2 < n)
			dot = i;
		else
			return 0.0;
	}
	char num[17];
	memcpy(num, w, n - 1);
	num[n - 1] = '\0';
	const double x = strtod(num, NULL);
	if (digits && (w[n - 1] == 'B' || w[n - 1] == 'b')) {
		*unit = dot ? pow(10.0, (double)(n - 2 - dot)) : 1.0;
		return x;
	}
	if ((w[n - 1] == 'M' || w[n - 1] == 'm') && !dot && digits >= 3) {
		*unit = 1e3;
		return x / 1e3;
	}
	return 0.0;
}

/* Whether a size of `b` billion, written to `unit` (size_word), is `m`'s:
 * a size its own name states ("8B" of Qwen3-8B), or its total or active
 * parameters rounded down or up to the word's last digit, as publishers
 * round them ("12B" of Mistral-Nemo's 12.2 B, "14B" of phi-4's 14.7). */
static int
same_size(const wc_model_info *m, double b, double unit)
{
	for (const char *w = m->name; *w;) {
		size_t n = strcspn(w, "-");
		double u, x = size_word(w, n, &u);
		if (x > 0 && round(x * unit) == round(b * unit))
			return 1;
		w += n + (w[n] == '-');
	}
	const double want = round(b * unit), p[2] = { m->total_params_b, m->active_params_b };
	for (int k = 0; k < 2; k++)
		if (p[k] > 0 && (floor(p[k] * unit) == want || ceil(p[k] * unit) == want))
			return 1;
	return 0;
}

/* A word that names a variant of another size than the one it follows
 * (docs/capacity.md, "Model names"): smaller (Microsoft's "Phi-4-mini",
 * "…-small", "…-tiny", "…-nano", "…-micro"), or one whose checkpoint
 * adds encoders of other modalities to a backbone of its own
 * ("Phi-4-multimodal-instruct": Phi-4-mini's 3.8 B with vision and audio
 * encoders, 5.6 B; "…-vision", "…-VL", "…-Omni", "…-audio", as
 * "Llama-3.1-8B-Omni" and "NVIDIA-Nemotron-Nano-12B-v2-VL" add theirs).
 * A word that keeps the weights' shape (a coding or reasoning tune) is
 * not one. The catalog's own "Mistral-Small-24B" and
 * "NVIDIA-Nemotron-Nano-12B-v2" carry such a word inside their names,
 * where it is part of the prefix, never a word after it. */
static int
other_variant(const char *w, size_t n)
{
	static const char *const words[] = { "mini", "small", "tiny", "nano", "micro",
		                             "multimodal", "vision", "VL", "Omni", "audio" };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && strncasecmp(w, words[i], n) == 0)
			return 1;
	return 0;
}

void
wc_model_match_name(const char *name, wc_model_match *out)
{
	memset(out, 0, sizeof *out);
	if (!name)
		return;
	const char *slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	size_t n;
	const wc_model_info *best = longest_prefix(name, &n);
	/* Meta's older ids name the Llama models "Meta-Llama-3.1-8B-...";
	 * the rest is then read after the name without "Meta-", so its
	 * suffix ("-FP8") is seen like any other (docs/capacity.md). */
	if (!best && strncasecmp(name, "Meta-", 5) == 0) {
		wc_model_match_name(name + 5, out);
		return;
	}
	if (!best)
		return;
	out->prefix = out->entry = best;
	out->rest = name + n;
	/* A later word that begins a catalog name names the model's
	 * architecture: DeepSeek's "DeepSeek-R1-0528-Qwen3-8B" is an 8 B
	 * distillation into Qwen3-8B, not the 671 B R1 its name starts with. */
	for (const char *s = out->rest; *s == '-';) {
		const char *w = s + 1;
		size_t en;
		if (longest_prefix(w, &en)) {
			wc_model_match inner;
			wc_model_match_name(w, &inner);
			out->entry = inner.entry;
			out->prefix = inner.entry ? out->prefix : inner.prefix; /* the one whose size a word denies */
			out->rest = inner.rest;
			out->word = inner.entry ? w : inner.word;
			out->word_n = inner.entry ? en : inner.word_n;
			out->embedded = 1;
			return;
		}
		s = w + strcspn(w, "-");
	}
	/* A later word that states another size, or names a variant of
	 * another size, names another model: no entry answers it
	 * ("Phi-4-mini-instruct" is 3.8 B, not phi-4's 14.7 B). */
	for (const char *s = out->rest; *s == '-';) {
		const char *w = s + 1;
		size_t wn = strcspn(w, "-");
		double unit, b = size_word(w, wn, &unit);
		if (other_variant(w, wn) || (b > 0 && !same_size(best, b, unit))) {
			out->entry = NULL;
			out->rest = NULL;
			out->word = w;
			out->word_n = wn;
			return;
		}
		s = w + wn;
	}
}

int
wc_model_match_size_word(const char *w, size_t n, const wc_model_info *m)
{
	double unit, b = size_word(w, n, &unit);
	return b > 0 && m && same_size(m, b, unit);
}

const wc_model_info *
wc_model_lookup_rest(const char *name, const char **rest)
{
	wc_model_match mm;
	wc_model_match_name(name, &mm);
	if (rest)
		*rest = mm.entry ? mm.rest : NULL;
	return mm.entry;
}

const wc_model_info *
wc_model_lookup(const char *name)
{
	return wc_model_lookup_rest(name, NULL);
}
