/*
 * A fine-tuning question names its model as an inference question does
 * (docs/capacity.md, "Model names"): a catalog name in `model`, or
 * `active_params_b` with `layers` and `d_model`, beside which a name the
 * catalog does not have names a model of your own; a catalog name with
 * `active_params_b` is 422 conflicting_fields on /model
 * (server/request_finetune.c). Until 2026-12-07 every name beside a size
 * was refused, though the unknown-model refusal told the user to give
 * those sizes ("microsoft/Phi-4-mini-instruct": "give active_params_b,
 * layers and d_model"). docs/http-api.md's and docs/cli.md's required
 * columns and the OpenAPI document's branches must say what the server
 * does.
 */
#include "data/data.h"
#include "server/server_internal.h"
#include "tests/support/support.h"

#include <stdlib.h>

/* The third column ("required") of the row of `field` in the section of
 * `doc` that starts at `heading` (malloc'd; NULL when absent). */
static char *
required_column(const char *doc, const char *heading, const char *field)
{
	const char *sec = strstr(doc, heading);
	if (!sec)
		return NULL;
	const char *end = strstr(sec + strlen(heading), "\n## ");
	char lead[64];
	snprintf(lead, sizeof lead, "\n| `%s` | ", field);
	const char *row = strstr(sec, lead);
	if (!row || (end && row > end))
		return NULL;
	const char *col = strstr(row + strlen(lead), " | "); /* past the type */
	if (!col)
		return NULL;
	col += 3;
	const char *stop = strstr(col, " | ");
	return stop ? strndup(col, (size_t)(stop - col)) : NULL;
}

/* Is one of `schema`'s allOf/anyOf branches {"required": [first, ...]}?
 * (anyOf: both branches may hold, a name beside the size) */
static int
one_of_requires(const json_t *schema, const char *first)
{
	size_t i, j;
	const json_t *all, *branch;
	json_array_foreach(json_object_get(schema, "allOf"), i, all)
		json_array_foreach(json_object_get(all, "anyOf"), j, branch) {
			const char *name = json_string_value(json_array_get(json_object_get(branch, "required"), 0));
			if (name && strcmp(name, first) == 0)
				return 1;
		}
	return 0;
}

int
main(void)
{
	/* the server: both is refused on /model */
	wc_params paper = WC_PARAMS_INIT;
	const wc_params *sets[1] = { &paper };
	const char *sources[1] = { "profile:paper" };
	wc_profiles *pf = NULL;
	wc_error err;
	wc_params_default(&paper);
	CHECK_INT(wc_profiles_new(1, sets, sources, &pf, &err), WC_OK);
	static const char *const own[] = { "my-own-8b", "microsoft/Phi-4-mini-instruct",
		                            "microsoft/Phi-4-multimodal-instruct" };
	wc_api_error e;
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
		char body[256];
		snprintf(body, sizeof body, "{\"method\":\"lora\",\"model\":\"%s\",\"active_params_b\":8,\"layers\":32,"
		         "\"d_model\":4096,\"micro_batch\":1,\"seq_len\":1024,\"lora_rank\":8}", own[i]);
		json_t *item = json_loads(body, 0, NULL);
		memset(&e, 0, sizeof e);
		json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
		CHECK(answer != NULL);
		if (!answer)
			fprintf(stderr, "%s: %d %s\n", own[i], e.status, e.message);
		json_decref(answer);
		json_decref(item);
	}
	/* a catalog name brings its own size: both is a conflict */
	json_t *item = json_loads("{\"method\":\"lora\",\"model\":\"Qwen3-8B\",\"active_params_b\":8,\"layers\":32,"
	                          "\"d_model\":4096,\"micro_batch\":1,\"seq_len\":1024,\"lora_rank\":8}", 0, NULL);
	memset(&e, 0, sizeof e);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(e.code && strcmp(e.code, "conflicting_fields") == 0 && strcmp(e.field, "/model") == 0);
	CHECK_CONTAINS(e.message, "model: \"Qwen3-8B\" is the catalog's Qwen3-8B (8.19 B): give model or "
	               "active_params_b, not both");
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&paper);

	/* the page: a name may stand beside the size, as the server takes it */
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/http-api.md");
	char *doc = test_slurp(path);
	static const char heading[] = "## `POST /v1/predict/finetune`";
	char *model = required_column(doc, heading, "model");
	char *active = required_column(doc, heading, "active_params_b");
	CHECK(model && active);
	if (model && active) {
		fprintf(stderr, "docs/http-api.md: model \"%s\", active_params_b \"%s\"\n", model, active);
		CHECK(strcmp(model, "`active_params_b`, this, or both") == 0);
		CHECK(strcmp(active, "`model`, this, or both") == 0);
	}
	free(model);
	free(active);
	free(doc);
	free(path);

	/* the CLI's page and the OpenAPI document agree */
	path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/cli.md");
	doc = test_slurp(path);
	const char *flags = strstr(doc, "\n| `--model` | a catalog name or Hugging Face id: size, layers, width");
	const char *eol = flags ? strchr(flags + 1, '\n') : NULL;
	CHECK(flags && eol);
	if (flags && eol) {
		char *row = strndup(flags, (size_t)(eol - flags));
		CHECK(strstr(row, "| `--active-params`, this, or both |") != NULL);
		free(row);
	}
	free(doc);
	free(path);
	path = path_join(test_env("WC_SOURCE_DIR", "."), "server/openapi.json");
	json_error_t je;
	json_t *api = json_load_file(path, 0, &je);
	const json_t *req = json_object_get(json_object_get(json_object_get(api, "components"), "schemas"),
	                                    "FinetuneRequest");
	CHECK(req != NULL);
	CHECK(one_of_requires(req, "model") && one_of_requires(req, "active_params_b"));
	json_decref(api);
	free(path);
	return check_report("test_finetune_model_fields");
}
