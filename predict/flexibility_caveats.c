/*
 * The caveats of a flexibility sweep's steps, one line per kind naming
 * every step it holds at (predict/flexibility_internal.h,
 * docs/capacity.md "Power flexibility"). A kind is a caveat's text with
 * its numbers set aside: "prefill takes 44 %" at one clock and "prefill
 * takes 28 %" at another are one caveat with two values, both clocks
 * named with their own value where the line fits, else within the range
 * of the values it gives: once per kind, the knee's and the optimum's
 * steps among the clocks it names.
 */
#include "flexibility_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/warnings.h"

int
wc__flex_caveat_add(wc__flex_caveats *c, int step, const char *text, wc_error *err)
{
	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 64;
		wc__flex_caveat *at = realloc(c->at, (size_t)cap * sizeof *at);
		if (!at)
			return wc_error_set(err, WC_ENOMEM, "flexibility: out of memory");
		c->at = at;
		c->cap = cap;
	}
	c->at[c->n].step = step;
	snprintf(c->at[c->n].text, sizeof c->at[c->n].text, "%s", text);
	c->n++;
	return WC_OK;
}

/* The length of the number at s (digits, then a fraction), 0 if none. */
static size_t
number_len(const char *s)
{
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (n && s[n] == '.' && isdigit((unsigned char)s[n + 1]))
		for (n++; isdigit((unsigned char)s[n]);)
			n++;
	return n;
}

/* Are a and b one caveat, their numbers aside? */
static int
same_kind(const char *a, const char *b)
{
	while (*a && *b) {
		size_t na = number_len(a), nb = number_len(b);
		if (na || nb) {
			if (!na || !nb)
				return 0;
			a += na;
			b += nb;
		} else if (*a++ != *b++) {
			return 0;
		}
	}
	return *a == *b;
}

/* Lowest clock first: the steps run from the highest down. */
static int
by_step_down(const void *x, const void *y)
{
	const wc__flex_caveat *a = *(const wc__flex_caveat *const *)x, *b = *(const wc__flex_caveat *const *)y;
	return (a->step < b->step) - (a->step > b->step);
}

static void
put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n >= cap)
		n = *len + 1 < cap ? cap - 1 - *len : 0;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

/* "at 345-672, 1065 MHz: " over the runs of adjacent steps (each[0..n),
 * lowest clock first), or "at 345, 508 MHz: " naming each. */
static void
put_clocks(const wc_flexibility *f, wc__flex_caveat **each, int n, int runs, char *buf, size_t cap, size_t *len)
{
	char t[64];
	put(buf, cap, len, "at ", 3);
	for (int i = 0; i < n;) {
		int j = i;
		while (runs && j + 1 < n && each[j + 1]->step >= each[j]->step - 1)
			j++;
		double lo = f->steps[each[i]->step].sm_clock_mhz, hi = f->steps[each[j]->step].sm_clock_mhz;
		int w = snprintf(t, sizeof t, "%s%.0f", i ? ", " : "", lo);
		char h[32];
		snprintf(h, sizeof h, "%.0f", hi);
		if (j > i && strcmp(t + (i ? 2 : 0), h) != 0)
			w += snprintf(t + w, sizeof t - (size_t)w, "-%s", h);
		put(buf, cap, len, t, (size_t)w);
		i = j + 1;
	}
	put(buf, cap, len, " MHz: ", 6);
}

/* The caveat of each[0..n) (one kind): its text, each number that differs
 * between them given per step joined by '/' (`per_step`), else as the
 * range of their values. */
static void
put_text(wc__flex_caveat **each, int n, int per_step, char *buf, size_t cap, size_t *len)
{
	const char **cur = malloc((size_t)n * sizeof *cur);
	if (!cur)
		return;
	for (int k = 0; k < n; k++)
		cur[k] = each[k]->text;
	while (*cur[0]) {
		size_t m = number_len(cur[0]);
		if (!m) {
			put(buf, cap, len, cur[0], 1);
			for (int k = 0; k < n; k++)
				cur[k]++;
			continue;
		}
		int same = 1, lo = 0, hi = 0;
		for (int k = 0; k < n; k++) {
			size_t mk = number_len(cur[k]);
			same &= mk == m && strncmp(cur[k], cur[0], m) == 0;
			lo = strtod(cur[k], NULL) < strtod(cur[lo], NULL) ? k : lo;
			hi = strtod(cur[k], NULL) > strtod(cur[hi], NULL) ? k : hi;
		}
		if (same) {
			put(buf, cap, len, cur[0], m);
		} else if (per_step) {
			for (int k = 0; k < n; k++) {
				if (k)
					put(buf, cap, len, "/", 1);
				put(buf, cap, len, cur[k], number_len(cur[k]));
			}
		} else {
			put(buf, cap, len, cur[lo], number_len(cur[lo]));
			put(buf, cap, len, "-", 1);
			put(buf, cap, len, cur[hi], number_len(cur[hi]));
		}
		for (int k = 0; k < n; k++)
			cur[k] += number_len(cur[k]);
	}
	free(cur);
}

int
wc__flex_caveats_hold(const wc__flex_caveats *c, const wc_flexibility *f, double mhz, const char *text)
{
	for (int i = 0; i < c->n; i++)
		if (f->steps[c->at[i].step].sm_clock_mhz == mhz && strcmp(c->at[i].text, text) == 0)
			return 1;
	return 0;
}

/* Is the step's caveat `text` a fact the unconstrained point's warning
 * `w` says already? The same text after the field that set the clock: a
 * platform's kappa assumed holds at every clock off the free one, said
 * once whether the board's limit or a cap set it (docs/capacity.md,
 * "Power flexibility"). */
static int
said_by(const char *w, const char *text)
{
	const char *a = strstr(w, ": "), *b = strstr(text, ": ");
	return strcmp(w, text) == 0 || (a && b && strcmp(a, b) == 0);
}

static void
say_once(wc_flexibility *f, const char *line)
{
	for (int k = 0; k < f->n_warnings; k++)
		if (strcmp(f->warnings[k], line) == 0)
			return;
	WC_WARN(f, "%s", line);
}

void
wc__flex_caveats_say(wc__flex_caveats *c, wc_flexibility *f)
{
	const int said = f->n_warnings; /* the unconstrained point's, as they are */
	wc__flex_caveat **each = malloc((size_t)(c->n ? c->n : 1) * sizeof *each);
	char *used = calloc((size_t)(c->n ? c->n : 1), 1);
	for (int i = 0; each && used && i < c->n; i++) {
		for (int k = 0; k < said && !used[i]; k++)
			used[i] = said_by(f->warnings[k], c->at[i].text);
		if (used[i])
			continue;
		/* the kind's caveats, each (clock, text) once */
		int n = 0, differ = 0;
		for (int j = i; j < c->n; j++) {
			if (used[j] || !same_kind(c->at[i].text, c->at[j].text))
				continue;
			used[j] = 1;
			int dup = 0;
			for (int k = 0; k < n && !dup; k++)
				dup = f->steps[each[k]->step].sm_clock_mhz == f->steps[c->at[j].step].sm_clock_mhz &&
				      strcmp(each[k]->text, c->at[j].text) == 0;
			for (int k = 0; k < said && !dup; k++)
				dup = said_by(f->warnings[k], c->at[j].text);
			if (!dup) {
				differ |= strcmp(c->at[i].text, c->at[j].text) != 0;
				each[n++] = &c->at[j];
			}
		}
		qsort(each, (size_t)n, sizeof *each, by_step_down);
		char line[4096];
		size_t len = 0;
		line[0] = '\0';
		put_clocks(f, each, n, !differ, line, sizeof line, &len);
		put_text(each, n, 1, line, sizeof line, &len);
		if (len >= WC_WARNING_LEN) { /* too long per step: the range of each */
			size_t range = 0;
			put_clocks(f, each, n, 1, line, sizeof line, &range);
			put_text(each, n, 0, line, sizeof line, &range);
		}
		/* One line per kind, the range covering every step's value, the
		 * knee's and the optimum's among them: a line of their own would
		 * say the kind twice, a clock inside the range with a number
		 * beside it (docs/capacity.md, "Power flexibility"). */
		say_once(f, line);
	}
	free(each);
	free(used);
	free(c->at);
	c->at = NULL;
	c->n = c->cap = 0;
}
