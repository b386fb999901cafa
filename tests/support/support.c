/* Test helpers: process runner with captured output, temp folders. */
#include "tests/support/support.h"
#include "models/law.h"
#include "models/evaluate.h"
#include "models/params.h"
#include "models/catalog.h"
#include "data/fileio.h"
#include "data/params_file.h"
#include "predict/predict.h"

#include <math.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int check_failures = 0;
int check_count = 0;

int
check_report(const char *test_name)
{
	if (check_failures) {
		fprintf(stderr, "%s: %d of %d checks failed\n", test_name, check_failures, check_count);
		return 1;
	}
	/* A test that checked nothing proves nothing: it fails, so a skipped
	 * section or an empty corpus cannot pass silently. A test with a
	 * reason to check nothing returns TEST_SKIP with a message instead. */
	if (check_count == 0) {
		fprintf(stderr, "%s: ran no checks\n", test_name);
		return 1;
	}
	printf("%s: %d checks passed\n", test_name, check_count);
	return 0;
}

const char *
test_env(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && v[0] ? v : fallback;
}

const char *
test_shared_dir(void)
{
	const char *d = test_env("WC_SHARED_DIR", NULL);
	struct stat st;
	if (!d || stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("SKIP: ../shared not found (WC_SHARED_DIR=%s); this test reads the real runs in place\n",
		       d ? d : "(unset)");
		return NULL;
	}
	return d;
}

char *
path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);
	if (!s)
		abort();
	memcpy(s, a, la);
	s[la] = '/';
	memcpy(s + la + 1, b, lb + 1);
	return s;
}

static void
mkdirs(const char *path)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

char *
test_tmpdir(const char *name)
{
	const char *root = test_env("WC_TEST_TMP", "/tmp/wattcast-tests");
	char *dir = path_join(root, name);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not clear %s\n", dir);
	mkdirs(dir);
	return dir;
}

int
write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = strlen(text);
	int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

typedef struct {
	char *buf;
	size_t len, cap;
} growbuf;

static int
grow_append(growbuf *g, const char *p, size_t n)
{
	if (g->len + n + 1 > g->cap) {
		size_t cap = g->cap ? g->cap : 4096;
		while (cap < g->len + n + 1)
			cap *= 2;
		char *nb = realloc(g->buf, cap);
		if (!nb)
			return -1;
		g->buf = nb;
		g->cap = cap;
	}
	memcpy(g->buf + g->len, p, n);
	g->len += n;
	g->buf[g->len] = '\0';
	return 0;
}

int
run_wattcast(const char *const *argv, const char *stdin_text, run_result *out)
{
	return run_wattcast_limited(argv, stdin_text, 0, out);
}

int
run_wattcast_limited(const char *const *argv, const char *stdin_text, int cpu_seconds,
                     run_result *out)
{
	int pin[2], pout[2], perr[2];
	memset(out, 0, sizeof *out);
	if (pipe(pin) || pipe(pout) || pipe(perr))
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pin[0], 0);
		dup2(pout[1], 1);
		dup2(perr[1], 2);
		close(pin[0]); close(pin[1]); close(pout[0]); close(pout[1]); close(perr[0]); close(perr[1]);
		if (cpu_seconds > 0) {
			/* A bound, not an expectation: a run that loops or walks
			 * a huge grid dies of SIGXCPU instead of stalling ctest. */
			struct rlimit rl = { (rlim_t)cpu_seconds, (rlim_t)cpu_seconds + 1 };
			setrlimit(RLIMIT_CPU, &rl);
		}
		const char *bin = test_env("WATTCAST_BIN", "wattcast");
		size_t n = 0;
		while (argv[n])
			n++;
		char **args = calloc(n + 1, sizeof *args);
		args[0] = (char *)bin;
		for (size_t i = 1; i < n; i++)
			args[i] = (char *)argv[i];
		execv(bin, args);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	signal(SIGPIPE, SIG_IGN);
	if (stdin_text) {
		size_t left = strlen(stdin_text);
		const char *p = stdin_text;
		while (left > 0) {
			ssize_t w = write(pin[1], p, left);
			if (w <= 0)
				break;
			p += w;
			left -= (size_t)w;
		}
	}
	close(pin[1]);
	growbuf g[2] = { { NULL, 0, 0 }, { NULL, 0, 0 } };
	grow_append(&g[0], "", 0);
	grow_append(&g[1], "", 0);
	struct pollfd fds[2] = { { pout[0], POLLIN, 0 }, { perr[0], POLLIN, 0 } };
	int open_fds = 2;
	while (open_fds > 0) {
		if (poll(fds, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[8192];
			ssize_t r = read(fds[i].fd, buf, sizeof buf);
			if (r > 0) {
				grow_append(&g[i], buf, (size_t)r);
			} else {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			}
		}
	}
	int st = 0;
	waitpid(pid, &st, 0);
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	out->out = g[0].buf;
	out->err = g[1].buf;
	return 0;
}

void
run_result_free(run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

char *
test_fixture(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	CHECK(write_text(p, text) == 0);
	return p;
}

void
test_run_ok(const char *const *argv)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	if (r.status != 0)
		fprintf(stderr, "%s: %s\n", argv[1], r.err ? r.err : "");
	run_result_free(&r);
}

/* As validation/refit-measured.sh ingests them (docs/results.md, "Real runs"). */
char *
test_ingest_powertrace(const char *shared, const char *tmp)
{
	char *root = path_join(shared, "data/real/powertrace-sim"), *out = path_join(tmp, "pts.csv");
	const char *argv[] = { "wattcast", "ingest", root, "-o", out, "--platform", "A100", "--tp", "1",
		               "--model", "Qwen/Qwen3-8B", "--utc-offset", "-25200", "--quiet", NULL };
	test_run_ok(argv);
	free(root);
	return out;
}

char *
test_run_said(const char *const *argv)
{
	run_result r;
	CHECK_INT(run_wattcast(argv, NULL, &r), 0);
	CHECK_INT(r.status, 0);
	size_t need = strlen(r.out ? r.out : "") + strlen(r.err ? r.err : "") + 1;
	char *all = malloc(need);
	snprintf(all, need, "%s%s", r.out ? r.out : "", r.err ? r.err : "");
	run_result_free(&r);
	return all;
}

void
test_usage_error(const char *const *argv, const char *needle)
{
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 2);
	CHECK_CONTAINS(r.err, needle);
	char *nl = strchr(r.err ? r.err : "", '\n');
	CHECK(nl && nl[1] == '\0'); /* exactly one line */
	CHECK(r.out && r.out[0] == '\0');
	run_result_free(&r);
}

double
test_truth_of(const wc_params *truth, const char *name)
{
	double v;
	if (wc_params_get_named(truth, name, &v) == WC_OK && isfinite(v))
		return v;
	if (strstr(name, "term[kv_cache"))
		return 1.0;
	return 0.0;
}

void
test_collect_warning(const char *msg, void *payload)
{
	test_warnings *w = payload;
	size_t used = strlen(w->text);
	snprintf(w->text + used, sizeof w->text - used, "%s\n", msg);
	w->count++;
}

wc_predictor *
test_measured_predictor(wc_params *p)
{
	wc_predictor *pr = NULL;
	wc_error err;
	CHECK_INT(wc_params_profile("measured", p, &err), WC_OK);
	CHECK_INT(wc_predictor_new(p, &pr, &err), WC_OK);
	return pr;
}

int
test_warnings_with(char (*w)[WC_WARNING_LEN], int n, const char *needle)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += strstr(w[i], needle) != NULL;
	return k;
}

int
test_paper_law_point(const char *platform, double active_b, wc_law_point *out)
{
	wc_params paper = WC_PARAMS_INIT;
	wc_law_binding b;
	wc_config c = WC_CONFIG_INIT;
	wc_error err;
	wc_params_default(&paper);
	c.platform = platform;
	c.active_params_b = active_b;
	int rc = wc_law_bind(&paper, &c, &b, &err);
	if (rc == WC_OK)
		wc_law_bound_point(&b, NULL, out);
	wc_params_clear(&paper);
	return rc;
}

wc_config
test_catalog_config(const char *platform, int tp, const char *model, double running)
{
	wc_config c = WC_CONFIG_INIT;
	c.platform = platform;
	c.tp = tp;
	c.model = model;
	c.arch = wc_model_lookup(model);
	CHECK(c.arch != NULL);
	c.active_params_b = c.arch ? c.arch->active_params_b : 8.0;
	c.running = running;
	return c;
}

double
test_term_power(const char *level, const char *model, double shift, double running, double idle_w)
{
	wc_params p = WC_PARAMS_INIT;
	wc_power pw = { 0 };
	wc_error err;
	wc_params_default(&p);
	wc_model_term *t = &p.model_terms[p.n_model_terms++];
	memset(t, 0, sizeof *t);
	snprintf(t->model, sizeof t->model, "%s", model);
	snprintf(t->level, sizeof t->level, "%s", level);
	t->shift = (wc_param){ shift, NAN, NAN, WC_SRC_CALIBRATED };
	wc_config c = test_catalog_config(level, 1, model, running);
	c.idle_power_w = idle_w;
	CHECK_INT(wc_law_power(&p, &c, &pw, &err), WC_OK);
	wc_params_clear(&p);
	return pw.node_power_w;
}

const json_t *
test_model_term(const json_t *params, size_t k)
{
	return json_array_get(json_object_get(params, "model_terms"), k);
}

void
test_appendf(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	if (*len + (size_t)n + 1 > *cap) {
		while (*len + (size_t)n + 1 > *cap)
			*cap = *cap ? 2 * *cap : 1 << 16;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			abort();
	}
	va_start(ap, fmt);
	*len += (size_t)vsnprintf(*buf + *len, *cap - *len, fmt, ap);
	va_end(ap);
}

char *
test_line_with(const char *text, const char *what)
{
	const char *p = strstr(text, what);
	if (!p)
		return calloc(1, 1);
	const char *a = p, *b = strchr(p, '\n');
	while (a > text && a[-1] != '\n')
		a--;
	size_t n = b ? (size_t)(b - a) : strlen(a);
	char *s = malloc(n + 1);
	memcpy(s, a, n);
	s[n] = '\0';
	return s;
}

void
test_drawn_params(wc_params *p)
{
	wc_error err;
	wc_params_default(p);
	snprintf(p->name, sizeof p->name, "drawn");
	p->levels[0].theta.source = WC_SRC_FITTED;
	char names[1][WC_LABEL_MAX] = { "theta[A100]" };
	double thetas[101];
	for (int i = 0; i <= 100; i++)
		thetas[i] = 1.5 + i * 0.01;
	CHECK_INT(wc_params_set_draws(p, 101, 1, (const char (*)[WC_LABEL_MAX])names, thetas, &err), WC_OK);
	p->pred_error.present = 0; /* the draws' own interval */
}

int
test_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

char *
test_slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	CHECK_INT(wc_read_file(path, 1u << 26, &buf, &len, NULL), WC_OK);
	return buf ? buf : strdup("");
}

char *
test_uncommented(const char *path, size_t max)
{
	char *buf = NULL, *out;
	size_t len = 0, n = 0;
	if (wc_read_file(path, max, &buf, &len, NULL) != WC_OK)
		return NULL;
	out = calloc(len + 1, 1);
	for (char *line = strtok(buf, "\n"); out && line; line = strtok(NULL, "\n"))
		if (line[0] != '#')
			n += (size_t)sprintf(out + n, "%s\n", line);
	free(buf);
	return out;
}

int
test_read_texts(const char *dir, const char *const *names, size_t n, char **text)
{
	for (size_t k = 0; k < n; k++) {
		char *p = path_join(dir, names[k]);
		size_t len;
		wc_error err;
		CHECK_INT(wc_read_file(p, 1u << 24, &text[k], &len, &err), WC_OK);
		free(p);
		if (!text[k])
			return 0;
	}
	return 1;
}

int
test_utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		if (n < 0)
			return 0;
		p++;
		for (int k = 0; k < n; k++, p++)
			if ((*p & 0xC0) != 0x80)
				return 0;
	}
	return 1;
}

int
test_csv_column(const char *header, const char *name)
{
	size_t n = strlen(name);
	int k = 0;
	for (const char *s = header; *s && *s != '\n'; k++) {
		if (strncmp(s, name, n) == 0 && (s[n] == ',' || s[n] == '\n' || s[n] == '\0'))
			return k;
		s += strcspn(s, ",\n");
		if (*s == ',')
			s++;
	}
	return -1;
}

void
test_csv_field(const char *csv, const char *name, char *out, size_t cap)
{
	const char *hdr = csv;
	while (*hdr == '#')
		hdr = strchr(hdr, '\n') + 1;
	const char *row = strchr(hdr, '\n') + 1, *h = hdr, *r = row;
	size_t len = strlen(name);
	out[0] = '\0';
	while (*h && *h != '\n') {
		const char *hc = strpbrk(h, ",\n"), *rc = strpbrk(r, ",\n");
		if ((size_t)(hc - h) == len && strncmp(h, name, len) == 0) {
			snprintf(out, cap, "%.*s", (int)(rc - r), r);
			return;
		}
		if (*hc == '\n' || *rc == '\n')
			return;
		h = hc + 1;
		r = rc + 1;
	}
}

int
test_dir_entries(const char *dir, const char *part, int *holding)
{
	DIR *d = opendir(dir);
	int n = 0, held = 0;
	for (struct dirent *e; d && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		n++;
		held += part && strstr(e->d_name, part) != NULL;
	}
	if (d)
		closedir(d);
	if (holding)
		*holding = held;
	return n;
}

char *
test_deep_dir(const char *dir)
{
	char *deep = strdup(dir);
	for (int k = 1; deep && k <= 3; k++) {
		char name[80], *next;
		snprintf(name, sizeof name, "runs2026-cluster-scratch-filesystem-project-%02d", k);
		next = path_join(deep, name);
		mkdir(next, 0755);
		free(deep);
		deep = next;
	}
	return deep;
}

char *
test_doc_text(const char *rel)
{
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), rel);
	char *s = test_slurp(path);
	size_t w = 0;
	for (size_t r = 0; s[r]; r++) {
		const int space = s[r] == ' ' || s[r] == '\n' || s[r] == '\t';
		if (space && w > 0 && s[w - 1] == ' ')
			continue;
		s[w++] = space ? ' ' : s[r];
	}
	s[w] = '\0';
	free(path);
	return s;
}

int
test_doc_says(const char *rel, const char *phrase)
{
	char *s = test_doc_text(rel);
	const int found = strstr(s, phrase) != NULL;
	if (!found)
		fprintf(stderr, "%s does not say '%s'\n", rel, phrase);
	free(s);
	return found;
}
