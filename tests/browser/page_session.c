/* The planner page's browser tests' shared set-up (see page_session.h). */
#include "tests/browser/page_session.h"

#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* `wattcast serve --params PATH [--params MORE ...] --listen 127.0.0.1:0`;
 * the port from the first line of its stdout, or 0. */
static int
start_server(page_session *s, const char *params_path, const char *const *more, const char *log_path)
{
	int po[2];
	char line[512];
	int port = 0;
	const char *argv[64];
	int argc = 0;
	const char *bin = test_env("WATTCAST_BIN", "wattcast");
	argv[argc++] = bin;
	argv[argc++] = "serve";
	argv[argc++] = "--params";
	argv[argc++] = params_path;
	for (int i = 0; more && more[i] && argc < 56; i++) {
		argv[argc++] = "--params";
		argv[argc++] = more[i];
	}
	argv[argc++] = "--listen";
	argv[argc++] = "127.0.0.1:0";
	argv[argc++] = "--threads";
	argv[argc++] = "8";
	argv[argc] = NULL;
	if (pipe(po) != 0)
		return 0;
	s->server = fork();
	if (s->server == 0) {
		FILE *log = fopen(log_path, "w");
		dup2(po[1], 1);
		if (log)
			dup2(fileno(log), 2);
		close(po[0]);
		close(po[1]);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	FILE *out = fdopen(po[0], "r");
	const char *at;
	if (out && fgets(line, sizeof line, out) && (at = strstr(line, "127.0.0.1:")))
		sscanf(at, "127.0.0.1:%d", &port);
	/* The rest of stdout is not read; the pipe stays open until exit. */
	return port;
}

static void
stop_server(page_session *s)
{
	int status;
	if (s->server <= 0)
		return;
	kill(s->server, SIGTERM);
	waitpid(s->server, &status, 0);
	s->server = -1;
}

int
page_session_open(page_session *s, const char *name)
{
	return page_session_open_more(s, name, NULL);
}

int
page_session_open_more(page_session *s, const char *name, const char *const *more)
{
	memset(s, 0, sizeof *s);
	s->server = -1;
	const char *chromium = cdp_chromium_path();
	if (!chromium) {
		printf("SKIP: no Chromium (install Debian's chromium, or set WC_CHROMIUM to its binary)\n");
		return TEST_SKIP;
	}
	s->dir = test_tmpdir(name);
	char *params = path_join(s->dir, "params.json");
	char *profile = path_join(s->dir, "profile");
	char *log = path_join(s->dir, "serve.log");
	const char *fit[] = { "wattcast", "fit", "inference", NULL, "-o", params, "--bootstrap", "100",
		              "--seed", "42", NULL };
	char *table = path_join(test_env("WC_SOURCE_DIR", "."), "data/default/paper-design-seed42.csv");
	run_result rr;
	fit[3] = table;
	CHECK(run_wattcast(fit, NULL, &rr) == 0 && rr.status == 0);
	run_result_free(&rr);
	mkdir(profile, 0700);

	curl_global_init(CURL_GLOBAL_DEFAULT);
	s->h = curl_easy_init();
	s->port = start_server(s, params, more, log);
	CHECK(s->port > 0);
	if (s->port > 0)
		s->b = cdp_launch(chromium, profile, 1280, 800);
	if (!s->b)
		CHECK(!"Chromium did not start");
	free(table);
	free(log);
	free(profile);
	free(params);
	return 0;
}

char *
page_measured_export(const char *dir)
{
	char *measured = path_join(dir, "measured.json");
	const char *argv[] = { "wattcast", "profile", "export", "measured", "-o", measured, NULL };
	test_run_ok(argv);
	return measured;
}

int
page_session_open_measured(page_session *s, const char *name)
{
	char sets[256];
	snprintf(sets, sizeof sets, "%s_sets", name);
	/* outside the session's own folder, which page_session_open_more
	 * clears before the server reads the file */
	char *dir = test_tmpdir(sets);
	char *measured = page_measured_export(dir);
	const char *more[] = { measured, NULL };
	int rc = page_session_open_more(s, name, more);
	free(measured);
	free(dir);
	return rc;
}

void
page_session_close(page_session *s)
{
	cdp_close(s->b);
	s->b = NULL;
	stop_server(s);
	curl_easy_cleanup(s->h);
	curl_global_cleanup();
	free(s->dir);
	s->dir = NULL;
}

json_t *
page_api_post(CURL *h, const char *url, const char *body)
{
	http_reply r;
	http_post_json(h, url, body, &r);
	json_t *j = r.json ? json_incref(r.json) : NULL;
	http_reply_free(&r);
	return j;
}

int
page_wait_runs(cdp *b, int n)
{
	char expr[256];
	snprintf(expr, sizeof expr,
	         "Number(document.getElementById('status').dataset.runs) >= %d && "
	         "document.getElementById('status').dataset.state !== 'busy'", n);
	return cdp_wait(b, expr, PAGE_WAIT_S);
}

void
page_eval_ok(cdp *b, const char *expr)
{
	json_t *v = cdp_eval(b, expr);
	CHECK(v != NULL);
	json_decref(v);
}

int
page_truth(cdp *b, const char *expr)
{
	json_t *v = cdp_eval(b, expr);
	int t = json_is_true(v);
	json_decref(v);
	if (!t)
		fprintf(stderr, "not true: %s\n", expr);
	return t;
}

char *
page_text_of(cdp *b, const char *selector)
{
	char expr[512];
	snprintf(expr, sizeof expr, "(document.querySelector('%s') || {}).textContent || ''", selector);
	return cdp_eval_str(b, expr);
}

int
page_runs_done(cdp *b)
{
	json_t *v = cdp_eval(b, "Number(document.getElementById('status').dataset.runs)");
	int n = (int)json_number_value(v);
	json_decref(v);
	return n;
}

void
page_type_into(cdp *b, const char *id, const char *text)
{
	char expr[256];
	snprintf(expr, sizeof expr, "(() => { const e = document.getElementById('%s'); e.focus(); e.select(); return 1; })()", id);
	page_eval_ok(b, expr);
	cdp_type(b, text);
}

/* Up to `max` numbers in `text` with the count of digits after their
 * point and of significant digits. */
static int
numbers_in(const char *text, double *v, int *decimals, int *sig, int max)
{
	int n = 0;
	for (const char *p = text; *p && n < max;) {
		if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) {
			p++;
			continue;
		}
		char *end;
		v[n] = strtod(p, &end);
		/* 1.506e-6: the mantissa's digits, its decimals moved by the
		 * exponent. */
		const char *e = p;
		while (e < end && *e != 'e' && *e != 'E')
			e++;
		int ex = e < end ? (int)strtol(e + 1, NULL, 10) : 0;
		const char *dot = memchr(p, '.', (size_t)(e - p));
		decimals[n] = (dot ? (int)(e - dot - 1) : 0) - ex;
		sig[n] = 0;
		int leading = 1;
		for (const char *q = p; q < e; q++) {
			if (!isdigit((unsigned char)*q))
				continue;
			if (*q != '0')
				leading = 0;
			sig[n] += !leading;
		}
		n++;
		p = end;
	}
	return n;
}

void
page_check_shown(const char *text, int k, double want, const char *what)
{
	double v[8];
	int dec[8], sig[8];
	int n = numbers_in(text, v, dec, sig, 8);
	int ok = k < n && fabs(v[k] - want) <= 0.5 * pow(10, -dec[k]) * (1 + 1e-9) && sig[k] >= 3;
	if (!ok)
		fprintf(stderr, "%s: the page shows \"%s\", the API says %.10g\n", what, text, want);
	CHECK(ok);
}

void
page_choose(cdp *b, const char *id, const char *value)
{
	char expr[512];
	snprintf(expr, sizeof expr,
	         "(() => { const e = document.getElementById('%s'); e.focus(); e.value = '%s';"
	         " e.dispatchEvent(new Event('change', { bubbles: true })); return e.value; })()",
	         id, value);
	char *got = cdp_eval_str(b, expr);
	CHECK(strcmp(got, value) == 0);
	free(got);
}
