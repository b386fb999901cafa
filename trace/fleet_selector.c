/*
 * `--selector`: PromQL label matchers (docs/fleet.md, "Queries"),
 * checked before any request and put into every query. Passed on
 * verbatim, a stray brace came back as Prometheus's "1:53: parse error"
 * at a column of a query the user never wrote, and `{a="b"} or
 * vector(1)` was injected into it. The DCGM series of a Kubernetes fleet
 * scraped through service discovery carry the GPU's pod under
 * `exported_pod`/`exported_namespace` (the exporter's own pod under
 * `pod`/`namespace`), as the grouping reads them (docs/fleet.md,
 * "Grouping"): the power query matches `namespace`/`pod` there too.
 */
#define _POSIX_C_SOURCE 200809L /* regcomp: files' =~ and !~ */
#include "fleet_internal.h"
#include "data/engine_log.h"
#include "data/prom.h"

#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The matcher's value: "..." or '...' with backslash escapes, or `...`
 * raw, as PromQL's string literals; its length, 0 when malformed. */
static size_t
quoted(const char *s)
{
	char q = s[0];
	if (q != '"' && q != '\'' && q != '`')
		return 0;
	for (size_t i = 1; s[i]; i++) {
		if (s[i] == '\\' && q != '`' && s[i + 1])
			i++;
		else if (s[i] == q)
			return i + 1;
	}
	return 0;
}

static int
bad(wc_error *err, size_t col, const char *why)
{
	return wc_error_set(err, WC_EINVAL, "--selector: column %zu: %s; expected label matchers "
	                    "{label=\"value\",...} (=, !=, =~, !~)", col, why);
}

/* The escapes PromQL's lexer takes in "..." and '...' (its lexEscape):
 * \a \b \f \n \r \t \v, the backslash, the opening quote, 3 octal digits,
 * \x and 2, \u and 4, \U and 8 hex digits. The column of the first other
 * in value v (quoted, from column col), 0 when none: `"Qwen3-\d+B"` went
 * to the server, which answered `1:61: parse error: unknown escape
 * sequence U+0064 'd'` at a column of a query the user never wrote. */
static size_t
bad_escape(const char *v, size_t col)
{
	if (v[0] == '`')
		return 0;
	for (size_t i = 1; v[i] && v[i] != v[0]; i++) {
		if (v[i] != '\\')
			continue;
		char c = v[++i];
		size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : c >= '0' && c <= '7' ? 3 : 0;
		if (digits) {
			size_t from = c >= '0' && c <= '7' ? i : i + 1;
			for (size_t d = 0; d < digits; d++)
				if (c >= '0' && c <= '7' ? !(v[from + d] >= '0' && v[from + d] <= '7')
				                         : !isxdigit((unsigned char)v[from + d]))
					return col + i - 1;
			i = from + digits - 1;
		} else if (!c || !strchr("abfnrtv\\", c) ? c != v[0] : 0) {
			return col + i - 1;
		}
	}
	return 0;
}

int
wc__fleet_selector_parse(const char *selector, fleet_matcher *m, size_t *n, wc_error *err)
{
	size_t i = 0, len = selector ? strlen(selector) : 0;
	int brace = 0;
	*n = 0;
	if (len == 0)
		return WC_OK;
	if (len >= 1024)
		return wc_error_set(err, WC_EINVAL, "--selector: longer than 1023 characters");
	while (isspace((unsigned char)selector[i]))
		i++;
	if (selector[i] == '{') {
		brace = 1;
		i++;
	}
	for (;;) {
		while (isspace((unsigned char)selector[i]))
			i++;
		if (brace && selector[i] == '}') {
			i++;
			while (isspace((unsigned char)selector[i]))
				i++;
			return selector[i] ? bad(err, i + 1, "text after the closing '}'") : WC_OK;
		}
		if (!selector[i])
			return brace ? bad(err, i + 1, "no closing '}'") : WC_OK;
		size_t k = i + wc_prom_name_length(selector + i, 0);
		if (k == i)
			return bad(err, i + 1, "expected a label name");
		if (k - i >= sizeof m->name)
			return bad(err, i + 1, "label name longer than 127 characters");
		if (*n >= FLEET_MAX_MATCHERS)
			return bad(err, i + 1, "more than 32 matchers");
		fleet_matcher *x = &m[(*n)++];
		memcpy(x->name, selector + i, k - i);
		x->name[k - i] = '\0';
		if (strcmp(x->name, "__name__") == 0)
			return bad(err, i + 1, "__name__ is the query's own");
		for (i = k; isspace((unsigned char)selector[i]); i++)
			;
		const char *ops[] = { "=~", "!=", "!~", "=" };
		size_t o = 0;
		while (o < 4 && strncmp(selector + i, ops[o], strlen(ops[o])) != 0)
			o++;
		if (o == 4)
			return bad(err, i + 1, "expected =, !=, =~ or !~ after the label name");
		snprintf(x->op, sizeof x->op, "%s", ops[o]);
		for (i += strlen(ops[o]); isspace((unsigned char)selector[i]); i++)
			;
		size_t q = quoted(selector + i), esc = q ? bad_escape(selector + i, i + 1) : 0;
		if (q == 0)
			return bad(err, i + 1, "expected a quoted value");
		if (esc)
			return wc_error_set(err, WC_EINVAL, "--selector: column %zu: '\\%c' is no escape of PromQL's "
			                    "strings: write '\\\\%c' for a regular expression's \\%c in \"...\", or quote "
			                    "the value in backquotes", esc, selector[esc], selector[esc], selector[esc]);
		snprintf(x->value, sizeof x->value, "%.*s", (int)q, selector + i);
		for (i += q; isspace((unsigned char)selector[i]); i++)
			;
		if (selector[i] == ',')
			i++;
		else if (selector[i] && !(brace && selector[i] == '}'))
			return bad(err, i + 1, "expected ',' or the end of the matchers");
	}
}

/* The labels DCGM's series carry under exported_* in a Kubernetes fleet. */
static int
k8s_label(const char *name)
{
	return strcmp(name, "namespace") == 0 || strcmp(name, "pod") == 0;
}

/* Labels the DCGM exporter sets on a GPU's series and an engine's own
 * series never carry: the GPU's identity, board and host (`gpu` aside:
 * it is the label an engine's scrape is given to join its GPU,
 * docs/fleet.md "Grouping"; `namespace`, `pod`, `container` aside:
 * Kubernetes puts them on both). */
static int
gpu_only(const char *name)
{
	static const char *const dcgm[] = { "UUID", "Hostname", "modelName", "pci_bus_id", "device",
	                                    "DCGM_FI_DRIVER_VERSION", "GPU_I_ID", "GPU_I_PROFILE" };
	for (size_t k = 0; k < sizeof dcgm / sizeof dcgm[0]; k++)
		if (strcmp(name, dcgm[k]) == 0)
			return 1;
	return 0;
}

/* Does matcher m apply to a series of metric `metric`? A label only
 * engines' series carry (model_name, engine, ...) selects engines, not
 * GPUs: the GPU exporter's series lack it, and `model_name="Qwen/Qwen3-8B"`
 * put into the power query selected no GPU at all. The GPUs of the
 * engines it selects are those their groups join. So too the other way:
 * a label only the GPUs' series carry (`Hostname`, `UUID`, ...) selects
 * GPUs, and the engines of their groups; `Hostname="h1"` put into the
 * engine queries selected no engine (docs/fleet.md, "Queries"). */
static int
applies(const fleet_matcher *m, int metric)
{
	return wc__fleet_gpu_metric(metric) ? !wc_engine_label_engines_only(m->name) : !gpu_only(m->name);
}

/* Matchers into `out` (comma-separated); `exported`: the Kubernetes
 * labels named as the DCGM series carry them, 1 under exported_*, -1 as
 * they are with exported_* required absent, 0 as they are. */
int
wc__fleet_selector_text(const fleet_matcher *m, size_t n, int metric, int exported, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t j = 0; j < n; j++) {
		if (!applies(&m[j], metric))
			continue;
		int k8s = k8s_label(m[j].name);
		int w = snprintf(out + used, size - used, "%s%s%s%s%s", used ? "," : "",
		                 k8s && exported > 0 ? "exported_" : "", m[j].name, m[j].op, m[j].value);
		if (w < 0 || (size_t)w >= size - used)
			return WC_EINVAL;
		used += (size_t)w;
		/* exported_* present on one side, absent on the other: `!=` and
		 * `!~` also match a label that is absent. */
		if (k8s && exported) {
			w = snprintf(out + used, size - used, ",exported_%s%s\"\"", m[j].name, exported > 0 ? "!=" : "=");
			if (w < 0 || (size_t)w >= size - used)
				return WC_EINVAL;
			used += (size_t)w;
		}
	}
	return WC_OK;
}

int
wc__fleet_selector_k8s(const fleet_matcher *m, size_t n)
{
	for (size_t j = 0; j < n; j++)
		if (k8s_label(m[j].name))
			return 1;
	return 0;
}

int
wc_fleet_selector_check(const char *selector, wc_error *err)
{
	fleet_matcher m[FLEET_MAX_MATCHERS];
	size_t n;
	return wc__fleet_selector_parse(selector, m, &n, err);
}

/* A matcher's quoted value as text: PromQL's escapes of "..." and '...'
 * that label values use; -1 on another (\x, \u: not read here). */
static int
unquote(const char *q, char *out, size_t size)
{
	size_t len = strlen(q), w = 0;
	if (len < 2 || w + len > size)
		return -1;
	for (size_t i = 1; i + 1 < len; i++) {
		char c = q[i];
		if (c == '\\' && q[0] != '`') {
			const char *from = "\\\"'ntr", *to = "\\\"'\n\t\r", *at = strchr(from, q[++i]);
			if (!at || !q[i])
				return -1;
			c = to[at - from];
		}
		out[w++] = c;
	}
	out[w] = '\0';
	return 0;
}

/* RE2's Perl classes as POSIX bracket expressions (RE2's \s is
 * [\t\n\f\r ]), outside brackets and in them: regcomp read `\d` as a
 * plain `d`, so `model_name=~"Qwen/Qwen3-\\d+B"` matched no series of
 * files where the server matched them, and `!~` every one (docs/fleet.md,
 * "Queries"). Inside brackets an escaped character is itself (POSIX reads
 * a backslash there as one). Another escape of a letter (\b, \pN, \A) is
 * none POSIX has: refused, 0 with its letter in *which. */
static int
re2_to_posix(const char *in, char *out, size_t size, char *which)
{
	static const char *const perl[][2] = { { "d", "0-9" }, { "w", "0-9A-Za-z_" }, { "s", "\t\n\f\r " } };
	size_t w = 0;
	int bracket = 0;
	for (size_t i = 0; in[i]; i++) {
		char c = in[i], text[24] = { c, '\0' };
		if (c == '[' && !bracket) {
			bracket = 1;
			if (in[i + 1] == '^')
				text[1] = in[++i];
			if (in[i + 1] == ']') /* a ']' first is itself */
				text[strlen(text)] = in[++i];
		} else if (c == ']' && bracket) {
			bracket = 0;
		} else if (c == '\\' && in[i + 1]) {
			char e = in[++i];
			const char *cls = NULL;
			for (size_t k = 0; k < 3; k++)
				if (tolower((unsigned char)e) == perl[k][0][0])
					cls = perl[k][1];
			if (cls && bracket && isupper((unsigned char)e)) {
				*which = e; /* [\D] has no bracket form */
				return 0;
			}
			if (cls)
				snprintf(text, sizeof text, bracket ? "%s" : isupper((unsigned char)e) ? "[^%s]" : "[%s]", cls);
			else if (isalnum((unsigned char)e)) {
				*which = e;
				return 0;
			} else
				snprintf(text, sizeof text, bracket ? "%c" : "\\%c", e);
		}
		size_t n = strlen(text);
		if (w + n >= size)
			return *which = '\0', 0;
		memcpy(out + w, text, n);
		w += n;
	}
	out[w] = '\0';
	return 1;
}

/* A series' value of label `name` as the query matches it ("" when
 * absent): `namespace`/`pod` of a GPU's series from exported_* when set
 * (wc__fleet_selector_text's two sides). */
static const char *
value_of(const wc_prom_series *s, const char *name)
{
	char exported[160];
	const char *v = NULL;
	if (k8s_label(name) && wc__fleet_gpu_metric(wc_fleet_metric_from_name(s->metric))) {
		snprintf(exported, sizeof exported, "exported_%s", name);
		v = wc_prom_label(s, exported);
	}
	if (!v || !v[0])
		v = wc_prom_label(s, name);
	return v ? v : "";
}

int
wc__fleet_selector_apply(const char *selector, wc_prom_set *set, wc_error *err)
{
	fleet_matcher m[FLEET_MAX_MATCHERS];
	regex_t re[FLEET_MAX_MATCHERS];
	char value[FLEET_MAX_MATCHERS][1024];
	size_t n = 0, n_re = 0;
	int rc = wc__fleet_selector_parse(selector, m, &n, err);
	if (rc != WC_OK || n == 0)
		return rc;
	for (size_t j = 0; rc == WC_OK && j < n; j++) {
		char anchored[1100];
		if (unquote(m[j].value, value[j], sizeof value[j]) != 0)
			rc = wc_error_set(err, WC_EINVAL, "--selector: the value of '%s': an escape other than \\\\, "
			                  "\\\", \\', \\n, \\t, \\r (files)", m[j].name);
		else if (m[j].op[1] == '~') {
			/* PromQL's regular expressions match the whole value. */
			char posix[1024], which = '\0';
			if (!re2_to_posix(value[j], posix, sizeof posix, &which)) {
				rc = which ? wc_error_set(err, WC_EINVAL, "--selector: %.100s: '\\%c' has no POSIX form, which "
				                          "files are matched by: write it as a bracket expression",
				                          m[j].value, which)
				           : wc_error_set(err, WC_EINVAL, "--selector: %.100s: too long as a POSIX regular "
				                          "expression (files)", m[j].value);
				break;
			}
			snprintf(anchored, sizeof anchored, "^(%s)$", posix);
			if (regcomp(&re[j], anchored, REG_EXTENDED | REG_NOSUB) != 0)
				rc = wc_error_set(err, WC_EINVAL, "--selector: %.100s: not a POSIX extended regular "
				                  "expression (files)", m[j].value);
			else
				n_re = j + 1;
		}
	}
	unsigned char *keep = rc == WC_OK ? malloc(set->n ? set->n : 1) : NULL;
	if (rc == WC_OK && !keep)
		rc = wc_error_set(err, WC_ENOMEM, "out of memory");
	for (size_t i = 0; rc == WC_OK && i < set->n; i++) {
		int metric = wc_fleet_metric_from_name(set->s[i].metric);
		keep[i] = 1;
		for (size_t j = 0; keep[i] && j < n; j++) {
			if (!applies(&m[j], metric))
				continue;
			const char *v = value_of(&set->s[i], m[j].name);
			int hit = m[j].op[1] == '~' ? regexec(&re[j], v, 0, NULL, 0) == 0 : strcmp(v, value[j]) == 0;
			keep[i] = m[j].op[0] == '!' ? !hit : hit;
		}
	}
	if (rc == WC_OK)
		rc = wc_prom_set_retain(set, keep, err);
	for (size_t j = 0; j < n_re; j++)
		if (m[j].op[1] == '~')
			regfree(&re[j]);
	free(keep);
	return rc;
}

void
wc__fleet_selector_engines(wc_fleet *f, const char *selector)
{
	fleet_matcher m[FLEET_MAX_MATCHERS];
	size_t n = 0;
	wc_error err;
	if (wc__fleet_selector_parse(selector, m, &n, &err) != WC_OK)
		return;
	f->selector = selector;
	for (size_t j = 0; j < n; j++) {
		if (!f->sel_engines[0] && wc_engine_label_engines_only(m[j].name))
			snprintf(f->sel_engines, sizeof f->sel_engines, "%s", m[j].name);
		if (!f->sel_gpus[0] && gpu_only(m[j].name))
			snprintf(f->sel_gpus, sizeof f->sel_gpus, "%s", m[j].name);
	}
}

int
wc__fleet_selector_without_engines(const char *selector, char *out, size_t size, int *removed)
{
	fleet_matcher m[FLEET_MAX_MATCHERS];
	size_t n = 0, used = 0;
	wc_error err;
	out[0] = '\0';
	if (removed)
		*removed = 0;
	if (wc__fleet_selector_parse(selector, m, &n, &err) != WC_OK)
		return WC_EINVAL;
	for (size_t j = 0; j < n; j++) {
		if (wc_engine_label_engines_only(m[j].name)) {
			if (removed)
				(*removed)++;
			continue;
		}
		int w = snprintf(out + used, size - used, "%s%s%s%s", used ? "," : "", m[j].name, m[j].op, m[j].value);
		if (w < 0 || (size_t)w >= size - used)
			return WC_EINVAL;
		used += (size_t)w;
	}
	return WC_OK;
}

int
wc__fleet_unselected_gpus(wc_fleet *f, const fleet_group *g)
{
	if (!f->sel_engines[0])
		return 0;
	if (f->n_unselected++ == 0)
		snprintf(f->unselected_first, sizeof f->unselected_first, "%.40s", g->name);
	f->n_unselected_gpus += g->n_gpus;
	return 1;
}

int
wc__fleet_unselected_engines(wc_fleet *f, const fleet_group *g)
{
	if (!f->sel_gpus[0])
		return 0;
	if (f->n_unselected_engines++ == 0)
		snprintf(f->unselected_engines_first, sizeof f->unselected_engines_first, "%.40s", g->name);
	return 1;
}

void
wc__fleet_say_unselected(wc_fleet *f)
{
	if (f->n_unselected)
		wc__fleet_verdict(f, "--selector: %zu GPU series in %zu group%s ('%s' first) are no selected engine's: "
		                  "left out ('%s' selects engines, and the GPUs of their groups)", f->n_unselected_gpus,
		                  f->n_unselected, f->n_unselected == 1 ? "" : "s", f->unselected_first, f->sel_engines);
	if (f->n_unselected_engines)
		wc__fleet_verdict(f, "--selector: the engines of %zu group%s ('%s' first) use no selected GPU: left out "
		                  "('%s' selects GPUs, and the engines of their groups)", f->n_unselected_engines,
		                  f->n_unselected_engines == 1 ? "" : "s", f->unselected_engines_first, f->sel_gpus);
}
