#!/bin/sh
# A power cap's answers: one capacity answer at one locked clock, without
# draws, on every board of the catalog (bench/bench_cap_eval.c), RUNS
# times; the peer, in the same run, is the boards with a level of the set
# (the others are answered from their datasheet). Prints each run's worst
# of both and their ratio, and the worst of all runs: what
# WC_SERVER_BATCH_CHARGE_CAP_EVAL (server/server.h) must cover.
#   sh bench/run_cap_eval.sh [BUILD_DIR] [RUNS] [N]
set -eu
build=${1:-build}
runs=${2:-3}
out=$(mktemp)
trap 'rm -f "$out" "$out.all"' EXIT
i=0
while [ "$i" -lt "$runs" ]; do
	"$build/bench/bench_cap_eval" "${3:-400}" > "$out"
	grep -E '^(CAP_EVAL|datasheet)' "$out"
	cat "$out" >> "$out.all"
	i=$((i + 1))
done
awk '/^CAP_EVAL_US/ { if ($2 > w) w = $2 } END { printf "worst of %d runs: %.2f us an answer, %.0f law evaluations of 50 ns\n", n, w, w / 0.05 }' n="$runs" "$out.all"
rm -f "$out.all"
echo "load average while it ran: $(cut -d' ' -f1-3 /proc/loadavg)"
