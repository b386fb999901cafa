/*
 * Errors of `wattcast ingest --scrapes` that name a series (docs/fleet.md,
 * "Problems in the data"): a series' key carries every label, often 150
 * bytes and more, and an error message holds 255. The text after the
 * series (what went wrong and the flag that fixes it) must arrive whole;
 * the series is shortened with "..." instead, never inside a UTF-8
 * character. Cut at the end, the GPU-without-engine message ended
 * "(--group-by matches th".
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;

/* Label values long enough to overflow any message: 40 x "ü" (2 bytes). */
#define LONG_UTF8 "üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü"

/* Two minutes of scrapes: a GPU of host `dcgm_host` (a long `zone` label) and an engine at
 * `vllm_instance` with `engine_labels`; `second_engine` adds another
 * engine series of the same group differing in more than `engine`. */
static char *
scrapes(const char *name, const char *dcgm_host, const char *vllm_instance, const char *engine_labels,
        const char *second_engine)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	for (int s = 0; s < 120; s++) {
		len += (size_t)snprintf(buf + len, cap - len,
		                        "# wattcast-scrape %d dcgm:9400\nDCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-1\","
		                        "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"%s\",zone=\"%s\"} 300\n"
		                        "# wattcast-scrape %d %s\nvllm:num_requests_running{%s} 8\n",
		                        1767225600 + s, dcgm_host, LONG_UTF8, 1767225600 + s, vllm_instance,
		                        engine_labels);
		if (second_engine)
			len += (size_t)snprintf(buf + len, cap - len, "vllm:num_requests_running{%s} 8\n", second_engine);
	}
	char *path = path_join(dir, name);
	CHECK(write_text(path, buf) == 0);
	free(buf);
	return path;
}

/* ingest FILE fails with one line that begins with `head`, ends with
 * `tail` and holds at most 255 bytes of message. */
static void
check_error(const char *in, const char *head, const char *tail)
{
	static const char prefix[] = "wattcast ingest: ";
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	const char *e = r.err ? r.err : "";
	size_t n = strlen(e);
	fprintf(stderr, "%s", e);
	CHECK(n > 0 && e[n - 1] == '\n' && strchr(e, '\n') == e + n - 1);
	CHECK(strncmp(e, prefix, strlen(prefix)) == 0);
	CHECK_CONTAINS(e, head);
	CHECK(strstr(e, head) == e + strlen(prefix));
	CHECK(n > strlen(tail) && strncmp(e + n - 1 - strlen(tail), tail, strlen(tail)) == 0);
	CHECK_CONTAINS(e, "...");
	CHECK(n - 1 - strlen(prefix) <= 255);
	CHECK(test_utf8_ok(e));
	run_result_free(&r);
	free(out);
}

/* ingest IN (with --end END when not NULL): exit 1 and `message`, or
 * exit 0 when `message` is NULL. */
static void
check_two_engines(const char *in, const char *end, const char *message)
{
	char *out = path_join(dir, "two.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, end ? "--end" : NULL, end, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, message ? 1 : 0);
	if (message)
		CHECK_CONTAINS(r.err, message);
	run_result_free(&r);
	free(out);
}

/* A model redeployed on a host: two engine series one after the other,
 * differing in model_name only. The message cut both keys at the same
 * place, so they read the same; it now names the label, both values and
 * their spans, and --end before the redeploy is read from files as from
 * a server (the later series has no sample in the range). */
static void
check_redeploy(void)
{
	char text[65536];
	size_t len = 0;
	for (int t = 0; t < 240; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} "
		                        "300\n# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"%s\"} 4\n",
		                        1767225600 + t, 1767225600 + t,
		                        t < 120 ? "Qwen/Qwen3-8B" : "meta-llama/Llama-3.1-8B-Instruct");
	char *in = path_join(dir, "redeploy.prom");
	CHECK(write_text(in, text) == 0);
	check_two_engines(in, NULL, "group 'h1' left out: two engines one after the other (--start/--end take one) differ "
	                  "in model_name: 'Qwen/Qwen3-8B' 2026-01-01T00:00:00Z..00:01:59Z, "
	                  "'meta-llama/Llama-3.1-8B-Instruct' 2026-01-01T00:02:00Z..00:03:59Z");
	check_two_engines(in, "2026-01-01T00:01:50Z", NULL);
	free(in);
}

/* --end past the data, where every series of the group stops at once:
 * the engine alone was blamed ("until it resumes"), the GPUs' power not
 * named, and the steps to the range's end never counted. */
static void
check_data_ends(void)
{
	char text[65536];
	size_t len = 0;
	for (int t = 0; t < 60; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",modelName=\"NVIDIA H100 80GB HBM3\","
		                        "Hostname=\"h1\"} 300\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID=\"GPU-1\",modelName=\"NVIDIA "
		                        "H100 80GB HBM3\",Hostname=\"h1\"} 300\n# wattcast-scrape %d h1:8000\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n", 1767225600 + t,
		                        1767225600 + t);
	char *in = path_join(dir, "ends.prom"), *out = path_join(dir, "ends.csv");
	CHECK(write_text(in, text) == 0);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--end", "1767225690", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: no sample, "
	               "nor of the group's GPU power (2 series), at 2026-01-01T00:01:00.000Z");
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: not resumed "
	               "by the end of the range (2026-01-01T00:01:30.000Z), nor the group's GPU power; 31 s left out "
	               "of group 'h1'");
	run_result_free(&r);
	free(in);
	free(out);
}

/* The engine's load and every GPU's power stop together, the power comes
 * back and the engine does not by the range's end: the end said "nor the
 * group's GPU power" of GPUs with values there. The gap is split where
 * the power resumes, each part named by what it lacked. */
static void
check_power_back(void)
{
	char text[65536];
	size_t len = 0;
	for (int t = 0; t <= 90; t++) {
		if (t < 60 || t >= 70)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-0\",modelName=\"NVIDIA H100 "
			                        "80GB HBM3\",Hostname=\"h1\"} 300\nDCGM_FI_DEV_POWER_USAGE{gpu=\"1\",UUID="
			                        "\"GPU-1\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h1\"} 300\n",
			                        1767225600 + t);
		if (t < 60)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n", 1767225600 + t);
	}
	char *in = path_join(dir, "back.prom"), *out = path_join(dir, "back.csv");
	CHECK(write_text(in, text) == 0);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, "--end", "1767225690", NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	const char *e = "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: ";
	char want[512];
	snprintf(want, sizeof want, "%sno sample, nor of the group's GPU power (2 series), at 2026-01-01T00:01:00.000Z", e);
	CHECK_CONTAINS(r.err, want);
	snprintf(want, sizeof want, "%sthe group's GPU power resumes at 2026-01-01T00:01:10.000Z, not this series; "
	         "10 s left out of group 'h1'", e);
	CHECK_CONTAINS(r.err, want);
	snprintf(want, sizeof want, "%sno sample at 2026-01-01T00:01:10.000Z", e);
	CHECK_CONTAINS(r.err, want);
	snprintf(want, sizeof want, "%snot resumed by the end of the range (2026-01-01T00:01:30.000Z); 21 s left out "
	         "of group 'h1'", e);
	CHECK_CONTAINS(r.err, want);
	CHECK(r.err && !strstr(r.err, "nor the group's GPU power;"));
	run_result_free(&r);
	free(in);
	free(out);
}

/* A file whose time goes back: a sample not after the previous one (the
 * same file twice is an overlap, named as such: test_prom_overlap_files). Of a DCGM
 * series with its 8 usual labels the message was cut before its reason
 * ("...: sample at 2026-12-06T02:52:43...") and the path rule put "..."
 * before the file's name, given whole. The series gives way now. */
static void
check_not_after(void)
{
	static const char labels[] = "DCGM_FI_DRIVER_VERSION=\"550.54.15\",Hostname=\"h3\",UUID=\"GPU-03a84180-d660-dbdc-"
	                             "17f4-0e0655717066-h3\",device=\"nvidia0\",gpu=\"0\",instance=\"dcgm-h3:9400\","
	                             "job=\"dcgm-h3\",modelName=\"NVIDIA A100-SXM4-80GB\"";
	char text[4096], *in = path_join(dir, "h3.prom"), *json = path_join(dir, "q1.json"), *out = path_join(dir, "na.csv");
	size_t len = 0;
	for (int t = 0; t < 3; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h3:8000\n"
		                        "DCGM_FI_DEV_POWER_USAGE{%s} 300\n"
		                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n", 1767225600 + t, labels);
	snprintf(text + len, sizeof text - len, "# wattcast-scrape 1767225601 h3:8000\nDCGM_FI_DEV_POWER_USAGE{%s} 301\n",
	         labels);
	CHECK(write_text(in, text) == 0);
	snprintf(text, sizeof text, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{"
	         "\"metric\":{\"__name__\":\"DCGM_FI_DEV_POWER_USAGE\",\"DCGM_FI_DRIVER_VERSION\":\"550.54.15\","
	         "\"Hostname\":\"h3\",\"UUID\":\"GPU-03a84180-d660-dbdc-17f4-0e0655717066-h3\",\"device\":\"nvidia0\","
	         "\"gpu\":\"0\",\"instance\":\"dcgm-h3:9400\",\"job\":\"dcgm-h3\",\"modelName\":\"NVIDIA "
	         "A100-SXM4-80GB\"},\"values\":[[1767225600,\"300\"],[1767225615,\"300\"],[1767225600,\"301\"]]}]}}");
	CHECK(write_text(json, text) == 0);
	/* Named from the test's folder: the message must give them whole, and
	 * a long temporary folder (a clean clone's build-asan) would put the
	 * absolute paths past the bound, where the path rule rightly shortens
	 * them. */
	char back[4096];
	CHECK(getcwd(back, sizeof back) != NULL);
	CHECK(chdir(dir) == 0);
	const char *flag[2] = { "--scrapes", "--prometheus-json" }, *file[2] = { "h3.prom", "q1.json" };
	const char *where[2] = { ":11: DCGM_FI_DEV_POWER_USAGE{", ": /data/result/0/values/2: DCGM_FI_DEV_POWER_USAGE{" };
	const char *tail[2] = { "...: sample at 2026-01-01T00:00:01.000Z is not after the previous one "
		                "(2026-01-01T00:00:02.000Z): give the scrape logs in time order (a clock set back?)\n",
		                "...: sample at 2026-01-01T00:00:00.000Z is not after the previous one "
		                "(2026-01-01T00:00:15.000Z): save pages of a query with start = the previous page's "
		                "end + step\n" };
	for (int k = 0; k < 2; k++) {
		const char *argv[] = { "wattcast", "ingest", flag[k], file[k], "-o", out, NULL };
		char head[1024];
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 1);
		fprintf(stderr, "%s", r.err ? r.err : "");
		snprintf(head, sizeof head, "wattcast ingest: %s%s", file[k], where[k]);
		CHECK(r.err && strncmp(r.err, head, strlen(head)) == 0);
		CHECK(r.err && strlen(r.err) > strlen(tail[k]) &&
		      strcmp(r.err + strlen(r.err) - strlen(tail[k]), tail[k]) == 0);
		CHECK(r.err && strlen(r.err) - strlen("wattcast ingest: \n") <= 255);
		run_result_free(&r);
	}
	CHECK(chdir(back) == 0);
	free(in);
	free(json);
	free(out);
}

/* A host's two GPUs without a sample for 8 s, then its engine for the
 * step at which they are back (an exporter down, then the engine's
 * restart): one gap said "GPU ...: resumes at" the engine's return, 10 s,
 * and never named the engine that kept the last step out. Each part is
 * said now with its series. */
static void
check_gap_parts(void)
{
	char text[65536];
	size_t len = 0;
	for (int s = 0; s < 60; s++) {
		for (int gpu = 0; gpu < 2 && (s < 20 || s > 23); gpu++)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%d\",modelName=\"NVIDIA H100 "
			                        "80GB HBM3\",Hostname=\"h1\"} 300\n", 1767225600 + 2 * s, gpu, gpu);
		if (s != 24)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:8000\n"
			                        "vllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n", 1767225600 + 2 * s);
	}
	char *in = path_join(dir, "parts.prom"), *out = path_join(dir, "parts.csv");
	CHECK(write_text(in, text) == 0);
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--step", "2", "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	fprintf(stderr, "%s", r.err ? r.err : "");
	/* 266 bytes whole: the series gives way, its end "..." (wc__fleet_warn) */
	CHECK_CONTAINS(r.err, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-0\",gpu=\"0\",instance=\"h1:9400\","
	               "modelName=\"NVIDIA H10...: no sample, nor of the group's other 1 GPU series (its "
	               "exporter down?), at 2026-01-01T00:00:40.000Z; the steps until it resumes are left out of the "
	               "rows\n");
	CHECK_CONTAINS(r.err, "modelName=\"NVIDIA H100 80GB HBM3\"}: resumes at 2026-01-01T00:00:48.000Z; 8 s left "
	               "out of group 'h1'");
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: no sample "
	               "at 2026-01-01T00:00:48.000Z; the steps until it resumes are left out of the rows");
	CHECK_CONTAINS(r.err, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"Qwen/Qwen3-8B\"}: resumes "
	               "at 2026-01-01T00:00:50.000Z; 2 s left out of group 'h1'");
	CHECK(!strstr(r.err, "10 s left out"));
	run_result_free(&r);
	free(in);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_messages");
	check_data_ends();
	check_power_back();
	check_not_after();
	check_gap_parts();
	/* The smoke test's case: the GPU's host and the engine's differ. */
	char *in = scrapes("mismatch.prom", "gpu-node-01", "10.0.0.5:8000", "model_name=\"Qwen/Qwen3-8B\"", NULL);
	/* The engine's group is named, and relabelling suggested: no
	 * --group-by joins a host named by IP to DCGM's Hostname (the
	 * message pointed to --group-by alone). */
	check_error(in, "DCGM_FI_DEV_POWER_USAGE{Hostname=\"gpu-node-01\",UUID=\"GPU-1\"",
	            ": GPU with no engine series in group 'gpu-node-01'; engines without GPUs in '10.0.0.5': "
	            "relabel their host to DCGM's Hostname, or --group-by");
	free(in);

	/* Two servers in one group: both series named, the hint whole. */
	in = scrapes("two.prom", "h1", "h1:8000",
	             "model_name=\"Qwen/Qwen3-8B\",rack=\"" LONG_UTF8 "\",zone=\"" LONG_UTF8 "\"",
	             "instance=\"h1:8001\",model_name=\"Qwen/Qwen3-8B\",rack=\"" LONG_UTF8 "\",zone=\"b" LONG_UTF8 "\"");
	check_two_engines(in, NULL, "group 'h1' left out: two engines at once, by a label no GPU has (give each server's scrape its "
	                  "GPU's gpu label, --group-by host,gpu; or run folders) differ in instance: "
	                  "'h1:8000' 2026-01-01T00:00:00Z..00:01:59Z, 'h1:8001' 2026-01-01T00:00:00Z..00:01:59Z");
	free(in);
	check_redeploy();

	/* A model the catalog does not know. */
	in = scrapes("model.prom", "h1", "h1:8000",
	             "model_name=\"acme/unknown-model\",rack=\"" LONG_UTF8 "\",zone=\"" LONG_UTF8 "\"", NULL);
	check_error(in, "vllm:num_requests_running{instance=\"h1:8000\",model_name=\"acme/unknown-model\"",
	            ": model 'acme/unknown-model' is not in the model catalog; --active-params B gives its "
	            "active parameters");
	free(in);

	/* A GPU the platform catalog does not know: cut at 255 bytes, the
	 * message ended inside the catalog's names and never said
	 * --platform. The flag now comes before the names. */
	char text[2048];
	size_t len = 0;
	for (int t = 0; t < 3; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h-unk:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-c5d32af0-0857-3b36-6541-1a688a9ec165\","
		                        "modelName=\"NVIDIA Z999 Experimental\",Hostname=\"h-unk\",zone=\"%s\"} 300\n",
		                        1767225600 + t, LONG_UTF8);
	in = path_join(dir, "unk.prom");
	CHECK(write_text(in, text) == 0);
	check_error(in, "DCGM_FI_DEV_POWER", ": modelName 'NVIDIA Z999 Experimental' not in the platform catalog: "
	            "give --platform NAME (wattcast models --platforms)");
	free(in);

	/* DCGM's labels of an RTX 6000 Ada: the catalog's names left the
	 * series 16 bytes ("DCGM_FI_DEV_P...:") and were cut themselves
	 * ("MI300X, MI325"). The series now arrives whole, with all its
	 * labels, and the command that lists the catalog. */
	len = 0;
	for (int t = 0; t < 3; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d dcgm-h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-03a84180-d660-dbdc-17f4-0e0655717066\","
		                        "modelName=\"NVIDIA RTX 6000 Ada Generation\",Hostname=\"h1\"} 82.37\n"
		                        "# wattcast-scrape %d h1:8000\nvllm:num_requests_running{engine=\"0\","
		                        "model_name=\"Qwen/Qwen3-8B\"} 0.0\n", 1784415446 + t, 1784415446 + t);
	in = path_join(dir, "rtx.prom");
	CHECK(write_text(in, text) == 0);
	{
		char *out = path_join(dir, "rtx.csv");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 1);
		fprintf(stderr, "%s", r.err ? r.err : "");
		CHECK_CONTAINS(r.err, "wattcast ingest: DCGM_FI_DEV_POWER_USAGE{Hostname=\"h1\",UUID=\"GPU-03a84180-d660-"
		               "dbdc-17f4-0e0655717066\",gpu=\"0\",instance=\"dcgm-h1:9400\",modelName=\"NVIDIA RTX 6000 Ada "
		               "Generation\"}: modelName not in the platform catalog: give --platform NAME (wattcast models "
		               "--platforms)\n");
		CHECK(r.err && strlen(r.err) - strlen("wattcast ingest: \n") <= 255);
		run_result_free(&r);
		free(out);
	}
	free(in);

	/* The summary prints the platform whole: cut to 9 characters,
	 * A100-PCIe-40GB read A100-PCIe, another board of the catalog. */
	len = 0;
	for (int t = 0; t < 3; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",modelName=\"NVIDIA A100-PCIE-40GB\",Hostname=\"h1\"} "
		                        "200\n# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n",
		                        1767225600 + t, 1767225600 + t);
	in = path_join(dir, "pcie40.prom");
	CHECK(write_text(in, text) == 0);
	char *out = path_join(dir, "pcie40.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.out, "h1#2026-01-01T00:00:00.000Z                      A100-PCIe-40GB   1");
	run_result_free(&r);

	/* --group-by with labels no series carries: the whole fleet was one
	 * group named 'group', refused as mixed platforms or two engines. */
	const char *gb[][3] = { { "hostname", "1", "--group-by: no series carries 'hostname' (labels are "
		                  "case-sensitive; 'host' is DCGM's Hostname and the host of instance)" },
		                { "host,host", "1", "--group-by: label 'host' given twice" },
		                { "host,foo", "0", "warning: --group-by: no series carries 'foo': it splits no group" } };
	for (int k = 0; k < 3; k++) {
		const char *gargv[] = { "wattcast", "ingest", "--scrapes", in, "--group-by", gb[k][0], "-o", out, NULL };
		CHECK(run_wattcast(gargv, NULL, &r) == 0);
		CHECK_INT(r.status, atoi(gb[k][1]));
		CHECK_CONTAINS(r.err, gb[k][2]);
		run_result_free(&r);
	}
	free(in);

	/* --platform naming a board the catalog lacks: its rows are written
	 * with the note `predict` and run-folder ingest give (they were
	 * written in silence); a catalog board says nothing of the kind. */
	len = 0;
	for (int t = 0; t < 3; t++)
		len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d h1:9400\n"
		                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",modelName=\"NVIDIA GB200\",Hostname=\"h1\"} "
		                        "200\n# wattcast-scrape %d h1:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\"} 4\n",
		                        1767225600 + t, 1767225600 + t);
	in = path_join(dir, "gb200.prom");
	CHECK(write_text(in, text) == 0);
	const char *pargv[] = { "wattcast", "ingest", "--scrapes", in, "--platform", "GB200", "-o", out, NULL };
	CHECK(run_wattcast(pargv, NULL, &r) == 0);
	CHECK_INT(r.status, 0);
	CHECK_CONTAINS(r.err, "warning: 1 group on GB200: GB200 is not in the platform catalog: its board power limit "
	               "and clock range are unknown, so no power reading is checked against the board's limit");
	run_result_free(&r);
	free(out);
	free(in);
	free(dir);
	return check_report("test_prom_messages");
}
