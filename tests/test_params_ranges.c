/*
 * The parameter-file loader checks the documented range of every law
 * parameter (docs/formats/params-file.md, "Ranges"): a file with delta =
 * 1e308 used to load (and reload into a server), predicting 406.9 W
 * outside its own 320-326 W interval. Each out-of-range value is refused
 * naming its key; the writer refuses what the loader would; the built-in
 * profiles and values at the bounds still load. An absent or all-null
 * `range` is unknown: it loads, gives no warning, and writes back; level
 * names differing only in case are one level twice. provenance's
 * residual_rms, a fit's RMS that calibrate takes as its scatter, is at
 * most --run-scatter's top; a perfect fit's 1e-15 loads.
 */
#include "data/data.h"
#include "models/limits.h"
#include "predict/predict.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>


/* Set the number at `a`/`b`/`c` ("levels", index 0, ...) and load. */
static int
load_with(const char *key, json_t *(*locate)(json_t *root), double v, wc_error *err)
{
	json_t *root = test_paper_json();
	json_t *obj = locate(root);
	CHECK(obj != NULL);
	json_object_set_new(obj, key, json_real(v));
	/* the edit is of the value alone: an interval that no longer
	 * contains it is a slip of its own (checked below) */
	if (strcmp(key, "value") == 0)
		json_object_del(obj, "ci95");
	char *s = json_dumps(root, 0);
	wc_params p = WC_PARAMS_INIT;
	int rc = wc_params_load_buffer(s, strlen(s), "edited.json", &p, err);
	wc_params_clear(&p);
	free(s);
	json_decref(root);
	return rc;
}

static json_t *
delta(json_t *root)
{
	return json_object_get(json_object_get(root, "shared"), "delta");
}

static json_t *
theta0(json_t *root)
{
	return json_object_get(json_array_get(json_object_get(root, "levels"), 0), "theta");
}

static json_t *
p0_1(json_t *root)
{
	return json_object_get(json_array_get(json_object_get(root, "levels"), 1), "p0_w");
}

static json_t *
p0_3(json_t *root)
{
	json_t *l = json_array_get(json_object_get(root, "levels"), 3);
	CHECK_CONTAINS(json_string_value(json_object_get(l, "name")), "H100-locked");
	return json_object_get(l, "p0_w");
}

/* the P0 of a level added as a copy of H100's under a board's name the
 * catalog does not know */
static json_t *
p0_board(json_t *root)
{
	json_t *levels = json_object_get(root, "levels");
	json_t *l = json_deep_copy(json_array_get(levels, 1));
	json_object_set_new(l, "name", json_string("MyBoard"));
	json_array_append_new(levels, l);
	return json_object_get(l, "p0_w");
}

static json_t *
s_1(json_t *root)
{
	return json_object_get(json_array_get(json_object_get(root, "levels"), 1), "s_w");
}

static json_t *
gamma2(json_t *root)
{
	return json_object_get(json_object_get(root, "shared"), "gamma2");
}

static json_t *
top(json_t *root)
{
	return root;
}

static json_t *
provenance(json_t *root)
{
	return json_object_get(root, "provenance");
}

static void
refused(const char *key, json_t *(*locate)(json_t *), double v, const char *path)
{
	wc_error err;
	CHECK(load_with(key, locate, v, &err) != WC_OK);
	/* named file:line:column (the test writes one line) before the path */
	CHECK_CONTAINS(err.msg, "edited.json:1:");
	CHECK_CONTAINS(err.msg, path);
	CHECK_CONTAINS(err.msg, "outside the documented range");
}

int
main(void)
{
	wc_error err;
	/* The file: delta = 1e308. */
	refused("value", delta, 1e308, "shared/delta/value: 1e+308");
	refused("value", delta, -101, "shared/delta/value");
	refused("value", theta0, 1e5, "levels/0/theta/value");
	refused("value", p0_1, 2e4, "levels/1/p0_w/value");
	refused("value", gamma2, -1e300, "shared/gamma2/value");
	refused("clock_ref_mhz", top, 1e9, "clock_ref_mhz");
	/* provenance/residual_rms is a fit's RMS, the run scatter calibrate
	 * takes without --run-scatter: 50 was taken silently, so it is at most
	 * --run-scatter's top (models/limits.h); a perfect fit's 1e-15 (or
	 * 1e-300) is a true RMS and loads: calibrate takes the range's floor
	 * for it (fit/calibrate.c). 0, like null, is none. */
	json_t *paper = test_paper_json();
	CHECK(json_is_object(provenance(paper))); /* a key set there is read */
	json_decref(paper);
	refused("residual_rms", provenance, 50, "provenance/residual_rms: 50 is outside the documented "
	                                        "range [0, 10] (a fit's residual RMS");
	refused("residual_rms", provenance, -1, "provenance/residual_rms: -1");
	/* Just past a bound the value is quoted as it reads back: %g printed
	 * 10.0000001 as "10 is outside the documented range [0, 10]". */
	refused("residual_rms", provenance, 10.0000001, "provenance/residual_rms: 10.0000001 is outside the documented "
	                                                "range [0, 10]");
	refused("value", p0_1, 10000.000000001, "levels/1/p0_w/value: 10000.000000001 is outside");
	/* a negative power is named at its leaf with its value, as one too
	 * large is (it said "levels/1/p0_w: must be finite and >= 0"); a zero
	 * S, inside the range, by the law's own check at its leaf too */
	refused("value", p0_1, -50, "levels/1/p0_w/value: -50 is outside the documented range [0, 10000]");
	refused("value", s_1, -5, "levels/1/s_w/value: -5 is outside the documented range [0, 10000]");
	CHECK_INT(load_with("value", s_1, 0, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "edited.json:1:642: /levels/1/s_w/value: must be finite and > 0, got 0");
	/* P0 at or above the board's limit loaded and answered (800 W on an
	 * H100, limit 700 W) where a request's idle_power_w of 800 W is
	 * refused: held to the same bound at its leaf; just below it loads. */
	CHECK_INT(load_with("value", p0_1, 800, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "edited.json:1:");
	CHECK_CONTAINS(err.msg, ": /levels/1/p0_w/value: 800 W per GPU is not below H100's board limit of 700 W; give "
	                        "one idle GPU's power");
	CHECK_INT(load_with("value", p0_1, 700, &err), WC_EINVAL);
	CHECK_INT(load_with("value", p0_1, 699, &err), WC_OK);
	CHECK_INT(load_with("value", p0_3, 700, &err), WC_EINVAL); /* H100-locked: an H100's limit */
	CHECK_CONTAINS(err.msg, "/levels/3/p0_w/value: 700 W per GPU is not below H100's board limit of 700 W");
	CHECK_INT(load_with("value", p0_board, 900, &err), WC_OK); /* a board the catalog lacks: no limit */
	CHECK_INT(load_with("residual_rms", provenance, 1e-300, &err), WC_OK);
	CHECK_INT(load_with("residual_rms", provenance, 1e-15, &err), WC_OK);
	CHECK_INT(load_with("residual_rms", provenance, WC_RUN_SCATTER_MIN, &err), WC_OK);
	CHECK_INT(load_with("residual_rms", provenance, WC_RUN_SCATTER_MAX, &err), WC_OK);
	CHECK_INT(load_with("residual_rms", provenance, 0.05, &err), WC_OK);
	CHECK_INT(load_with("residual_rms", provenance, 0, &err), WC_OK);
	/* At the bounds: loaded. */
	CHECK_INT(load_with("value", delta, 100, &err), WC_OK);
	CHECK_INT(load_with("value", theta0, -100, &err), WC_OK);
	CHECK_INT(load_with("value", p0_board, 1e4, &err), WC_OK); /* a board without a limit in the catalog */

	/* The writer refuses what the loader would. */
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	p.delta.value = 1e308;
	char *s = wc_params_dump(&p, 1, &err);
	CHECK(s == NULL);
	CHECK_CONTAINS(err.msg, "shared/delta/value");
	free(s);
	wc_params_clear(&p);
	wc_params_default(&p);
	p.residual_rms = 50;
	s = wc_params_dump(&p, 1, &err);
	CHECK(s == NULL);
	CHECK_CONTAINS(err.msg, "provenance/residual_rms");
	free(s);
	wc_params_clear(&p);

	/* A level without its range, and one whose range is all null: both
	 * unknown, so answers on them carry no "no runs" or "beyond its runs"
	 * caveat, and the file writes back as it reads. */
	for (int variant = 0; variant < 2; variant++) {
		json_t *root = test_paper_json(), *lv = json_array_get(json_object_get(root, "levels"), 0);
		if (variant == 0)
			json_object_del(lv, "range");
		else
			json_object_set_new(lv, "range", json_pack("{s:n,s:n,s:n,s:n,s:n}", "active_params_b", "running",
			                                         "tp", "sm_clock_mhz", "runs"));
		char *txt = json_dumps(root, 0);
		wc_params q = WC_PARAMS_INIT;
		CHECK_INT(wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err), WC_OK);
		CHECK_INT(q.levels[0].range.runs, -1);
		wc_predictor *pr = NULL;
		CHECK_INT(wc_predictor_new(&q, &pr, &err), WC_OK);
		wc_inference_query iq = { .config = test_catalog_config(q.levels[0].name, 1, "Qwen3-8B", 4) };
		wc_inference_prediction pw;
		CHECK_INT(wc_predict_inference(pr, &iq, &pw, &err), WC_OK);
		for (int i = 0; i < pw.n_warnings; i++) {
			CHECK(strstr(pw.warnings[i], "had no runs") == NULL);
			CHECK(strstr(pw.warnings[i], "beyond") == NULL);
		}
		char *back = wc_params_dump(&q, 1, &err);
		wc_params r2 = WC_PARAMS_INIT;
		CHECK(back && wc_params_load_buffer(back, strlen(back), "back.json", &r2, &err) == WC_OK);
		CHECK_INT(r2.levels[0].range.runs, -1);
		wc_params_clear(&r2);
		free(back);
		wc_predictor_free(pr);
		wc_params_clear(&q);
		free(txt);
		json_decref(root);
	}
	/* Levels "A100" and "a100": one name twice (--platform is
	 * case-insensitive), refused naming both spellings. */
	{
		json_t *root = test_paper_json(), *levels = json_object_get(root, "levels");
		json_t *copy = json_deep_copy(json_array_get(levels, 0));
		const char *name = json_string_value(json_object_get(copy, "name"));
		char lower[WC_NAME_MAX];
		size_t k = 0;
		for (; name[k] && k + 1 < sizeof lower; k++)
			lower[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] + 32 : name[k]);
		lower[k] = 0;
		json_object_set_new(copy, "name", json_string(lower));
		json_array_append_new(levels, copy);
		char *txt = json_dumps(root, 0);
		wc_params q = WC_PARAMS_INIT;
		CHECK(wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "duplicate level 'a100' (names are case-insensitive: 'A100')");
		wc_params_clear(&q);
		free(txt);
		json_decref(root);
	}

	/* capacity.defaults: a price or carbon intensity past the limit a
	 * prediction gives (WC_CAPACITY_MAX_PRICE / _CO2) is refused at load
	 * naming its path, so a served set never answers with a default its
	 * routes refuse when sent back; the limit itself loads. */
	{
		const char *keys[] = { "price_per_kwh", "grams_co2_per_kwh" };
		for (int k = 0; k < 2; k++)
			for (int over = 0; over < 2; over++) {
				CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
				s = wc_params_dump(&p, 1, &err);
				wc_params_clear(&p);
				json_t *root = s ? json_loads(s, 0, NULL) : NULL;
				free(s);
				json_t *cap = json_object_get(root, "capacity");
				CHECK(json_is_object(cap));
				if (!json_is_object(json_object_get(cap, "defaults")))
					json_object_set_new(cap, "defaults", json_object());
				json_object_set_new(json_object_get(cap, "defaults"), keys[k], json_real(over ? 2e6 : 1e6));
				char *txt = json_dumps(root, 0);
				wc_params q = WC_PARAMS_INIT;
				int rc = wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err);
				if (over) {
					CHECK(rc != WC_OK);
					CHECK_CONTAINS(err.msg, "/capacity/defaults/");
					CHECK_CONTAINS(err.msg, keys[k]);
				} else
					CHECK_INT(rc, WC_OK);
				wc_params_clear(&q);
				free(txt);
				json_decref(root);
			}
	}

	/* An interval that does not contain its value (a hand-editing slip:
	 * every written interval contains its estimate) is refused naming its
	 * path, in every section; the writer refuses to write one. */
	{
		json_t *root = test_paper_json();
		json_t *s_w = json_object_get(json_array_get(json_object_get(root, "levels"), 2), "s_w");
		json_object_set_new(s_w, "ci95", json_pack("[ff]", 100.0, 150.0));
		char *txt = json_dumps(root, 0);
		wc_params q = WC_PARAMS_INIT;
		CHECK(wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "edited.json:1:1082: /levels/2/s_w/ci95: [100, 150] does not contain the value");
		wc_params_clear(&q);
		free(txt);
		json_decref(root);

		wc_params_default(&p);
		p.response.present = 1;
		p.response.fitted = 1;
		p.response.tau_s = (wc_response_value){ 0.042, 0.03, 0.061 };
		p.response.hold_s = (wc_response_value){ 0.05, 0.05, 0.05 };
		p.response.prefill_ratio = (wc_response_value){ 0.71, 0.6, 0.8 };
		s = wc_params_dump(&p, 1, &err);
		root = s ? json_loads(s, 0, NULL) : NULL;
		free(s);
		json_object_set_new(json_object_get(json_object_get(root, "response"), "hold_s"), "ci95",
		                    json_pack("[ff]", 0.2, 0.3));
		txt = json_dumps(root, 0);
		CHECK(wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "/response/hold_s/ci95: [0.2, 0.3] does not contain the value 0.05");
		wc_params_clear(&q);
		free(txt);
		json_decref(root);

		p.levels[0].s.lo = 100;
		p.levels[0].s.hi = 150;
		s = wc_params_dump(&p, 1, &err);
		CHECK(s == NULL);
		CHECK_CONTAINS(err.msg, "levels/0/s_w/ci95");
		free(s);
		wc_params_clear(&p);
	}

	/* A capacity draw is one value of its parameter, held to the same
	 * bound: a draw of eta = -1 (it divides) used to load and give
	 * nonsense intervals; t0 may be 0 but not below. */
	{
		const struct { const char *kind; double v; int ok; } cases[] = {
			{ "eta", -1.0, 0 }, { "eta", 0.0, 0 }, { "eta", 0.5, 1 }, { "t0", 0.0, 1 }, { "t0", -1e-3, 0 },
		};
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			CHECK_INT(wc_params_profile("measured", &p, &err), WC_OK);
			s = wc_params_dump(&p, 1, &err);
			wc_params_clear(&p);
			json_t *root = s ? json_loads(s, 0, NULL) : NULL;
			free(s);
			json_t *cap = json_object_get(root, "capacity");
			json_t *lv = json_array_get(json_object_get(cap, "levels"), 0);
			char name[2 * WC_NAME_MAX];
			CHECK(json_object_get(lv, cases[c].kind) != NULL);
			snprintf(name, sizeof name, "%s[%s]", cases[c].kind,
			         json_string_value(json_object_get(lv, "name")));
			json_t *val = json_object_get(json_object_get(lv, cases[c].kind), "value");
			json_object_set_new(cap, "draws", json_pack("{s:[s],s:[[O],[f]]}", "names", name, "values", val,
			                                            cases[c].v));
			char *txt = json_dumps(root, 0);
			wc_params q = WC_PARAMS_INIT;
			int rc = wc_params_load_buffer(txt, strlen(txt), "edited.json", &q, &err);
			if (cases[c].ok)
				CHECK_INT(rc, WC_OK);
			else {
				CHECK(rc != WC_OK);
				/* at the draw itself: values' second row, on the one line */
				const char *row = strstr(txt, "\"values\": [[");
				row = row ? strstr(row, "], [") : NULL;
				char at[64];
				snprintf(at, sizeof at, "edited.json:1:%ld: ", row ? (long)(row - txt) + 5 : -1L);
				CHECK_CONTAINS(err.msg, at);
				CHECK_CONTAINS(err.msg, ": /capacity/draws/values/1/0: ");
				CHECK_CONTAINS(err.msg, name);
			}
			wc_params_clear(&q);
			free(txt);
			json_decref(root);
		}
	}

	/* Every built-in profile is within range, its intervals included. */
	const char *names[] = { "paper", "paper-prefill", "measured" };
	for (int i = 0; i < 3; i++) {
		CHECK_INT(wc_params_profile(names[i], &p, &err), WC_OK);
		s = wc_params_dump(&p, 1, &err);
		CHECK(s != NULL);
		wc_params q = WC_PARAMS_INIT;
		CHECK(s && wc_params_load_buffer(s, strlen(s), names[i], &q, &err) == WC_OK);
		wc_params_clear(&q);
		free(s);
		wc_params_clear(&p);
	}
	return check_report("test_params_ranges");
}
