/*
 * `wattcast ingest` of a level whose window opens before the engine's
 * first prompt tokens (docs/formats/telemetry.md, "Load levels and idle
 * windows"): PowerTrace-Sim's Poisson levels open 11-19 s (12-25 %) early,
 * and the row's mean power and throughput average that idle in with no
 * word of it. The row stays as it is (a fit averages over its n(t)); ingest
 * now says the span, its share and what it does to the row's mean power
 * and throughput, once. The control: a level opening with the load, or
 * idle for less than 5 % of it, says nothing.
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
 * level from `start` to T0 + 19 s. */
static char *
write_run(const char *root, const char *name, const char *start)
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
	                                        "vllm:prompt_tokens_total,vllm:generation_tokens_total\n");
	for (int k = 0; k <= 40; k++) {
		const double t = 0.5 * k;
		const int busy = t > 4.0;
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%.3f,%d,0,%d,%d\n", T0 + t, busy ? 4 : 0,
		                        busy ? 100 * (k - 8) : 0, busy ? 50 * (k - 8) : 0);
	}
	p = path_join(d, "engine.csv");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
	snprintf(buf, sizeof buf,
	         "{\"run_id\": \"%s\", \"hardware\": \"A100\", \"model\": \"Qwen/Qwen3-8B\", \"tp\": 1,"
	         " \"clock\": {\"power_timestamp_basis\": \"unix_epoch\", \"engine_timestamp_basis\": \"unix_epoch\"},"
	         " \"probe\": {\"levels\": [{\"label\": \"rate\", \"t_start_epoch\": %s,"
	         " \"t_end_epoch\": 1700000019.0, \"params\": {\"request_rate\": 2.0, \"burstiness\": 1.0}}]}}",
	         name, start);
	p = path_join(d, "manifest.json");
	CHECK_INT(write_text(p, buf), 0);
	free(p);
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
		snprintf(phrase, sizeof phrase, ": level 0 ('rate'): idle 4.0 s (1700000000.000-1700000004.000) before "
		         "the engine's first prompt tokens (21 %% of 19.0 s): row mean power %.1f W, 300.0 W without it; "
		         "throughput 21 %% under\n", res.rows[0].run.mean_power_w);
		CHECK_CONTAINS(w.text, phrase);
		CHECK(res.rows[0].run.mean_power_w < 260.0);
	}
	const char *first = strstr(w.text, "idle 4.0 s");
	CHECK(first && !strstr(first + 1, "idle 4.0 s"));
	wc_ingest_result_clear(&res);
	/* with segments too, once a window */
	CHECK_INT(test_ingest_a100(d, 5.0, &res, &w), WC_OK);
	first = strstr(w.text, "idle 4.0 s");
	CHECK(first && !strstr(first + 1, "idle 4.0 s"));
	wc_ingest_result_clear(&res);
	free(d);

	/* The level opens with the load, or 0.5 s before it (3 %): quiet */
	d = write_run(root, "with_load", "1700000003.5");
	CHECK_INT(test_ingest_a100(d, 0, &res, &w), WC_OK);
	CHECK(strstr(w.text, "before the engine's first prompt tokens") == NULL);
	wc_ingest_result_clear(&res);
	free(d);

	free(root);
	return check_report("test_ingest_idle_lead");
}
