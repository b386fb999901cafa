/*
 * The response section of a parameter file (docs/formats/params-file.md,
 * "response"): it round-trips with its intervals; a set without it keeps
 * its canonical form and params_version (the key is left out, not null);
 * a version-1 file (written by the first release) and a version-2 file
 * without the section still load, and take the assumed response; a
 * version-1 file may not carry it; bad values are refused with the path.
 */
#include "data/data.h"
#include "models/models.h"
#include "tests/support/support.h"

#include <math.h>
#include <stdlib.h>

static void
round_trip(void)
{
	wc_params p = WC_PARAMS_INIT, q = WC_PARAMS_INIT;
	wc_error err;
	wc_params_default(&p);
	p.response.present = 1;
	p.response.fitted = 1;
	p.response.tau_s = (wc_response_value){ 0.042, 0.03, 0.061 };
	p.response.hold_s = (wc_response_value){ 0.12, 0.05, 0.2 };
	p.response.prefill_ratio = (wc_response_value){ 0.71, 0.6, 0.8 };
	p.response.runs = 8;
	p.response.rms_w = 31.5;
	p.response.n_levels = 2;
	snprintf(p.response.levels[0].level, sizeof p.response.levels[0].level, "A100");
	p.response.levels[0].tau_s = (wc_response_value){ 0.08, NAN, NAN };
	p.response.levels[0].runs = 7;
	snprintf(p.response.levels[1].level, sizeof p.response.levels[1].level, "H100");
	p.response.levels[1].tau_s = (wc_response_value){ 0.64, NAN, NAN };
	char *s = wc_params_dump(&p, 1, &err);
	CHECK_CONTAINS(s, "\"response\": {");
	CHECK_CONTAINS(s, "\"source\": \"fitted\"");
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &q, &err), WC_OK);
	CHECK(q.response.present && q.response.fitted && q.response.runs == 8);
	CHECK(q.response.tau_s.value == 0.042 && q.response.tau_s.lo == 0.03 && q.response.tau_s.hi == 0.061);
	CHECK(q.response.hold_s.value == 0.12 && q.response.prefill_ratio.hi == 0.8);
	CHECK(q.response.rms_w == 31.5);
	CHECK_INT(q.response.n_levels, 2);
	CHECK(strcmp(q.response.levels[1].level, "H100") == 0 && q.response.levels[1].tau_s.value == 0.64);
	CHECK_INT(q.response.levels[0].runs, 7);
	CHECK(wc_response_tau_for(&q.response, "H100") == 0.64);
	CHECK(wc_response_tau_for(&q.response, "H200") == 0.042);
	/* No dynamic scale: the key is left out (files as before it existed)
	 * and it loads as 1; a fitted one round-trips with its interval. */
	CHECK(strstr(s, "dynamic_scale") == NULL);
	CHECK(q.response.dynamic_scale.value == 1.0 && wc_response_dynamic_scale(&q.response) == 1.0);
	{
		wc_params d = WC_PARAMS_INIT;
		p.response.dynamic_scale = (wc_response_value){ 0.88, 0.8, 0.97 };
		char *sd = wc_params_dump(&p, 1, &err);
		CHECK_CONTAINS(sd, "\"dynamic_scale\"");
		CHECK_INT(wc_params_load_buffer(sd, strlen(sd), "t", &d, &err), WC_OK);
		CHECK(d.response.dynamic_scale.value == 0.88 && d.response.dynamic_scale.lo == 0.8 &&
		      d.response.dynamic_scale.hi == 0.97);
		CHECK(wc_response_dynamic_scale(&d.response) == 0.88);
		p.response.dynamic_scale = (wc_response_value){ 5.0, NAN, NAN };
		CHECK(wc_response_validate(&p.response, &err) != WC_OK);
		CHECK_CONTAINS(err.msg, "response/dynamic_scale");
		p.response.dynamic_scale = (wc_response_value){ 0.0, NAN, NAN };
		free(sd);
		wc_params_clear(&d);
	}
	/* Copies carry it (a plain value). */
	wc_params r = WC_PARAMS_INIT;
	CHECK_INT(wc_params_copy(&r, &q, &err), WC_OK);
	CHECK(r.response.present && r.response.tau_s.value == 0.042);
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
	wc_params_clear(&r);
}

static void
absent_keeps_version(void)
{
	wc_params p = WC_PARAMS_INIT;
	wc_response_params eff;
	wc_error err;
	char v[17];
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 1, &err);
	CHECK(strstr(s, "\"response\"") == NULL);
	/* Whatever an absent section holds, the version tag is the same. */
	char v2[17];
	CHECK_INT(wc_params_fingerprint(&p, v, &err), WC_OK);
	p.response.tau_s.value = 3.0;
	CHECK_INT(wc_params_fingerprint(&p, v2, &err), WC_OK);
	CHECK(strcmp(v, v2) == 0);
	wc_params q = WC_PARAMS_INIT;
	CHECK_INT(wc_params_load_buffer(s, strlen(s), "t", &q, &err), WC_OK);
	CHECK(!q.response.present);
	wc_response_effective(&q.response, &eff);
	CHECK(eff.present && !eff.fitted && eff.tau_s.value == WC_RESPONSE_ASSUMED_TAU_S);
	CHECK(isnan(eff.tau_s.lo));
	free(s);
	wc_params_clear(&p);
	wc_params_clear(&q);
}

static void
older_files_load(void)
{
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "tests/fixtures/params/v1-power-law-fit.json");
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(path, &p, &err), WC_OK);
	CHECK(!p.response.present);
	free(path);
	/* A version-1 file may not carry the section. */
	const char *v1 = "{\"schema\":\"wattcast.params/1\",\"name\":\"x\",\"form\":\"power_law\","
	                 "\"levels\":[{\"name\":\"A100\",\"p0_w\":{\"value\":70,\"source\":\"measured\"},"
	                 "\"s_w\":null,\"theta\":{\"value\":5,\"source\":\"fitted\"}}],"
	                 "\"shared\":{\"delta\":{\"value\":0.6,\"source\":\"fitted\"},"
	                 "\"gamma1\":{\"value\":0.7,\"source\":\"fitted\"},\"gamma2\":{\"value\":0,\"source\":\"fitted\"},"
	                 "\"kappa\":{\"value\":1,\"source\":\"assumed\"}},"
	                 "\"response\":{\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"},"
	                 "\"hold_s\":{\"value\":0.1,\"source\":\"fitted\"},"
	                 "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"}}}";
	CHECK(wc_params_load_buffer(v1, strlen(v1), "old.json", &p, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "old.json:1:11: /schema: sections need");
	wc_params_clear(&p);
}

/* The default profile with a response section given as text. */
static int
load_with(const char *section, wc_error *err)
{
	wc_params p = WC_PARAMS_INIT;
	wc_params_default(&p);
	char *s = wc_params_dump(&p, 0, NULL);
	wc_params_clear(&p);
	size_t n = strlen(s);
	char *t = malloc(n + strlen(section) + 32);
	/* Before the final "}": , "response": ... */
	memcpy(t, s, n - 2);
	sprintf(t + n - 2, ",\n  \"response\": %s\n}", section);
	int rc = wc_params_load_buffer(t, strlen(t), "p.json", &p, err);
	free(s);
	free(t);
	wc_params_clear(&p);
	return rc;
}

static void
bad_values_refused(void)
{
	wc_error err;
	CHECK_INT(load_with("{\"tau_s\":{\"value\":0.05,\"source\":\"assumed\"},"
	                    "\"hold_s\":{\"value\":0,\"source\":\"assumed\"},"
	                    "\"prefill_ratio\":{\"value\":0.5,\"source\":\"assumed\"}}", &err), WC_OK);
	CHECK(load_with("{\"tau_s\":{\"value\":-1,\"source\":\"fitted\"},"
	                "\"hold_s\":{\"value\":0,\"source\":\"fitted\"},"
	                "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"}}", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "response/tau_s: must be");
	CHECK(load_with("{\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"},"
	                "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"}}", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response: missing required key 'hold_s'");
	CHECK(load_with("{\"tau_s\":{\"value\":0.1,\"source\":\"published\"},"
	                "\"hold_s\":{\"value\":0,\"source\":\"fitted\"},"
	                "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"}}", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response/tau_s/source");
	CHECK(load_with("{\"tau_s\":{\"value\":0.1,\"source\":\"fitted\",\"ci95\":[0.2,0.1]},"
	                "\"hold_s\":{\"value\":0,\"source\":\"fitted\"},"
	                "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"}}", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "/response/tau_s/ci95");
	CHECK(load_with("{\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"},"
	                "\"hold_s\":{\"value\":0,\"source\":\"fitted\"},"
	                "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"},"
	                "\"levels\":[{\"level\":\"A100\",\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"}},"
	                "{\"level\":\"A100\",\"tau_s\":{\"value\":0.2,\"source\":\"fitted\"}}]}", &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "response/levels/1/level: duplicate 'A100'");
	/* A level naming nothing ("A-100", a typo) loaded and every A100
	 * envelope used the shared tau; a catalog board the file has no
	 * level for (B200) is answered from its datasheet, and loads. */
#define RESP_WITH(lv) "{\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"},"                          \
	              "\"hold_s\":{\"value\":0,\"source\":\"fitted\"},"                                \
	              "\"prefill_ratio\":{\"value\":0.5,\"source\":\"fitted\"},"                       \
	              "\"levels\":[{\"level\":\"" lv "\",\"tau_s\":{\"value\":0.1,\"source\":\"fitted\"}}]}"
	CHECK(load_with(RESP_WITH("A-100"), &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "p.json:629:162: /response/levels/0/level: 'A-100' is no level of the file and no platform");
	CHECK_INT(load_with(RESP_WITH("B200"), &err), WC_OK);
	CHECK_INT(load_with(RESP_WITH("a100"), &err), WC_OK);
#undef RESP_WITH
}

int
main(void)
{
	round_trip();
	absent_keeps_version();
	older_files_load();
	bad_values_refused();
	return check_report("test_params_response");
}
