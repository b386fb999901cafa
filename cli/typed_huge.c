/*
 * A text past every double (1e999) quoted as typed: cli_parse_double hands
 * it on as +-HUGE_VAL for the flag's own range to refuse (docs/cli.md,
 * "Conventions"), and that check prints the value it got, "inf"; every
 * message of the CLI (cli/args.c, vreport) quotes the flag's text instead.
 */
#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The texts past every double (1e999) that cli_parse_double handed on as
 * +-HUGE_VAL for the flag's own range to refuse, by flag: that check
 * prints the value it got, "inf", where every other refusal quotes what
 * was typed (docs/cli.md, "Conventions"). */
#define TYPED_HUGE 8
static struct {
	const char *flag, *text;
} typed_huge[TYPED_HUGE];

void
cli_remember_huge(const char *flag, const char *text)
{
	int free_slot = -1;
	for (int i = 0; i < TYPED_HUGE; i++) {
		if (typed_huge[i].flag && strcmp(typed_huge[i].flag, flag) == 0) {
			typed_huge[i].text = text;
			if (!text)
				typed_huge[i].flag = NULL;
			return;
		}
		if (!typed_huge[i].flag && free_slot < 0)
			free_slot = i;
	}
	if (text && free_slot >= 0) {
		typed_huge[free_slot].flag = flag;
		typed_huge[free_slot].text = text;
	}
}

/* `msg` with the value of the flag it starts with ("--horizon: ... got
 * inf") quoted as typed ("got '1e999'"), when that flag's text was past
 * every double; else `msg` itself. `out` holds the new text. */
const char *
cli_quote_typed_huge(const char *msg, char *out, size_t cap)
{
	const char *text = NULL;
	for (int i = 0; i < TYPED_HUGE && !text; i++) {
		size_t k = typed_huge[i].flag ? strlen(typed_huge[i].flag) : 0;
		if (k && strncmp(msg, typed_huge[i].flag, k) == 0 && msg[k] == ':')
			text = typed_huge[i].text;
	}
	if (!text)
		return msg;
	size_t o = 0;
	for (const char *p = msg; *p && o + 1 < cap;) {
		const char *w = *p == '-' && strncmp(p + 1, "inf", 3) == 0 ? p + 1 : p;
		int word = strncmp(w, "inf", 3) == 0 && (p == msg || !isalnum((unsigned char)p[-1])) &&
		           !isalnum((unsigned char)w[3]);
		int n = word ? snprintf(out + o, cap - o, "'%s'", text) : snprintf(out + o, cap - o, "%c", *p);
		o = n > 0 && (size_t)n < cap - o ? o + (size_t)n : cap - 1;
		p = word ? w + 3 : p + 1;
	}
	out[o] = '\0';
	return out;
}
