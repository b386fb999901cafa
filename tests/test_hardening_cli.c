/*
 * Command-line regressions of adversarial runs (docs/architecture.md,
 * "Hardening"):
 *
 *  - a fitted parameter file without an optional key
 *    (levels[0].floor_logit, an unused precision term's value) loads and
 *    predicts like the full file; it used to crash `predict` (SIGSEGV);
 *  - a writer killed before its rename leaves `p.json.tmp.<pid>.XXXXXX`;
 *    the next write of p.json removes it when that pid is dead, and never
 *    a live writer's file;
 *  - help texts print "1 %" (not "1 %%"), and `ingest .` names the run
 *    after its folder, not ".";
 *  - `metrics` on a folder says so (it said "read error"), takes counts
 *    as ingest writes them, fractions too (3.5 was refused), and calls a
 *    negative power reading negative, not unreadable, and says when a
 *    GPU count given disagrees with what the timestamps plainly show.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *dir;

/* `src` with the JSON value at levels/precision_terms index removed. */
static char *
without_key(const char *src, const char *array, size_t index, const char *key, const char *name)
{
	json_error_t jerr;
	json_t *root = json_load_file(src, 0, &jerr);
	CHECK(root != NULL);
	json_t *item = json_array_get(json_object_get(root, array), index);
	CHECK(json_object_get(item, key) != NULL);
	json_object_del(item, key);
	char *out = path_join(dir, name);
	CHECK_INT(json_dump_file(root, out, JSON_INDENT(1)), 0);
	json_decref(root);
	return out;
}

static char *
predict(const char *params, int *status)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--params", params, "--platform", "H100",
		               "--active-params", "8", "--tp", "1", "--concurrency", "8", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	*status = r.status;
	if (r.status != 0)
		fprintf(stderr, "predict with %s: %s", params, r.err);
	char *out = r.out;
	r.out = NULL;
	run_result_free(&r);
	return out;
}

static void
test_absent_optional_keys(const char *fitted)
{
	int st;
	char *full = predict(fitted, &st);
	CHECK_INT(st, 0);
	/* floor_logit is optional (null = no floor): absent reads as null. */
	char *nofloor = without_key(fitted, "levels", 0, "floor_logit", "nofloor.json");
	char *out = predict(nofloor, &st);
	CHECK_INT(st, 0);
	/* Same answer; only the version line may differ (another file). */
	CHECK(out && strncmp(out, full, (size_t)(strstr(full, "parameters") - full)) == 0);
	free(out);

	/* The value of a precision term that was not kept is null: absent
	 * reads the same; a kept term's value is required and is refused
	 * with its path, not a crash. */
	json_t *root = json_load_file(fitted, 0, NULL);
	json_t *terms = json_object_get(root, "precision_terms");
	size_t unused = (size_t)-1, kept = (size_t)-1;
	for (size_t i = 0; i < json_array_size(terms); i++) {
		int k = json_is_true(json_object_get(json_array_get(terms, i), "kept"));
		if (k && kept == (size_t)-1)
			kept = i;
		if (!k && unused == (size_t)-1)
			unused = i;
	}
	json_decref(root);
	CHECK(unused != (size_t)-1 && kept != (size_t)-1);
	if (unused != (size_t)-1) {
		char *p = without_key(fitted, "precision_terms", unused, "value", "noterm.json");
		out = predict(p, &st);
		CHECK_INT(st, 0);
		free(out);
		free(p);
	}
	if (kept != (size_t)-1) {
		char *p = without_key(fitted, "precision_terms", kept, "value", "nokept.json");
		char want[64];
		out = predict(p, &st);
		CHECK_INT(st, 1);
		free(out);
		wc_params q = WC_PARAMS_INIT;
		wc_error err;
		CHECK(wc_params_load_file(p, &q, &err) != WC_OK);
		snprintf(want, sizeof want, "/precision_terms/%zu/value", kept);
		CHECK_CONTAINS(err.msg, want);
		wc_params_clear(&q);
		free(p);
	}
	free(nofloor);
	free(full);
}

/* Temporaries of `target` in `dir`: count, and whether `name` is one. */
static int
count_temporaries(const char *target_base, const char *name, int *has_name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char prefix[128];
	int n = 0;
	snprintf(prefix, sizeof prefix, "%s.tmp.", target_base);
	*has_name = 0;
	while (d && (e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
			continue;
		n++;
		*has_name |= name && strcmp(e->d_name, name) == 0;
	}
	if (d)
		closedir(d);
	return n;
}

/* A pid that was alive a moment ago and is not any more. */
static long
dead_pid(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return (long)pid;
}

static void
test_stale_temporaries(void)
{
	char dead_name[128], live_name[128];
	snprintf(dead_name, sizeof dead_name, "p.json.tmp.%ld.AbC123", dead_pid());
	snprintf(live_name, sizeof live_name, "p.json.tmp.%ld.XyZ789", (long)getpid());
	char *dead = path_join(dir, dead_name), *live = path_join(dir, live_name);
	/* What a kill -9 between mkstemp and rename leaves: half a file. */
	CHECK_INT(write_text(dead, "{\"schema\": \"wattcast.par"), 0);
	CHECK_INT(write_text(live, "{\"schema\": \"wattcast.par"), 0);
	char *out = path_join(dir, "p.json");
	char *runs = path_join(test_env("WC_SOURCE_DIR", ".."), "data/default/paper-design-seed42.csv");
	const char *argv[] = { "wattcast", "fit", "inference", runs, "-o", out, "--bootstrap", "5", "--seed", "3",
		               "--threads", "1", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	/* Five draws have no 2.5 % tail: their "95 %" interval is their range. */
	CHECK_CONTAINS(r.err, "wattcast fit inference: warning: --bootstrap 5: fewer than 40 draws give no 2.5 % tail");
	run_result_free(&r);
	/* One draw is refused at once, with no warning about its tails, by
	 * every command that takes --bootstrap (one rule, cli/args.c). */
	static const char *const boot1[][8] = {
		{ "wattcast", "fit", "inference", "RUNS", "-o", "OUT", "--bootstrap", "1" },
		{ "wattcast", "fit", "capacity", "RUNS", "-o", "OUT", "--bootstrap", "1" },
		{ "wattcast", "fit", "response", "RUNS", "-o", "OUT", "--bootstrap", "1" },
	};
	for (size_t k = 0; k < sizeof boot1 / sizeof boot1[0]; k++) {
		const char *bv[9];
		for (int i = 0; i < 8; i++)
			bv[i] = strcmp(boot1[k][i], "RUNS") == 0 ? runs : strcmp(boot1[k][i], "OUT") == 0 ? out : boot1[k][i];
		bv[8] = NULL;
		CHECK_INT(run_wattcast(bv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, "--bootstrap: must be 0 or at least 2");
		CHECK(strstr(r.err, "warning") == NULL);
		run_result_free(&r);
	}
	/* and fit response's help says so (it gave "0 = none" alone, and the
	 * page the range 0-1 000 000) */
	const char *rhelp[] = { "wattcast", "fit", "response", "--help", NULL };
	CHECK_INT(run_wattcast(rhelp, NULL, &r), 0);
	CHECK_CONTAINS(r.out, "(default 200; 0 = none; 1 is refused:\none resample has no spread)");
	run_result_free(&r);
	int has_live = 0, has_dead = 0;
	/* The dead writer's temporary is gone, the live one's is kept, and
	 * the fit left none of its own. */
	CHECK_INT(count_temporaries("p.json", live_name, &has_live), 1);
	CHECK(has_live);
	count_temporaries("p.json", dead_name, &has_dead);
	CHECK(!has_dead);
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	CHECK_INT(wc_params_load_file(out, &p, &err), WC_OK);
	wc_params_clear(&p);
	/* Temporaries of other targets are not this write's business. */
	char other_name[128];
	snprintf(other_name, sizeof other_name, "q.json.tmp.%ld.AbC123", dead_pid());
	char *other = path_join(dir, other_name);
	CHECK_INT(write_text(other, "x"), 0);
	CHECK_INT(wc_write_file_atomic(out, "{}", 2, &err), WC_OK);
	CHECK(access(other, F_OK) == 0);
	unlink(live);
	unlink(other);
	free(other);
	free(runs);
	free(out);
	free(dead);
	free(live);
}

/* An output that is not a regular file is written, never replaced: a
 * FIFO stays a FIFO (a rename had turned `-o /dev/null` into a regular
 * file), a link to a file stays a link and its file gets the bytes, a
 * folder is refused. */
static void
test_special_outputs(void)
{
	wc_error err;
	char *fifo = path_join(dir, "out.fifo"), *file = path_join(dir, "target.json"),
	     *link = path_join(dir, "link.json");
	struct stat st;
	CHECK(mkfifo(fifo, 0644) == 0);
	pid_t pid = fork();
	if (pid == 0) { /* the reader at the other end */
		char buf[64];
		FILE *f = fopen(fifo, "r");
		size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
		_exit(n == 7 && memcmp(buf, "{\"a\":1}", 7) == 0 ? 0 : 1);
	}
	CHECK_INT(wc_write_file_atomic(fifo, "{\"a\":1}", 7, &err), WC_OK);
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	CHECK_INT(wc_write_file_atomic("/dev/null", "x", 1, &err), WC_OK);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

	CHECK_INT(write_text(file, "old"), 0);
	CHECK(symlink("target.json", link) == 0);
	CHECK_INT(wc_write_file_atomic(link, "new", 3, &err), WC_OK);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	char *got = NULL;
	size_t n = 0;
	CHECK_INT(wc_read_file(file, 64, &got, &n, &err), WC_OK);
	CHECK(got && strcmp(got, "new") == 0);
	free(got);
	CHECK_INT(wc_write_file_atomic(dir, "x", 1, &err), WC_EINVAL);
	CHECK_CONTAINS(err.msg, "is a folder");
	unlink(fifo);
	unlink(link);
	unlink(file);
	free(fifo);
	free(file);
	free(link);
}

static int
count_of(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void
test_help_percent(void)
{
	static const char *const cmds[] = { "ingest", "metrics", "simulate" };
	for (size_t i = 0; i < 3; i++) {
		const char *argv[] = { "wattcast", cmds[i], "--help", NULL };
		run_result r;
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 0);
		size_t n = strlen(r.out) + strlen(r.err) + 1;
		char *all = malloc(n);
		snprintf(all, n, "%s%s", r.out, r.err);
		CHECK_INT(count_of(all, "1 % "), 1);
		CHECK_INT(count_of(all, "%%"), 0);
		free(all);
		run_result_free(&r);
	}
}

/* `ingest .` from inside a run folder: the run is named after the folder,
 * and so is its series file. */
/* nvidia-smi's timestamp of second i of the test logs */
static void
stamp(int i, char ts[40])
{
	time_t sec = 1700000000 + i;
	struct tm tm;
	gmtime_r(&sec, &tm);
	strftime(ts, 40, "%Y/%m/%d %H:%M:%S.000", &tm);
}

static void
test_ingest_dot(void)
{
	char *run = path_join(dir, "run-dot-7");
	mkdir(run, 0755);
	char *p = path_join(run, "power.csv");
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof text, "timestamp, power.draw [W]\n");
	for (int i = 0; i < 20; i++) {
		char ts[40];
		stamp(i, ts);
		n += (size_t)snprintf(text + n, sizeof text - n, "%s, %d\n", ts, 100 + 5 * (i % 4));
	}
	CHECK_INT(write_text(p, text), 0);
	free(p);
	p = path_join(run, "requests.csv");
	CHECK_INT(write_text(p, "arrival_s,completion_s\n1700000002,1700000009\n"), 0);
	free(p);
	char *table = path_join(dir, "dot.csv");
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK_INT(chdir(run), 0);
	const char *argv[] = { "wattcast", "ingest", ".", "-o", table, "--platform", "A100", "--tp", "1",
		               "--model", "Qwen/Qwen3-8B", "--utc-offset", "0", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(chdir(cwd), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);
	wc_runs_table *t = NULL;
	wc_error err;
	CHECK_INT(wc_runs_read(table, &t, &err), WC_OK);
	if (t && t->n_runs == 1) {
		CHECK(strcmp(t->runs[0].run_id, "run-dot-7") == 0);
		CHECK_CONTAINS(t->runs[0].n_series, "run-dot-7.csv");
	}
	wc_runs_free(t);
	free(table);
	free(run);
}

static void
test_metrics_inputs(void)
{
	char *p = path_join(dir, "neg.csv");
	static char text[16384];
	size_t n = (size_t)snprintf(text, sizeof text, "timestamp, power.draw [W]\n");
	for (int i = 0; i < 200; i++) {
		char ts[40];
		stamp(i, ts);
		n += (size_t)snprintf(text + n, sizeof text - n, "%s, %d\n", ts, i == 7 ? -5 : 100 + 5 * (i % 4));
	}
	CHECK(n < sizeof text);
	CHECK_INT(write_text(p, text), 0);
	const char *neg[] = { "wattcast", "metrics", p, NULL };
	run_result r;
	CHECK_INT(run_wattcast(neg, NULL, &r), 0);
	CHECK_INT(r.status, 0); /* 1 of 200 lines: within the 1 % allowed */
	CHECK_CONTAINS(r.err, "neg.csv:9:26: negative power.draw '-5'");
	run_result_free(&r);
	/* ingest's counts are sums of shares (docs/formats/telemetry.md): a
	 * fraction is taken as given (it was refused as no whole number) */
	const char *frac[] = { "wattcast", "metrics", p, "--json", "--iterations", "3.5", "--requests", "3.939077583",
		               "--output-tokens", "397.5", NULL };
	CHECK_INT(run_wattcast(frac, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	json_t *fj = r.out ? json_loads(r.out, 0, NULL) : NULL;
	const json_t *grp = json_object_get(fj, "group");
	double ej = json_number_value(json_object_get(grp, "energy_j"));
	CHECK(ej > 0);
	CHECK_NEAR(json_number_value(json_object_get(grp, "energy_per_iteration_j")), ej / 3.5, 1e-9 * ej);
	CHECK_NEAR(json_number_value(json_object_get(grp, "energy_per_request_j")), ej / 3.939077583, 1e-9 * ej);
	CHECK_NEAR(json_number_value(json_object_get(grp, "energy_per_token_j")), ej / 397.5, 1e-9 * ej);
	json_decref(fj);
	run_result_free(&r);
	/* the bounds stay: > 0 and finite */
	const char *bad[][2] = { { "--requests", "0" }, { "--output-tokens", "-2.5" }, { "--iterations", "1e999" } };
	const char *why[] = { "--requests: must be > 0, got '0'", "--output-tokens: must be > 0, got '-2.5'",
		              "--iterations: must be at most" };
	for (int k = 0; k < 3; k++) {
		const char *argv[] = { "wattcast", "metrics", p, bad[k][0], bad[k][1], NULL };
		CHECK_INT(run_wattcast(argv, NULL, &r), 0);
		CHECK_INT(r.status, 2);
		CHECK_CONTAINS(r.err, why[k]);
		run_result_free(&r);
	}
	/* two GPUs a sweep, each sweep's rows at one time; --gpus 3 */
	n = (size_t)snprintf(text, sizeof text, "timestamp, power.draw [W]\n");
	for (int i = 0; i < 60; i++) {
		char ts[40];
		stamp(i, ts);
		n += (size_t)snprintf(text + n, sizeof text - n, "%s, 300\n%s, 100\n", ts, ts);
	}
	CHECK(n < sizeof text);
	CHECK_INT(write_text(p, text), 0);
	const char *three[] = { "wattcast", "metrics", p, "--gpus", "3", NULL };
	CHECK_INT(run_wattcast(three, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "the count given is 3 GPUs, but the timestamps make 60 sweeps of 2 rows (100 % of the "
	                      "first 120 rows)");
	run_result_free(&r);
	const char *two[] = { "wattcast", "metrics", p, "--gpus", "2", NULL };
	CHECK_INT(run_wattcast(two, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	CHECK(r.err == NULL || strstr(r.err, "check --gpus") == NULL);
	run_result_free(&r);
	const char *folder[] = { "wattcast", "metrics", dir, NULL };
	CHECK_INT(run_wattcast(folder, NULL, &r), 0);
	CHECK_INT(r.status, 1);
	CHECK_CONTAINS(r.err, "is a folder, not a file");
	run_result_free(&r);
	free(p);
}

int
main(void)
{
	dir = test_tmpdir("hardening_cli");
	char *fitted = path_join(dir, "fitted.json");
	char *runs = path_join(test_env("WC_SOURCE_DIR", ".."), "data/default/paper-design-seed42.csv");
	const char *argv[] = { "wattcast", "fit", "inference", runs, "-o", fitted, "--bootstrap", "10",
		               "--seed", "7", "--threads", "1", NULL };
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	run_result_free(&r);

	test_absent_optional_keys(fitted);
	test_stale_temporaries();
	test_special_outputs();
	test_help_percent();
	test_ingest_dot();
	test_metrics_inputs();
	free(runs);
	free(fitted);
	free(dir);
	return check_report("test_hardening_cli");
}
