/*
 * A parameter set of WC_MAX_LEVELS levels and refusals that list names
 * (docs/http-api.md, "Errors"; docs/fitting.md, "Platforms without a
 * fitted level").
 *
 * A full set (16 levels) refused every datasheet board that GET
 * /v1/platforms lists as answered from its datasheet: L40S was "platform:
 * unknown level 'L40S' in parameter set 'n12'" (exit 1, HTTP 422), 193.6 W
 * with 14 or 15 levels; the transfer had no slot for its level. It answers
 * now, on the CLI and over HTTP.
 *
 * Lists of names in a refusal (levels, datasheet boards, profiles, a
 * fine-tuning law's platforms) were cut at the message's bound in the
 * middle of a name ("...Custom-Accelerator-Number-04-Exte...") losing the
 * rest of the message ("from datasheets:", "see GET /v1/profiles"), and on
 * the CLI cut silently at 256 bytes into a name no level has. Each now ends
 * at a whole name, says how many it left out, keeps the message's end, and
 * the message is at most 255 bytes.
 */
#include "data/data.h"
#include "models/catalog.h"
#include "models/models.h"
#include "models/profile_measured.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <stdlib.h>
#include <string.h>

/* The measured set grown to WC_MAX_LEVELS levels by copies of its second
 * level, named by `fmt` ("L%02d") with their index; renamed `name`. */
static void
full_set(wc_params *p, const char *fmt, const char *name)
{
	wc_params_measured(p);
	snprintf(p->name, sizeof p->name, "%s", name);
	for (int i = 0; p->n_levels < WC_MAX_LEVELS; i++) {
		wc_level *l = &p->levels[p->n_levels++];
		*l = p->levels[1];
		snprintf(l->name, sizeof l->name, fmt, i);
	}
	/* names that are no catalog board answer nothing from a datasheet, and
	 * the set drops the draws, which do not name the copies */
	wc_error err;
	CHECK_INT(wc_params_set_draws(p, 0, 0, NULL, NULL, &err), WC_OK);
	CHECK_INT(wc_params_validate(p, &err), WC_OK);
}

/* Whether the name `s[0..n)` is a level of `p` or a catalog board. */
static int
real_name(const wc_params *p, const char *s, size_t n)
{
	char name[WC_NAME_MAX + 1];
	if (n >= sizeof name)
		return 0;
	memcpy(name, s, n);
	name[n] = '\0';
	if (wc_params_level(p, name))
		return 1;
	for (size_t i = 0; i < wc_platform_count(); i++)
		if (strcmp(wc_platform_at(i)->name, name) == 0)
			return 1;
	for (int i = 0; i < 8; i++) { /* profiles of profile_names */
		char pn[64];
		snprintf(pn, sizeof pn, "Profile-With-A-Rather-Long-Name-%02d", i);
		if (strcmp(pn, name) == 0)
			return 1;
	}
	return 0;
}

/* The list after `key` in `msg`, up to `end`: every item a whole real
 * name, the last possibly followed by " and N more"; returns how many
 * names it shows and, in *more, N (0 when none). */
static int
check_list(const wc_params *p, const char *msg, const char *key, const char *end, int *more)
{
	const char *at = strstr(msg, key);
	int shown = 0;
	*more = 0;
	CHECK(at != NULL);
	if (!at)
		return 0;
	at += strlen(key);
	const char *stop = strstr(at, end);
	CHECK(stop != NULL);
	if (!stop)
		return 0;
	const char *and = NULL;
	for (const char *q = at; q < stop; q++)
		if (strncmp(q, " and ", 5) == 0)
			and = q;
	if (and) {
		*more = atoi(and + 5);
		CHECK(*more > 0);
		CHECK(strncmp(stop - 5, " more", 5) == 0);
		stop = and;
	}
	for (const char *q = at; q < stop;) {
		size_t n = 0;
		while (q + n < stop && strncmp(q + n, ", ", 2) != 0)
			n++;
		const int ok = real_name(p, q, n);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  '%.*s' in '%s' is no name\n", (int)n, q, msg);
		shown++;
		q += n + (q + n < stop ? 2 : 0);
	}
	return shown;
}

/* Whether the answer `j` has the string `want` at `key`. */
static int
says(const json_t *j, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(j, key));
	return v && strcmp(v, want) == 0;
}

/* A full set answers a datasheet board: the CLI and the copy. */
static void
full_set_cli(const wc_params *p, const char *file)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--params", file, "--platform", "L40S",
		               "--model", "Qwen3-8B", "--concurrency", "1", "--json", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	json_t *j = r.out ? json_loads(r.out, 0, NULL) : NULL;
	CHECK(j != NULL);
	if (!j)
		fprintf(stderr, "  %s\n", r.err ? r.err : "");
	CHECK(says(j, "level_source", "datasheet"));
	CHECK(j && json_number_value(json_object_get(j, "node_power_w")) > 0);
	json_decref(j);
	run_result_free(&r);
	wc_params *copy = NULL;
	wc_error err;
	CHECK_INT(wc_params_datasheet_copy(p, "L40S", &copy, &err), WC_OK);
	CHECK(copy && copy->n_levels == WC_MAX_LEVELS + 1 && wc_params_level(copy, "L40S"));
	free(copy);
}

static void
full_set_http(CURL *h)
{
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"),
	               "{\"platform\":\"L40S\",\"model\":\"Qwen3-8B\",\"concurrency\":1}", &r);
	CHECK_INT(r.status, 200);
	CHECK(says(r.json, "level_source", "datasheet"));
	if (r.status != 200)
		fprintf(stderr, "  %s\n", r.body ? r.body : "");
	http_reply_free(&r);
}

/* The CLI's refusal of a platform nothing knows, on a set of long names. */
static void
long_names_cli(const wc_params *p, const char *file)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--params", file, "--platform", "TPUv9",
		               "--model", "Qwen3-8B", "--concurrency", "1", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	const char *msg = r.err ? strstr(r.err, "--platform: unknown platform 'TPUv9' (known: ") : NULL;
	CHECK(msg != NULL);
	if (msg) {
		size_t len = strcspn(msg, "\n");
		CHECK(len <= 255);
		CHECK(msg[len - 1] == ')');
		int more, shown = check_list(p, msg, "(known: ", "; from datasheets: ", &more);
		CHECK(shown > 0 && more > 0);
		CHECK_INT(shown + more, WC_MAX_LEVELS);
		shown = check_list(p, msg, "; from datasheets: ", ")", &more);
		CHECK(shown + more > 0);
	}
	run_result_free(&r);
	/* fine-tuning's list: the law's platform, the levels, the boards */
	const char *ft[] = { "wattcast", "predict", "finetune", "--params", file, "--method", "full", "--model",
		             "Qwen3-8B", "--micro-batch", "1", "--seq-len", "1024", "--platform", "TPUv9", NULL };
	CHECK(run_wattcast(ft, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	msg = r.err ? strstr(r.err, "--platform: unknown platform 'TPUv9' (known: ") : NULL;
	CHECK(msg != NULL);
	if (msg) {
		size_t len = strcspn(msg, "\n");
		CHECK(len <= 255 && msg[len - 1] == ')');
		int more, shown = check_list(p, msg, "(known: ", ")", &more);
		CHECK(shown > 0 && more > 0);
	}
	run_result_free(&r);
}

/* The message of an error answer, checked whole: at most 255 bytes,
 * ending with `tail`. NULL when it is not there. */
static const char *
refusal(CURL *h, const char *path, const char *body, const char *tail, http_reply *r)
{
	if (body)
		http_post_json(h, url(path), body, r);
	else
		http_get(h, url(path), r);
	CHECK_INT(r->status, 422);
	const char *m = http_error_str(r, "message");
	CHECK(m != NULL);
	if (!m)
		return NULL;
	size_t n = strlen(m), k = strlen(tail);
	CHECK(n <= 255);
	const int ends = n >= k && strcmp(m + n - k, tail) == 0;
	CHECK(ends);
	if (!ends)
		fprintf(stderr, "  '%s' does not end '%s'\n", m, tail);
	return m;
}

static void
long_names_http(CURL *h, const wc_params *p)
{
	http_reply r;
	const char *m = refusal(h, "/v1/predict/inference",
	                        "{\"platform\":\"TPUv9\",\"model\":\"Qwen3-8B\",\"concurrency\":1}",
	                        "; see GET /v1/platforms)", &r);
	if (m) {
		int more, shown = check_list(p, m, "(known: ", "; from datasheets: ", &more);
		CHECK(shown > 0 && more > 0);
		CHECK_INT(shown + more, WC_MAX_LEVELS);
		shown = check_list(p, m, "; from datasheets: ", "; see GET", &more);
		CHECK(shown + more > 0);
	}
	http_reply_free(&r);
	m = refusal(h, "/v1/predict/finetune",
	            "{\"method\":\"full\",\"model\":\"Qwen3-8B\",\"micro_batch\":1,\"seq_len\":1024,\"platform\":\"TPUv9\"}",
	            "; see GET /v1/platforms)", &r);
	if (m) {
		int more, shown = check_list(p, m, "(known: ", "; see GET", &more);
		CHECK(shown > 0 && more > 0);
	}
	http_reply_free(&r);
}

static void
profiles_http(CURL *h, const wc_params *p)
{
	const char *bodies[] = { "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":1,\"profile\":\"nope\"}",
		                 NULL };
	const char *paths[] = { "/v1/predict/inference", "/v1/params?profile=nope" };
	for (int i = 0; i < 2; i++) {
		http_reply r;
		const char *m = refusal(h, paths[i], bodies[i], "; see GET /v1/profiles)", &r);
		if (m) {
			int more, shown = check_list(p, m, "(serving: ", "; see GET", &more);
			CHECK(shown > 0 && more > 0);
			CHECK_INT(shown + more, 8);
		}
		http_reply_free(&r);
	}
}

int
main(void)
{
	wc_params full = WC_PARAMS_INIT, longs = WC_PARAMS_INIT;
	wc_params profs[8];
	const wc_params *sets[8];
	const char *sources[8];
	wc_error err;
	char *dir = test_tmpdir("server_full_set");
	char *file = path_join(dir, "lv12.json"), *lfile = path_join(dir, "long.json");
	full_set(&full, "L%02d", "n12");
	full_set(&longs, "Custom-Accelerator-Number-%02d-Extended", "longs");
	for (int i = 0; i < longs.n_levels; i++)
		snprintf(longs.levels[i].name, sizeof longs.levels[i].name, "Custom-Accelerator-Number-%02d-Extended", i);
	longs.n_model_terms = 0;
	longs.response.present = 0;
	longs.capacity.present = 0;
	CHECK_INT(wc_params_validate(&longs, &err), WC_OK);
	CHECK_INT(wc_params_save_file(file, &full, &err), WC_OK);
	CHECK_INT(wc_params_save_file(lfile, &longs, &err), WC_OK);
	full_set_cli(&full, file);
	long_names_cli(&longs, lfile);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	CURL *h = curl_easy_init();
	wc_server *srv = http_server_start(&full, "lv12.json", 2);
	if (srv) {
		full_set_http(h);
		wc_server_stop(srv);
	}
	if ((srv = http_server_start(&longs, "long.json", 2))) {
		long_names_http(h, &longs);
		wc_server_stop(srv);
	}
	for (int i = 0; i < 8; i++) {
		profs[i] = (wc_params)WC_PARAMS_INIT;
		wc_params_default(&profs[i]);
		snprintf(profs[i].name, sizeof profs[i].name, "Profile-With-A-Rather-Long-Name-%02d", i);
		sets[i] = &profs[i];
		sources[i] = "built-in";
	}
	if ((srv = http_server_start_profiles(8, sets, sources, 2))) {
		profiles_http(h, &profs[0]);
		wc_server_stop(srv);
	}
	for (int i = 0; i < 8; i++)
		wc_params_clear(&profs[i]);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&full);
	wc_params_clear(&longs);
	free(file);
	free(lfile);
	free(dir);
	return check_report("test_server_full_set");
}
