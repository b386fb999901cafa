#!/bin/sh
# Fig. 29 of the paper from a profile (docs/capacity.md, "Published checks
# from real runs"): Qwen3-8B and Qwen3-14B at TP 1, 32 running, 512 output
# tokens, at prompts of 256, 512 and 1024 tokens; the signed error % of the
# two models' mean latency and mean energy per output token against the
# caption's pooled values (A100 10.1 s / 0.22 J, H100 5.5 s / 0.19 J, H200
# 4.2 s / 0.16 J). Usage: sh validation/capacity-fig29.sh [WATTCAST] [-- PREDICT FLAGS]
# e.g. `--params cap.json`; default: the built-in default profile.
set -eu
w=${1:-build/wattcast}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
echo "platform prompt latency_err_pct energy_per_token_err_pct"
for spec in A100:10.1:0.22 H100:5.5:0.19 H200:4.2:0.16; do
	plat=${spec%%:*}
	rest=${spec#*:}
	lat=${rest%%:*}
	ept=${rest#*:}
	for len in 256 512 1024; do
		sl=0
		se=0
		for m in Qwen3-8B Qwen3-14B; do
			j=$("$w" predict inference --platform "$plat" --model "$m" --tp 1 --concurrency 32 \
				--input-tokens "$len" --output-tokens 512 --json "$@")
			sl=$(printf '%s' "$j" | jq ".capacity.latency_s + $sl")
			se=$(printf '%s' "$j" | jq ".capacity.energy_per_output_token_j + $se")
		done
		echo "$sl $se $lat $ept" | awk -v p="$plat" -v l="$len" \
			'{ printf "%s %s %+.1f %+.1f\n", p, l, 100 * ($1 / 2 / $3 - 1), 100 * ($2 / 2 / $4 - 1) }'
	done
done
