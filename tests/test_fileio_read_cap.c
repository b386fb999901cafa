/*
 * wc_read_file's limit (data/fileio.h): an input larger than max_bytes is
 * refused having read max_bytes + 1 bytes of it, no more. The buffer
 * doubled and was read full before the length was compared, so
 * `ingest --scrapes /dev/zero` held 8.4 GB under the 4 GiB limit
 * (WC_PROM_TEXT_MAX_BYTES) before its refusal, and a file just over it
 * was killed for memory on a host of 8 GB (docs/formats/prometheus.md).
 * Read here from a pipe whose writer counts what it could write: the
 * pipe's buffer (64 KiB by default, at most 1 MiB) past the limit at
 * most, where the doubling read a whole limit more.
 */
#include "data/fileio.h"
#include "tests/support/support.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LIMIT ((size_t)8 << 20)

typedef struct {
	int fd;
	size_t written;
} writer;

/* Zeros into the pipe until its reader is gone (EPIPE). */
static void *
write_zeros(void *arg)
{
	writer *w = arg;
	static char block[65536];
	for (;;) {
		ssize_t n = write(w->fd, block, sizeof block);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		w->written += (size_t)n;
	}
	close(w->fd);
	return NULL;
}

/* A file of `size` bytes is read whole at the limit, refused one past it. */
static void
check_sizes(const char *dir)
{
	for (size_t extra = 0; extra < 2; extra++) {
		char *text = malloc(LIMIT + extra + 1);
		memset(text, 'a', LIMIT + extra);
		text[LIMIT + extra] = '\0';
		char *path = test_fixture(dir, "sized.txt", text);
		char *buf = NULL;
		size_t len = 0;
		wc_error err;
		int rc = wc_read_file(path, LIMIT, &buf, &len, &err);
		if (extra == 0) {
			CHECK_INT(rc, WC_OK);
			CHECK(len == LIMIT && buf && buf[LIMIT] == '\0' && buf[LIMIT - 1] == 'a');
		} else {
			CHECK_INT(rc, WC_EINVAL);
			CHECK_CONTAINS(err.msg, "larger than the limit of 8388608 bytes");
		}
		free(buf);
		free(path);
		free(text);
	}
}

int
main(void)
{
	char *dir = test_tmpdir("fileio_read_cap");
	signal(SIGPIPE, SIG_IGN);
	int p[2];
	CHECK(pipe(p) == 0);
	writer w = { p[1], 0 };
	pthread_t th;
	CHECK(pthread_create(&th, NULL, write_zeros, &w) == 0);
	char path[32], *buf = NULL;
	snprintf(path, sizeof path, "/dev/fd/%d", p[0]);
	wc_error err;
	int rc = wc_read_file(path, LIMIT, &buf, NULL, &err);
	close(p[0]); /* the writer's next write fails: EPIPE */
	pthread_join(th, NULL);
	CHECK_INT(rc, WC_EINVAL);
	CHECK_CONTAINS(err.msg, "larger than the limit of 8388608 bytes");
	fprintf(stderr, "limit %zu bytes: %zu written into the pipe before the refusal\n", LIMIT, w.written);
	CHECK(w.written <= LIMIT + 1 + ((size_t)1 << 20));
	free(buf);
	check_sizes(dir);
	free(dir);
	return check_report("test_fileio_read_cap");
}
