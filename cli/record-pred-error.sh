#!/bin/sh
# Regenerates the held-out error of the built-in profiles (models/params.c,
# paper_pred_error; docs/intervals.md, "Built-in profiles"): imports the
# ML.ENERGY table from ../shared and measures each frozen profile on the
# runs it never saw. Usage: sh cli/record-pred-error.sh [BUILD_DIR] [SHARED_DIR]
set -eu
build=${1:-build}
shared=${2:-../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/wattcast" import mlenergy "$shared/data/real/mlenergy/configurations_text.csv" -o "$tmp/ml.csv" >/dev/null
for profile in paper paper-prefill; do
	"$build/wattcast" fit intervals "$tmp/ml.csv" --profile "$profile" --folds frozen -o "$tmp/$profile.json"
done
