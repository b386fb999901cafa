/*
 * The --max-bad refusal ends with its first bad line: "; the first: line
 * L:C: reason". It said "; the first: FILE:L:C: reason", the file again,
 * as the tail of the text the path rule keeps whole: with a long reason
 * the path gave way for nothing ("gap/power.csv" printed ".../power.csv"),
 * and under a deep folder the tail lost its line:column ("; the first:
 * f..."). The location is now part of the kept text and the reason fills
 * the room after it (docs/formats/telemetry.md, the --max-bad refusal;
 * docs/architecture.md, "Errors").
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* 200 samples of one GPU 0.1 s apart, the fifth reading (line 6) a long
 * unreadable word. */
static void
write_power(const char *path)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		exit(1);
	fprintf(f, "timestamp, index, power.draw [W]\n");
	for (int i = 0; i < 200; i++) {
		time_t sec = (time_t)1700000000 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		if (i == 4)
			fprintf(f, "%s.%03d, 0, %0150d\n", ts, 100 * (i % 10), 0);
		else
			fprintf(f, "%s.%03d, 0, %.2f W\n", ts, 100 * (i % 10), 100.0);
	}
	fclose(f);
}

/* metrics FILE --max-bad 0: the refusal, within 255 bytes, starts with
 * `head` and holds the file name, the first line's location and the
 * reason's start. */
static void
refused(const char *file, const char *head)
{
	run_result r;
	const char *argv[] = { "wattcast", "metrics", file, "--max-bad", "0", NULL };
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	const char *l = r.err ? strstr(r.err, "wattcast metrics: ") : NULL;
	while (l && strncmp(l + strlen("wattcast metrics: "), "warning: ", 9) == 0)
		l = strstr(l + 1, "wattcast metrics: "); /* the refusal, after the warning */
	CHECK(l != NULL);
	if (l) {
		const char *msg = l + strlen("wattcast metrics: ");
		size_t n = strcspn(msg, "\n");
		char one[2048];
		snprintf(one, sizeof one, "%.*s", (int)n, msg);
		int ok = n <= 255 && strncmp(one, head, strlen(head)) == 0 &&
		         strstr(one, "; the first: line 6:29: unreadable power.draw '000") != NULL &&
		         strstr(one, strrchr(file, '/')) != NULL;
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "%zu bytes: %s\n  want the head: %s\n", n, one, head);
	}
	run_result_free(&r);
}

static void
deep_under(const char *dir, const char *seg)
{
	char deep[1024];
	snprintf(deep, sizeof deep, "%s", dir);
	for (int k = 0; strlen(deep) < 300; k++) {
		size_t len = strlen(deep);
		snprintf(deep + len, sizeof deep - len, "/%s%d", seg, k);
		CHECK(mkdir(deep, 0755) == 0);
	}
	char *power = path_join(deep, "power_of_the_first_campaign_run_named_at_length.csv");
	write_power(power);
	refused(power, "");
	free(power);
}

int
main(void)
{
	char *dir = test_tmpdir("cli_max_bad_first_line");
	/* a short relative path that fits is never shortened */
	CHECK(chdir(dir) == 0);
	CHECK(mkdir("gap", 0755) == 0);
	write_power("gap/power.csv");
	refused("gap/power.csv", "gap/power.csv: fix the bad lines");

	char *a = path_join(dir, "a"), *c = path_join(dir, "c");
	CHECK(mkdir(a, 0755) == 0 && mkdir(c, 0755) == 0);
	deep_under(a, "folder_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	deep_under(c, "\xe6\xa8\xa1\xe5\x9e\x8b\xe5\x8a\x9f\xe7\x8e\x87\xe6\xb5\x8b\xe9\x87\x8f"
	              "\xe6\xa8\xa1\xe5\x9e\x8b\xe5\x8a\x9f\xe7\x8e\x87\xe6\xb5\x8b\xe9\x87\x8f"); /* 模型功率测量 twice */
	free(a);
	free(c);
	free(dir);
	return check_report("test_cli_max_bad_first_line");
}
