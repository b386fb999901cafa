/*
 * Several parameter sets in one server (docs/http-api.md, "Profiles"):
 * a request naming each profile gets that profile's answer, an unknown
 * one is 422 with field /profile, GET /v1/profiles and /v1/params?profile=
 * list and return them; reloading all files at once under load drops no
 * request, and one broken file keeps the old set of all (the message names
 * the file). POST /v1/calibrate answers a parameter file that loads and
 * applies, and refuses bad tables with the reason and a field.
 */
#include "data/data.h"
#include "models/models.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <pthread.h>
#include <stdatomic.h>

static CURL *h;
static atomic_int stop_load;
static atomic_long n_ok, n_fail;

static double
predict_with(const char *profile, int *status)
{
	char body[256];
	http_reply r;
	snprintf(body, sizeof body,
	         "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"concurrency\":32%s%s%s}",
	         profile ? ",\"profile\":\"" : "", profile ? profile : "", profile ? "\"" : "");
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	*status = (int)r.status;
	double v = r.json ? json_number_value(json_object_get(r.json, "node_power_w")) : NAN;
	if (r.status == 422)
		CHECK(strcmp(http_error_str(&r, "field"), "/profile") == 0);
	http_reply_free(&r);
	return v;
}

static void
test_profiles(void)
{
	int st;
	double a = predict_with(NULL, &st), b;
	CHECK_INT(st, 200);
	CHECK_NEAR(a, 551.0, 1.0); /* the default is the first: paper */
	CHECK_NEAR(predict_with("paper", &st), a, 1e-9);
	b = predict_with("hot", &st);
	CHECK_INT(st, 200);
	CHECK(b > a + 20);
	predict_with("nope", &st);
	CHECK_INT(st, 422);
	http_reply r;
	http_get(h, url("/v1/profiles"), &r);
	CHECK_INT(r.status, 200);
	CHECK_INT(json_integer_value(json_object_get(r.json, "count")), 2);
	CHECK(strcmp(json_string_value(json_object_get(r.json, "default")), "paper") == 0);
	http_reply_free(&r);
	http_get(h, url("/v1/params?profile=hot"), &r);
	CHECK(r.json && strcmp(json_string_value(json_object_get(r.json, "name")), "hot") == 0);
	http_reply_free(&r);
	http_get(h, url("/v1/params?profile=cold"), &r);
	CHECK_INT(r.status, 422);
	CHECK(strcmp(http_error_str(&r, "field"), "/profile") == 0);
	http_reply_free(&r);
	http_get(h, url("/v1/params"), &r);
	CHECK(r.json && strcmp(json_string_value(json_object_get(r.json, "name")), "paper") == 0);
	http_reply_free(&r);
	/* An encoded NUL answered the prefix's profile ("paper"). */
	const char *nul[] = { "/v1/params?profile=paper%00x", "/v1/platforms?profile=paper%00garbage" };
	for (int i = 0; i < 2; i++) {
		http_get(h, url(nul[i]), &r);
		CHECK_INT(r.status, 422);
		CHECK(r.json && strcmp(http_error_str(&r, "field"), "/profile") == 0);
		CHECK(r.json && strstr(http_error_str(&r, "message"), "NUL") != NULL);
		http_reply_free(&r);
	}
	/* A misspelt key or a second profile answered the default set
	 * (200, "paper") without a word. */
	const char *odd[][3] = { { "/v1/params?profle=hot", "/profle", "unknown query parameter" },
		                 { "/v1/platforms?profle=hot", "/profle", "unknown query parameter" },
		                 { "/v1/params?profile=hot&profile=cold", "/profile", "more than once" } };
	for (int i = 0; i < 3; i++) {
		http_get(h, url(odd[i][0]), &r);
		CHECK_INT(r.status, 422);
		CHECK(r.json && strcmp(http_error_str(&r, "field"), odd[i][1]) == 0);
		CHECK(r.json && strstr(http_error_str(&r, "message"), odd[i][2]) != NULL);
		http_reply_free(&r);
	}
}

/* A 422 at `field` whose message holds `needle` and names the body's
 * fields, never a CLI flag (it said "give --platform", "--idle-power W"). */
static void
expect_refused(const char *body, const char *field, const char *needle)
{
	http_reply r;
	http_post_json(h, url("/v1/calibrate"), body, &r);
	CHECK_INT(r.status, 422);
	CHECK(strcmp(http_error_str(&r, "field"), field) == 0);
	CHECK_CONTAINS(http_error_str(&r, "message"), needle);
	CHECK(strstr(http_error_str(&r, "message"), "--") == NULL);
	http_reply_free(&r);
}

#define X9_RUN(n, w) "{\"platform\":\"X9\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":" n ",\"mean_power_w\":" w "}"

/* Refusals and warnings name the body's fields: the library's words were
 * the CLI's flags, and a relative_to without the new platform pointed at
 * /runs. */
static void
test_calibrate_words(void)
{
	http_reply r;
	expect_refused("{\"runs\":[{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32,"
	               "\"mean_power_w\":700}]}", "/runs/0/platform", "(scope \"platform\" adds a level)");
	expect_refused("{\"scope\":\"platform\",\"runs\":[" X9_RUN("8", "500") "," X9_RUN("64", "700") "]}",
	               "/idle_power_w", "the runs carry no measured idle power (idle_power_w of the runs), none was "
	               "given (idle_power_w)");
	expect_refused("{\"scope\":\"platform\",\"runs\":[" X9_RUN("8", "500") ",{\"platform\":\"X8\",\"tp\":1,"
	               "\"model\":\"Qwen3-8B\",\"running\":64,\"mean_power_w\":700}]}", "/runs",
	               "one level at a time (platform selects one)");
	expect_refused("{\"scope\":\"platform\",\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\","
	               "\"running\":8,\"mean_power_w\":400},{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\","
	               "\"running\":64,\"mean_power_w\":600}]}", "/runs", "(scope \"model\" adjusts models on a known one)");
	expect_refused("{\"scope\":\"platform\",\"relative_to\":\"H100\",\"runs\":[" X9_RUN("8", "500") "]}", "/platform",
	               "platform: relative_to needs the new platform named here, other than 'H100'");
	expect_refused("{\"scope\":\"platform\",\"platform\":\"H100\",\"relative_to\":\"H100\",\"runs\":["
	               X9_RUN("8", "500") "]}", "/platform", "relative_to needs the new platform named here");
	/* One run of the reference was refused naming 'H100~runs', a label
	 * the user never gave, at /runs: it is relative_to's level that lacks runs. */
	expect_refused("{\"scope\":\"platform\",\"platform\":\"X9\",\"relative_to\":\"H100\",\"idle_power_w\":100,"
	               "\"runs\":[" X9_RUN("8", "500") "," X9_RUN("64", "700") ",{\"run_id\":\"h1\",\"platform\":\"H100\","
	               "\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,\"mean_power_w\":400}]}", "/relative_to",
	               "relative_to: the reference level 'H100' has only 1 run here, 'h1'; calibrating relative to it "
	               "needs 2 or more of its runs at different loads");
	http_post_json(h, url("/v1/calibrate"), "{\"scope\":\"platform\",\"bootstrap\":0,\"runs\":[{\"platform\":"
	               "\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,\"mean_power_w\":300},{\"platform\":"
	               "\"L40S\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":64,\"mean_power_w\":340}]}", &r);
	CHECK_INT(r.status, 200);
	json_t *w = r.json ? json_object_get(r.json, "warnings") : NULL;
	int idle = 0, scatter = 0;
	for (size_t i = 0; json_is_array(w) && i < json_array_size(w); i++) {
		const char *text = json_string_value(json_array_get(w, i));
		idle |= strstr(text, "P0[L40S]") && strstr(text, "(give idle_power_w to set it)");
		scatter |= strstr(text, "(run_scatter sets it)") != NULL;
		CHECK(strstr(text, "--") == NULL);
	}
	CHECK(idle && scatter);
	http_reply_free(&r);
	/* Runs the result misses advised "an exclude column", which the body
	 * cannot carry (422 unknown_field): the route's remedy is its own. */
#define H_RUN(n, w) "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":" n ",\"mean_power_w\":" w "}"
	http_post_json(h, url("/v1/calibrate"), "{\"bootstrap\":0,\"runs\":[" H_RUN("8", "300") "," H_RUN("8", "600") ","
	               H_RUN("64", "650") "," H_RUN("64", "350") "]}", &r);
#undef H_RUN
	CHECK_INT(r.status, 200);
	const char *miss = NULL;
	w = r.json ? json_object_get(r.json, "warnings") : NULL;
	for (size_t i = 0; json_is_array(w) && i < json_array_size(w); i++)
		if (strstr(json_string_value(json_array_get(w, i)), "the result misses"))
			miss = json_string_value(json_array_get(w, i));
	CHECK(miss && strstr(miss, "leave those runs out of runs") && !strstr(miss, "exclude"));
	if (!miss)
		fprintf(stderr, "  calibrate misses: %s\n", r.body ? r.body : "");
	http_reply_free(&r);
	/* relative_to on runs without idle was refused naming 'H100~runs', an
	 * internal label: the reference takes the base's idle of H100. */
#define RUN(p, n, w) "{\"platform\":\"" p "\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":" n ",\"mean_power_w\":" w "}"
	http_post_json(h, url("/v1/calibrate"), "{\"scope\":\"platform\",\"relative_to\":\"H100\",\"platform\":\"L40S\","
	               "\"bootstrap\":0,\"runs\":[" RUN("L40S", "4", "200") "," RUN("L40S", "32", "300") ","
	               RUN("H100", "4", "330") "," RUN("H100", "32", "470") "]}", &r);
#undef RUN
	CHECK_INT(r.status, 200);
	CHECK(r.body && !strstr(r.body, "~runs"));
	http_reply_free(&r);
}

static void
test_calibrate(void)
{
	http_reply r;
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	http_post_json(h, url("/v1/calibrate"),
	               /* nvidia-smi's spelling is the H100 level, as in a runs table */
	               "{\"profile\":\"hot\",\"name\":\"mine\",\"bootstrap\":20,\"runs\":[{\"platform\":\"NVIDIA H100 80GB HBM3\","
	               "\"tp\":1,\"model\":\"Qwen/Qwen3-8B\",\"running\":32,\"mean_power_w\":500}]}", &r);
	CHECK_INT(r.status, 200);
	/* 20 draws: the few-draws caveat `wattcast calibrate --bootstrap 20`
	 * gives, naming the body's field (the route gave none) */
	char *ws = r.json ? json_dumps(json_object_get(r.json, "warnings"), 0) : NULL;
	CHECK_CONTAINS(ws, "bootstrap: 20 draws: fewer than 40 draws give no 2.5 % tail of their own");
	free(ws);
	json_t *file = r.json ? json_object_get(r.json, "params") : NULL;
	char *text = file ? json_dumps(file, 0) : NULL;
	CHECK(text && wc_params_load_buffer(text, strlen(text), "answer", &p, &err) == WC_OK);
	if (p.n_levels) {
		wc_config c = WC_CONFIG_INIT;
		wc_power pw;
		c.platform = "H100";
		c.active_params_b = 8.19;
		c.running = 32;
		c.model = "Qwen3-8B";
		CHECK_INT(wc_law_power(&p, &c, &pw, NULL), WC_OK);
		/* one run: the law goes through it, but for the weak prior on the shift */
		CHECK_NEAR(pw.node_power_w, 500, 5.0);
		CHECK(strcmp(p.name, "mine") == 0 && p.n_draws == 20);
		/* the file as answered is the file versioned: all its digits
		 * (at 10 it loaded as another version) */
		char fp[17];
		CHECK_INT(wc_params_fingerprint(&p, fp, &err), WC_OK);
		CHECK(strcmp(fp, json_string_value(json_object_get(r.json, "params_version"))) == 0);
	}
	free(text);
	wc_params_clear(&p);
	http_reply_free(&r);
	expect_refused("{\"runs\":[{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32,"
	               "\"mean_power_w\":700}]}", "/runs/0/platform", "a level the base 'paper' does not have");
	expect_refused("{\"scope\":\"platform\",\"runs\":[{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\","
	               "\"running\":32,\"mean_power_w\":700,\"idle_power_w\":150}]}", "/runs",
	               "needs 2 or more runs");
	expect_refused("{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":32}]}",
	               "/runs/0/mean_power_w", "calibration needs measured runs");
	expect_refused("{\"profile\":\"nope\",\"runs\":[]}", "/profile", "unknown profile");
	expect_refused("{\"bootstrap\":1,\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\","
	               "\"running\":32,\"mean_power_w\":500}]}", "/bootstrap", "bootstrap: must be 0 or at least 2");
	/* A run at 0 running is idle (the schema allows 0): named, with why.
	 * It was "the calibration did not converge" with field "". */
	expect_refused("{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,"
	               "\"mean_power_w\":400},{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":0,"
	               "\"mean_power_w\":300}]}", "/runs/1/running", "running: run 'runs/1' is at 0 running requests: "
	               "an idle run has no dynamic power to calibrate on");
	/* an idle running_series is refused on the body's field, not the
	 * runs table's column n_series (docs/http-api.md, "Errors") */
	expect_refused("{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"mean_power_w\":349.3,"
	               "\"idle_power_w\":122.7,\"running_series\":[0,0,0],\"dt_s\":0.05}]}", "/runs/0/running_series",
	               "running_series: run 'runs/0' is at 0 running requests");
	/* a locked clock the board cannot run at: a typo, not a measurement
	 * (it calibrated a shift of -4.5 in z without a word) */
	expect_refused("{\"runs\":[{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":8,"
	               "\"mean_power_w\":430,\"sm_clock_mhz\":99999}]}", "/runs/0/sm_clock_mhz",
	               "must be within the H100's clock range 345-1980 MHz (platform catalog), got 99999");
	/* A new level relative to the base's H100: refused without H100 runs
	 * or for a level the base lacks, naming the field; with both boards'
	 * runs, answered and said so. */
	expect_refused("{\"scope\":\"platform\",\"platform\":\"B300\",\"relative_to\":\"H100\",\"runs\":["
	               "{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":4,\"mean_power_w\":500,"
	               "\"idle_power_w\":150},{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":64,"
	               "\"mean_power_w\":800,\"idle_power_w\":150}]}", "/relative_to", "no run on 'H100'");
	expect_refused("{\"scope\":\"platform\",\"platform\":\"B300\",\"relative_to\":\"X9\",\"runs\":["
	               "{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":4,\"mean_power_w\":500,"
	               "\"idle_power_w\":150}]}", "/relative_to", "not a level of the base");
	http_post_json(h, url("/v1/calibrate"),
	               "{\"scope\":\"platform\",\"platform\":\"B300\",\"relative_to\":\"H100\",\"bootstrap\":0,"
	               "\"runs\":[{\"platform\":\"B300\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":4,"
	               "\"mean_power_w\":500,\"idle_power_w\":150},{\"platform\":\"B300\",\"tp\":1,\"model\":"
	               "\"Qwen3-8B\",\"running\":64,\"mean_power_w\":800,\"idle_power_w\":150},{\"platform\":\"H100\","
	               "\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":4,\"mean_power_w\":330,\"idle_power_w\":120},"
	               "{\"platform\":\"H100\",\"tp\":1,\"model\":\"Qwen3-8B\",\"running\":64,\"mean_power_w\":560,"
	               "\"idle_power_w\":120}]}", &r);
	CHECK_INT(r.status, 200);
	json_t *w = r.json ? json_object_get(r.json, "warnings") : NULL;
	int said = 0;
	for (size_t i = 0; json_is_array(w) && i < json_array_size(w); i++)
		said |= strstr(json_string_value(json_array_get(w, i)), "relative to the base's H100") != NULL;
	CHECK(said);
	http_reply_free(&r);
}

static void *
load(void *arg)
{
	CURL *c = curl_easy_init();
	(void)arg;
	for (long i = 0; !atomic_load(&stop_load); i++) {
		http_reply r;
		http_post_json(c, url("/v1/predict/inference"),
		               i % 2 ? "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32,\"profile\":\"hot\"}"
		                     : "{\"platform\":\"H100\",\"tp\":1,\"active_params_b\":8,\"concurrency\":32}", &r);
		atomic_fetch_add(r.status == 200 ? &n_ok : &n_fail, 1);
		http_reply_free(&r);
	}
	curl_easy_cleanup(c);
	return NULL;
}

static void
test_reload_under_load(wc_server *srv, const char *const *files, const char *const *broken)
{
	pthread_t t[3];
	wc_error err;
	char before[17], after[17];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, load, NULL);
	for (int k = 0; k < 40; k++) {
		CHECK_INT(wc_server_reload_files(srv, 2, files, &err), WC_OK);
		long target = atomic_load(&n_ok) + 5;
		while (atomic_load(&n_ok) < target && atomic_load(&n_fail) == 0)
			; /* let requests through between swaps */
	}
	wc_server_params_version(srv, before);
	CHECK(wc_server_reload_files(srv, 2, broken, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, broken[1]);
	wc_server_params_version(srv, after);
	CHECK(strcmp(before, after) == 0);
	atomic_store(&stop_load, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	CHECK(atomic_load(&n_ok) > 200);
	CHECK_INT(atomic_load(&n_fail), 0);
}

int
main(void)
{
	wc_params paper = WC_PARAMS_INIT, hot = WC_PARAMS_INIT;
	wc_server *srv = NULL;
	wc_error err;
	char *dir = test_tmpdir("profiles");
	char *fa = path_join(dir, "a.json"), *fb = path_join(dir, "b.json"), *fx = path_join(dir, "x.json");
	curl_global_init(CURL_GLOBAL_DEFAULT);
	h = curl_easy_init();
	wc_params_default(&paper);
	wc_params_default(&hot);
	snprintf(hot.name, sizeof hot.name, "hot");
	hot.levels[1].theta.value += 0.5;
	/* its interval moves with it: a set's ci95 contains its value */
	hot.levels[1].theta.lo += 0.5;
	hot.levels[1].theta.hi += 0.5;
	const wc_params *sets[2] = { &paper, &hot };
	const char *sources[2] = { "profile:paper", "hot" };
	wc_server_options so = WC_SERVER_OPTIONS_INIT;
	so.listen = "127.0.0.1:0";
	so.threads = 6;
	/* POST /v1/calibrate's worker: the wattcast the harness built. */
	so.calibrate_worker = test_env("WATTCAST_BIN", NULL);
	/* Two sets of one name are refused. */
	const wc_params *twins[2] = { &paper, &paper };
	CHECK(wc_server_start_profiles(&so, 2, twins, NULL, &srv, &err) != WC_OK);
	CHECK_CONTAINS(err.msg, "distinct names");
	CHECK_INT(wc_server_start_profiles(&so, 2, sets, sources, &srv, &err), WC_OK);
	if (!srv)
		return check_report("test_server_profiles");
	http_set_base(wc_server_port(srv));
	test_profiles();
	test_calibrate();
	test_calibrate_words();
	CHECK_INT(wc_params_save_file(fa, &paper, &err), WC_OK);
	CHECK_INT(wc_params_save_file(fb, &hot, &err), WC_OK);
	CHECK_INT(write_text(fx, "{\"schema\": \"wattcast.params/3\"}"), 0);
	const char *files[2] = { fa, fb }, *broken[2] = { fa, fx };
	test_reload_under_load(srv, files, broken);
	wc_server_stop(srv);
	curl_easy_cleanup(h);
	curl_global_cleanup();
	wc_params_clear(&paper);
	wc_params_clear(&hot);
	free(fa);
	free(fb);
	free(fx);
	free(dir);
	return check_report("test_server_profiles");
}
