/*
 * Finding run folders (docs/formats/telemetry.md, "Run folders"): a
 * folder holding power.csv, at a path or up to WC_INGEST_SEARCH_DEPTH
 * levels below it, in name order; those deeper are counted to be said,
 * not read.
 */
#include "ingest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/grow.h"

/* ------------------------------------------------------------ discovery */

/* Levels below the search depth looked into for run folders left out, to
 * say so (a fleet tree <site>/<date>/<host>/<gpu>/<run> is 5 deep). */
#define INGEST_BEYOND_DEPTH 8

typedef struct {
	char **v;
	size_t n, cap;
} path_list;

static int
push_path(path_list *l, const char *p)
{
	char **nv = wc_grow(l->v, &l->cap, l->n + 1, sizeof *nv, 16);
	if (!nv)
		return -1;
	l->v = nv;
	if (!(l->v[l->n] = strdup(p)))
		return -1;
	l->n++;
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run folders found below the search depth: how many, and the first. */
typedef struct {
	size_t n;
	char first[512];
} too_deep;

/* The run folders at `dir` or `depth` levels below it into `out`; with
 * `deep`, those up to INGEST_BEYOND_DEPTH levels further only counted. */
static int
find_under(const char *dir, int depth, path_list *out, too_deep *deep)
{
	char path[1024];
	const int len = wc__ingest_dir_len(dir); /* "v/" names "v/run", not "v//run" */
	snprintf(path, sizeof path, "%.*s/power.csv", len, dir);
	if (wc__file_exists(path)) {
		if (depth >= 0)
			return push_path(out, dir);
		if (deep->n++ == 0)
			snprintf(deep->first, sizeof deep->first, "%s", dir);
		return 0;
	}
	if (depth == 0 && deep)
		depth = -1; /* below the limit: counted, not taken */
	if (depth == 0 || depth < -INGEST_BEYOND_DEPTH)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	path_list subs = { NULL, 0, 0 };
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%.*s/%s", len, dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			rc = push_path(&subs, path);
	}
	closedir(d);
	if (subs.n)
		qsort(subs.v, subs.n, sizeof *subs.v, cmp_str);
	for (size_t i = 0; i < subs.n; i++) {
		if (rc == 0)
			rc = find_under(subs.v[i], depth - 1, out, deep);
		free(subs.v[i]);
	}
	free(subs.v);
	return rc;
}

int
wc_ingest_find_runs(const char *dir, char ***out, size_t *n, wc_error *err)
{
	path_list l = { NULL, 0, 0 };
	struct stat st;
	*out = NULL;
	*n = 0;
	/* a path that is not there is said as every path error says it (the
	 * system's reason), not "not a folder" (docs/cli.md, `--measured`) */
	if (stat(dir, &st) != 0)
		return wc_error_set_path(err, WC_ENOTFOUND, dir, ": cannot open (%s)", strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return wc_error_set_path(err, WC_ENOTFOUND, dir, ": not a folder");
	if (find_under(dir, WC_INGEST_SEARCH_DEPTH, &l, NULL) != 0) {
		for (size_t i = 0; i < l.n; i++)
			free(l.v[i]);
		free(l.v);
		return wc_error_set_path(err, WC_ENOMEM, dir, ": out of memory");
	}
	if (l.n == 0) {
		free(l.v);
		/* runs below the search are there: said so, not "no run folder" */
		char first[256];
		size_t deep = wc_ingest_runs_too_deep(dir, first, sizeof first);
		if (deep > 0)
			return wc_error_set_path(err, WC_ENOTFOUND, dir,
			                         ": no run folder within the %d levels searched; %zu "
			                         "below them (first: %.100s): name a folder nearer to %s",
			                         WC_INGEST_SEARCH_DEPTH, deep, first, deep == 1 ? "it" : "them");
		return wc_error_set_path(err, WC_ENOTFOUND, dir,
		                         ": no run folder (one holding power.csv) in or under it");
	}
	*out = l.v;
	*n = l.n;
	return WC_OK;
}

size_t
wc_ingest_runs_too_deep(const char *dir, char *first, size_t cap)
{
	path_list l = { NULL, 0, 0 };
	too_deep deep = { 0, "" };
	find_under(dir, WC_INGEST_SEARCH_DEPTH, &l, &deep);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	snprintf(first, cap, "%s", deep.first);
	return deep.n;
}
