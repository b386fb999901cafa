/*
 * The model catalog (models/model_catalog.c) against the architecture the
 * real PowerTrace-Sim runs record in their manifests: layers, widths, KV
 * heads, experts and sliding windows (docs/capacity.md, "Bytes and
 * FLOPs"). A catalog entry that drops a model's window charges its local
 * layers a full-context KV cache, so the memory, the concurrency that
 * fits and the capacity of long prompts come out several times off.
 */
#include "models/catalog.h"
#include "tests/support/support.h"

#include <glob.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* The manifest's first object that states n_layers. */
static json_t *
arch_of(json_t *j)
{
	if (json_is_object(j)) {
		if (json_object_get(j, "n_layers"))
			return j;
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v) {
			json_t *a = arch_of(v);
			if (a)
				return a;
		}
	}
	return NULL;
}

static int
num(json_t *a, const char *key)
{
	return (int)json_number_value(json_object_get(a, key));
}

int
main(void)
{
	const char *shared = test_shared_dir();
	if (!shared)
		return TEST_SKIP;
	char pattern[4096];
	snprintf(pattern, sizeof pattern, "%s/data/real/powertrace-sim/*/*/manifest.json", shared);
	glob_t g;
	CHECK_INT(glob(pattern, 0, NULL, &g), 0);
	int checked = 0, windowed = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		json_error_t e;
		json_t *m = json_load_file(g.gl_pathv[i], 0, &e);
		CHECK(m != NULL);
		json_t *a = m ? arch_of(m) : NULL;
		const char *name = json_string_value(json_object_get(m, "model"));
		if (!a || !name) {
			json_decref(m);
			continue;
		}
		const wc_model_info *info = wc_model_lookup(name);
		CHECK(info != NULL);
		if (!info) {
			fprintf(stderr, "%s: %s is not in the catalog\n", g.gl_pathv[i], name);
			json_decref(m);
			continue;
		}
		CHECK_INT(info->layers, num(a, "n_layers"));
		CHECK_INT(info->d_model, num(a, "d_model"));
		CHECK_INT(info->head_dim, num(a, "head_dim"));
		CHECK_INT(info->kv_heads, num(a, "n_kv"));
		int experts = num(a, "n_experts");
		CHECK_INT(info->experts, experts > 1 ? experts : 0);
		CHECK_INT(info->experts_per_token, experts > 1 ? num(a, "top_k") : 0);
		/* swa_global_ratio r: r local layers to each global one */
		int ratio = num(a, "swa_global_ratio"), window = num(a, "swa_window");
		CHECK_INT(info->window, ratio > 0 ? window : 0);
		CHECK_INT(info->attention_layers, ratio > 0 ? info->layers / (ratio + 1) : 0);
		windowed += ratio > 0;
		checked++;
		json_decref(m);
	}
	globfree(&g);
	fprintf(stderr, "%d manifests compared, %d with a sliding window\n", checked, windowed);
	CHECK(checked >= 7);
	CHECK(windowed >= 1);
	return check_report("test_real_catalog_manifests");
}
