#!/bin/sh
# Scores the inference law's candidate structure terms side by side
# (docs/validation.md, "Candidate terms"): for each candidate, the published
# choice of form (saturating_quadratic_load) with every run in (--terms
# as-bf16) is held out by model and by workload with `validate forms
# --real`, and the median |error| % of mean power is printed per GPU and
# pooled. The prior is the `measured` profile, whose capacity section holds
# the ML.ENERGY tasks' input lengths the prompt share needs (the runs carry
# only output lengths).
# Usage: sh validation/score-law-terms.sh [BUILD_DIR] [SHARED_DIR] [CANDIDATES...]
set -eu
build=${1:-build}
shared=${2:-../shared}
[ $# -ge 2 ] && shift 2 || shift $#
prior=${PRIOR:-paper}
cands=${*:-none arch moe hybrid tp prompt moe,tp moe,prompt tp,prompt moe,tp,prompt}
w="$build/wattcast"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$w" import mlenergy "$shared/data/real/mlenergy/configurations_text.csv" -o "$tmp/ml.csv" >/dev/null
printf '%-18s %9s %9s %9s %9s %9s %9s\n' terms lomo_H100 lomo_B200 lomo_all lowo_H100 lowo_B200 lowo_all
for c in $cands; do
	"$w" validate forms --real "$tmp/ml.csv" --terms as-bf16 --profile "$prior" --law-terms "$c" --json \
		>"$tmp/r.json" 2>/dev/null
	jq -r --arg c "$c" '.forms[] | select(.form == "saturating_quadratic_load") |
		[$c, .lomo.platforms.H100.median_abs_err_pct, .lomo.platforms.B200.median_abs_err_pct,
		 .lomo.median_abs_err_pct, .lowo.platforms.H100.median_abs_err_pct,
		 .lowo.platforms.B200.median_abs_err_pct, .lowo.median_abs_err_pct] |
		"\(.[0]) \(.[1:] | map(. * 100 | round / 100) | join(" "))"' "$tmp/r.json" |
		awk '{ printf "%-18s %9s %9s %9s %9s %9s %9s\n", $1, $2, $3, $4, $5, $6, $7 }'
done
