#!/bin/sh
# Measures the memory vLLM keeps per GPU beside the weights and the KV
# cache (the activation workspace of its profiling pass, the CUDA graphs
# and other non-torch memory; docs/capacity.md "Memory as vLLM does it"),
# from real runs, and prints the constant WC_CAPACITY_WORKSPACE_GB of
# models/capacity_model.h.
#
# For each PowerTrace-Sim run folder (manifest.json + engine.csv):
#   blocks    = 1 / the smallest positive gpu_cache_usage_perc (one 16-token
#               block: the engine's warm-up request holds one), kept only
#               when it is a whole number (to 0.01);
#   cache     = blocks x 16 x layers x 2 x kv_heads x head_dim x 2 bytes
#               (bf16 cache, the manifest's architecture);
#   workspace = (G x memory x 0.9 - weights - cache) / G, memory as the
#               driver reports it (wattcast's catalog, via available_gb)
#               and 0.9 vLLM's default gpu_memory_utilization (no
#               manifest sets another), weights the manifest's w_bytes.
# Runs with sliding-window or linear attention are skipped: vLLM sizes
# their cache by another rule. The constant is the median over the
# distinct (platform, model, tp) configurations of each one's median, so
# repeated runs of one configuration count once.
# Usage: sh validation/kv-workspace.sh [BUILD_DIR] [SHARED_DIR]
set -eu
build=${1:-build}
shared=${2:-../shared}
w="$build/wattcast"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find "$shared/data/real/powertrace-sim" -name manifest.json | sort | while read -r m; do
	d=$(dirname "$m")
	[ -f "$d/engine.csv" ] || continue
	info=$(jq -r '[.hardware, .model, (.gpus_per_node // 1), .arch.n_layers, .arch.n_kv, .arch.head_dim,
	               .arch.w_bytes, (.arch.swa_window // 0), (.arch.linear_attention // 0), (.arch.fp8 // 0)] | @tsv' "$m")
	set -- $info
	[ "$8" = 0 ] && [ "$9" = 0 ] && [ "${10}" = 0 ] || continue
	blocks=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "gpu_cache_usage_perc") c = i; next }
	                  c && $c > 0 && (min == "" || $c < min) { min = $c }
	                  END { if (min == "") exit; b = 1 / min; r = int(b + 0.5);
	                        if (b - r < 0.01 && r - b < 0.01) print r }' "$d/engine.csv")
	[ -n "$blocks" ] || continue
	avail=$("$w" predict inference --platform "$1" --model "$2" --tp "$3" --concurrency 1 --input-tokens 16 \
	        --output-tokens 16 --gpu-memory-utilization 0.9 --json | jq -r '.capacity.memory.available_gb')
	awk -v run="$(basename "$d")" -v cfg="$1 $2 tp$3" -v g="$3" -v b="$blocks" -v l="$4" -v k="$5" -v h="$6" \
	    -v wb="$7" -v av="$avail" 'BEGIN {
		cache = b * 16 * l * 2 * k * h * 2 / 1e9
		printf "%s\t%s\t%d blocks\tcache %.3f GB\tweights %.3f GB\tavailable %.3f GB\tworkspace %.3f GB per GPU\n",
		       cfg, run, b, cache, wb / 1e9, av, (av - wb / 1e9 - cache) / g }'
done > "$tmp/runs.tsv"
cat "$tmp/runs.tsv"
[ -s "$tmp/runs.tsv" ] || { echo "kv-workspace: no usable run under $shared/data/real/powertrace-sim" >&2; exit 1; }
# median per configuration, then the median of those
awk -F'\t' '{ split($7, a, " "); v[$1] = v[$1] " " a[2] }
	END { for (c in v) print c "\t" v[c] }' "$tmp/runs.tsv" | while IFS="$(printf '\t')" read -r cfg vals; do
	echo $vals | tr ' ' '\n' | sort -g | awk -v c="$cfg" '{ x[NR] = $1 }
		END { m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2; printf "%s\t%.6f\n", c, m }'
done | sort > "$tmp/cfg.tsv"
cut -f2 "$tmp/cfg.tsv" | sort -g | awk '{ x[NR] = $1 }
	END { m = NR % 2 ? x[(NR + 1) / 2] : (x[NR / 2] + x[NR / 2 + 1]) / 2;
	      printf "configurations %d\nWC_CAPACITY_WORKSPACE_GB %.2f\n", NR, m }'
