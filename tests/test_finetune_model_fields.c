/*
 * A fine-tuning question names its model one way: a catalog name in
 * `model`, or `active_params_b` with `layers` and `d_model`; both is 422
 * conflicting_fields on /model (server/request_finetune.c), as the CLI's
 * "give exactly one of --model and --active-params" and the OpenAPI
 * document's oneOf say. docs/http-api.md's request table said `model` was
 * required as "`active_params_b`, this, or both" -- the inference table's
 * words, where a name beside a size labels a model of your own -- so a
 * reader sent both and was refused. The table's required column of the
 * two rows must say what the server does.
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

/* Is one of `schema`'s allOf/oneOf branches {"required": [first, ...]}? */
static int
one_of_requires(const json_t *schema, const char *first)
{
	size_t i, j;
	const json_t *all, *branch;
	json_array_foreach(json_object_get(schema, "allOf"), i, all)
		json_array_foreach(json_object_get(all, "oneOf"), j, branch) {
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
	json_t *item = json_loads("{\"method\":\"lora\",\"model\":\"my-own-8b\",\"active_params_b\":8,\"layers\":32,"
	                          "\"d_model\":4096,\"micro_batch\":1,\"seq_len\":1024,\"lora_rank\":8}", 0, NULL);
	wc_api_error e;
	memset(&e, 0, sizeof e);
	json_t *answer = pf && item ? wc_finetune_answer(item, pf, &e) : NULL;
	CHECK(answer == NULL);
	CHECK_INT(e.status, 422);
	CHECK(e.code && strcmp(e.code, "conflicting_fields") == 0 && strcmp(e.field, "/model") == 0);
	json_decref(answer);
	json_decref(item);
	if (pf)
		wc_profiles_release(pf);
	wc_params_clear(&paper);

	/* the page: the two rows are alternatives, as the server has them */
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/http-api.md");
	char *doc = test_slurp(path);
	static const char heading[] = "## `POST /v1/predict/finetune`";
	char *model = required_column(doc, heading, "model");
	char *active = required_column(doc, heading, "active_params_b");
	CHECK(model && active);
	if (model && active) {
		fprintf(stderr, "docs/http-api.md: model \"%s\", active_params_b \"%s\"\n", model, active);
		CHECK(strcmp(model, active) == 0);
		CHECK(strstr(model, "both") == NULL);
		CHECK_CONTAINS(model, "one of");
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
		CHECK(strstr(row, "| one of these two |") != NULL && strstr(row, "both") == NULL);
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
