/*
 * The command-line answers the docs show are the ones the binary gives
 * now: every "$ wattcast ..." line of every page of docs/ (with its "\"
 * continuation lines) is run, and every line the page shows after it, up
 * to the block's end or the next "$ ", must be a line of what the binary
 * prints (stdout and stderr); a line holding "..." or "…" is cut short
 * there, and only what comes before must start a line the binary prints. A stale header (cli.md's lacked the
 * ", engine vllm" the binary prints), a number from before a refit
 * (capacity.md's 287.5 s where the binary prints 287.4 s) or an anchor
 * that needs a flag the page leaves out (inference-law.md's 642.0 W is
 * the `paper` profile's) fails here instead of misleading a reader. An
 * example run on the reader's own file (a .csv/.json/.jsonl argument
 * that is not an output and is not in the source tree, `my-run.csv`)
 * cannot be replayed and is skipped.
 */
#include "tests/support/support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_ARGS = 64 };

static int
ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Does the example read a file of the reader's own (not replayable)? */
static int
reads_own_file(char **argv, int argc, const char *src)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!ends_with(a, ".csv") && !ends_with(a, ".json") && !ends_with(a, ".jsonl"))
			continue;
		const char *prev = argv[i - 1];
		if (strcmp(prev, "-o") == 0 || strcmp(prev, "--output") == 0 ||
		    strcmp(prev, "--csv") == 0 || strcmp(prev, "--svg") == 0)
			continue;
		char *p = path_join(src, a);
		int there = test_exists(p);
		free(p);
		if (!there)
			return 1;
	}
	return 0;
}

/* Is `line` one of the lines of `text`? Up to its "..." or "…" when it
 * has one: the start of a line the page cut short. */
static int
has_line(const char *text, const char *line)
{
	const char *dots = strstr(line, "..."), *ell = strstr(line, "\xe2\x80\xa6");
	if (!dots || (ell && ell < dots))
		dots = ell;
	size_t n = dots ? (size_t)(dots - line) : strlen(line);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if ((dots ? len >= n : len == n) && memcmp(p, line, n) == 0)
			return 1;
		p = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* Run the example starting at lines[*i] and compare the lines shown after it. */
static int
check_example(const char *page, char **lines, int n_lines, int *i, const char *src)
{
	char cmd[4096] = "";
	int k = *i;
	snprintf(cmd, sizeof cmd, "%s", lines[k] + 2);
	while (ends_with(cmd, "\\") && k + 1 < n_lines) {
		cmd[strlen(cmd) - 1] = ' ';
		strncat(cmd, lines[++k], sizeof cmd - strlen(cmd) - 1);
	}
	int first_shown = k + 1, end = first_shown;
	while (end < n_lines && strncmp(lines[end], "```", 3) != 0 && strncmp(lines[end], "$ ", 2) != 0)
		end++;
	*i = end;

	char *words = strdup(cmd), *argv[MAX_ARGS + 1];
	int argc = 0;
	for (char *t = strtok(words, " "); t && argc < MAX_ARGS; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	if (reads_own_file(argv, argc, src)) {
		free(words);
		return 0;
	}
	run_result r;
	CHECK(run_wattcast((const char *const *)argv, NULL, &r) == 0);
	size_t total = strlen(r.out) + strlen(r.err) + 2;
	char *both = malloc(total);
	snprintf(both, total, "%s\n%s", r.out, r.err);
	int compared = 0;
	for (int l = first_shown; l < end; l++) {
		const char *want = lines[l];
		if (!*want)
			continue;
		compared++;
		if (!has_line(both, want)) {
			fprintf(stderr, "%s: `%s` no longer prints\n  %s\nit prints:\n%s%s\n", page, cmd,
			        want, r.out, r.err);
			CHECK(0);
		}
	}
	free(both);
	run_result_free(&r);
	free(words);
	return compared;
}

int
main(void)
{
	const char *src = test_env("WC_SOURCE_DIR", ".");
	/* Examples write their outputs (--svg flex.svg) where they run. */
	char *tmp = test_tmpdir("cli_docs_examples");
	CHECK(chdir(tmp) == 0);
	char *docs = path_join(src, "docs");
	DIR *dir = opendir(docs);
	CHECK(dir != NULL);
	int examples = 0;
	for (struct dirent *de; dir && (de = readdir(dir));) {
		if (!ends_with(de->d_name, ".md"))
			continue;
		char rel[300];
		snprintf(rel, sizeof rel, "docs/%s", de->d_name);
		char *path = path_join(src, rel);
		char *text = test_slurp(path);
		int n = 0, cap = 1024;
		char **lines = malloc((size_t)cap * sizeof *lines);
		for (char *s = text, *nl; s; s = nl ? nl + 1 : NULL) {
			nl = strchr(s, '\n');
			if (nl)
				*nl = '\0';
			if (n == cap)
				lines = realloc(lines, (size_t)(cap *= 2) * sizeof *lines);
			lines[n++] = s;
		}
		for (int i = 0; i < n;) {
			if (strncmp(lines[i], "$ wattcast ", 11) == 0) {
				if (check_example(rel, lines, n, &i, src) > 0)
					examples++;
			} else {
				i++;
			}
		}
		free(lines);
		free(text);
		free(path);
	}
	if (dir)
		closedir(dir);
	free(docs);
	/* cli.md's inference and flexibility examples, inference-law.md's
	 * anchor and capacity.md's memory example at least. */
	CHECK(examples >= 6);
	free(tmp);
	return check_report("test_cli_docs_examples");
}
