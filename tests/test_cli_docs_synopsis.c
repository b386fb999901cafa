/*
 * docs/cli.md's synopses list every flag the binary's own usage blocks
 * list (docs/cli.md: "`wattcast COMMAND --help` prints the same
 * synopsis"). Each usage entry ("wattcast validate heldout ...", its
 * continuation lines) of every command's --help and of every
 * subcommand's own --help (found as the man page finds them,
 * cli/manpage.sh) is matched with the entries of the same command and
 * subcommand in the page's synopsis blocks; a flag the binary lists and
 * the page does not fails here (`validate heldout` and `validate lomo`
 * took --per-run, which their synopses in the page left out). And every
 * flag of a synopsis is said something of in the page's text outside
 * the synopses (`fit capacity --calibrated-on` was in the synopsis and
 * explained nowhere).
 */
#include "tests/support/support.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ENTRIES = 96, MAX_FLAGS = 80, KEY_MAX = 64, FLAG_MAX = 40 };

typedef struct {
	char key[KEY_MAX]; /* "wattcast validate heldout" */
	char flags[MAX_FLAGS][FLAG_MAX];
	int n_flags;
} entry;

typedef struct {
	entry e[MAX_ENTRIES];
	int n;
} entries;

static entry *
entry_of(entries *es, const char *key)
{
	for (int i = 0; i < es->n; i++)
		if (strcmp(es->e[i].key, key) == 0)
			return &es->e[i];
	CHECK(es->n < MAX_ENTRIES);
	if (es->n >= MAX_ENTRIES)
		return NULL;
	entry *e = &es->e[es->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->key, sizeof e->key, "%s", key);
	return e;
}

static int
has_flag(const entry *e, const char *flag)
{
	for (int i = 0; i < e->n_flags; i++)
		if (strcmp(e->flags[i], flag) == 0)
			return 1;
	return 0;
}

/* Every --flag of `line` into `e`. */
static void
add_flags(entry *e, const char *line, size_t len)
{
	for (size_t i = 0; i + 2 < len; i++) {
		if (line[i] != '-' || line[i + 1] != '-' || !islower((unsigned char)line[i + 2]) ||
		    (i > 0 && (isalnum((unsigned char)line[i - 1]) || line[i - 1] == '-')))
			continue;
		size_t n = 2;
		while (i + n < len && (islower((unsigned char)line[i + n]) || line[i + n] == '-'))
			n++;
		char flag[FLAG_MAX];
		snprintf(flag, sizeof flag, "%.*s", (int)n, line + i);
		if (!has_flag(e, flag) && e->n_flags < MAX_FLAGS)
			snprintf(e->flags[e->n_flags++], FLAG_MAX, "%s", flag);
		i += n - 1;
	}
}

/* The key of a line that starts an entry ("wattcast CMD [SUB]" after
 * "usage: " or blanks), or 0. SUB is a word of lowercase letters and
 * dashes ("fit request-energy"); a flag after CMD is not one. */
static int
entry_key(const char *line, size_t len, char *key)
{
	size_t i = 0;
	if (len >= 7 && strncmp(line, "usage: ", 7) == 0)
		i = 7;
	while (i < len && line[i] == ' ')
		i++;
	if (len - i < 9 || strncmp(line + i, "wattcast ", 9) != 0)
		return 0;
	size_t end = i + 9, words = 0;
	for (size_t w = end; words < 2 && w < len && islower((unsigned char)line[w]);) {
		while (w < len && (islower((unsigned char)line[w]) || line[w] == '-'))
			w++;
		end = w;
		words++;
		if (w >= len || line[w] != ' ')
			break;
		w++;
	}
	snprintf(key, KEY_MAX, "%.*s", (int)(end - i), line + i);
	return words > 0;
}

/* The entries of the lines of `text` (up to `stop`): a line with a key
 * starts one; a line starting with a blank, or `options:`, continues it
 * (help texts only: `help` 1); any other line ends it. */
static void
parse(entries *es, const char *text, const char *stop, int help)
{
	entry *cur = NULL;
	for (const char *l = text; l && *l && (!stop || l < stop);) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char key[KEY_MAX];
		if (entry_key(l, len, key))
			cur = entry_of(es, key);
		else if (!(len > 0 && (l[0] == ' ' || (help && strncmp(l, "options:", 8) == 0))))
			cur = NULL;
		if (cur)
			add_flags(cur, l, len);
		l = nl ? nl + 1 : NULL;
	}
}

/* The usage block of a help text: up to its first blank line. */
static void
parse_help(entries *es, const char *text)
{
	parse(es, text, text ? strstr(text, "\n\n") : NULL, 1);
}

/* docs: the bare ``` blocks (synopses; examples start with "$" or sit
 * in ```sh blocks). A fence line opens a block or closes the open one. */
static void
parse_docs(entries *es, char *doc)
{
	char *open = NULL;
	int bare = 0;
	for (char *l = doc; l && *l;) {
		char *nl = strchr(l, '\n');
		if (strncmp(l, "```", 3) == 0) {
			if (open && bare)
				parse(es, open, l, 0);
			if (open) {
				open = NULL;
			} else {
				open = nl ? nl + 1 : NULL;
				bare = l[3] == '\n';
			}
		}
		l = nl ? nl + 1 : NULL;
	}
}

/* The page without its fenced blocks (malloc'd). */
static char *
prose_of(const char *doc)
{
	char *out = calloc(1, strlen(doc) + 1), *o = out;
	int fenced = 0;
	for (const char *l = doc; out && l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);
		if (strncmp(l, "```", 3) == 0)
			fenced = !fenced;
		else if (!fenced)
			o += snprintf(o, len + 1, "%.*s", (int)len, l);
		l = nl ? nl + 1 : NULL;
	}
	return out;
}

/* Does `text` hold `flag` as a whole flag (not the start of a longer one)? */
static int
mentions(const char *text, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = text; (p = strstr(p, flag)) != NULL; p += n)
		if (!islower((unsigned char)p[n]) && p[n] != '-')
			return 1;
	return 0;
}

/* A synopsis's profile choice names every built-in profile, or NAME
 * (its text lists them): validate, fit and calibrate synopses said
 * "--profile paper" though each takes measured and paper-prefill too. */
static void
check_profiles(const char *text, const char *where)
{
	static const char want[] = "measured|paper|paper-prefill";
	for (const char *p = text; p && (p = strstr(p, "| --profile ")) != NULL; p++)
		if (strncmp(p + 12, want, sizeof want - 1) != 0 && strncmp(p + 12, "NAME", 4) != 0) {
			CHECK(0);
			fprintf(stderr, "  %s: '%.40s' names not every built-in profile\n", where, p + 2);
		}
}

static char *
help_of(const char *cmd, const char *sub, int *status)
{
	const char *argv[] = { "wattcast", cmd, sub ? sub : "--help", sub ? "--help" : NULL, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	*status = r.status;
	free(r.err);
	char where[96];
	snprintf(where, sizeof where, "wattcast %s %s --help", cmd, sub ? sub : "");
	check_profiles(r.out, where);
	return r.out;
}

/* A command's help and each subcommand's own: the words after
 * "wattcast CMD" in its usage block and those before a "--help" pointer
 * ("ingest --prometheus --help"). */
static void
command_helps(entries *es, const char *cmd)
{
	int status;
	char *top = help_of(cmd, NULL, &status);
	CHECK_INT(status, 0);
	parse_help(es, top);
	for (const char *p = top; p && (p = strstr(p, " --help")) != NULL; p++) {
		const char *w = p;
		while (w > top && !isspace((unsigned char)w[-1]) && w[-1] != '`' && w[-1] != '(')
			w--;
		char sub[KEY_MAX];
		snprintf(sub, sizeof sub, "%.*s", (int)(p - w), w);
		if (!sub[0] || strcmp(sub, cmd) == 0 || !(islower((unsigned char)sub[0]) || sub[0] == '-'))
			continue;
		char *text = help_of(cmd, sub, &status);
		if (status == 0)
			parse_help(es, text);
		free(text);
	}
	free(top);
}

int
main(void)
{
	static entries help, docs;
	char *path = path_join(test_env("WC_SOURCE_DIR", "."), "docs/cli.md");
	char *doc = test_slurp(path);
	parse_docs(&docs, doc);
	check_profiles(doc, "docs/cli.md");
	int status;
	char *top = help_of("--help", NULL, &status);
	const char *list = top ? strstr(top, "\ncommands:\n") : NULL;
	CHECK(list != NULL);
	/* The page's opening names every command --help lists, and counts
	 * them (it said eleven and left out `models`). */
	const char *start = doc ? strstr(doc, "\n\n") : NULL; /* after the title */
	const char *cut = start ? strstr(start + 2, "\n\n") : NULL;
	char *opening = start ? strndup(start + 2, cut ? (size_t)(cut - start - 2) : strlen(start + 2)) : NULL;
	int n_commands = 0;
	for (const char *l = list ? list + 11 : NULL; l && l[0] == ' ' && l[1] == ' ';) {
		char cmd[32], quoted[40];
		if (sscanf(l, " %31s", cmd) == 1) {
			command_helps(&help, cmd);
			n_commands++;
			snprintf(quoted, sizeof quoted, "`%s`", cmd);
			if (!opening || !strstr(opening, quoted)) {
				CHECK(0);
				fprintf(stderr, "  --help lists %s, docs/cli.md's opening does not\n", cmd);
			}
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	static const char *const counts[] = { "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen" };
	char said[48] = "";
	if (n_commands >= 10 && n_commands < 16)
		snprintf(said, sizeof said, "with %s commands", counts[n_commands - 10]);
	if (!said[0] || !opening || !strstr(opening, said)) {
		CHECK(0);
		fprintf(stderr, "  docs/cli.md's opening does not say '%s' (--help lists %d commands)\n", said, n_commands);
	}
	free(opening);
	free(top);
	int compared = 0;
	for (int i = 0; i < help.n; i++) {
		const entry *h = &help.e[i], *d = NULL;
		for (int j = 0; j < docs.n; j++)
			if (strcmp(docs.e[j].key, h->key) == 0)
				d = &docs.e[j];
		if (!d) /* documented by a flag table, not a synopsis (predict flexibility) */
			continue;
		compared++;
		for (int f = 0; f < h->n_flags; f++) {
			if (strcmp(h->flags[f], "--help") == 0 || has_flag(d, h->flags[f]))
				continue;
			CHECK(0);
			fprintf(stderr, "  %s: --help lists %s, the synopsis in docs/cli.md does not\n", h->key,
			        h->flags[f]);
		}
	}
	char *prose = prose_of(doc ? doc : "");
	for (int j = 0; prose && j < docs.n; j++)
		for (int f = 0; f < docs.e[j].n_flags; f++)
			if (!mentions(prose, docs.e[j].flags[f])) {
				CHECK(0);
				fprintf(stderr, "  %s: %s is in the synopsis of docs/cli.md and nowhere in its text\n",
				        docs.e[j].key, docs.e[j].flags[f]);
			}
	free(prose);
	fprintf(stderr, "%d synopses compared\n", compared);
	CHECK(compared >= 25);
	free(doc);
	free(path);
	return check_report("test_cli_docs_synopsis");
}
