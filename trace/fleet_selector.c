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
#include "fleet_internal.h"
#include "data/prom.h"

#include <ctype.h>
#include <stdio.h>
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
		size_t q = quoted(selector + i);
		if (q == 0)
			return bad(err, i + 1, "expected a quoted value");
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

/* Matchers into `out` (comma-separated); `exported`: the Kubernetes
 * labels named as the DCGM series carry them, 1 under exported_*, -1 as
 * they are with exported_* required absent, 0 as they are. */
int
wc__fleet_selector_text(const fleet_matcher *m, size_t n, int exported, char *out, size_t size)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t j = 0; j < n; j++) {
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
