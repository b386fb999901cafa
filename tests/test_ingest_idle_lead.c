/*
 * `wattcast ingest` of a level whose window opens before the engine's
 * first prompt tokens (docs/formats/telemetry.md, "Load levels and idle
 * windows"): PowerTrace-Sim's Poisson levels open 11-19 s (12-25 %) early,
 * and the row's mean power and throughput average that idle in with no
 * word of it. The row stays as it is (a fit averages over its n(t)); ingest
 * now says the span, its share and what it does to the row's mean power
 * and throughput, once. The control: a level opening with the load, or
 * idle for less than 5 % of it, says nothing. A log without an output
 * counter was judged at its end by its prompt counter, which stops while
 * decoding goes on: "idle after its last" of a busy engine; the message
 * cut its label at 24 bytes and ran past 255, a folder ending in '/' was
 * quoted ".../", a replica was not named, and with --segment it told a
 * row mean no row has. A log without a live prompt counter (TGI's, SGLang's)
 * said nothing of an idle start its gauges show, and a level with no work
 * in it at all went unsaid. Each said so here.
 */
#include "data/data.h"
#include "tests/support/ingest_run.h"
#include "tests/support/support.h"
#include "trace/trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define T0 1700000000.0

/* Power at 0.1 s over T0 .. T0 + 20 s (60 W idle, 300 W from T0 + 4 s)
 * and vLLM's counters at 0.5 s, the first prompt tokens past T0 + 4 s; a
 * level `label` from `start` to T0 + 19 s. Without `gen` the log has no
 * generation counter and its prompt counter stops at T0 + 10 s while the
 * engine runs until T0 + 18.5 s. */
static char *
write_run_as(const char *root, const char *name, const char *start, const char *label, int gen)
{
	char buf[16384], *p, *d = path_join(root, name);
	size_t len;
	mkdir(d, 0755);
	/* nvidia-smi's form, as synth_epoch_power writes it */
	len = (size_t)snprintf(buf, sizeof buf, "index,timestamp,power.draw\n");
	for (int i = 0; i < 200; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "0,2023/11/14 22:13:%02d.%03d,%.2f\n", 20 + i / 10,
		                        (i % 10) * 100, i < 40 ? 60.0 : 300.0);
	p = path_join(d, "power.csv");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	len = (size_t)snprintf(buf, sizeof buf, "timestamp,vllm:num_requests_running,vllm:num_requests_waiting,"
	                                        "vllm:prompt_tokens_total%s\n",
	                       gen ? ",vllm:generation_tokens_total" : "");
	for (int k = 0; k <= 40; k++) {
		const double t = 0.5 * k;
		const int busy = t > 4.0 && (gen || t <= 18.5), kp = gen || k < 20 ? k : 20;
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,%d,0,%d", T0 + t, busy ? 4 : 0,
		                        t > 4.0 ? 100 * (kp - 8) : 0);
		if (gen)
			len += (size_t)snprintf(buf + len, sizeof buf - len, ",%d", t > 4.0 ? 50 * (k - 8) : 0);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	}
	p = path_join(d, "engine.csv");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	snprintf(buf, sizeof buf,
	         "{\"run_id\": \"%s\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	         " \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", \"engine_timestamp_basis\": \"unix_epoch\"},"
	         " \"probe\": {\"levels\": [{\"label\": \"%s\", \"t_start_epoch\": %s,"
	         " \"t_end_epoch\": 1700000019.0, \"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0}}]}}",
	         name, label, start);
	p = path_join(d, "manifest.json");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	return d;
}

/* The engine log of write_run_as's run with `gen` as TGI (its batch and
 * queue gauges alone) or SGLang (`sglang`: its token counters counting at
 * completion, the first at T0 + 6 s) exports it: a request in flight past
 * T0 + 4 s, none before. */
static void
write_engine_as(const char *d, int sglang)
{
	char buf[4096];
	size_t len = (size_t)snprintf(buf, sizeof buf, "%s\n", sglang ? "timestamp,sglang:num_running_reqs,"
	                              "sglang:num_queue_reqs,sglang:prompt_tokens_total,sglang:generation_tokens_total"
	                                                             : "timestamp,tgi_batch_current_size,tgi_queue_size");
	for (int k = 0; k <= 40; k++) {
		const double t = 0.5 * k;
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,%d,0", T0 + t, t > 4.0 ? 4 : 0);
		if (sglang)
			len += (size_t)snprintf(buf + len, sizeof buf - len, ",%d,%d", t > 6.0 ? 300 * (k - 12) : 0,
			                        t > 6.0 ? 150 * (k - 12) : 0);
		len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	}
	free(test_fixture(d, "engine.csv", buf));
}

static char *
write_run(const char *root, const char *name, const char *start)
{
	return write_run_as(root, name, start, "rate", 1);
}

/* Two data-parallel vLLM engines, tp 1 each, over T0 .. T0 + 20 s as
 * write_run_as's: engine 0 with its generation counter, engine 1 without
 * (its prompt counter stopping at T0 + 10 s, running until T0 + 18.5 s);
 * GPU 0 and 1 at 60 W, then 300 W from T0 + 4 s; a level from T0. */
static char *
write_dp(const char *root, const char *name)
{
	static char buf[65536];
	char *d = path_join(root, name);
	size_t len;
	mkdir(d, 0755);
	len = (size_t)snprintf(buf, sizeof buf, "timestamp,index,power.draw [W]\n");
	for (int i = 0; i < 200; i++)
		for (int g = 0; g < 2; g++)
			len += (size_t)snprintf(buf + len, sizeof buf - len, "2023/11/14 22:13:%02d.%03d,%d,%.2f W\n",
			                        20 + i / 10, (i % 10) * 100, g, i < 40 ? 60.0 : 300.0);
	free(test_fixture(d, "power.csv", buf));
	len = (size_t)snprintf(buf, sizeof buf, "timestamp");
	for (int e = 0; e < 2; e++)
		len += (size_t)snprintf(buf + len, sizeof buf - len,
		                        ",vllm:num_requests_running{engine=\"%d\"},vllm:num_requests_waiting{engine=\"%d\"}"
		                        ",vllm:prompt_tokens_total{engine=\"%d\"}%s", e, e, e,
		                        e ? "" : ",vllm:generation_tokens_total{engine=\"0\"}");
	len += (size_t)snprintf(buf + len, sizeof buf - len, "\n");
	for (int k = 0; k <= 40; k++) {
		const double t = 0.5 * k;
		const int on = t > 4.0, kp = k < 20 ? k : 20;
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,%d,0,%d,%d,%d,0,%d\n", T0 + t, on ? 4 : 0,
		                        on ? 100 * (k - 8) : 0, on ? 50 * (k - 8) : 0, on && t <= 18.5 ? 4 : 0,
		                        on ? 100 * (kp - 8) : 0);
	}
	free(test_fixture(d, "engine.csv", buf));
	snprintf(buf, sizeof buf,
	         "{\"schema\": \"wattcast.run/3\", \"run_id\": \"%s\", \"platform\": \"A100\","
	         " \"model\": \"Qwen/Qwen3-8B\", \"utc_offset_s\": 0, \"workload\": \"poisson\", \"tp\": 1,"
	         " \"data_parallel\": 2, \"levels\": [{\"label\": \"dp\", \"start_epoch\": 1700000000,"
	         " \"end_epoch\": 1700000019}]}", name);
	free(test_fixture(d, "wattcast-run.json", buf));
	return d;
}

int
main(void)
{
	char *root = test_tmpdir("ingest_idle_lead");
	wc_ingest_result res = { NULL, 0, 0 };
	test_warnings w;
	char phrase[256];

	/* 4 s idle of the 19 s window: said once, the row's mean as written */
	char *d = write_run(root, "early", "1700000000.0");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_INT(res.n_rows, 1);
	if (res.n_rows == 1) {
		snprintf(phrase, sizeof phrase, ": level 0 ('rate'): idle its first 4.0 s (no prompt tokens yet), "
		         "21 %% of 19.0 s: row mean %.1f W, 300.0 W without; throughput 21 %% low\n",
		         res.rows[0].run.mean_power_w);
		CHECK_CONTAINS(w.text, phrase);
		CHECK(res.rows[0].run.mean_power_w < 260.0);
	}
	const char *first = strstr(w.text, "idle its first 4.0 s");
	CHECK(first && !strstr(first + 1, "idle its first 4.0 s"));
	wc_ingest_result_clear(&res);
	/* with segments too, once a window, the span alone: no row is the
	 * level's whole window, and the idle segments are excluded */
	CHECK_INT(test_ingest_a100(d, 5.0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, ": level 0 ('rate'): idle its first 4.0 s (no prompt tokens yet), 21 % of 19.0 s\n");
	first = strstr(w.text, "idle its first 4.0 s");
	CHECK(first && !strstr(first + 1, "idle its first 4.0 s"));
	CHECK(strstr(w.text, "row mean") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* A level with no work in it at all (a warm-up ending before the
	 * first request): its row is the idle power, and it went unsaid where
	 * a level 98 % idle was warned */
	d = write_run(root, "warm", "1700000000.0");
	char *mf = path_join(d, "manifest.json");
	CHECK_INT(write_text(mf, "{\"run_id\": \"warm\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", "
	                         "\"tp\": 1, \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", "
	                         "\"engine_timestamp_basis\": \"unix_epoch\"}, \"probe\": {\"levels\": ["
	                         "{\"label\": \"warm\", \"t_start_epoch\": 1700000000.0, \"t_end_epoch\": 1700000003.5, "
	                         "\"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0}}, "
	                         "{\"label\": \"rate\", \"t_start_epoch\": 1700000003.5, \"t_end_epoch\": 1700000019.0, "
	                         "\"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0}}]}}"),
	          0);
	free(mf);
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, ": level 0 ('warm'): idle throughout (no prompt tokens in it), 100 % of 3.5 s: row mean "
	                       "60.0 W, none of the level's load\n");
	CHECK(strstr(w.text, "level 1 ('rate'): idle") == NULL); /* 0.5 s of 15.5: under 5 % */
	wc_ingest_result_clear(&res);
	free(d);

	/* The level opens with the load, or 0.5 s before it (3 %): quiet */
	d = write_run(root, "with_load", "1700000003.5");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK(strstr(w.text, "idle its") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* No generation counter: the prompt counter stops at T0 + 10 s while
	 * the engine runs until T0 + 18.5 s; its end is not idle (the sample
	 * at T0 + 19 s is the first without a request), and the row has no
	 * throughput to read low */
	d = write_run_as(root, "no_gen", "1700000000.0", "rate", 0);
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, "idle its first 4.0 s (no prompt tokens yet), 21 % of 19.0 s: row mean ");
	CHECK(strstr(w.text, "its last") == NULL);
	CHECK(strstr(w.text, "% low") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	/* No live prompt counter (TGI's none, SGLang's counting at
	 * completion): the start judged by the gauges as the end is, the same
	 * 4 s; it went unsaid */
	for (int sglang = 0; sglang < 2; sglang++) {
		d = write_run(root, sglang ? "sglang" : "tgi", "1700000000.0");
		write_engine_as(d, sglang);
		CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
		CHECK_CONTAINS(w.text, ": level 0 ('rate'): idle its first 4.0 s (no request running yet), 21 % of 19.0 s: "
		                       "row mean ");
		CHECK(strstr(w.text, "its last") == NULL);
		wc_ingest_result_clear(&res);
		free(d);
	}

	/* A 25-byte label whole and the message within 255 bytes with its
	 * end, under a folder deep enough to shorten, named though its path
	 * ends in '/' */
	char deep[200];
	memset(deep, 'd', 150);
	deep[150] = '\0';
	char *deep_root = path_join(root, deep);
	mkdir(deep_root, 0755);
	d = write_run_as(deep_root, "a100_validate_tp1_r4p0_b1p0_s20260712_1784415439", "1700000000.0",
	                 "sharegpt_rate4.0_burst1.0", 1);
	char *slash = malloc(strlen(d) + 2);
	sprintf(slash, "%s/", d);
	CHECK_INT(test_ingest_a100(slash, 0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, ".../a100_validate_tp1_r4p0_b1p0_s20260712_1784415439/: level 0 "
	                       "('sharegpt_rate4.0_burst1.0'): idle its first 4.0 s");
	const char *line = strstr(w.text, "...");
	while (line && line > w.text && line[-1] != '\n')
		line--;
	const char *eol = line ? strchr(line, '\n') : NULL;
	CHECK(eol && (size_t)(eol - line) <= 255 && eol - line > 8 && strncmp(eol - 8, "21 % low", 8) == 0);
	if (getenv("WC_TEST_SHOW"))
		fputs(w.text, stderr);
	wc_ingest_result_clear(&res);
	free(slash);
	free(d);
	free(deep_root);

	/* Data-parallel: each replica named; replica 1 without its generation
	 * counter is not idle at its end and has no throughput to read low */
	d = write_dp(root, "dp");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK_CONTAINS(w.text, ": replica 0: level 0 ('dp'): idle its first 4.0 s (no prompt tokens yet), 21 % of "
	                       "19.0 s: row mean ");
	CHECK_CONTAINS(w.text, ": replica 1: level 0 ('dp'): idle its first 4.0 s (no prompt tokens yet), 21 % of "
	                       "19.0 s: row mean ");
	CHECK(strstr(w.text, "its last") == NULL);
	first = strstr(w.text, ": replica 1: level 0");
	CHECK(first && strstr(first, "without\n") != NULL);
	if (getenv("WC_TEST_SHOW"))
		fputs(w.text, stderr);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_idle_lead");
}
