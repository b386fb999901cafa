/*
 * gpu_memory_utilization outside 0.1-1 is refused in one message, "must be
 * between 0.1 and 1", whatever the value (docs/http-api.md, docs/cli.md):
 * 0 and -1 read "must be > 0" where 0.05 read the range, so a client or a
 * user who sent 0 learned only half of it. HTTP names the field, the CLI
 * the flag; 0.5 and 1 are answered.
 */
#include "data/data.h"
#include "server/server.h"
#include "tests/fixtures/server/http_client.h"
#include "tests/support/support.h"

static const char *const bad[] = { "0", "-1", "0.05", "1.5", "2" };

static void
cli_refused(const char *u)
{
	const char *argv[] = { "wattcast", "predict", "inference", "--platform", "H100", "--model", "Qwen3-8B",
		               "--concurrency", "32", "--gpu-memory-utilization", u, NULL };
	char want[128];
	snprintf(want, sizeof want, "--gpu-memory-utilization: must be between 0.1 and 1, got '%s'", u);
	test_usage_error(argv, want);
}

static int
http_status(CURL *h, const char *u, char *msg, size_t cap)
{
	char body[160];
	snprintf(body, sizeof body, "{\"platform\":\"H100\",\"model\":\"Qwen3-8B\",\"concurrency\":32,"
	                            "\"gpu_memory_utilization\":%s}", u);
	http_reply r;
	http_post_json(h, url("/v1/predict/inference"), body, &r);
	int st = (int)r.status;
	const char *f = http_error_str(&r, "field"), *m = http_error_str(&r, "message");
	snprintf(msg, cap, "%s %s", f ? f : "", m ? m : "");
	http_reply_free(&r);
	return st;
}

/* Over HTTP: every value outside the range refused naming the field,
 * 0.5 and 1 answered. */
static void
http_cases(CURL *h)
{
	char msg[512], want[160];
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(http_status(h, bad[i], msg, sizeof msg), 422);
		snprintf(want, sizeof want, "/gpu_memory_utilization gpu_memory_utilization: must be between "
		                            "0.1 and 1, got %s", bad[i]);
		if (strcmp(msg, want) != 0)
			fprintf(stderr, "  %s -> \"%s\"\n", bad[i], msg);
		CHECK(strcmp(msg, want) == 0);
	}
	CHECK_INT(http_status(h, "0.5", msg, sizeof msg), 200);
	CHECK_INT(http_status(h, "1", msg, sizeof msg), 200);
}

int
main(void)
{
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cli_refused(bad[i]);
	test_run_ok((const char *const[]){ "wattcast", "predict", "inference", "--platform", "H100", "--model",
	                                   "Qwen3-8B", "--concurrency", "32", "--gpu-memory-utilization", "0.5", NULL });

	http_with_default_server(http_cases);
	return check_report("test_server_gmu_range");
}
