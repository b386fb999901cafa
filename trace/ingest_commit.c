/*
 * The commit of an ingested runs table and its n(t) series
 * (docs/architecture.md, "Files"; docs/formats/telemetry.md, "n(t) on the
 * 50 ms grid"). Readers take no lock, so at every instant the folder must
 * hold the old table with every series it names, as it named them, or the
 * new one with all of its own. The order that keeps this:
 *
 *   1. every pending series is renamed into place, then the series folder
 *      is fsync'd: the old table still stands and names only files this
 *      step leaves as they were -- a series whose name is taken by a file
 *      of other bytes goes under `<name>@<8 hex digits>.csv` (the first 8
 *      of the SHA-256 of its bytes) instead of replacing it, and one whose
 *      file holds the same bytes replaces it with those bytes;
 *   2. the table is written (its own temporary, fsync, rename): a reader
 *      sees it whole, with every series it names in place;
 *   3. the files named as series that the new table does not name, the
 *      earlier table's, are removed.
 *
 * The table was renamed first, its series after, and a writer killed in
 * between (kill -9, power loss) left a table whose series did not exist.
 * All of it runs under an exclusive flock of the series folder: writers of
 * one table commit one at a time.
 */
#include "ingest_internal.h"
#include "data/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file at `path` as bytes, malloc'd into *buf (read with open, not
 * wc_open_input: a pending series is no input of the command). */
static int
slurp(const char *path, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*buf = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(*buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return -1;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, *buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*len = got;
	return got == (size_t)st.st_size ? 0 : -1;
}

/* Does `path` hold exactly `len` bytes `data`, a regular file (not a link:
 * a link is not ours to replace)? */
static int
holds_bytes(const char *path, const char *data, size_t len)
{
	struct stat st;
	char *have = NULL;
	size_t n = 0;
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len)
		return 0;
	int same = slurp(path, &have, &n) == 0 && n == len && memcmp(have, data, len) == 0;
	free(have);
	return same;
}

/* Is `name` one that ingest writes: [A-Za-z0-9._-]+, optionally
 * '@' and 8 lowercase hex digits, then ".csv"? */
static int
is_series_name(const char *name)
{
	size_t n = strlen(name);
	if (n <= 4 || strcmp(name + n - 4, ".csv") != 0)
		return 0;
	n -= 4;
	if (n > 9 && name[n - 9] == '@') {
		for (size_t k = n - 8; k < n; k++)
			if (!((name[k] >= '0' && name[k] <= '9') || (name[k] >= 'a' && name[k] <= 'f')))
				return 0;
		n -= 9;
	}
	for (size_t k = 0; k < n; k++) {
		char c = name[k];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '-' || c == '_'))
			return 0;
	}
	return 1;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file name a row's n_series ends in. */
static const char *
series_base(const wc_run *r)
{
	const char *slash = strrchr(r->n_series, '/');
	return slash ? slash + 1 : r->n_series;
}

/* The table is in place: remove the files of its series folder named as
 * series that it does not name, which an earlier table left (its rows'
 * n_series would point a reader at them). Anything else in the folder --
 * other names, links, folders -- is not ours and stays. A folder left
 * empty goes too. */
static int
prune_series(const char *path, const char *series_dir, const wc_runs_table *t, wc_error *err)
{
	const char **names = calloc(t->n_runs ? t->n_runs : 1, sizeof *names);
	size_t n = 0;
	int rc = WC_OK;
	if (!names)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	for (size_t i = 0; i < t->n_runs; i++)
		if (t->runs[i].n_series[0])
			names[n++] = series_base(&t->runs[i]);
	qsort(names, n, sizeof *names, by_name);
	DIR *d = opendir(series_dir);
	if (!d) {
		if (errno != ENOENT)
			rc = wc_error_set_path(err, WC_EIO, path, ": written, but its series folder '%s' cannot be listed (%s)",
			                       series_dir, strerror(errno));
		free(names);
		return rc;
	}
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		char full[2048];
		const char *name = e->d_name;
		if (!is_series_name(name) || bsearch(&name, names, n, sizeof *names, by_name))
			continue;
		snprintf(full, sizeof full, "%s/%s", series_dir, name);
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && unlink(full) != 0 && rc == WC_OK)
			rc = wc_error_set_path(err, WC_EIO, path, ": written, but '%s' of an earlier table stays (%s)", full,
			                       strerror(errno));
	}
	closedir(d);
	if (n == 0)
		rmdir(series_dir); /* fails, as it should, when anything is left */
	free(names);
	return rc;
}

/* `s` ends in ".csv": put "@" and the first 8 hex digits of `hex` before
 * it, within `cap` bytes; 0, or -1 when it does not fit. */
static int
add_tag(char *s, size_t cap, const char *hex)
{
	size_t n = strlen(s);
	if (n < 4 || n + 9 >= cap)
		return -1;
	snprintf(s + n - 4, cap - (n - 4), "@%.8s.csv", hex);
	return 0;
}

/* Step 1 for row `i`: rename its pending series into place, under its own
 * name or, when a file of other bytes holds that name (the old table may
 * name it), under its tagged name, the row's n_series following. *fresh
 * is set when the name held no file before, so a failed commit may remove
 * it again. */
static int
place_series(const char *path, wc_run *run, const char *pending, size_t cut, int *fresh, wc_error *err)
{
	char final[2048], *bytes = NULL;
	size_t len = 0;
	struct stat st;
	snprintf(final, sizeof final, "%.*s", (int)(strlen(pending) - cut), pending);
	*fresh = lstat(final, &st) != 0 && errno == ENOENT;
	if (!*fresh) {
		if (slurp(pending, &bytes, &len) != 0) {
			free(bytes);
			return wc_error_set_path(err, WC_EIO, path, ": its series '%s' cannot be read back (%s)", pending,
			                         strerror(errno));
		}
		if (!holds_bytes(final, bytes, len)) {
			char hex[65];
			wc_sha256_hex(bytes, len, hex);
			if (add_tag(final, sizeof final, hex) != 0 || add_tag(run->n_series, sizeof run->n_series, hex) != 0) {
				free(bytes);
				/* add_tag adds 9 bytes: '@' and 8 hex digits */
				return wc__ingest_series_too_long(err, path, run->run_id, strlen(run->n_series) + 9, 1);
			}
			*fresh = lstat(final, &st) != 0 && errno == ENOENT;
			if (!*fresh && !holds_bytes(final, bytes, len)) {
				free(bytes);
				return wc_error_set_path(err, WC_EIO, path, ": its series '%s' is taken by a file of other bytes",
				                         final);
			}
		}
		free(bytes);
	}
	if (rename(pending, final) != 0)
		return wc_error_set_path(err, WC_EIO, path, ": its series '%s' could not be put in place (%s)", final,
		                         strerror(errno));
	return WC_OK;
}

/* Writers of one table commit one at a time: an exclusive flock of the
 * series folder, released by close or by the writer's death. Two writers
 * to one -o otherwise interleaved, the first's table left with the
 * second's series or none. The folder is checked to be the one locked (a
 * writer's clearing may remove it, empty, while another waits). No folder:
 * -1, and there is none to clear, nor a series of another writer to mix
 * with. A filesystem without flock commits unlocked, as before. */
static int
lock_series(const char *series_dir)
{
	for (;;) {
		struct stat held, now;
		int fd = open(series_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		int r;
		while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
			;
		if (r != 0)
			return fd; /* unlocked: no worse than before */
		if (fstat(fd, &held) == 0 && stat(series_dir, &now) == 0 && held.st_dev == now.st_dev &&
		    held.st_ino == now.st_ino)
			return fd;
		close(fd); /* removed, or another put in its place: again */
	}
}

int
wc__ingest_commit(const char *path, const char *series_dir, wc_runs_table *t, char **pending, size_t cut,
                  const char *comment, wc_error *err)
{
	unsigned char *fresh = calloc(t->n_runs ? t->n_runs : 1, 1);
	if (!fresh)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	int lock = lock_series(series_dir), rc = WC_OK;
	for (size_t i = 0; i < t->n_runs && rc == WC_OK; i++) {
		int is_new = 0;
		if (!pending[i])
			continue;
		rc = place_series(path, &t->runs[i], pending[i], cut, &is_new, err);
		fresh[i] = rc == WC_OK && is_new;
		if (rc == WC_OK) { /* in place: nothing pending left to remove */
			free(pending[i]);
			pending[i] = NULL;
		}
	}
	(void)wc_fsync_dir(series_dir); /* best effort: some filesystems refuse */
	if (rc == WC_OK)
		rc = wc_runs_write(path, t, comment, err);
	if (rc == WC_OK) {
		rc = prune_series(path, series_dir, t, err);
	} else {
		/* The old table stands: the series this commit added go again
		 * (one that replaced the same bytes stays, the old table's). */
		for (size_t i = 0; i < t->n_runs; i++) {
			char full[2048];
			if (!fresh[i])
				continue;
			snprintf(full, sizeof full, "%s/%s", series_dir, series_base(&t->runs[i]));
			unlink(full);
		}
	}
	if (lock >= 0)
		close(lock); /* the next writer may commit */
	free(fresh);
	return rc;
}
