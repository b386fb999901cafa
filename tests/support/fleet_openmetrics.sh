#!/bin/sh
# Synthetic fleet telemetry with a known truth (docs/fleet.md, "Testing"):
# HOSTS hosts x GPUS GPUs x SECONDS s at 1 s from epoch T0, written as
#   OUT/fleet.om      OpenMetrics for `promtool tsdb create-blocks-from openmetrics`
#   OUT/scrapes.prom  the same samples as text-exposition scrapes (wattcast ingest --scrapes)
#   OUT/truth.csv     per window: host, start/end epoch, GPUs, mean group power,
#                     mean running, prompt and generation tokens per second,
#                     mean inter-token latency
# Load steps every 300 s through six levels; host 1's engine restarts (down
# from 1650 s to 1680 s, counters from 0 after it); the last GPU of the last
# host drops out at 2550 s. Values are functions of (host, gpu, second), so
# the files and the truth agree without storing the series. Host 2's engine
# also exports the inter-token latency under vLLM 0.11's new name
# (inter_token_latency_seconds), at half the old name's value so that the
# truth says which one was read: the new one. Host 3's engine is SGLang:
# the same gauges, counters and histograms under SGLang's names
# (sglang:num_running_reqs, ...; its inter-token latency under
# time_per_output_token), with a tp_rank label; its generated tokens are
# sglang:realtime_tokens_total{mode="decode"} (the scrapes add its
# prefill_compute series, not read), and its prompt_tokens_total counts a
# request's tokens when it finishes, so its prompt_tok_s is blank (nan in
# the truth; docs/fleet.md, "Metrics").
# A sixth argument `om-only` skips the scrapes (bench/run_prometheus.sh).
# usage: sh fleet_openmetrics.sh HOSTS GPUS SECONDS T0 OUT [om-only]
set -eu
[ $# -eq 5 ] || [ $# -eq 6 ] || { echo "usage: $0 HOSTS GPUS SECONDS T0 OUT [om-only]" >&2; exit 2; }
mkdir -p "$5"
awk -v H="$1" -v G="$2" -v S="$3" -v T0="$4" -v OUT="$5" -v NOSCR="${6:-}" '
function noise(a, b, c,   x) { x = sin(a * 12.9898 + b * 78.233 + c * 0.37719) * 43758.5453
	x = x - int(x); return x < 0 ? -x : x }
function lidx(h, s) { return (int(s / 300) + (h - 1) * 3) % 6 }
function level(h, s) { return LV[lidx(h, s)] }
function engine_up(h, s) { return !(h == 1 && s >= 1650 && s < 1680) }
function gpu_up(h, g, s) { return !(h == H && g == G - 1 && s >= 2550) }
function running(h, s,   n, r) { n = noise(h, 99, s); r = level(h, s) + (n < 0.2 ? -1 : n > 0.8 ? 1 : 0)
	return r < 0 ? 0 : r }
function waiting(h, s) { return int(level(h, s) / 4 * noise(h, 98, s)) }
function power(h, g, s,   L) { L = level(h, s)
	if (!engine_up(h, s)) return sprintf("%.1f", 110 + 2 * noise(h, g, s)) + 0
	return sprintf("%.1f", 135 + 6 * L ^ 0.8 + 2 * g + 10 * noise(h, g, s)) + 0 }
# Counter increments in second s (index 0 prompt, 1 generation, 2 ttft sum,
# 3 ttft count, 4 itl sum, 5 itl count).
function incs(h, s,   L) { L = level(h, s)
	INC[0] = 50 * L + int(9 * noise(h, 96, s)); INC[1] = 20 * L + int(5 * noise(h, 97, s))
	INC[2] = 0.002 * L; INC[3] = 2; INC[4] = INC[1] * (0.01 + 0.0002 * L); INC[5] = INC[1] }
# Counter values of host h through second s into C[] (restart: from 0).
function advance(h, s,   k) {
	if (s == 0 || (h == 1 && s == 1680)) for (k = 0; k < 6; k++) C[k] = s == 0 ? 1000000 : 0
	incs(h, s); for (k = 0; k < 6; k++) C[k] += INC[k] }
# Engine metric e (EN[e]) of host h at second s, after advance(h, s).
function value(h, s, e) { return e == 1 ? running(h, s) : e == 2 ? waiting(h, s) : e <= 8 ? C[e - 3] \
	: e == 9 ? 0.5 * C[4] : C[5] }
function dcgm(h, g) { return sprintf("DCGM_FI_DEV_POWER_USAGE{gpu=\"%d\",UUID=\"GPU-%04d-%04d\"," \
	"device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h%d\"," \
	"DCGM_FI_DRIVER_VERSION=\"550.54.15\",job=\"dcgm\"", g, h, g, g, h) }
function close_window(h) {
	if (W_n == 0) return
	printf "h%d,%d,%d,%d,%.9f,%.9f,%s,%.9f,%.9f\n", h, T0 + W_t0, T0 + W_t1, W_g, W_p / W_n, W_r / W_n,
		h == 3 ? "nan" : sprintf("%.9f", (W_c1[0] - W_c0[0]) / (W_t1 - W_t0)), (W_c1[1] - W_c0[1]) / (W_t1 - W_t0),
		(W_c1[4] - W_c0[4]) / (W_c1[5] - W_c0[5]) * (h == 2 ? 0.5 : 1) > TRUTH
	W_n = 0 }
BEGIN {
	split("4 16 48 8 96 32", tmp, " "); for (i = 1; i <= 6; i++) LV[i - 1] = tmp[i] + 0
	split("vllm:num_requests_running vllm:num_requests_waiting vllm:prompt_tokens_total " \
	      "vllm:generation_tokens_total vllm:time_to_first_token_seconds_sum " \
	      "vllm:time_to_first_token_seconds_count vllm:time_per_output_token_seconds_sum " \
	      "vllm:time_per_output_token_seconds_count vllm:inter_token_latency_seconds_sum " \
	      "vllm:inter_token_latency_seconds_count", EN, " ")
	split("sglang:num_running_reqs sglang:num_queue_reqs sglang:prompt_tokens_total " \
	      "sglang:realtime_tokens_total sglang:time_to_first_token_seconds_sum " \
	      "sglang:time_to_first_token_seconds_count sglang:time_per_output_token_seconds_sum " \
	      "sglang:time_per_output_token_seconds_count", SG, " ")
	OM = OUT "/fleet.om"; SC = OUT "/scrapes.prom"; TRUTH = OUT "/truth.csv"
	print "host,start_epoch,end_epoch,tp,mean_power_w,running,prompt_tok_s,generation_tok_s,itl_s" > TRUTH
	# truth: windows cut at level changes, the engine restart and the dropout
	for (h = 1; h <= H; h++) {
		W_n = 0; key = ""
		for (s = 0; s < S; s++) {
			if (engine_up(h, s) || s == 0) advance(h, s)
			if (!engine_up(h, s)) { close_window(h); continue }
			ng = 0; p = 0
			printf "# wattcast-scrape %d dcgm-h%d:9400\n", T0 + s, h > SC
		for (g = 0; g < G; g++) if (gpu_up(h, g, s)) { ng++; p += power(h, g, s) }
			k = lidx(h, s) "/" ng
			if (k != key) { close_window(h); key = k }
			if (W_n == 0) { W_t0 = s; W_g = ng; W_p = 0; W_r = 0; for (j = 0; j < 6; j++) W_c0[j] = C[j] }
			W_n++; W_t1 = s; W_p += p; W_r += running(h, s); for (j = 0; j < 6; j++) W_c1[j] = C[j]
		}
		close_window(h)
	}
	# OpenMetrics: one family after another, each series in time order
	print "# TYPE DCGM_FI_DEV_POWER_USAGE gauge" > OM
	for (h = 1; h <= H; h++) for (g = 0; g < G; g++) { lab = dcgm(h, g) ",instance=\"dcgm-h" h ":9400\"}"
		for (s = 0; s < S; s++) if (gpu_up(h, g, s)) printf "%s %.1f %d\n", lab, power(h, g, s), T0 + s > OM }
	for (e = 1; e <= 18; e++) {
		print "# TYPE " (e <= 10 ? EN[e] : SG[e - 10]) " gauge" > OM
		for (h = 1; h <= H; h++) {
			if ((e > 8 && e <= 10 && h != 2) || ((h == 3) != (e > 10))) continue
			lab = e <= 10 ? EN[e] "{model_name=\"Qwen/Qwen3-8B\",engine=\"0\",instance=\"h" h ":8000\",job=\"vllm\"}" \
			      : SG[e - 10] "{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"" (e == 14 ? ",mode=\"decode\"" : "") \
			        ",instance=\"h" h ":30000\",job=\"sglang\"}"
			for (s = 0; s < S; s++) {
				if (engine_up(h, s) || s == 0) advance(h, s)
				if (!engine_up(h, s)) continue
				printf "%s %.10g %d\n", lab, value(h, s, e > 10 ? e - 10 : e), T0 + s > OM
			}
		}
	}
	print "# EOF" > OM
	# scrapes: every second, each host engine (dated by its scrape line) and DCGM
	# exporter (its instance from the scrape line, each sample with its own timestamp)
	if (NOSCR == "om-only") exit 0
	for (s = 0; s < S; s++) for (h = 1; h <= H; h++) {
		for (k = 0; k < 6; k++) C[k] = CH[h, k]
		if (engine_up(h, s) || s == 0) advance(h, s)
		for (k = 0; k < 6; k++) CH[h, k] = C[k]
		if (engine_up(h, s) && h == 3) {
			printf "# wattcast-scrape %d h%d:30000\n", T0 + s, h > SC
			for (e = 1; e <= 8; e++)
				printf "%s{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"%s} %.10g\n", SG[e],
					e == 4 ? ",mode=\"decode\"" : "", value(h, s, e) > SC
			printf "sglang:realtime_tokens_total{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"," \
				"mode=\"prefill_compute\"} %.10g\n", 7 * C[0] > SC
		} else if (engine_up(h, s)) {
			printf "# wattcast-scrape %d h%d:8000\n", T0 + s, h > SC
			for (e = 1; e <= (h == 2 ? 10 : 8); e++)
				printf "%s{model_name=\"Qwen/Qwen3-8B\",engine=\"0\"} %.10g\n", EN[e],
					value(h, s, e) > SC
		}
		printf "# wattcast-scrape %d dcgm-h%d:9400\n", T0 + s, h > SC
		for (g = 0; g < G; g++) if (gpu_up(h, g, s))
			printf "%s} %.1f %d000\n", dcgm(h, g), power(h, g, s), T0 + s > SC
	}
}'
