/*
 * Parameter files: a lossless round trip (every double bit for bit, draws
 * included), each refusal case names the JSON path and the reason, and
 * writes are atomic (no partial file, no temporary left behind).
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <dirent.h>
#include <stdlib.h>

static int
same_param(const wc_param *a, const wc_param *b)
{
	/* NaN == NaN here: both "absent". */
	int v = a->value == b->value || (isnan(a->value) && isnan(b->value));
	int lo = a->lo == b->lo || (isnan(a->lo) && isnan(b->lo));
	int hi = a->hi == b->hi || (isnan(a->hi) && isnan(b->hi));
	return v && lo && hi && a->source == b->source;
}

/* Load `text`, expect failure whose message contains every needle. */
static void
expect_refusal(const char *text, const char *needle1, const char *needle2)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	int rc = wc_params_load_buffer(text, strlen(text), "t.json", &p, &err);
	CHECK(rc != WC_OK);
	if (rc != WC_OK) {
		CHECK_CONTAINS(err.msg, "t.json");
		CHECK_CONTAINS(err.msg, needle1);
		if (needle2)
			CHECK_CONTAINS(err.msg, needle2);
	}
	CHECK(p.draws == NULL && p.n_levels == 0); /* cleared on failure */
}

/* Replace the first occurrence of `from` in the dump of the default
 * profile with `to` (malloc'd). */
static char *
edited_default(const char *from, const char *to)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 0, NULL);
	char *at = strstr(s, from);
	CHECK(at != NULL);
	if (!at)
		return s;
	size_t out_len = strlen(s) - strlen(from) + strlen(to);
	char *o = malloc(out_len + 1);
	size_t pre = (size_t)(at - s);
	memcpy(o, s, pre);
	strcpy(o + pre, to);
	strcat(o, at + strlen(from));
	free(s);
	return o;
}

static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int
main(void)
{
	wc_params a = WC_PARAMS_INIT, b = WC_PARAMS_INIT;
	wc_error err;
	char *dir = test_tmpdir("params_io");
	char *path = path_join(dir, "params.json");

	/* Round trip with awkward doubles and draws. */
	wc_params_default(&a);
	a.levels[0].s.value = 0.1 + 0.2;
	/* an interval contains its value (docs/formats/params-file.md): one
	 * end on the value itself, the other awkward too */
	a.levels[0].s.lo = 0.1 + 0.2;
	a.levels[0].s.hi = 0.7;
	a.levels[1].theta.lo = -1e-300;
	a.delta.value = 1.0 / 3.0;
	a.delta.lo = 1.0 / 7.0;
	a.levels[2].range.runs = 12;
	a.seed = 123456789012345ULL;
	a.levels[0].s.source = WC_SRC_FITTED;
	a.delta.source = WC_SRC_FITTED;
	char names[2][WC_LABEL_MAX] = { "S[A100]", "delta" };
	double draws[6] = { 329.1, 0.6, 330.0 / 7.0, 0.59999999999999998, 1e-17, 0.5 };
	CHECK_INT(wc_params_set_draws(&a, 3, 2, (const char (*)[WC_LABEL_MAX])names, draws, &err), WC_OK);
	CHECK_INT(wc_params_save_file(path, &a, &err), WC_OK);
	CHECK_INT(wc_params_load_file(path, &b, &err), WC_OK);
	CHECK(strcmp(a.name, b.name) == 0);
	CHECK_INT(a.form, b.form);
	CHECK_INT(a.n_levels, b.n_levels);
	for (int i = 0; i < a.n_levels; i++) {
		CHECK(strcmp(a.levels[i].name, b.levels[i].name) == 0);
		CHECK(strcmp(a.levels[i].s_shared_with, b.levels[i].s_shared_with) == 0);
		CHECK(same_param(&a.levels[i].p0, &b.levels[i].p0));
		CHECK(same_param(&a.levels[i].theta, &b.levels[i].theta));
		if (!a.levels[i].s_shared_with[0])
			CHECK(same_param(&a.levels[i].s, &b.levels[i].s));
		CHECK(memcmp(&a.levels[i].range, &b.levels[i].range, sizeof a.levels[i].range) == 0);
	}
	CHECK(same_param(&a.delta, &b.delta) && same_param(&a.gamma1, &b.gamma1));
	CHECK(same_param(&a.gamma2, &b.gamma2) && same_param(&a.kappa, &b.kappa));
	CHECK_INT(a.n_terms, b.n_terms);
	for (int i = 0; i < a.n_terms; i++) {
		CHECK(same_param(&a.terms[i].value, &b.terms[i].value));
		CHECK(a.terms[i].kept == b.terms[i].kept && a.terms[i].pairs == b.terms[i].pairs);
		CHECK(a.terms[i].placement == b.terms[i].placement);
		CHECK(a.terms[i].p_value == b.terms[i].p_value);
	}
	CHECK(a.seed == b.seed);
	CHECK_INT(b.n_draws, 3);
	CHECK_INT(b.n_draw_params, 2);
	CHECK(b.draws && memcmp(a.draws, b.draws, sizeof draws) == 0);
	/* A second dump is byte-identical, so the fingerprint is stable. */
	char fa[17], fb[17];
	CHECK_INT(wc_params_fingerprint(&a, fa, &err), WC_OK);
	CHECK_INT(wc_params_fingerprint(&b, fb, &err), WC_OK);
	CHECK(strcmp(fa, fb) == 0);
	wc_params_clear(&b);

	/* Refusals name the path and the reason. */
	char *s;
	s = edited_default("\"form\"", "\"colour\": 1, \"form\"");
	expect_refusal(s, "unknown key 'colour'", NULL);
	free(s);
	s = edited_default("\"theta\"", "\"thetta\"");
	expect_refusal(s, "/levels/0", "unknown key 'thetta'");
	free(s);
	s = edited_default("\"gamma1\"", "\"gamma_one\"");
	expect_refusal(s, "/shared", "unknown key 'gamma_one'");
	free(s);
	s = edited_default("\"value\": 329.0", "\"value\": \"329\"");
	expect_refusal(s, "/levels/0/s_w/value", "expected a number, got string");
	free(s);
	s = edited_default("\"value\": 329.0", "\"valeur\": 329");
	expect_refusal(s, "/levels/0/s_w", "unknown key 'valeur'");
	free(s);
	s = edited_default("\"value\": 329.0", "\"value\": 1e999");
	expect_refusal(s, "malformed JSON", "t.json:");
	free(s);
	s = edited_default("\"kept\": true", "\"kept\": 1");
	expect_refusal(s, "/precision_terms/0/kept", "expected a boolean");
	free(s);
	/* the versions it reads, and the one given, within the message's room */
	s = edited_default("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/20\"");
	expect_refusal(s, "/schema", "\"wattcast.params/1\" to \"wattcast.params/18\", got \"wattcast.params/20\"");
	free(s);
	/* A version-1 file may not carry version-2 sections. */
	s = edited_default("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/1\"");
	expect_refusal(s, "/schema", "sections need");
	free(s);
	/* A version-2 file may not carry model terms (version 3). */
	s = edited_default("\"schema\": \"wattcast.params/19\"", "\"schema\": \"wattcast.params/2\"");
	expect_refusal(s, "/schema", "model terms");
	free(s);
	s = edited_default("\"model_terms\": []",
	                   "\"model_terms\": [{\"model\": \"Qwen3-8B\", \"level\": \"B300\", "
	                   "\"shift\": {\"value\": 0.2, \"source\": \"calibrated\"}}]");
	expect_refusal(s, "/model_terms/0/level", "no level 'B300'");
	free(s);
	s = edited_default("\"model_terms\": []",
	                   "\"model_terms\": [{\"model\": \"Qwen/Qwen3-8B-FP8\", \"level\": \"H100\", "
	                   "\"shift\": {\"value\": 0.2, \"source\": \"calibrated\"}}]");
	expect_refusal(s, "/model_terms/0/model", "base model 'Qwen3-8B'");
	free(s);
	s = edited_default("\"model_terms\": []",
	                   "\"model_terms\": [{\"model\": \"Qwen3-8B\", \"level\": \"H100\", "
	                   "\"shift\": {\"value\": 0.2, \"source\": \"calibrated\"}, \"colour\": 1}]");
	expect_refusal(s, "/model_terms/0", "unknown key 'colour'");
	free(s);
	s = edited_default("\"s_shared_with\": \"H100\"", "\"s_shared_with\": \"H300\"");
	expect_refusal(s, "/levels/3/s_shared_with", "H300");
	free(s);
	s = edited_default("\"ci95\": [\n          318.0,\n          346.0\n        ]",
	                   "\"ci95\": [346.0, 318.0]");
	expect_refusal(s, "/levels/0/s_w/ci95", "lower bound");
	free(s);
	expect_refusal("{\"schema\": \"wattcast.params/4\"}", "missing required key 'name'", NULL);
	expect_refusal("{\"a\": 1, \"a\": 2}", "malformed JSON", "duplicate");
	expect_refusal("[1, 2", "t.json:1:", "malformed JSON");
	{
		/* a missing required key inside a level */
		char *t = edited_default("\"p0_w\"", "\"p0_watts\"");
		expect_refusal(t, "/levels/0", "unknown key 'p0_watts'");
		free(t);
	}

	/* Atomic writes: a failed write leaves the old file and no temporary. */
	int before = count_entries(dir);
	wc_params bad = WC_PARAMS_INIT;
	wc_params_default(&bad);
	bad.levels[0].s.value = NAN; /* refused before anything is written */
	CHECK(wc_params_save_file(path, &bad, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "levels/0/s_w");
	CHECK_INT(count_entries(dir), before);
	CHECK_INT(wc_params_load_file(path, &b, &err), WC_OK); /* old file intact */
	CHECK(b.n_draws == 3);
	wc_params_clear(&b);
	char *nowhere = path_join(dir, "no/such/folder/p.json");
	CHECK(wc_params_save_file(nowhere, &a, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "no/such/folder");
	CHECK_INT(count_entries(dir), before);
	free(nowhere);

	/* Profiles by name. */
	CHECK_INT(wc_params_profile("paper", &b, &err), WC_OK);
	CHECK_NEAR(b.levels[0].s.value, 329, 0);
	CHECK_INT(wc_params_profile("nope", &b, &err), WC_ENOTFOUND);
	CHECK_CONTAINS(err.msg, "nope");

	wc_params_clear(&a);
	free(path);
	free(dir);
	return check_report("test_params_io");
}
