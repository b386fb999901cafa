#!/bin/sh
# Regenerates the held-out error of the built-in profiles (models/params.c,
# paper_pred_error and paper_quantity_errors; docs/intervals.md, "Built-in
# profiles"): imports the ML.ENERGY table from ../shared, measures each
# frozen profile's mean power on the runs it never saw, and the capacity
# model's latency and energy per output token leaving each model out (and
# latency's datasheet stratum, leaving each platform out). Usage: sh cli/record-pred-error.sh [BUILD_DIR] [SHARED_DIR]
set -eu
build=${1:-build}
shared=${2:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/wattcast" import mlenergy "$shared/data/real/mlenergy/configurations_text.csv" -o "$tmp/ml.csv" >/dev/null
for profile in paper paper-prefill; do
	"$build/wattcast" fit intervals "$tmp/ml.csv" --profile "$profile" --folds frozen -o "$tmp/$profile.json"
	"$build/wattcast" fit intervals "$tmp/ml.csv" --params "$tmp/$profile.json" --folds platform -o "$tmp/$profile.json"
done
"$build/wattcast" fit intervals "$tmp/ml.csv" --quantity capacity --profile paper --plain -o "$tmp/capacity.json"
