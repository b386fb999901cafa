/*
 * Line reader and helpers shared by the telemetry readers: one fixed
 * block buffer per file, so reading a file of any size needs the same
 * memory, and a bounded line length (a longer line is malformed, not a
 * reason to grow a buffer). A large regular file is read ahead by a
 * thread into a ring of AHEAD_BUFS blocks, each with room before it for
 * the unfinished line of the block before, so lines are parsed in place
 * while the next block is read (docs/results.md, telemetry reading).
 */
#include "telemetry_internal.h"
#include "data/fileio.h"
#include "models/grow.h"
#include "models/progress.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define LR_CAP(r) ((r)->block + WC_TELEMETRY_LINE_MAX + 2)

/* ----------------------------------------------------------- read-ahead */

#define AHEAD_BUFS 3
/* Room before each block for the unfinished line of the one before (at
 * most WC_TELEMETRY_LINE_MAX bytes: a longer one is skipped, not kept). */
#define AHEAD_HEAD ((size_t)WC_TELEMETRY_LINE_MAX + 2)

struct wc__lr_ahead {
	int fd;
	char *mem[AHEAD_BUFS];   /* AHEAD_HEAD + WC__LR_BLOCK + 1 bytes each */
	size_t got[AHEAD_BUFS];  /* bytes read into the block */
	int last[AHEAD_BUFS];    /* the file ends with this block */
	int failed[AHEAD_BUFS];  /* ... because of a read error */
	int filled, held;        /* blocks read and waiting; 1 once one is parsed */
	int next_fill, next_take, stop;
	size_t offset;           /* file offset of the next block to parse */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
};

/* The read-ahead thread: fill free blocks in ring order until the end. */
static void *
ahead_main(void *payload)
{
	wc__lr_ahead *a = payload;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->stop && a->filled + a->held == AHEAD_BUFS)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop)
			break;
		int k = a->next_fill;
		pthread_mutex_unlock(&a->mu);
		char *dst = a->mem[k] + AHEAD_HEAD;
		size_t got = 0;
		int failed = 0;
		while (got < WC__LR_BLOCK) {
			ssize_t n = read(a->fd, dst + got, WC__LR_BLOCK - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				failed = n < 0;
				break;
			}
			got += (size_t)n;
		}
		pthread_mutex_lock(&a->mu);
		a->got[k] = got;
		a->failed[k] = failed;
		a->last[k] = got < WC__LR_BLOCK;
		a->next_fill = (k + 1) % AHEAD_BUFS;
		a->filled++;
		pthread_cond_broadcast(&a->cv);
		if (a->last[k])
			break;
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

static void
ahead_stop(wc__lr_ahead *a)
{
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	for (int k = 0; k < AHEAD_BUFS; k++)
		free(a->mem[k]);
	free(a);
}

/* A read-ahead thread for `fd`; NULL when memory or a thread cannot be
 * had (the file is then read here). */
static wc__lr_ahead *
ahead_start(int fd)
{
	wc__lr_ahead *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->fd = fd;
	for (int k = 0; k < AHEAD_BUFS; k++)
		if (!(a->mem[k] = wc_alloc_array(AHEAD_HEAD + WC__LR_BLOCK + 1, 1))) {
			for (int j = 0; j < k; j++)
				free(a->mem[j]);
			free(a);
			return NULL;
		}
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		for (int k = 0; k < AHEAD_BUFS; k++)
			free(a->mem[k]);
		free(a);
		return NULL;
	}
	return a;
}

/* Next block from the read-ahead thread, the unread tail of the current
 * one copied in front of it; the current one goes back to the thread. */
static void
ahead_refill(wc__line_reader *r)
{
	wc__lr_ahead *a = r->ahead;
	size_t have = r->end - r->start;
	pthread_mutex_lock(&a->mu);
	while (a->filled == 0)
		pthread_cond_wait(&a->cv, &a->mu);
	int k = a->next_take;
	pthread_mutex_unlock(&a->mu);
	char *head = a->mem[k] + AHEAD_HEAD;
	if (have > 0)
		memcpy(head - have, r->buf + r->start, have);
	pthread_mutex_lock(&a->mu);
	a->filled--;
	a->held = 1; /* the block before is free again, this one is held */
	a->next_take = (k + 1) % AHEAD_BUFS;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	size_t got = a->got[k];
	wc_progress_add((double)got / 1048576.0);
	r->buf = a->mem[k];
	r->start = AHEAD_HEAD - have;
	r->end = AHEAD_HEAD + got;
	/* file offset of buf[0] (wraps below zero for the first block: the
	 * sum with start is still right) */
	r->base = a->offset - AHEAD_HEAD;
	a->offset += got;
	if (a->last[k]) {
		r->eof = 1;
		r->error = a->failed[k];
	}
}

static void refill(wc__line_reader *r);

int
wc__lr_open(wc__line_reader *r, const char *path, const wc_telemetry_options *opt, wc_error *err)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->opt = opt;
	if (strcmp(path, "-") == 0) {
		r->f = stdin;
	} else {
		if (!(r->f = wc_open_input(path, err)))
			return WC_EIO;
		r->own = 1;
	}
	/* A regular file smaller than a block is read in one refill of its
	 * size (+1 to see its end); a file that grows meanwhile is still read
	 * whole, block by block. */
	struct stat st;
	r->block = WC__LR_BLOCK;
	int regular = fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0;
	if (regular && (uintmax_t)st.st_size < WC__LR_BLOCK)
		r->block = (size_t)st.st_size + 1;
	if (regular && r->own && (uintmax_t)st.st_size >= WC__LR_AHEAD_MIN &&
	    (r->ahead = ahead_start(fileno(r->f))) != NULL) {
		ahead_refill(r); /* r->buf is the read-ahead block being parsed */
	} else if (!(r->buf = wc_alloc_array(LR_CAP(r), 1))) {
		wc__lr_close(r);
		return wc_error_set_path(err, WC_ENOMEM, path, ": out of memory");
	} else {
		refill(r); /* the first block, to see how the text is encoded */
	}
	/* A UTF-16 log (PowerShell's `>`) is refused as such, not as a
	 * control byte in its first line (docs/formats/telemetry.md, "Bad lines"). */
	int rc = wc_text_refuse_utf16(r->buf + r->start, r->end - r->start, path, err);
	/* A second byte-order mark (past blanks and line ends alone) is no
	 * text either: refused where it is, as every file read whole refuses
	 * it, by the one test (docs/formats/telemetry.md, "Bad lines"); the
	 * first block holds it. */
	if (rc == WC_OK)
		rc = wc_text_refuse_second_bom(r->buf + r->start, r->end - r->start, path, err);
	if (rc != WC_OK)
		wc__lr_close(r);
	return rc;
}

void
wc__lr_close(wc__line_reader *r)
{
	if (r->ahead) {
		ahead_stop(r->ahead); /* frees the blocks, r->buf among them */
		r->ahead = NULL;
	} else {
		free(r->buf);
	}
	if (r->f && r->own)
		fclose(r->f);
	r->f = NULL;
	r->buf = NULL;
}

/* Move the unread tail to the front and read more after it. */
static void
refill(wc__line_reader *r)
{
	if (r->ahead) {
		ahead_refill(r);
		return;
	}
	size_t have = r->end - r->start;
	r->base += r->start;
	if (r->start > 0 && have > 0)
		memmove(r->buf, r->buf + r->start, have);
	r->start = 0;
	r->end = have;
	size_t room = LR_CAP(r) - 1 - r->end;
	if (room > r->block)
		room = r->block;
	size_t got = fread(r->buf + r->end, 1, room, r->f);
	wc_progress_add((double)got / 1048576.0); /* MB read, for a long ingest */
	r->end += got;
	if (got < room) {
		if (ferror(r->f))
			r->error = 1;
		r->eof = 1;
	}
}

/* A UTF-8 byte order mark at the start of the file is not part of its
 * first line (editors on Windows write one). One at the start of a later
 * line is a file joined after its own mark (`cat a.csv b.csv` of logs a
 * Windows tool saved): not part of that line either, so it is skipped and
 * the line read as any other, but said, where it is, rather than quoted
 * as an invisible character in a value called unreadable
 * (docs/formats/telemetry.md, "Bad lines"). */
static void
skip_bom(wc__line_reader *r, char **line, size_t *len)
{
	size_t bom = wc_text_bom_len(*line, *len);
	if (bom && r->line_no > 1 && r->bom_lines++ == 0) {
		r->bom_first = r->line_no;
		wc__warn(r->opt, r->path, ":%zu:1: " WC__LINE_BOM " skipped, the line read", r->line_no);
	}
	*line += bom;
	*len -= bom;
}

/* The count of such lines, once the file is read (the first was said). */
static void
bom_lines_said(const wc__line_reader *r)
{
	if (r->bom_lines > 1)
		wc__warn(r->opt, r->path, ": %zu lines began with a byte-order mark (U+FEFF), the first at line %zu: "
		         "each mark skipped, its line read", r->bom_lines, r->bom_first);
}

int
wc__lr_next(wc__line_reader *r, char **line, size_t *len, int *too_long)
{
	int skipping = 0;
	*too_long = 0;
	r->unfinished = 0;
	for (;;) {
		char *s = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = avail ? memchr(s, '\n', avail) : NULL;
		if (nl) {
			size_t n = (size_t)(nl - s);
			r->start += n + 1;
			r->line_no++;
			if (skipping) {
				*too_long = 1;
				*line = r->buf + r->start - 1;
				**line = '\0';
				*len = 0;
				return 1;
			}
			if (n > 0 && s[n - 1] == '\r')
				n--;
			s[n] = '\0';
			*line = s;
			*len = n;
			skip_bom(r, line, len);
			if (n > WC_TELEMETRY_LINE_MAX) {
				*too_long = 1;
				s[0] = '\0';
				*len = 0;
			}
			return 1;
		}
		if (r->eof) {
			if (r->error)
				return -1;
			if (avail == 0 && !skipping) {
				bom_lines_said(r);
				return 0;
			}
			/* Last line without a newline: buf always has a spare byte. */
			r->start = r->end;
			r->line_no++;
			r->unfinished = 1;
			if (skipping || avail > WC_TELEMETRY_LINE_MAX) {
				*too_long = 1;
				avail = 0;
			}
			if (avail > 0 && s[avail - 1] == '\r')
				avail--;
			s[avail] = '\0';
			*line = s;
			*len = avail;
			skip_bom(r, line, len);
			return 1;
		}
		if (avail > WC_TELEMETRY_LINE_MAX) {
			/* Drop what we have of the long line and keep reading
			 * until its end. */
			skipping = 1;
			r->start = r->end;
		}
		refill(r);
	}
}

void
wc__warn(const wc_telemetry_options *opt, const char *path, const char *fmt, ...)
{
	char msg[WC_ERROR_MSG_MAX];
	va_list ap;
	if (!opt || !opt->warn)
		return;
	va_start(ap, fmt);
	wc_error_vformat_path(msg, sizeof msg, path, fmt, ap);
	va_end(ap);
	opt->warn(msg, opt->warn_payload);
}

/* What to do about a header too long or too wide, one wording. */
#define HEADER_WAY_OUT "drop the columns wattcast does not read"

int
wc__lr_header_too_long(const wc__line_reader *lr, const char *path, wc_error *err)
{
	/* The limit and the way out, not a bare "too long": an exporter's
	 * every series as a column passes it (docs/formats/telemetry.md,
	 * "Bad lines"). */
	return wc_error_set_path(err, WC_EPARSE, path, ":%zu:%d: header line longer than %d bytes: " HEADER_WAY_OUT "%s",
	                         lr->line_no, WC__LINE_MAX_COLUMN, WC_TELEMETRY_LINE_MAX,
	                         lr->long_header_hint ? lr->long_header_hint : "");
}

int
wc__header_too_wide(const char *path, size_t line_no, int column, int limit, const char *hint, wc_error *err)
{
	/* The same way out as a header too long: a bare "too many fields"
	 * said neither the limit nor what to do (docs/formats/telemetry.md,
	 * "Bad lines"). */
	return wc_error_set_path(err, WC_EPARSE, path, ":%zu:%d: header of more than %d columns: " HEADER_WAY_OUT "%s",
	                         line_no, column, limit, hint ? hint : "");
}

int
wc__lr_next_record(wc__line_reader *lr, wc__bad_lines *bad, int header_seen, size_t *data_lines,
                   wc__csv_field *fields, int cap, const char **reason, wc_error *err)
{
	char *line;
	size_t len;
	int got, too_long;
	while ((got = wc__lr_next(lr, &line, &len, &too_long)) == 1) {
		if (too_long) {
			if (!header_seen)
				return wc__lr_header_too_long(lr, bad->path, err);
			(*data_lines)++;
			wc__bad_cell(bad, lr->line_no, WC__LINE_MAX_COLUMN, "line longer than %d bytes",
			             WC_TELEMETRY_LINE_MAX);
			continue;
		}
		size_t tl = len;
		char *tr = wc__trim(line, &tl);
		if (tl == 0 || tr[0] == '#')
			continue;
		char why[160];
		int col = header_seen ? 0 : wc__csv_not_text(line, len, why, sizeof why);
		if (col > 0)
			return wc_error_set_path(err, WC_EPARSE, bad->path, ":%zu:%d: %s", lr->line_no, col, why);
		int nf = wc__csv_split_to(line, fields, cap, reason, &lr->stop);
		if (nf < 0 && !header_seen && *reason == wc__csv_too_many_fields)
			return wc__header_too_wide(bad->path, lr->line_no, lr->stop, cap, lr->long_header_hint, err);
		/* at the field the split stopped in, as a data line's */
		if (nf < 0 && !header_seen)
			return wc_error_set_path(err, WC_EPARSE, bad->path, ":%zu:%d: header: %s", lr->line_no, lr->stop,
			                         *reason);
		return nf < 0 ? WC__CSV_BAD : nf;
	}
	if (got < 0)
		return wc_error_set_path(err, WC_EIO, bad->path, ": read error");
	if (!header_seen)
		return wc_error_set_path(err, WC_EPARSE, bad->path, ": empty file (no header)");
	return 0;
}

/* The one rule for a cell that holds no value, in every telemetry CSV
 * whose blank means unknown (engine.csv, requests.csv, power.csv): a NaN
 * is what Python's csv writer, pandas and Prometheus write there, so it
 * reads as a blank cell does; what a missing cell then means is each
 * file's rule (docs/formats/telemetry.md, "Missing cells"). */
int
wc__is_missing(const char *s, size_t len)
{
	if (len == 0 || s[0] == '[')
		return 1; /* [N/A], [Not Supported], [Unknown Error], ... */
	return (len == 3 && strncasecmp(s, "N/A", 3) == 0) || wc__is_nan_text(s, len);
}

int
wc__is_nan_text(const char *s, size_t len)
{
	if (len > 0 && (s[0] == '+' || s[0] == '-')) {
		s++;
		len--;
	}
	return len == 3 && strncasecmp(s, "nan", 3) == 0;
}

static const double pow10_tab[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
                                     1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
                                     1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

int
wc__parse_number(const char *s, size_t len, double *out)
{
	size_t end = len;
	/* Allow a unit word after blanks: "250.31 W", "1410 MHz". */
	for (size_t k = 0; k < len; k++)
		if (s[k] == ' ' || s[k] == '\t') {
			end = k;
			for (size_t j = k; j < len; j++)
				if (!(isalpha((unsigned char)s[j]) || s[j] == '%' || s[j] == ' ' || s[j] == '\t'))
					return -1;
			break;
		}
	if (end == 0)
		return -1;
	/* Fast path: [-]digits[.digits] with at most 15 digits: an exact
	 * integer divided by an exact power of ten is correctly rounded, as
	 * strtod would be, so which path a number takes never changes its
	 * value. Integer part and fraction in two tight loops (this is a
	 * third of an nvidia-smi line's parsing; docs/results.md). */
	const char *p = s, *stop = s + end;
	int neg = p < stop && *p == '-';
	p += neg;
	const char *int_start = p;
	uint64_t mant = 0;
	while (p < stop && (unsigned)(*p - '0') < 10u)
		mant = mant * 10 + (uint64_t)(*p++ - '0');
	size_t int_digits = (size_t)(p - int_start), frac = 0;
	if (p < stop && *p == '.') {
		const char *frac_start = ++p;
		while (p < stop && (unsigned)(*p - '0') < 10u)
			mant = mant * 10 + (uint64_t)(*p++ - '0');
		frac = (size_t)(p - frac_start);
	}
	if (p == stop && int_digits + frac > 0 && int_digits + frac <= 15) {
		double v = (double)mant / pow10_tab[frac];
		*out = neg ? -v : v;
		return 0;
	}
	/* General case (exponents, long mantissas). A NUL byte would cut the
	 * number short for strtod; the fast path above never accepts one (not
	 * a digit), nor does the unit word (not a letter), so it is looked for
	 * only here, off the common path. */
	char tmp[64];
	if (end >= sizeof tmp || memchr(s, '\0', end))
		return -1;
	memcpy(tmp, s, end);
	tmp[end] = '\0';
	return wc_parse_decimal(tmp, out);
}
