/*
 * GET /v1/platforms (docs/http-api.md): every platform a request may name
 * for the profile asked, the set's levels first, then each catalog board
 * the set has no level of; each with its board's datasheet facts and
 * whether a level or the datasheet answers it, as the inference answer's
 * level_source says, and whether its board is PCIe-only or limited as a
 * module. Served side by side, ?profile=NAME picks the set.
 */
#include "data/data.h"
#include "models/catalog.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <math.h>

static CURL *h;

static const json_t *
find(const json_t *list, const char *name)
{
	size_t i;
	const json_t *o;
	json_array_foreach(list, i, o)
		if (strcmp(json_string_value(json_object_get(o, "name")), name) == 0)
			return o;
	return NULL;
}

/* The inference answer's level_source for `platform`, and its idle power
 * per GPU in `*idle`. */
static char *
inference_source(const char *platform, const char *profile, double *idle)
{
	char body[256];
	http_reply r;
	snprintf(body, sizeof body, "{\"platform\":\"%s\",\"model\":\"Qwen3-8B\",\"concurrency\":8%s%s%s}", platform,
	         profile ? ",\"profile\":\"" : "", profile ? profile : "", profile ? "\"" : "");
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	CHECK_INT(r.status, 200);
	const char *s = json_string_value(json_object_get(r.json, "level_source"));
	char *out = s ? strdup(s) : NULL;
	*idle = http_json_num(r.json, "idle_power_w");
	http_reply_free(&r);
	return out;
}

static void
check_list(const wc_params *p, const char *query, const char *profile)
{
	char path[128];
	http_reply r;
	snprintf(path, sizeof path, "/v1/platforms%s", query);
	http_get(h, url(path), &r);
	CHECK_INT(r.status, 200);
	const json_t *list = json_object_get(r.json, "platforms");
	size_t n = json_array_size(list), boards_without_level = 0;
	for (size_t i = 0; i < wc_platform_count(); i++)
		boards_without_level += wc_params_level(p, wc_platform_at(i)->name) == NULL;
	CHECK_INT((long long)n, (long long)(p->n_levels + boards_without_level));
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), (long long)n);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "profile")), p->name) == 0);
	/* levels first, in the set's order; then the datasheet boards */
	for (size_t i = 0; i < n; i++) {
		const json_t *o = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(o, "name"));
		const char *from = json_string_value(json_object_get(o, "answered_from"));
		int is_level = (int)i < p->n_levels;
		CHECK(name && from && strcmp(from, is_level ? "level" : "datasheet") == 0);
		if (is_level) {
			CHECK(strcmp(name, p->levels[i].name) == 0);
			/* a level's idle is its P0 (it said null for a calibrated L40S) */
			CHECK(fabs(json_number_value(json_object_get(o, "idle_power_w")) - p->levels[i].p0.value) < 1e-6 * p->levels[i].p0.value);
		}
		/* each is accepted by the inference route, with the same source */
		double idle = NAN;
		char *src = inference_source(name, profile, &idle);
		/* the idle listed is the one the answers use, a datasheet
		 * board's transferred P0 included, and says where it comes
		 * from (datasheet boards without a published idle said null) */
		CHECK_NEAR(http_json_num(o, "idle_power_w"), idle, 1e-9 * idle);
		const char *isrc = json_string_value(json_object_get(o, "idle_power_source"));
		CHECK(isrc != NULL);
		if (!is_level)
			CHECK(isrc && strncmp(isrc, "transfer:", 9) == 0);
		const char *said = json_string_value(json_object_get(o, "level_source"));
		CHECK(src && said && strcmp(src, said) == 0);
		if (!(src && said && strcmp(src, said) == 0))
			fprintf(stderr, "  %s: /v1/platforms says %s, the answer %s\n", name, said, src ? src : "(none)");
		free(src);
	}
	/* every catalog board is listed once, by a level or its datasheet */
	for (size_t i = 0; i < wc_platform_count(); i++)
		CHECK(find(list, wc_platform_at(i)->name) != NULL);
	http_reply_free(&r);
}

static void
test_facts(void)
{
	http_reply r;
	http_get(h, url("/v1/platforms"), &r);
	const json_t *list = json_object_get(r.json, "platforms");
	const wc_platform_info *pi = wc_platform_lookup("L40S");
	const json_t *o = find(list, "L40S");
	CHECK(pi && o);
	if (pi && o) {
		CHECK_NEAR(http_json_num(o, "memory_gb"), pi->memory_gb, 0);
		CHECK_NEAR(http_json_num(o, "bandwidth_tb_s"), pi->bandwidth_tb_s, 0);
		CHECK_NEAR(http_json_num(o, "bf16_tflops"), pi->bf16_tflops, 0);
		CHECK_NEAR(http_json_num(o, "board_power_limit_w"), pi->max_power_w, 0);
		CHECK_NEAR(http_json_num(o, "max_sm_clock_mhz"), pi->max_sm_clock_mhz, 0);
		CHECK(strcmp(json_string_value(json_object_get(o, "board")), "L40S") == 0);
	}
	/* every entry says whether its board is PCIe-only and whether its
	 * limit is a module's, as the catalog does (both were absent, so a
	 * planner could not see either over HTTP) */
	size_t i;
	json_array_foreach(list, i, o) {
		const char *board = json_string_value(json_object_get(o, "board"));
		const wc_platform_info *bi = board ? wc_platform_lookup(board) : NULL;
		const json_t *pcie = json_object_get(o, "pcie_only"), *module = json_object_get(o, "module_limit");
		CHECK(bi ? json_is_boolean(pcie) && json_is_boolean(module) : json_is_null(pcie) && json_is_null(module));
		if (bi)
			CHECK(json_is_true(pcie) == (wc_platform_tp_crossing(bi, 2) != NULL) &&
			      json_is_true(module) == (bi->module_limit != 0));
	}
	/* and how many GPUs its NVLink joins, pcie_only being the boards with
	 * none: the bridged pairs of the H100 NVL are not PCIe-only, but a
	 * group of more than 2 talks over PCIe there too (docs/http-api.md) */
	json_array_foreach(list, i, o) {
		const char *board = json_string_value(json_object_get(o, "board"));
		const wc_platform_info *bi = board ? wc_platform_lookup(board) : NULL;
		const json_t *domain = json_object_get(o, "link_domain");
		CHECK(bi && bi->link_domain > 0 ? json_integer_value(domain) == bi->link_domain : json_is_null(domain));
		CHECK(!bi || json_is_true(json_object_get(o, "pcie_only")) == (bi->link_domain == 1));
	}
	CHECK(json_integer_value(json_object_get(find(list, "H100-NVL"), "link_domain")) == 2);
	CHECK(json_is_false(json_object_get(find(list, "H100-NVL"), "pcie_only")));
	CHECK(json_integer_value(json_object_get(find(list, "L40S"), "link_domain")) == 1);
	CHECK(json_integer_value(json_object_get(find(list, "H100"), "link_domain")) == 8);
	CHECK(json_is_null(json_object_get(find(list, "GH200"), "link_domain")));
	CHECK(json_is_true(json_object_get(find(list, "L40S"), "pcie_only")));
	CHECK(json_is_false(json_object_get(find(list, "L40S"), "module_limit")));
	CHECK(json_is_true(json_object_get(find(list, "GH200"), "module_limit")));
	CHECK(json_is_false(json_object_get(find(list, "GH200"), "pcie_only")));
	CHECK(json_is_false(json_object_get(find(list, "H100"), "pcie_only")));
	http_reply_free(&r);
	http_expect_error(h, "GET", "/v1/platforms?profile=nope", NULL, NULL, 422, "unknown_profile", "/profile");
	/* empty, as an empty string in a body: invalid, not an unknown name */
	http_expect_error(h, "GET", "/v1/platforms?profile=", NULL, NULL, 422, "invalid_value", "/profile");
}

int
main(void)
{
	wc_params measured = WC_PARAMS_INIT, paper = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	CHECK_INT(wc_params_profile(WC_DEFAULT_PROFILE, &measured, &err), WC_OK);
	wc_params_default(&paper);
	const wc_params *sets[] = { &measured, &paper };
	const char *sources[] = { "profile:" WC_DEFAULT_PROFILE, "profile:paper" };
	srv = http_server_start_profiles(2, sets, sources, 4);
	if (!srv)
		return check_report("test_server_platforms");
	check_list(&measured, "", NULL);
	/* the paper set's H100-locked level runs on the H100 board */
	check_list(&paper, "?profile=paper", "paper");
	http_reply r;
	http_get(h, url("/v1/platforms?profile=paper"), &r);
	const json_t *locked = find(json_object_get(r.json, "platforms"), "H100-locked");
	CHECK(locked && strcmp(json_string_value(json_object_get(locked, "board")), "H100") == 0);
	/* H100-SXM5 answers H100, never H100-locked: the board's aliases
	 * are H100's only (both entries listed all five) */
	const json_t *h100 = find(json_object_get(r.json, "platforms"), "H100");
	CHECK(locked && json_array_size(json_object_get(locked, "aliases")) == 0);
	CHECK(h100 && json_array_size(json_object_get(h100, "aliases")) > 0);
	http_reply_free(&r);
	test_facts();
	wc_server_stop(srv);
	wc_params_clear(&measured);
	wc_params_clear(&paper);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	return check_report("test_server_platforms");
}
