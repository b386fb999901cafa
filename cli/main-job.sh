#!/bin/sh
# The main job on the embedded default, run by `sh cli/bootstrap.sh main`.
# Argument: the wattcast binary.
set -eu
wattcast=$1
echo "== wattcast: mean power from the built-in published profile (Table 13) =="
for gpu in A100 H100 H200; do
	for model in Qwen3-8B Qwen3-14B; do
		"$wattcast" predict inference --platform "$gpu" --model "$model" --tp 1 --concurrency 32
	done
done
"$wattcast" predict inference --platform H200 --model Qwen3-32B --tp 2 --concurrency 128 --weights fp8
