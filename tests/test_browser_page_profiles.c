/*
 * The planner page's calibration view with several profiles
 * (docs/planner.md, "Calibration view"; docs/http-api.md, "Profiles"), in
 * headless Chromium against a real `wattcast serve` serving the fitted
 * set of tests/browser/page_session.h (the default) and a set calibrated
 * from one run of Qwen3-8B on H100 (`wattcast calibrate --scope model`,
 * profile "mine", one model term). Checked: the view shows the default and
 * says so; choosing "mine" in the form reloads it with mine's set (its
 * version, its P0s, its model term with the shift, interval and source
 * the API gives) and says which profile it shows, the answer computed
 * with it being mine's too; choosing the default again, a link naming the
 * profile, and a link naming an unknown one (the API's message shown).
 *
 * Skipped (exit 77) when Chromium is not installed (Debian: chromium).
 */
#include "tests/browser/cdp.h"
#include "tests/browser/page_session.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static page_session S;
static cdp *B;
static CURL *H;

/* GET /v1/params, of `profile` when not NULL (new reference). */
static json_t *
params_of(const char *profile)
{
	char path[128];
	http_reply r;
	snprintf(path, sizeof path, "/v1/params%s%s", profile ? "?profile=" : "", profile ? profile : "");
	http_get(H, url(path), &r);
	CHECK_INT(r.status, 200);
	json_t *j = r.json ? json_incref(r.json) : json_object();
	http_reply_free(&r);
	return j;
}

/* The view has finished showing `name`'s set (or failed to, `state`). */
static int
view_shows(const char *name, const char *state)
{
	char expr[256];
	snprintf(expr, sizeof expr,
	         "document.getElementById('calibration').dataset.profile === '%s' && "
	         "document.getElementById('calibration').dataset.state === '%s'", name, state);
	return cdp_wait(B, expr, PAGE_WAIT_S);
}

/* The view shows the set `want` (an answer of GET /v1/params): its
 * version, every level's P0 and every model term, each with the numbers
 * and source the API gives; and says which profile it is. */
static void
check_view(const json_t *want, const char *line_needle)
{
	const json_t *p = json_object_get(want, "params"), *x;
	size_t i;
	char *facts = page_text_of(B, "#calibration dl.facts");
	CHECK_CONTAINS(facts, json_string_value(json_object_get(want, "params_version")));
	free(facts);
	char *line = page_text_of(B, "#calibration-profile");
	CHECK_CONTAINS(line, json_string_value(json_object_get(want, "name")));
	CHECK_CONTAINS(line, line_needle);
	free(line);
	json_array_foreach(json_object_get(p, "levels"), i, x) {
		char sel[160];
		snprintf(sel, sizeof sel, "#cal-levels tr[data-level=\"%s\"] td", json_string_value(json_object_get(x, "name")));
		char *p0 = page_text_of(B, sel);
		page_check_shown(p0, 0, json_number_value(json_object_get(json_object_get(x, "p0_w"), "value")), "P0");
		free(p0);
	}
	const json_t *terms = json_object_get(p, "model_terms");
	json_t *shown = cdp_eval(B, "document.querySelectorAll('#cal-model-terms tr[data-term]').length");
	CHECK_INT(json_integer_value(shown), (long long)json_array_size(terms));
	json_decref(shown);
	json_array_foreach(terms, i, x) {
		const json_t *shift = json_object_get(x, "shift"), *ci = json_object_get(shift, "ci95");
		char sel[200], row[128];
		snprintf(row, sizeof row, "#cal-model-terms tr[data-term=\"%s@%s\"]",
		         json_string_value(json_object_get(x, "model")), json_string_value(json_object_get(x, "level")));
		snprintf(sel, sizeof sel, "%s th", row);
		char *model = page_text_of(B, sel);
		CHECK(strcmp(model, json_string_value(json_object_get(x, "model"))) == 0);
		snprintf(sel, sizeof sel, "%s td", row);
		char *level = page_text_of(B, sel);
		CHECK(strcmp(level, json_string_value(json_object_get(x, "level"))) == 0);
		snprintf(sel, sizeof sel, "%s td:nth-of-type(2)", row);
		char *cell = page_text_of(B, sel);
		page_check_shown(cell, 0, json_number_value(json_object_get(shift, "value")), "model term shift");
		CHECK(json_array_size(ci) == 2);
		page_check_shown(cell, 1, json_number_value(json_array_get(ci, 0)), "model term interval low");
		page_check_shown(cell, 2, json_number_value(json_array_get(ci, 1)), "model term interval high");
		CHECK_CONTAINS(cell, json_string_value(json_object_get(shift, "source")));
		snprintf(sel, sizeof sel, "%s td:nth-of-type(3)", row);
		char *runs = page_text_of(B, sel);
		CHECK_INT(atoi(runs), (int)json_integer_value(json_object_get(x, "runs")));
		free(runs);
		free(cell);
		free(level);
		free(model);
	}
}

/* The header's line names the chosen profile's set (its name and
 * version), not the default's. */
static void
check_set_named(const json_t *want)
{
	char *line = page_text_of(B, "#params-line");
	CHECK_CONTAINS(line, json_string_value(json_object_get(want, "name")));
	CHECK_CONTAINS(line, json_string_value(json_object_get(want, "params_version")));
	free(line);
}

/* The help under Platform gives H100's calibrated spans in the set of
 * the profile `want` (a query, "" for the default), which differ from
 * those of `other`'s, so the other set's cannot pass. */
static void
check_platform_help(const char *want, const char *other)
{
	char expr[1024];
	snprintf(expr, sizeof expr,
	         "(async () => { const span = async (q) => { const r = (await (await fetch('/v1/params' + q)).json())"
	         "  .params.levels.find((l) => l.name === 'H100').range;"
	         "  return `TP ${r.tp[0]}–${r.tp[1]}, n ${fmt(r.running[0])}–${fmt(r.running[1])}`; };"
	         " const want = await span('%s'), other = await span('%s');"
	         " const help = document.getElementById('f-platform-help').textContent;"
	         " return want !== other && help.includes(want) ? 'ok' : `${help} | want ${want} | the other set ${other}`; })()",
	         want, other);
	char *got = cdp_eval_str(B, expr);
	CHECK(strcmp(got, "ok") == 0);
	if (strcmp(got, "ok") != 0)
		fprintf(stderr, "Platform help: %s\n", got);
	free(got);
}

static void
check_profiles(int port)
{
	char page[160];
	json_t *fit = params_of(NULL), *mine = params_of("mine");
	CHECK(strcmp(json_string_value(json_object_get(mine, "name")), "mine") == 0);
	CHECK_INT(json_array_size(json_object_get(json_object_get(mine, "params"), "model_terms")), 1);
	const char *fit_name = json_string_value(json_object_get(fit, "name"));

	snprintf(page, sizeof page, "http://127.0.0.1:%d/", port);
	CHECK_INT(cdp_navigate(B, page), 0);
	CHECK(page_wait_runs(B, 1));
	CHECK(view_shows(fit_name, "done"));
	check_view(fit, "the default");

	/* Chosen in the form: the view follows before any computation. */
	page_choose(B, "f-platform", "H100");
	check_set_named(fit);
	check_platform_help("", "?profile=measured");
	page_choose(B, "f-profile", "mine");
	CHECK(view_shows("mine", "done"));
	check_view(mine, "chosen in the form");
	check_set_named(mine);
	/* the built-in measured set's H100 spans are not the fitted set's */
	page_choose(B, "f-profile", "measured");
	CHECK(view_shows("measured", "done"));
	check_platform_help("?profile=measured", "");
	char *named = page_text_of(B, "#params-line");
	CHECK_CONTAINS(named, "measured");
	free(named);
	page_choose(B, "f-profile", "mine");
	CHECK(view_shows("mine", "done"));
	/* the badge of the term's source is explained under the shared table */
	char *legend = page_text_of(B, "#calibration dl.sources");
	CHECK_CONTAINS(legend, "wattcast calibrate");
	free(legend);
	/* and the answer computed now is mine's */
	page_eval_ok(B, "document.getElementById('f-concurrency').focus()");
	cdp_key(B, "Enter");
	CHECK(page_wait_runs(B, 2));
	char *status = page_text_of(B, "#status");
	CHECK_CONTAINS(status, json_string_value(json_object_get(mine, "params_version")));
	free(status);

	page_choose(B, "f-profile", "");
	CHECK(view_shows(fit_name, "done"));
	check_view(fit, "the default");
	check_set_named(fit);
	check_platform_help("", "?profile=measured");

	/* A link naming the profile, and one naming a profile not served. */
	snprintf(page, sizeof page, "http://127.0.0.1:%d/?profile=mine&platform=H100&model=Qwen3-8B&tp=1", port);
	CHECK_INT(cdp_navigate(B, page), 0);
	CHECK(page_wait_runs(B, 1));
	CHECK(view_shows("mine", "done"));
	check_view(mine, "chosen in the form");
	snprintf(page, sizeof page, "http://127.0.0.1:%d/?profile=nope", port);
	CHECK_INT(cdp_navigate(B, page), 0);
	CHECK(page_wait_runs(B, 1));
	CHECK(view_shows("nope", "error"));
	char *line = page_text_of(B, "#calibration-profile");
	CHECK_CONTAINS(line, "unknown profile");
	free(line);
	/* nor does the header name the default's set for it */
	line = page_text_of(B, "#params-line");
	CHECK_CONTAINS(line, "Profile nope: its parameter set could not be read");
	free(line);
	json_decref(fit);
	json_decref(mine);
}

int
main(void)
{
	/* One run of a catalog model on one platform: a model-scope
	 * calibration of the paper profile, one model term. */
	char *dir = test_tmpdir("browser_page_profiles_sets");
	char *runs = path_join(dir, "runs.csv"), *cal = path_join(dir, "cal.json");
	CHECK_INT(write_text(runs, "run_id,platform,tp,model,active_params_b,running,mean_power_w\n"
	                           "r1,H100,1,Qwen3-8B,8.19,32,500\n"), 0);
	const char *argv[] = { "wattcast", "calibrate", "--profile", "paper", runs, "-o", cal, "--name", "mine",
		               "--bootstrap", "20", "--seed", "7", NULL };
	test_run_ok(argv);
	char *measured = page_measured_export(dir);
	const char *more[] = { cal, measured, NULL };
	int rc = page_session_open_more(&S, "browser_page_profiles", more);
	free(measured);
	free(cal);
	free(runs);
	free(dir);
	if (rc == TEST_SKIP)
		return TEST_SKIP;
	B = S.b;
	H = S.h;
	if (B) {
		http_set_base(S.port);
		check_profiles(S.port);
		CHECK_INT(cdp_page_errors(B), 0);
	}
	page_session_close(&S);
	return check_report("test_browser_page_profiles");
}
