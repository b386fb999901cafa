/* Whole-file reads and crash-safe writes (temporary file, fsync, rename). */
#include "data/fileio.h"

#include <stdio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include "models/grow.h"
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The regular files this process has opened for reading, by device and
 * inode, with the path each was read as: the atomic writer refuses to
 * replace one of them, whichever path names it -- an output named like a
 * file the command reads indirectly (a table's n(t) series file, a run
 * folder's power.csv) would destroy measured data (docs/cli.md,
 * "Conventions"). The server reads from several threads: a lock. */
struct read_file {
	dev_t dev;
	ino_t ino;
	char *path;
};
static struct read_file *read_files;
static size_t n_read_files, cap_read_files;
static pthread_mutex_t read_files_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_on;

void
wc_input_guard_on(void)
{
	guard_on = 1;
}

/* The entry of (dev, ino), or n_read_files; under the lock. */
static size_t
read_file_index(dev_t dev, ino_t ino)
{
	size_t i = 0;
	while (i < n_read_files && !(read_files[i].dev == dev && read_files[i].ino == ino))
		i++;
	return i;
}

/* Best effort on memory: a file that cannot be recorded is read all the
 * same (the command-line inputs are also refused before any work). */
static void
record_read(const struct stat *st, const char *path)
{
	if (!guard_on)
		return;
	pthread_mutex_lock(&read_files_lock);
	if (read_file_index(st->st_dev, st->st_ino) == n_read_files) {
		struct read_file *grown = n_read_files < cap_read_files
		                              ? read_files
		                              : wc_grow(read_files, &cap_read_files, n_read_files + 1, sizeof *read_files, 16);
		char *copy = grown ? strdup(path) : NULL;
		if (grown)
			read_files = grown;
		if (copy)
			read_files[n_read_files++] = (struct read_file){ st->st_dev, st->st_ino, copy };
	}
	pthread_mutex_unlock(&read_files_lock);
}

void
wc_input_may_be_replaced(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return;
	pthread_mutex_lock(&read_files_lock);
	size_t i = read_file_index(st.st_dev, st.st_ino);
	if (i < n_read_files) {
		free(read_files[i].path);
		read_files[i] = read_files[--n_read_files];
	}
	pthread_mutex_unlock(&read_files_lock);
}

/* The path `st` was read as, into `buf`, or 0 when it was not read;
 * *same when that is `path` itself, compared whole. */
static int
was_read(const struct stat *st, const char *path, char *buf, size_t cap, int *same)
{
	pthread_mutex_lock(&read_files_lock);
	size_t i = read_file_index(st->st_dev, st->st_ino);
	int yes = i < n_read_files;
	if (yes) {
		snprintf(buf, cap, "%s", read_files[i].path);
		*same = strcmp(read_files[i].path, path) == 0;
	}
	pthread_mutex_unlock(&read_files_lock);
	return yes;
}

FILE *
wc_open_input(const char *path, wc_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f) {
		wc_error_set_path(err, WC_EIO, path, ": cannot open (%s)", strerror(errno));
		return NULL;
	}
	const int known = fstat(fileno(f), &st) == 0;
	if (known && S_ISDIR(st.st_mode)) {
		fclose(f);
		wc_error_set_path(err, WC_EIO, path, ": is a folder, not a file");
		return NULL;
	}
	if (known && S_ISREG(st.st_mode))
		record_read(&st, path);
	return f;
}

/* 1 when the first bytes of u (up to 64, at least two code units) are
 * UTF-16 without a byte order mark: in at least 90 % of the code units the
 * byte at the odd offset (hi = 1: UTF-16LE) or the even one (hi = 0:
 * UTF-16BE) is 0x00 and the other is not -- the Latin-1 range, ASCII or
 * not ('indéx', 'µs'), leaving room for a few characters beyond it. No
 * UTF-8 text has a 0x00 byte, so no UTF-8 file is taken for it
 * (docs/formats/telemetry.md, "Bad lines"). */
static int
utf16_unmarked(const unsigned char *u, size_t len, int hi)
{
	size_t n = (len < 64 ? len : 64) & ~(size_t)1, units = n / 2, zero_paired = 0;
	if (n < 4)
		return 0;
	for (size_t i = 0; i < n; i += 2)
		zero_paired += u[i + (size_t)hi] == 0x00 && u[i + (size_t)!hi] != 0x00;
	return 10 * zero_paired >= 9 * units;
}

const char *
wc_text_utf16_what(const char *buf, size_t len, char what[48])
{
	const unsigned char *u = (const unsigned char *)buf;
	if (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
		snprintf(what, 48, "UTF-16 text (byte order mark %02X %02X)", u[0], u[1]);
		return "UTF-16";
	}
	int le = utf16_unmarked(u, len, 1);
	if (!le && !utf16_unmarked(u, len, 0))
		return NULL;
	snprintf(what, 48, "UTF-16%s text (no byte order mark)", le ? "LE" : "BE");
	return le ? "UTF-16LE" : "UTF-16BE";
}

int
wc_text_refuse_utf16(const char *buf, size_t len, const char *path, wc_error *err)
{
	char what[48];
	const char *enc = wc_text_utf16_what(buf, len, what);
	if (!enc)
		return WC_OK;
	return wc_error_set_path(err, WC_EPARSE, path,
	                         ":1: %s: re-save as UTF-8 (e.g. iconv -f %s -t UTF-8, or PowerShell's Out-File "
	                         "-Encoding utf8)", what, enc);
}

int
wc_text_is_gzip(const char *buf, size_t len)
{
	return len >= 2 && (unsigned char)buf[0] == 0x1F && (unsigned char)buf[1] == 0x8B;
}

size_t
wc_text_bom_len(const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	return len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF ? 3 : 0;
}

int
wc_text_second_bom(const char *buf, size_t len, int *column)
{
	size_t b = wc_text_bom_len(buf, len);
	int line = 1, col = 1;
	*column = 0;
	if (!b)
		return 0;
	for (size_t i = b; i < len; i++) {
		if (wc_text_bom_len(buf + i, len - i)) {
			*column = col;
			return line;
		}
		if (buf[i] == '\n')
			line++, col = 1;
		else if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r')
			col++;
		else
			return 0;
	}
	return 0;
}

int
wc_text_refuse_second_bom(const char *buf, size_t len, const char *path, wc_error *err)
{
	int column, line = wc_text_second_bom(buf, len, &column);
	if (!line)
		return WC_OK;
	return wc_error_set_path(err, WC_EPARSE, path, ":%d:%d: " WC_TEXT_SECOND_BOM " after the first: "
	                         "save at most one", line, column);
}

int
wc_read_file(const char *path, size_t max_bytes, char **out, size_t *len_out, wc_error *err)
{
	*out = NULL;
	FILE *f = wc_open_input(path, err);
	if (!f)
		return WC_EIO;
	/* Read no further than one byte past the limit, into no more room
	 * than that and the NUL: the buffer doubled and was read full before
	 * the length was compared, so a 4 GiB limit held 8.4 GB of
	 * /dev/zero before its refusal (docs/formats/prometheus.md). */
	size_t most = max_bytes < SIZE_MAX - 2 ? max_bytes + 1 : SIZE_MAX - 1;
	size_t cap = most + 1 < 8192 ? most + 1 : 8192, len = 0;
	char *buf = wc_alloc_array(cap, 1);
	int rc = WC_OK;
	while (buf) {
		if (len + 1 >= cap) {
			size_t ncap = wc_next_capacity(cap, cap + 1, 8192, most + 1);
			char *nb = ncap ? wc_resize_array(buf, ncap, 1) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		size_t room = cap - len - 1 < most - len ? cap - len - 1 : most - len;
		size_t got = fread(buf + len, 1, room, f);
		len += got;
		if (len > max_bytes) {
			rc = wc_error_set_path(err, WC_EINVAL, path, ": larger than the limit of %zu bytes", max_bytes);
			break;
		}
		if (got == 0) {
			if (ferror(f))
				rc = wc_error_set_path(err, WC_EIO, path, ": read error");
			break;
		}
	}
	fclose(f);
	if (!buf)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	if (rc) {
		free(buf);
		return rc;
	}
	/* A saved answer or scrape gzipped (curl --compressed -o, a
	 * rotated log) was named by its first bytes: `not JSON ... it begins
	 * ' ...'`, or an error page saved as a scrape at 1:1. */
	if (wc_text_is_gzip(buf, len)) {
		free(buf);
		return wc_error_set_path(err, WC_EPARSE, path, ":1:1: a gzip-compressed file (it starts 1f 8b), not "
		                         "text: decompress it first (gunzip -c FILE > NEW)");
	}
	if ((rc = wc_text_refuse_utf16(buf, len, path, err)) != WC_OK) {
		free(buf);
		return rc;
	}
	if ((rc = wc_text_refuse_second_bom(buf, len, path, err)) != WC_OK) {
		free(buf);
		return rc;
	}
	/* A UTF-8 byte order mark is not part of the text. */
	size_t bom = wc_text_bom_len(buf, len);
	if (bom) {
		memmove(buf, buf + bom, len - bom);
		len -= bom;
	}
	buf[len] = '\0';
	*out = buf;
	if (len_out)
		*len_out = len;
	return WC_OK;
}

int
wc_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

static int
fsync_parent(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int rc = wc_fsync_dir(dirname(copy));
	free(copy);
	return rc;
}

/* The one name of a temporary of `path`, `<path>.tmp.<pid>.XXXXXX` for
 * mkstemp: the pid lets the next writer tell a dead writer's leftover from
 * a live one's file in progress (temporary_owner reads it back;
 * docs/architecture.md, "Files"). 0, or -1 when `cap` is too small. */
static int
temporary_template(const char *path, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s.tmp.%ld.XXXXXX", path, (long)getpid());
	return n >= 0 && (size_t)n < cap ? 0 : -1;
}

int
wc_temporary_reserve(const char *path, char **out, wc_error *err)
{
	size_t cap = strlen(path) + 40;
	char *name = wc_alloc_array(cap, 1);
	*out = NULL;
	if (!name || temporary_template(path, name, cap) != 0) {
		free(name);
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	}
	int fd = mkstemp(name);
	if (fd < 0) {
		int e = errno;
		free(name);
		return wc_error_set_path(err, WC_EIO, path, ": cannot create temporary file (%s)", strerror(e));
	}
	close(fd);
	*out = name;
	return WC_OK;
}

/* The writer's pid in a temporary's name `<base>.tmp.<pid>.XXXXXX`
 * (docs/architecture.md, "Files"), or 0 when `name` is not one of the
 * temporaries of `base`. */
static long
temporary_owner(const char *name, const char *base, size_t blen)
{
	if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5) != 0)
		return 0;
	const char *p = name + blen + 5, *q = p;
	long pid = 0;
	while (*q >= '0' && *q <= '9' && q - p < 10)
		pid = pid * 10 + (*q++ - '0');
	if (q == p || *q != '.' || strlen(q + 1) != 6)
		return 0;
	return pid;
}

/* The writer's pid of a temporary `<base>.tmp.<pid>.XXXXXX` of any
 * non-empty base, or 0: the base is what precedes the pid, and the one
 * test is temporary_owner's. */
static long
any_temporary_owner(const char *name)
{
	size_t n = strlen(name);
	if (n < 14) /* one byte of base, ".tmp.", a digit, '.', six */
		return 0;
	const char *p = name + n - 7;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p - name >= 6 ? temporary_owner(name, name, (size_t)(p - name) - 5) : 0;
}

/* Remove from folder `dir` the temporaries of target name `base` (NULL:
 * of every target) left by writers that died (kill -9, power loss) before
 * their rename: those whose pid is no longer alive (docs/architecture.md,
 * "Files"). Best effort; a live writer's temporary is never touched. 1
 * when the folder was listed. */
static int
sweep_temporaries(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return 0;
	size_t blen = base ? strlen(base) : 0;
	while ((e = readdir(d)) != NULL) {
		long pid = base ? temporary_owner(e->d_name, base, blen) : any_temporary_owner(e->d_name);
		if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	return 1;
}

/* The dead writers' temporaries of `path`, in its folder. */
static void
remove_stale_temporaries(const char *path)
{
	char *copy_dir = strdup(path), *copy_base = strdup(path);
	if (copy_dir && copy_base)
		(void)sweep_temporaries(dirname(copy_dir), basename(copy_base));
	free(copy_dir);
	free(copy_base);
}

void
wc_write_batch_begin(wc_write_batch *batch, const char *dir)
{
	struct stat st;
	batch->swept = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && sweep_temporaries(dir, NULL);
	batch->dev = batch->swept ? (unsigned long long)st.st_dev : 0;
	batch->ino = batch->swept ? (unsigned long long)st.st_ino : 0;
}

/* Was the folder of `path` swept by `batch`: the same folder by device
 * and inode, not by spelling ("a/./b"), and not one put in its place
 * since. */
static int
swept_by(const wc_write_batch *batch, const char *path)
{
	struct stat st;
	char *copy = batch && batch->swept ? strdup(path) : NULL;
	int yes = copy && stat(dirname(copy), &st) == 0 && (unsigned long long)st.st_dev == batch->dev &&
	          (unsigned long long)st.st_ino == batch->ino;
	free(copy);
	return yes;
}

/* Write all of `data` to `fd`. */
static int
write_all(int fd, const char *path, const void *data, size_t len, wc_error *err)
{
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return wc_error_set_path(err, WC_EIO, path, ": write failed (%s)", strerror(errno));
		p += w;
		left -= (size_t)w;
	}
	return WC_OK;
}

/* An output that is not a regular file -- /dev/null, /dev/stdout, a FIFO,
 * a terminal -- is written in place: a rename would replace the device
 * or pipe itself with a regular file (docs/cli.md, "Conventions"). */
static int
write_in_place(const char *path, const void *data, size_t len, wc_error *err)
{
	int fd = open(path, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		return wc_error_set_path(err, WC_EIO, path, ": cannot open (%s)", strerror(errno));
	int rc = write_all(fd, path, data, len, err);
	if (close(fd) != 0 && rc == WC_OK)
		rc = wc_error_set_path(err, WC_EIO, path, ": close failed (%s)", strerror(errno));
	return rc;
}

static int write_regular(const wc_write_batch *batch, const char *path, const void *data, size_t len,
                         wc_error *err);

int
wc_write_file_atomic(const char *path, const void *data, size_t len, wc_error *err)
{
	return wc_write_batch_file(NULL, path, data, len, err);
}

int
wc_write_batch_file(const wc_write_batch *batch, const char *path, const void *data, size_t len, wc_error *err)
{
	struct stat st, lst;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return wc_error_set_path(err, WC_EINVAL, path, ": is a folder, not a file");
		if (!S_ISREG(st.st_mode))
			return write_in_place(path, data, len, err);
		char read_as[200];
		int same = 0;
		if (was_read(&st, path, read_as, sizeof read_as, &same)) {
			/* Named as it was read: the path once. Else the input's
			 * path by the one rule in a part of the room, so neither
			 * path nor the reason is cut (docs/architecture.md, "Errors"). */
			if (same)
				return wc_error_set_path(err, WC_EINVAL, path, ": is a file this command read; writing it "
				                         "would destroy that input (give another output file)");
			char quoted[96];
			wc_error_format_path(quoted, sizeof quoted, read_as, "%s", "");
			return wc_error_set_path(err, WC_EINVAL, path, ": is the file '%s' this command read; writing it would "
			                         "destroy that input (give another output file)", quoted);
		}
		/* A link to a regular file: replace the file it names, not the
		 * link (the rename is atomic in the target's folder). */
		char *real = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL) : NULL;
		if (real) {
			int rc = write_regular(batch, real, data, len, err);
			free(real);
			return rc;
		}
	}
	return write_regular(batch, path, data, len, err);
}

static int
write_regular(const wc_write_batch *batch, const char *path, const void *data, size_t len, wc_error *err)
{
	size_t plen = strlen(path);
	char *tmp = wc_alloc_array(plen + 40, 1);
	if (!tmp)
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	/* A batch swept this folder once for all its files: listing it
	 * again for each of them was quadratic (ingest's series folder). */
	if (!swept_by(batch, path))
		remove_stale_temporaries(path);
	(void)temporary_template(path, tmp, plen + 40);
	/* Ctrl-C (or a TERM or HUP) waits until the file is whole or rolled
	 * back: a user stopping a long command never leaves a temporary. */
	sigset_t stop, old_mask;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old_mask);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		return wc_error_set_path(err, WC_EIO, path, ": cannot create temporary file (%s)", strerror(e));
	}
	int rc = write_all(fd, path, data, len, err);
	/* Files are meant to be read by others (the server, a user): 0644
	 * instead of mkstemp's 0600. */
	if (rc == WC_OK && fchmod(fd, 0644) != 0)
		rc = wc_error_set_path(err, WC_EIO, path, ": chmod failed (%s)", strerror(errno));
	if (rc == WC_OK && fsync(fd) != 0)
		rc = wc_error_set_path(err, WC_EIO, path, ": fsync failed (%s)", strerror(errno));
	if (close(fd) != 0 && rc == WC_OK)
		rc = wc_error_set_path(err, WC_EIO, path, ": close failed (%s)", strerror(errno));
	if (rc == WC_OK && rename(tmp, path) != 0)
		rc = wc_error_set_path(err, WC_EIO, path, ": rename failed (%s)", strerror(errno));
	if (rc != WC_OK)
		unlink(tmp);
	else
		(void)fsync_parent(path); /* best effort: some filesystems refuse */
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	free(tmp);
	return rc;
}

void
wc_utc_now(char out[24])
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
