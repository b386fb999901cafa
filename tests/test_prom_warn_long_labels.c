/*
 * Fleet warnings at their longest realistic inputs (docs/fleet.md,
 * "Problems in the data"): an engine's series with Kubernetes' labels
 * (namespace, pod, container, job) and a long model name is over 300
 * bytes, and wc__fleet_warn formatted into 512 bytes, so "<series>: no
 * sample yet at ..." reached the warn function at 390 bytes and more, past
 * the 255 every message holds. Every warning must now be at most 255
 * bytes, its series shortened with "..." (never inside a UTF-8
 * character) so that its end -- what is left out, the seconds and the
 * group -- arrives whole.
 */
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1767225600L
#define SECONDS 301
#define UP 150 /* engine 1's first second */

/* 2 bytes each: a cut inside one would leave half a character */
#define NS "inférence-prödüction-eu-west-1-tenant-äcme-corporation-llm-serving"
#define POD "vllm-qwen3-235b-a22b-instruct-2507-fp8-deployment-7f9c8d6b5-x2k4p"
#define LABELS                                                                                                 \
	"model_name=\"Qwen/Qwen3-235B-A22B-Instruct-2507-FP8-dynamic-long-context\",namespace=\"" NS           \
	"\",pod=\"" POD "\",container=\"vllm-openai-server-main-container\",job=\"kubernetes-pods/" NS "\""

static char *
scrapes(void)
{
	size_t cap = 1 << 21, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < SECONDS; s++) {
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld a:8000\n", T0 + s);
		for (int e = 0; e < 2; e++) {
			int from = e == 1 ? UP : 0;
			if (s < from)
				continue;
			len += (size_t)snprintf(buf + len, cap - len,
			                        "vllm:num_requests_running{" LABELS ",engine=\"%d\"} 5\n"
			                        "vllm:generation_tokens_total{" LABELS ",engine=\"%d\"} %d\n", e, e,
			                        100 * (s - from));
		}
		len += (size_t)snprintf(buf + len, cap - len, "# wattcast-scrape %ld dcgm:9400\n", T0 + s);
		for (int gpu = 0; gpu < 2; gpu++)
			len += (size_t)snprintf(buf + len, cap - len, "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\","
			                        "Hostname=\"a\",modelName=\"NVIDIA H100 80GB HBM3\",namespace=\"" NS "\",pod=\"" POD "\"} %d\n", gpu, gpu,
			                        gpu == 1 && s < UP ? 100 : 300);
	}
	return buf;
}

/* Does line[0..n) end inside a UTF-8 character? */
static int
ends_cut(const char *line, size_t n)
{
	size_t i = n, k = 0;
	while (i > 0 && ((unsigned char)line[i - 1] & 0xc0) == 0x80 && k < 4) {
		i--;
		k++;
	}
	if (i == 0)
		return 0;
	unsigned char lead = (unsigned char)line[i - 1];
	size_t want = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
	return want != k;
}

int
main(void)
{
	char *dir = test_tmpdir("prom_warn_long_labels");
	char *in = path_join(dir, "k8s.prom"), *out = path_join(dir, "out.csv"), *buf = scrapes();
	CHECK(write_text(in, buf) == 0);
	free(buf);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", "15", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	const char *e = r.err ? r.err : "";
	fprintf(stderr, "%s", e);
	static const char prefix[] = "wattcast ingest: ";
	int lines = 0, yet = 0, first = 0;
	for (const char *p = e; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *m = p;
		if (n >= sizeof prefix - 1 && strncmp(p, prefix, sizeof prefix - 1) == 0) {
			m += sizeof prefix - 1;
			n -= sizeof prefix - 1;
		}
		if (strncmp(m, "warning: ", 9) == 0) {
			m += 9;
			n -= 9;
		}
		lines++;
		if (n > 255)
			fprintf(stderr, "FAIL: %zu bytes: %.*s\n", n, (int)n, m);
		CHECK(n <= 255);
		CHECK(!ends_cut(m, n));
		CHECK(n < 3 || memcmp(m + n - 3, "...", 3) != 0); /* whole at its end */
		char *line = malloc(n + 1);
		memcpy(line, m, n);
		line[n] = '\0';
		if (strstr(line, "vllm:") == line && strstr(line, "engine=") == NULL) {
			/* the series gave way: it ends "..." before its ': ' */
			CHECK(strstr(line, "...: ") != NULL);
		}
		yet += strstr(line, ": no sample yet at 2026-01-01T00:00:00.000Z while group 'a/") != NULL &&
		       strstr(line, "' has samples of other series; the steps until its first are left out of the rows") !=
		               NULL;
		first += strstr(line, ": first sample at 2026-01-01T00:02:30.000Z, within that step, which is left "
		                      "out too; 165 s left out of group 'a/") != NULL;
		free(line);
		p = nl ? nl + 1 : p + strlen(p);
	}
	CHECK(lines > 0);
	CHECK(yet >= 1);
	CHECK(first >= 1);
	run_result_free(&r);
	free(in);
	free(out);
	free(dir);
	return check_report("test_prom_warn_long_labels");
}
