/*
 * Strict loading of parameter files (docs/formats/params-file.md,
 * "Loading is strict"): refusals name the right JSON pointer, the right
 * schema and the right limit, and values no fit could write are refused.
 * Each case edits the paper profile's dump (or the first release's file)
 * and loads it.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Load `root` (consumed); WC_OK or the error with its message in `err`. */
static int
load_json(json_t *root, wc_error *err)
{
	char *s = json_dumps(root, 0);
	wc_params p = WC_PARAMS_INIT;
	int rc = wc_params_load_buffer(s, strlen(s), "edited.json", &p, err);
	wc_params_clear(&p);
	free(s);
	json_decref(root);
	return rc;
}

static void
refused(json_t *root, const char *needle)
{
	wc_error err;
	CHECK(load_json(root, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, needle);
}

static json_t *
draws(const char *const *names, int k, const double *rows, int n)
{
	json_t *jn = json_array(), *jv = json_array();
	for (int j = 0; j < k; j++)
		json_array_append_new(jn, json_string(names[j]));
	for (int r = 0; r < n; r++) {
		json_t *row = json_array();
		for (int j = 0; j < k; j++)
			json_array_append_new(row, json_real(rows[r * k + j]));
		json_array_append_new(jv, row);
	}
	return json_pack("{s:o,s:o}", "names", jn, "values", jv);
}

int
main(void)
{
	json_t *root;

	/* clock_ref_mhz is a top-level key: the pointer says so. */
	root = test_paper_json();
	json_object_set_new(root, "clock_ref_mhz", json_real(-1980.0));
	refused(root, "edited.json:1:105: /clock_ref_mhz: -1980 is outside the documented range [0, 10000] (MHz");

	/* A draw name twice is refused naming the second one. */
	{
		static const char *const names[] = { "delta", "kappa", "delta" };
		static const double rows[] = { 0.6, 1.0, 0.9, 0.61, 1.0, 0.91 };
		root = test_paper_json();
		json_object_set_new(root, "draws", draws(names, 3, rows, 2));
		refused(root, "/draws/names/2: duplicate name 'delta' (already at index 0)");
	}

	/* A draw of S <= 0 (or of P0 < 0) is the impossible value the
	 * loader refuses in s_w itself: it dragged the interval down to idle
	 * power. Positive draws load. */
	{
		static const char *const names[] = { "S[H100]" };
		static const double neg[] = { -500.0, -400.0, -450.0 }, pos[] = { 500.0, 540.0, 520.0 };
		wc_error err;
		root = test_paper_json();
		json_object_set_new(root, "draws", draws(names, 1, neg, 3));
		refused(root, "/draws/values/0/0: S[H100] = -500 must be > 0");
		root = test_paper_json();
		json_object_set_new(root, "draws", draws(names, 1, pos, 3));
		CHECK_INT(load_json(root, &err), WC_OK);
	}

	/* Too many draw rows names the limit, not an empty array. */
	{
		root = test_paper_json();
		json_t *jv = json_array();
		for (int r = 0; r < 1000001; r++)
			json_array_append_new(jv, json_pack("[f]", 0.598));
		json_object_set_new(root, "draws", json_pack("{s:[s],s:o}", "names", "delta", "values", jv));
		refused(root, "/draws/values: expected a non-empty array of at most 1000000 draws");
	}

	/* Schema gates name the version that adds the key (docs: "/2 adds
	 * the optional capacity and finetune sections", "/3 adds the
	 * optional model_terms, provenance.residual_rms"). */
	root = test_paper_json();
	json_object_set_new(root, "schema", json_string(WC_PARAMS_SCHEMA_V1));
	refused(root, "/schema: sections need \"wattcast.params/2\" or later");
	root = test_paper_json();
	json_object_set_new(root, "schema", json_string(WC_PARAMS_SCHEMA_V2));
	json_object_set_new(root, "finetune", json_null());
	json_object_set_new(json_object_get(root, "provenance"), "residual_rms", json_real(0.03));
	refused(root, "/schema: model terms and residual_rms need \"wattcast.params/3\" or later");

	/* Sources an older schema does not know: "calibrated" is /3's,
	 * "bound" and "datasheet" /5's, "simulated" /17's; the first
	 * release's file tagged /2 or /4 carrying them loaded, and a /16
	 * reader refuses "simulated" as unknown. */
	{
		char *v1 = path_join(test_env("WC_SOURCE_DIR", "."), "tests/fixtures/params/v1-power-law-fit.json");
		static const char *const schema[] = { WC_PARAMS_SCHEMA_V2, WC_PARAMS_SCHEMA_V4, WC_PARAMS_SCHEMA_V4,
			                              WC_PARAMS_SCHEMA_V5, WC_PARAMS_SCHEMA_V16, WC_PARAMS_SCHEMA_V17 };
		static const char *const source[] = { "calibrated", "bound", "datasheet", "bound", "simulated", "simulated" };
		static const char *const needle[] = { "source 'calibrated' needs \"wattcast.params/3\" or later",
			                              "source 'bound' needs \"wattcast.params/5\" or later",
			                              "source 'datasheet' needs \"wattcast.params/5\" or later", NULL,
			                              "source 'simulated' needs \"wattcast.params/17\" or later", NULL };
		for (int i = 0; i < 6; i++) {
			wc_error err;
			root = json_load_file(v1, 0, NULL);
			CHECK(root != NULL);
			json_object_set_new(root, "schema", json_string(schema[i]));
			json_object_set_new(json_object_get(json_object_get(root, "shared"), "delta"), "source",
			                    json_string(source[i]));
			if (needle[i])
				refused(root, needle[i]);
			else
				CHECK_INT(load_json(root, &err), WC_OK);
		}
		free(v1);
	}

	/* A source no table has is refused naming every one there is, from
	 * the one table of them (models/form.c): a hand-kept list had to be
	 * told of "simulated" apart. */
	{
		wc_error err;
		root = test_paper_json();
		json_object_set_new(json_object_get(json_object_get(root, "shared"), "delta"), "source",
		                    json_string("guessed"));
		CHECK(load_json(root, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "/shared/delta/source: unknown source 'guessed' (published, fitted, measured, "
		                        "estimated, assumed, calibrated, bound, datasheet, simulated)");
		CHECK(strlen(err.msg) <= 255);
		for (int s = 0; s < WC_SRC_COUNT; s++) {
			char named[32];
			snprintf(named, sizeof named, "%s%s%s", s ? " " : "(", wc_source_name((wc_source)s),
			         s + 1 < WC_SRC_COUNT ? "," : ")");
			CHECK_CONTAINS(err.msg, named);
		}
	}

	/* A fine-tuning law whose energy falls as compute grows (kappa <= 0)
	 * is refused as the fit refuses it; e0 < 0 is a fit-time warning
	 * (docs/finetune.md) and loads. */
	for (int sign = -1; sign <= 0; sign++) {
		root = test_paper_json();
		json_t *k = json_object_get(json_object_get(json_object_get(root, "finetune"), "compute"),
		                            "kappa_j_per_tflop");
		CHECK(k != NULL);
		json_object_set_new(k, "value", json_real(4.5 * sign));
		refused(root, "/finetune/compute/kappa_j_per_tflop/value");
	}
	{
		wc_error err;
		root = test_paper_json();
		json_t *e0 = json_object_get(json_object_get(json_object_get(root, "finetune"), "compute"), "e0_j");
		json_object_set_new(e0, "value", json_real(-2000.0));
		CHECK_INT(load_json(root, &err), WC_OK);
	}
	/* Provenance and label a reader traces the set by: a hash that is no
	 * SHA-256, a time that is no YYYY-MM-DDTHH:MM:SSZ (wattcast wrote
	 * "219250468-01-00T15:30:" for a huge SOURCE_DATE_EPOCH), a p-value
	 * above 1, an empty or two-line name all loaded. */
	{
		static const char *const keys[] = { "input_sha256", "created_utc", "created_utc", "created_utc" };
		static const char *const vals[] = { "xyz", "yesterday", "219250468-01-00T15:30:", "2026-13-01T00:00:00Z" };
		for (int i = 0; i < 4; i++) {
			root = test_paper_json();
			json_object_set_new(json_object_get(root, "provenance"), keys[i], json_string(vals[i]));
			refused(root, keys[i]);
		}
		wc_error err;
		root = test_paper_json();
		json_object_set_new(json_object_get(root, "provenance"), "created_utc", json_string("2026-05-28T20:26:40Z"));
		json_object_set_new(json_object_get(root, "provenance"), "input_sha256",
		                    json_string("9e2fdd08db53f7505604764e4747ea26656d706222da8475169a6c4e9ad29b26"));
		CHECK_INT(load_json(root, &err), WC_OK);
	}
	root = test_paper_json();
	json_object_set_new(json_array_get(json_object_get(root, "precision_terms"), 0), "p_value", json_real(2.0));
	refused(root, "/precision_terms/0/p_value: 2 is not a probability");
	root = test_paper_json();
	json_object_set_new(root, "name", json_string(""));
	refused(root, "/name: empty");
	root = test_paper_json();
	json_object_set_new(root, "name", json_string("two\nlines"));
	refused(root, "/name: control character at byte 4");
	return check_report("test_params_strict");
}
