/*
 * The telemetry line reader reads a large regular file ahead on a thread of
 * its own, block by block, and parses each line where it lies
 * (data/line_reader.c); stdin and small files are read the plain way. Both
 * must give the same rows: `wattcast metrics FILE` against the same bytes
 * through stdin, on a 5 MB 8-GPU log with a byte order mark, CRLF line
 * ends, lines longer than the limit scattered over the block boundaries,
 * and a last line cut short without a newline.
 */
#include "data/data.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The log as text (caller frees). */
static char *
make_log(size_t *len_out, int *lines_out)
{
	int lines = 0;
	size_t cap = 6u << 20, len = 0;
	char *buf = malloc(cap + 8192);
	len += (size_t)sprintf(buf + len, "\xEF\xBB\xBFtimestamp, index, uuid, power.draw [W], "
	                       "utilization.gpu [%%]\r\n");
	char longline[5001];
	memset(longline, 'x', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	for (int sweep = 0; len < (5u << 20); sweep++) {
		for (int g = 0; g < 8; g++) {
			int line = sweep * 8 + g;
			if (line % 1499 == 700) { /* too long: a bad line holding its GPU's place */
				len += (size_t)sprintf(buf + len, "%s\r\n", longline);
				lines++;
				continue;
			}
			double w = 80.0 + 300.0 * (sweep % 120 < 70) + 7.0 * sin(0.37 * line) + g;
			len += (size_t)sprintf(buf + len,
			                       "2026/07/18 %02d:%02d:%02d.%d00, %d, GPU-%08d-aaaa-bbbb-cccc, "
			                       "%.2f W, %d %%\r\n",
			                       10 + sweep / 36000, sweep / 600 % 60, sweep / 10 % 60, sweep % 10,
			                       g, g, w, line % 100);
			lines++;
		}
	}
	len += (size_t)sprintf(buf + len, "2026/07/18 23:59:59.000, 0, GPU-000"); /* cut short */
	*lines_out = lines + 1;
	*len_out = len;
	return buf;
}

/* `text` with every `from` replaced by `to` (caller frees). */
static char *
replace_all(const char *text, const char *from, const char *to)
{
	size_t n = strlen(from), cap = strlen(text) + 1, len = 0;
	char *out = malloc(cap);
	for (const char *p = text; *p;) {
		if (strncmp(p, from, n) == 0) {
			memcpy(out + len, to, strlen(to)); /* `to` is not longer than `from` */
			len += strlen(to);
			p += n;
		} else {
			out[len++] = *p++;
		}
	}
	out[len] = '\0';
	return out;
}

int
main(void)
{
	char *dir = test_tmpdir("read_ahead");
	char *path = path_join(dir, "power.csv");
	size_t len;
	int lines;
	char *log = make_log(&len, &lines);
	CHECK(write_text(path, log) == 0);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (size_t)st.st_size == len);
	CHECK(len >= (4u << 20)); /* large enough to be read ahead */

	run_result rf, rs;
	const char *by_file[] = { "wattcast", "metrics", path, "--json", NULL };
	const char *by_stdin[] = { "wattcast", "metrics", "-", "--json", NULL };
	CHECK(run_wattcast(by_file, NULL, &rf) == 0);
	CHECK(run_wattcast(by_stdin, log, &rs) == 0);
	CHECK_INT(rf.status, 0);
	CHECK_INT(rs.status, 0);
	json_t *of = json_loads(rf.out, 0, NULL), *os = json_loads(rs.out, 0, NULL);
	CHECK(of && os);
	if (of && os) {
		/* the long lines were seen as such, and the rest was read */
		CHECK(json_integer_value(json_object_get(of, "bad_lines")) > 30);
		CHECK(json_integer_value(json_object_get(of, "samples")) > 5000);
		CHECK_INT(json_integer_value(json_object_get(of, "gpus")), 8);
		/* every data line counted, the cut last one included */
		CHECK_INT(json_integer_value(json_object_get(of, "data_lines")), lines);
		json_object_del(of, "file");
		json_object_del(os, "file");
		CHECK(json_equal(of, os));
	}
	json_decref(of);
	json_decref(os);
	/* The same warnings, line numbers included (the path aside). */
	char *named = replace_all(rf.err, path, "-");
	CHECK(strcmp(named, rs.err) == 0);
	CHECK_CONTAINS(rs.err, "-:702:4097: line longer than 4096 bytes");
	free(named);
	run_result_free(&rf);
	run_result_free(&rs);
	free(log);
	free(path);
	free(dir);
	return check_report("test_read_ahead");
}
