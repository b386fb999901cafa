/*
 * Messages of `wattcast ingest --scrapes` when GPUs and engines part
 * (docs/fleet.md, "Grouping" and "Problems in the data"):
 * - a --group-by label one side carries alone (DCGM's Hostname): every
 *   engine fell into one group 'group', refused as "two engines ... differ
 *   in instance"; with `Hostname,host`, relabelling hosts that already
 *   matched was suggested;
 * - a --group-by label both carry with other values (`job`): relabelling
 *   hosts that already matched was suggested, the label never named;
 * - a modelName the platform catalog lacks, beside a long series: it was
 *   cut to 40 bytes ("...Blackwell Server Edi").
 */
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;

/* Three scrapes of two hosts, DCGM scraped by job "dcgm" and vLLM by
 * job "vllm", as Prometheus labels them; `model` the GPUs' modelName. */
static char *
fleet(const char *name, const char *model)
{
	char text[8192];
	size_t len = 0;
	for (int t = 0; t < 3; t++)
		for (int h = 1; h <= 2; h++)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d 10.1.0.%d:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-171e341c-4c74-fca8-094f-1cbff4dbdd2%d\","
			                        "pci_bus_id=\"00000000:00:00.0\",device=\"nvidia0\",modelName=\"%s\",Hostname=\"h%d\","
			                        "DCGM_FI_DRIVER_VERSION=\"570.86.15\",job=\"dcgm\"} 300\n"
			                        "# wattcast-scrape %d h%d:8000\nvllm:num_requests_running{model_name=\"Qwen/Qwen3-8B\","
			                        "job=\"vllm\"} 4\n", 1767225600 + t, h, h, model, h, 1767225600 + t, h);
	char *path = path_join(dir, name);
	CHECK(write_text(path, text) == 0);
	return path;
}

/* ingest IN (with --group-by BY when not NULL): exit 1, one line holding
 * `message`, at most 255 bytes of message. */
static void
check_refused(const char *in, const char *by, const char *message)
{
	char *out = path_join(dir, "out.csv");
	const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "-o", out, by ? "--group-by" : NULL, by, NULL };
	run_result r;
	CHECK(run_wattcast(argv, NULL, &r) == 0);
	CHECK_INT(r.status, 1);
	const char *e = r.err ? r.err : "";
	fprintf(stderr, "%s", e);
	CHECK_CONTAINS(e, message);
	CHECK(strlen(e) > 0 && strchr(e, '\n') == e + strlen(e) - 1);
	CHECK(strlen(e) - strlen("wattcast ingest: \n") <= 255);
	run_result_free(&r);
	free(out);
}

int
main(void)
{
	dir = test_tmpdir("prom_group_sides");
	char *in = fleet("fleet.prom", "NVIDIA H100 80GB HBM3");
	static const char hostname[] = "wattcast ingest: --group-by: label 'Hostname' is carried by GPU power series "
	                               "only, not by engine series, so the two never share a group; --group-by host "
	                               "joins DCGM's Hostname and the host of the engines' instance\n";
	check_refused(in, "Hostname", hostname);
	check_refused(in, "Hostname,host", hostname);
	check_refused(in, "host,model_name", "--group-by: label 'model_name' is carried by engine series only, not by "
	              "GPU power series");
	check_refused(in, "host,job", ": GPU with no engine series in group 'h1/dcgm'; engines without GPUs in "
	              "'h1/vllm', 'h2/vllm': the hosts match, --group-by label 'job' differs ('dcgm' on GPUs, 'vllm' "
	              "on engines): leave it out\n");
	{
		/* the hosts joined, the fleet is read */
		char *out = path_join(dir, "host.csv");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", in, "--group-by", "host", "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		run_result_free(&r);
		free(out);
	}
	free(in);

	{
		/* Kubernetes: only the hosts differ */
		char text[4096];
		size_t len = 0;
		for (int t = 0; t < 3; t++)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d 10.0.1.7:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-k8s-0\",modelName=\"NVIDIA H100 80GB "
			                        "HBM3\",Hostname=\"dcgm-exporter-x7k2p\",namespace=\"gpu-operator\",pod=\"dcgm-"
			                        "exporter-x7k2p\",exported_namespace=\"llm\",exported_pod=\"vllm-qwen-0\"} 350\n"
			                        "# wattcast-scrape %d 10.0.2.15:8000\nvllm:num_requests_running{model_name="
			                        "\"Qwen/Qwen3-8B\",namespace=\"llm\",pod=\"vllm-qwen-0\"} 9\n",
			                        1767225600 + t, 1767225600 + t);
		char *k8s = path_join(dir, "k8s.prom"), *out = path_join(dir, "k8s.csv");
		CHECK(write_text(k8s, text) == 0);
		check_refused(k8s, NULL, ": --group-by namespace,pod (only the hosts differ, an exporter's pod beside the "
		              "engine's?); engines without GPUs in '10.0.2.15/llm/vllm-qwen-0'");
		/* Pod names as a Deployment's: the remedy survives the cap. */
		len = 0;
		for (int t = 0; t < 3; t++)
			len += (size_t)snprintf(text + len, sizeof text - len, "# wattcast-scrape %d 10.0.1.7:9400\n"
			                        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-k8s-0\",modelName=\"NVIDIA H100 80GB "
			                        "HBM3\",Hostname=\"nvidia-dcgm-exporter-q8w7z\",namespace=\"gpu-operator\",pod=\""
			                        "nvidia-dcgm-exporter-q8w7z\",exported_namespace=\"llm\",exported_pod=\"vllm-qwen3-"
			                        "8b-instruct-deployment-7f9c8d6b5-x2k4p\"} 350\n"
			                        "# wattcast-scrape %d 10.244.12.157:8000\nvllm:num_requests_running{model_name="
			                        "\"Qwen/Qwen3-8B\",namespace=\"llm\",pod=\"vllm-qwen3-8b-instruct-deployment-"
			                        "7f9c8d6b5-x2k4p\"} 9\n", 1767225600 + t, 1767225600 + t);
		CHECK(write_text(k8s, text) == 0);
		check_refused(k8s, NULL, ": --group-by namespace,pod (only the hosts differ");
		const char *argv[] = { "wattcast", "ingest", "--scrapes", k8s, "--group-by", "namespace,pod", "-o", out, NULL };
		run_result r;
		CHECK(run_wattcast(argv, NULL, &r) == 0);
		CHECK_INT(r.status, 0);
		run_result_free(&r);
		free(out);
		free(k8s);
	}

	/* A board the catalog lacks, its series 125 bytes and more. */
	in = fleet("rtxpro.prom", "NVIDIA RTX PRO 6000 Blackwell Server Edition");
	check_refused(in, NULL, "...: modelName 'NVIDIA RTX PRO 6000 Blackwell Server Edition' not in the platform "
	              "catalog: give --platform NAME (wattcast models --platforms)\n");
	free(in);
	free(dir);
	return check_report("test_prom_group_sides");
}
