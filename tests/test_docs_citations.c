/*
 * Every comment that cites a section of the documentation, in the form
 * the code uses everywhere -- (docs/FILE.md, "Section") -- names a
 * section that exists: a heading of that file, or the bold lead of one of
 * its paragraphs (docs/architecture.md, "Conventions"). A citation of a
 * renamed or moved section sends a newcomer nowhere; a code audit found
 * 29 of 688 such citations, which nothing checked.
 *
 * Matching ignores case, markdown's ` * _ and a final period, joins a
 * section name a comment breaks over lines, and takes a heading that
 * begins with the cited name ("Fitting the response" for "Fitting").
 */
#include "tests/support/support.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_SECTION 200

/* The whole file (malloc'd), or NULL when it cannot be read. */
static char *
read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) != NULL) {
		size_t got = fread(buf, 1, (size_t)n, f);
		buf[got] = '\0';
	}
	fclose(f);
	return buf;
}

/* `in` normalised into `out`: lower case, without ` * _, trailing
 * spaces and periods removed, runs of white space as one space. */
static void
norm(const char *in, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	int space = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c == '`' || c == '*' || c == '_')
			continue;
		if (isspace(c)) {
			space = k > 0;
			continue;
		}
		if (space && k + 2 < cap)
			out[k++] = ' ';
		space = 0;
		out[k++] = (char)tolower(c);
	}
	while (k > 0 && (out[k - 1] == '.' || out[k - 1] == ' '))
		k--;
	out[k] = '\0';
}

/* The next "**" at or after p outside a code span: the three stars of a
 * masked URL in backquotes (docs/fleet.md, "Queries") are no bold mark,
 * and paired with the next one they hid the bold leads after them. A
 * span is taken to close on its line. */
static const char *
bold_mark(const char *p)
{
	for (; *p; p++) {
		if (*p == '`') {
			const char *e = p + 1;
			while (*e && *e != '`' && *e != '\n')
				e++;
			if (*e == '`') {
				p = e;
				continue;
			}
		}
		if (p[0] == '*' && p[1] == '*')
			return p;
	}
	return NULL;
}

/* Does doc text `md` have a heading or a bold lead equal to `sec` or
 * beginning with it? */
static int
has_section(const char *md, const char *sec)
{
	char h[MAX_SECTION * 2];
	size_t ls = strlen(sec);
	for (const char *p = md; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		if (*p == '#') {
			const char *q = p;
			while (*q == '#')
				q++;
			norm(q, len - (size_t)(q - p), h, sizeof h);
			if (strncmp(h, sec, ls) == 0)
				return 1;
		}
		p += len + (eol != NULL);
	}
	for (const char *b = bold_mark(md); b; b = bold_mark(b)) {
		const char *e = bold_mark(b + 2);
		if (!e)
			break;
		norm(b + 2, (size_t)(e - b - 2), h, sizeof h);
		if (strncmp(h, sec, ls) == 0)
			return 1;
		b = e + 2;
	}
	return 0;
}

/* The section name of the citation whose opening quote is at `q`: the
 * text up to the closing quote, a comment's line break (newline, white
 * space, then '*' or "//") read as a space. */
static int
section_at(const char *q, char *out, size_t cap)
{
	char raw[MAX_SECTION * 2];
	size_t k = 0;
	for (const char *p = q + 1; *p && *p != '"'; p++) {
		if (*p == '\n') {
			while (isspace((unsigned char)p[1]))
				p++;
			if (p[1] == '*' && p[2] != '/')
				p++;
			else if (p[1] == '/' && p[2] == '/')
				p += 2;
			raw[k++] = ' ';
		} else {
			raw[k++] = *p;
		}
		if (k + 1 >= sizeof raw)
			return -1;
	}
	norm(raw, k, out, cap);
	return 0;
}

static int n_cited, n_checked_files;

static void
check_file(const char *root, const char *path)
{
	char *text = read_text(path);
	if (!text)
		return;
	n_checked_files++;
	for (const char *d = strstr(text, "docs/"); d; d = strstr(d + 5, "docs/")) {
		size_t n = strspn(d, "abcdefghijklmnopqrstuvwxyz0123456789_/.-");
		if (n < 8 || strncmp(d + n - 3, ".md", 3) != 0)
			continue;
		const char *p = d + n;
		if (*p != ',')
			continue;
		for (p++; isspace((unsigned char)*p) || *p == '*'; p++)
			;
		if (*p != '"')
			continue;
		char sec[MAX_SECTION], doc[256];
		if (section_at(p, sec, sizeof sec) < 0 || n >= sizeof doc - 1)
			continue;
		snprintf(doc, sizeof doc, "%.*s", (int)n, d);
		char *md_path = path_join(root, doc), *md = read_text(md_path);
		int ok = md && has_section(md, sec);
		n_cited++;
		if (!ok)
			fprintf(stderr, "%s cites %s, \"%s\": %s\n", path + strlen(root) + 1, doc, sec,
			        md ? "no such heading or bold lead" : "no such file");
		CHECK(ok);
		free(md);
		free(md_path);
	}
	free(text);
}

static void
walk(const char *root, const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	if (!dp)
		return;
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *p = path_join(dir, e->d_name);
		struct stat st;
		size_t len = strlen(e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			walk(root, p);
		else if (len > 2 && e->d_name[len - 2] == '.' && (e->d_name[len - 1] == 'c' || e->d_name[len - 1] == 'h'))
			check_file(root, p);
		free(p);
	}
	closedir(dp);
}

int
main(void)
{
	const char *root = test_env("WC_SOURCE_DIR", ".");
	static const char *const dirs[] = { "models", "fit", "predict", "server", "data", "validation",
		                            "trace", "cli", "bench", "tests" };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char *d = path_join(root, dirs[i]);
		walk(root, d);
		free(d);
	}
	/* The tree cites hundreds of sections: finding few means the scan,
	 * not the tree, is broken. */
	if (n_cited <= 500)
		fprintf(stderr, "only %d citations found in %d files\n", n_cited, n_checked_files);
	CHECK(n_cited > 500);
	return check_report("test_docs_citations");
}
