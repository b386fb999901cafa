#!/bin/sh
# Crash safety of the writers (not a test; docs/architecture.md, "Files"):
# kill -9 during `wattcast fit -o p.json` and during `wattcast ingest ... -o
# pts.csv`, TRIALS times each -- half at a random moment near the end of the
# run, half the moment a temporary file of the writer appears (in the middle
# of an atomic write) -- and check after every
# kill that the target is old-or-new -- it loads strictly (a torn file would
# not) -- and, after the next complete run, that no temporary file is left:
# the temporaries of killed writers (p.json.tmp.<pid>.XXXXXX) are removed by
# the next writer of the same file.
#
#   sh bench/crash_safety.sh [BUILD_DIR] [TRIALS]      (defaults: build, 30)
#
# Ingest reads the PowerTrace-Sim runs of ../shared/data/real in place
# (WC_SHARED_DIR elsewhere); without them only fit is exercised.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
trials=${2:-30}
wattcast=$build/wattcast
shared=${WC_SHARED_DIR:-../shared}
[ -x "$wattcast" ] || { echo "crash_safety.sh: $wattcast missing; build first" >&2; exit 1; }
tmp=$(mktemp -d /tmp/wattcast-crash.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
runs=data/default/paper-design-seed42.csv
failures=0

# How long a complete run takes (ms), to spread the kills over it.
duration_ms() {
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1
	echo $((($(date +%s%N) - s) / 1000000))
}

# kill_during MS CMD...: start CMD, kill -9 it after a random time in
# [0.8, 1.1] x MS ms -- the writes come at the end of a run -- unless it
# finished first; prints "killed" or "finished".
kill_during() {
	max=$1
	shift
	"$@" >/dev/null 2>&1 &
	p=$!
	sleep "$(awk -v m="$max" -v s="$$$(date +%N)" 'BEGIN { srand(s % 100000); printf "%.3f", (0.8 + 0.3 * rand()) * m / 1000 }')"
	if kill -9 "$p" 2>/dev/null; then
		wait "$p" 2>/dev/null || true
		echo killed
	else
		wait "$p" 2>/dev/null || true
		echo finished
	fi
}

# kill_at_write NAME CMD...: start CMD and kill -9 it as soon as one of its
# temporaries (NAME.tmp.<its pid>.*) shows up under $tmp: a kill in the
# middle of an atomic write. Prints "killed" or "finished".
kill_at_write() {
	name=$1
	shift
	"$@" >/dev/null 2>&1 &
	p=$!
	while kill -0 "$p" 2>/dev/null; do
		if [ -n "$(find "$tmp" -name "$name.tmp.$p.*" -print -quit 2>/dev/null)" ]; then
			kill -9 "$p" 2>/dev/null && { wait "$p" 2>/dev/null || true; echo killed; return; }
		fi
	done
	wait "$p" 2>/dev/null || true
	echo finished
}

temporaries() { find "$tmp" -name "$1.tmp.*" | wc -l; }

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# ------------------------------------------------------------------ fit
# (Commands are passed to kill_during as they are, not as shell functions:
# kill -9 must reach wattcast itself, not a subshell around it.)
fit_args="fit inference $runs -o $tmp/p.json --bootstrap 1500 --threads 2 --seed"
# shellcheck disable=SC2086
"$wattcast" $fit_args 1 >/dev/null 2>&1
# shellcheck disable=SC2086
ms=$(duration_ms "$wattcast" $fit_args 2)
killed=0 left=0
for t in $(seq "$trials"); do
	# Odd trials: a random moment near the end; even ones: during the write.
	if [ $((t % 2)) -eq 1 ]; then
		# shellcheck disable=SC2086
		outcome=$(kill_during "$ms" "$wattcast" $fit_args $((t + 2)))
	else
		# shellcheck disable=SC2086
		outcome=$(kill_at_write p.json "$wattcast" $fit_args $((t + 2)))
	fi
	[ "$outcome" = killed ] && killed=$((killed + 1))
	left=$((left + $(temporaries p.json)))
	"$wattcast" predict inference --params "$tmp/p.json" --platform H100 --active-params 8 --tp 1 \
		--concurrency 8 >/dev/null 2>&1 || fail "fit trial $t: p.json does not load after a kill"
done
# shellcheck disable=SC2086
"$wattcast" $fit_args 99 >/dev/null 2>&1 || fail "the final fit failed"
echo "fit: $trials trials ($ms ms per run), $killed killed mid-run; p.json loaded after every one;" \
	"temporaries seen after kills: $left; after the next complete run: $(temporaries p.json)"
[ "$(temporaries p.json)" -eq 0 ] || fail "temporaries of p.json left after a complete run"

# --------------------------------------------------------------- ingest
real=$shared/data/real/powertrace-sim
if [ -d "$real" ]; then
	ingest_args="ingest $real -o $tmp/pts.csv --platform A100 --tp 1 --model Qwen/Qwen3-8B --utc-offset -25200"
	ingest() {
		# shellcheck disable=SC2086
		"$wattcast" $ingest_args
	}
	check() { "$wattcast" validate heldout --profile paper "$tmp/pts.csv"; }
	ingest >/dev/null 2>&1 || fail "the first ingest failed"
	# shellcheck disable=SC2086
	ms=$(duration_ms "$wattcast" $ingest_args)
	killed=0 left=0
	for t in $(seq "$trials"); do
		if [ $((t % 2)) -eq 1 ]; then
			# shellcheck disable=SC2086
			outcome=$(kill_during "$ms" "$wattcast" $ingest_args)
		else
			# shellcheck disable=SC2086
			outcome=$(kill_at_write "*" "$wattcast" $ingest_args)
		fi
		[ "$outcome" = killed ] && killed=$((killed + 1))
		left=$((left + $(find "$tmp" -name '*.tmp.*' | wc -l)))
		check >/dev/null 2>&1 || fail "ingest trial $t: pts.csv or a series file does not load after a kill"
	done
	ingest >/dev/null 2>&1 || fail "the final ingest failed"
	after=$(find "$tmp" -name '*.tmp.*' | wc -l)
	echo "ingest: $trials trials ($ms ms per run), $killed killed mid-run; the table and its series" \
		"loaded after every one; temporaries seen after kills: $left; after the next complete run: $after"
	[ "$after" -eq 0 ] || fail "temporaries left after a complete ingest"
else
	echo "ingest: $real not found; skipped"
fi
[ "$failures" -eq 0 ] && echo "crash safety: ok" || { echo "crash safety: $failures failures"; exit 1; }
