/*
 * Model catalog: architecture facts of common open models, from each
 * model's published configuration (config.json: layers, widths, heads,
 * experts, sliding windows; totals as the model cards state them), plus the models of the ML.ENERGY v3
 * and PowerTrace-Sim runs with the parameter counts those publishers state.
 * Served by GET /v1/models and used to turn a model name into N_act and
 * into the bytes and FLOPs of the capacity model. Zero = not stated.
 */
#include "models/catalog.h"

#include "models/error.h"
#include "models/law.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const wc_model_info models[] = {
	/* name, arch, total B, active B, layers, d_model, heads, kv, head_dim, experts, top-k,
	 * full-attention layers, cached values per token and layer, recurrent state bytes,
	 * sliding window of the other layers (tokens), published weights' precision,
	 * context vLLM serves it with by default (config.json's
	 * max_position_embeddings of the release the name is: a later release
	 * of another context is in `releases` below; 0 = not stated), and the
	 * attention width where it is not heads x
	 * head_dim (0 where it is) */
	{ "Qwen3-0.6B", WC_ARCH_DENSE, 0.6, 0.6, 28, 1024, 16, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-1.7B", WC_ARCH_DENSE, 1.7, 1.7, 28, 2048, 16, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-4B", WC_ARCH_DENSE, 4.0, 4.0, 36, 2560, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-8B", WC_ARCH_DENSE, 8.19, 8.19, 36, 4096, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-14B", WC_ARCH_DENSE, 14.8, 14.8, 40, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-32B", WC_ARCH_DENSE, 32.8, 32.8, 64, 5120, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-30B-A3B", WC_ARCH_MOE, 30.5, 3.3, 48, 2048, 32, 4, 128, 128, 8, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-235B-A22B", WC_ARCH_MOE, 235.0, 22.0, 94, 4096, 64, 4, 128, 128, 8, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Qwen3-Coder-30B-A3B", WC_ARCH_MOE, 30.5, 3.3, 48, 2048, 32, 4, 128, 128, 8, 0, 0, 0, 0, WC_PREC_BF16, 262144, 0 },
	{ "Qwen3-Coder-480B-A35B", WC_ARCH_MOE, 480.0, 35.0, 62, 6144, 96, 8, 128, 160, 8, 0, 0, 0, 0, WC_PREC_BF16, 262144, 0 },
	/* Qwen2.5 and QwQ: totals counted from config.json (tensors, untied) */
	{ "Qwen2.5-0.5B", WC_ARCH_DENSE, 0.49, 0.49, 24, 896, 14, 2, 64, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-1.5B", WC_ARCH_DENSE, 1.54, 1.54, 28, 1536, 12, 2, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-3B", WC_ARCH_DENSE, 3.09, 3.09, 36, 2048, 16, 2, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-7B", WC_ARCH_DENSE, 7.62, 7.62, 28, 3584, 28, 4, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-14B", WC_ARCH_DENSE, 14.77, 14.77, 48, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-32B", WC_ARCH_DENSE, 32.76, 32.76, 64, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Qwen2.5-72B", WC_ARCH_DENSE, 72.7, 72.7, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "QwQ-32B", WC_ARCH_DENSE, 32.76, 32.76, 64, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 40960, 0 },
	{ "Llama-3.2-1B", WC_ARCH_DENSE, 1.24, 1.24, 16, 2048, 32, 8, 64, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Llama-3.2-3B", WC_ARCH_DENSE, 3.21, 3.21, 28, 3072, 24, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Llama-3.1-8B", WC_ARCH_DENSE, 8.03, 8.03, 32, 4096, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Llama-3.1-70B", WC_ARCH_DENSE, 70.6, 70.6, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Llama-3.1-405B", WC_ARCH_DENSE, 405.0, 405.0, 126, 16384, 128, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Llama-2-7B", WC_ARCH_DENSE, 6.74, 6.74, 32, 4096, 32, 32, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 4096, 0 },
	{ "Llama-2-13B", WC_ARCH_DENSE, 13.0, 13.0, 40, 5120, 40, 40, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 4096, 0 },
	{ "Llama-2-70B", WC_ARCH_DENSE, 69.0, 69.0, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 4096, 0 },
	/* Llama 4: three of every four layers attend within 8192-token chunks
	 * (12 global layers); vLLM caches only the chunk where its hybrid KV
	 * cache manager is on (the default since late 2025). */
	{ "Llama-4-Maverick-17B-128E", WC_ARCH_MOE, 400.0, 17.0, 48, 5120, 40, 8, 128, 128, 1, 12, 0, 0, 8192, WC_PREC_BF16, 1048576, 0 },
	{ "Llama-4-Scout-17B-16E", WC_ARCH_MOE, 109.0, 17.0, 48, 5120, 40, 8, 128, 16, 1, 12, 0, 0, 8192, WC_PREC_BF16, 10485760, 0 },
	{ "Llama-3.3-70B", WC_ARCH_DENSE, 70.6, 70.6, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Meta-Llama-3-8B", WC_ARCH_DENSE, 8.03, 8.03, 32, 4096, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 8192, 0 },
	{ "Meta-Llama-3-70B", WC_ARCH_DENSE, 70.6, 70.6, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 8192, 0 },
	/* Five of every six layers attend to a 1024-token window (10 global layers). */
	{ "gemma-3-27b", WC_ARCH_DENSE, 27.0, 27.0, 62, 5376, 32, 16, 128, 0, 0, 10, 0, 0, 1024, WC_PREC_BF16, 131072, 0 },
	{ "gemma-3-1b", WC_ARCH_DENSE, 1.0, 1.0, 26, 1152, 4, 1, 256, 0, 0, 4, 0, 0, 512, WC_PREC_BF16, 32768, 0 },
	{ "gemma-3-4b", WC_ARCH_DENSE, 4.3, 4.3, 34, 2560, 8, 4, 256, 0, 0, 5, 0, 0, 1024, WC_PREC_BF16, 131072, 0 },
	{ "gemma-3-12b", WC_ARCH_DENSE, 12.2, 12.2, 48, 3840, 16, 8, 256, 0, 0, 8, 0, 0, 1024, WC_PREC_BF16, 131072, 0 },
	/* Gemma 2: every other layer attends to a 4096-token window. */
	{ "gemma-2-2b", WC_ARCH_DENSE, 2.6, 2.6, 26, 2304, 8, 4, 256, 0, 0, 13, 0, 0, 4096, WC_PREC_BF16, 8192, 0 },
	{ "gemma-2-9b", WC_ARCH_DENSE, 9.24, 9.24, 42, 3584, 16, 8, 256, 0, 0, 21, 0, 0, 4096, WC_PREC_BF16, 8192, 0 },
	{ "gemma-2-27b", WC_ARCH_DENSE, 27.2, 27.2, 46, 4608, 32, 16, 128, 0, 0, 23, 0, 0, 4096, WC_PREC_BF16, 8192, 0 },
	/* The PowerTrace-Sim run's manifest: five of every six layers attend to
	 * a 1024-token window (swa_global_ratio 5), so 5 of 30 cache it all. */
	{ "gemma-4-26B-A4B", WC_ARCH_MOE, 24.6, 4.0, 30, 2816, 0, 8, 256, 128, 8, 5, 0, 0, 1024, WC_PREC_BF16, 0, 0 },
	/* Multi-head latent attention caches one 512 + 64 latent per token and
	 * layer; its prefill attends with heads x (128 + 64) query-key and heads
	 * x 128 value widths, a mean of heads x 160 (the last column). */
	{ "DeepSeek-V3.1", WC_ARCH_MOE, 671.0, 37.0, 61, 7168, 128, 128, 128, 256, 8, 0, 576, 0, 0, WC_PREC_FP8, 163840, 20480 },
	{ "DeepSeek-V3", WC_ARCH_MOE, 671.0, 37.0, 61, 7168, 128, 128, 128, 256, 8, 0, 576, 0, 0, WC_PREC_FP8, 163840, 20480 },
	{ "DeepSeek-R1", WC_ARCH_MOE, 671.0, 37.0, 61, 7168, 128, 128, 128, 256, 8, 0, 576, 0, 0, WC_PREC_FP8, 163840, 20480 },
	{ "Kimi-K2", WC_ARCH_MOE, 1026.0, 32.0, 61, 7168, 64, 64, 128, 384, 8, 0, 576, 0, 0, WC_PREC_FP8, 131072, 10240 },
	/* The R1 distillations keep their base models' architectures. */
	{ "DeepSeek-R1-Distill-Llama-8B", WC_ARCH_DENSE, 8.03, 8.03, 32, 4096, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "DeepSeek-R1-Distill-Llama-70B", WC_ARCH_DENSE, 70.6, 70.6, 80, 8192, 64, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "DeepSeek-R1-Distill-Qwen-1.5B", WC_ARCH_DENSE, 1.78, 1.78, 28, 1536, 12, 2, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "DeepSeek-R1-Distill-Qwen-7B", WC_ARCH_DENSE, 7.62, 7.62, 28, 3584, 28, 4, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "DeepSeek-R1-Distill-Qwen-14B", WC_ARCH_DENSE, 14.77, 14.77, 48, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "DeepSeek-R1-Distill-Qwen-32B", WC_ARCH_DENSE, 32.76, 32.76, 64, 5120, 40, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "GLM-4.5-Air", WC_ARCH_MOE, 106.0, 12.0, 46, 4096, 96, 8, 128, 128, 8, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "GLM-4.5", WC_ARCH_MOE, 355.0, 32.0, 92, 5120, 96, 8, 128, 160, 8, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Mistral-7B", WC_ARCH_DENSE, 7.25, 7.25, 32, 4096, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Mistral-Nemo", WC_ARCH_DENSE, 12.2, 12.2, 40, 5120, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Mistral-Small-24B", WC_ARCH_DENSE, 23.6, 23.6, 40, 5120, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Mistral-Small-3.1-24B", WC_ARCH_DENSE, 24.0, 24.0, 40, 5120, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Mistral-Small-3.2-24B", WC_ARCH_DENSE, 24.0, 24.0, 40, 5120, 32, 8, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 131072, 0 },
	{ "Mixtral-8x7B", WC_ARCH_MOE, 46.7, 12.9, 32, 4096, 32, 8, 128, 8, 2, 0, 0, 0, 0, WC_PREC_BF16, 32768, 0 },
	{ "Mixtral-8x22B", WC_ARCH_MOE, 141.0, 39.0, 56, 6144, 48, 8, 128, 8, 2, 0, 0, 0, 0, WC_PREC_BF16, 65536, 0 },
	{ "phi-4", WC_ARCH_DENSE, 14.7, 14.7, 40, 5120, 40, 10, 128, 0, 0, 0, 0, 0, 0, WC_PREC_BF16, 16384, 0 },
	/* Every other layer attends to a 128-token window; 18 grow a cache with the context. */
	{ "gpt-oss-120b", WC_ARCH_MOE, 117.0, 5.0, 36, 2880, 64, 8, 64, 128, 4, 18, 0, 0, 128, WC_PREC_INT4, 131072, 0 },
	{ "gpt-oss-20b", WC_ARCH_MOE, 20.9, 3.6, 24, 2880, 64, 8, 64, 32, 4, 12, 0, 0, 128, WC_PREC_INT4, 131072, 0 },
	/* 6 attention layers; 28 Mamba-2 layers each keep a 128 heads x 80 x 128
	 * state per request, in fp32 as vLLM stores it. */
	{ "NVIDIA-Nemotron-Nano-12B-v2", WC_ARCH_HYBRID, 12.0, 12.0, 62, 5120, 40, 8, 128, 0, 0, 6, 0,
	  28.0 * 128 * 80 * 128 * 4, 0, WC_PREC_BF16, 131072, 0 },
};

/* Releases of an entry's architecture published with another context:
 * the same weights' shape, config.json's max_position_embeddings raised
 * (Qwen's "-2507" Instruct and Thinking releases, 262144 against the
 * original's 40960; Moonshot's "Kimi-K2-Instruct-0905", 262144 against
 * 131072). The release is the name's word after the entry's name. */
static const struct {
	const char *entry, *release;
	int context_tokens;
} releases[] = {
	{ "Qwen3-4B", "2507", 262144 },
	{ "Qwen3-30B-A3B", "2507", 262144 },
	{ "Qwen3-235B-A22B", "2507", 262144 },
	{ "Kimi-K2", "0905", 262144 },
};

int
wc_model_context(const wc_model_info *m, const char *name)
{
	if (!m)
		return 0;
	wc_model_match mm;
	wc_model_match_name(name, &mm);
	/* m may be a caller's amended copy of the entry: the same by name */
	if (!mm.entry || strcmp(mm.entry->name, m->name) != 0)
		return m->context_tokens;
	for (const char *s = mm.rest; s && *s == '-';) {
		const char *w = s + 1;
		size_t n = strcspn(w, "-");
		for (size_t i = 0; i < sizeof releases / sizeof releases[0]; i++)
			if (strcmp(releases[i].entry, m->name) == 0 && strlen(releases[i].release) == n &&
			    strncmp(w, releases[i].release, n) == 0)
				return releases[i].context_tokens;
		s = w + n;
	}
	return m->context_tokens;
}

static const char *const architecture_names[WC_ARCH_COUNT] = { "", "dense", "moe", "hybrid" };

const char *
wc_architecture_name(wc_architecture a)
{
	return (unsigned)a < WC_ARCH_COUNT ? architecture_names[a] : "";
}

int
wc_architecture_from_name(const char *name, wc_architecture *out)
{
	for (int i = 0; name && i < WC_ARCH_COUNT; i++)
		if (strcmp(name, architecture_names[i]) == 0) {
			*out = (wc_architecture)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

const char *
wc_architecture_choices(void)
{
	return "dense, moe or hybrid";
}

size_t
wc_model_count(void)
{
	return sizeof models / sizeof models[0];
}

const wc_model_info *
wc_model_at(size_t i)
{
	return i < wc_model_count() ? &models[i] : NULL;
}

/* wc_model_lookup and wc_model_lookup_rest: models/model_match.c */

const wc_model_info *
wc_config_set_model(wc_config *c, const char *name)
{
	const wc_model_info *m = wc_model_lookup(name);
	if (!m)
		return NULL;
	c->active_params_b = m->active_params_b;
	c->arch = m;
	c->model = name;
	return m;
}

/* Letters and digits of `s`, lower case, up to `cap` - 1: "Llama 3.1 8B"
 * and "llama-3.1-8b" compare equal. */
static size_t
model_key(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 1 < cap; s++)
		if (isalnum((unsigned char)*s) || *s == '.')
			out[n++] = (char)tolower((unsigned char)*s);
	out[n] = '\0';
	return n;
}

size_t
wc_name_edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[WC_NAME_SUGGEST_MAX + 1];
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

/* The numbers of key `s` (its first `n` characters), each run of digits
 * and dots ended by a space: "llama3.18b" -> "3.18 ". */
static void
key_numbers(const char *s, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k + 2 < cap; i++) {
		int num = isdigit((unsigned char)s[i]) || s[i] == '.';
		if (num)
			out[k++] = s[i];
		else if (k > 0 && out[k - 1] != ' ')
			out[k++] = ' ';
	}
	if (k > 0 && out[k - 1] != ' ' && k + 1 < cap)
		out[k++] = ' ';
	out[k] = '\0';
}

const wc_model_info *
wc_model_suggest(const char *name)
{
	if (!name)
		return NULL;
	/* a name that starts with an entry's but states another size is
	 * another model, not a typo of that entry (wc_model_match_name) */
	wc_model_match mm;
	wc_model_match_name(name, &mm);
	if (mm.prefix && !mm.entry)
		return NULL;
	const char *slash = strrchr(name, '/');
	char q[WC_NAME_SUGGEST_MAX + 1], k[WC_NAME_SUGGEST_MAX + 1];
	size_t nq = model_key(slash ? slash + 1 : name, q, sizeof q);
	const wc_model_info *best = NULL;
	size_t best_d = (size_t)-1;
	int unique = 0;
	for (size_t i = 0; nq && i < wc_model_count(); i++) {
		size_t nk = model_key(models[i].name, k, sizeof k);
		/* the query's head of about the entry's length: a suffix
		 * ("-Instruct") costs nothing, as in the lookup */
		/* A typo keeps the numbers: a version or a size that differs
		 * ("Qwen2-7B" against Qwen3-4B, "Llama-3.2-11B" against
		 * Llama-3.2-1B) is another model, and an answer for it would be
		 * for the wrong size. */
		char kn[WC_NAME_SUGGEST_MAX + 2], qn[WC_NAME_SUGGEST_MAX + 2];
		key_numbers(k, nk, kn, sizeof kn);
		size_t d = (size_t)-1;
		for (size_t len = nk > 2 ? nk - 2 : 1; len <= nk + 2 && len <= nq; len++) {
			/* a head that cuts a number ("3.21" of "3.211b") is no head */
			if (len < nq && (isdigit((unsigned char)q[len]) || q[len] == '.') &&
			    (isdigit((unsigned char)q[len - 1]) || q[len - 1] == '.'))
				continue;
			key_numbers(q, len, qn, sizeof qn);
			if (strcmp(qn, kn) != 0)
				continue;
			size_t e = wc_name_edit_distance(q, len, k, nk);
			d = e < d ? e : d;
		}
		if (d < best_d) {
			best_d = d;
			best = &models[i];
			unique = 1;
		} else if (d == best_d) {
			unique = 0;
		}
	}
	return best && wc_name_is_typo(best_d, strlen(best->name), unique) ? best : NULL;
}

int
wc_name_is_typo(size_t edits, size_t len, int unique)
{
	/* a typo, not another name: at most 2 edits, and fewer than a third
	 * of the name; or one edit of a name of 3 (a third of which allows
	 * none: `tgl`, `tgii` for tgi) where no other name is as near
	 * (docs/capacity.md, "Serving stacks") */
	return (edits <= 2 && 3 * edits < len) || (edits == 1 && len >= 3 && unique);
}
