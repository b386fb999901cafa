#!/bin/sh
# Fuzz every parser with libFuzzer, one harness at a time (docs/architecture.md,
# "Fuzzing"): builds build-fuzz/ with clang and -fsanitize=fuzzer,address,undefined
# (-DWC_FUZZ=ON), makes the seed corpora in a temporary folder
# (tests/fuzz/seeds.sh: the real files of ../shared/data/real, the default data,
# hand-written examples; plus the committed corpus tests/fuzz/seeds/<parser>/,
# which ctest checks parses), runs each tests/fuzz/fuzz_<parser> for SECONDS
# (niced, -jobs=1 -workers=1: the machine is shared) with its dictionary and a
# -max_len sized from its seeds (the largest seed, at least 8192 bytes: a seed
# cut at -max_len never parses, and the fuzzer then stays in the parser's first
# lines), and prints executions, executions per second, coverage (edges: "cov"
# in libFuzzer's last status line), the max_len used and findings per parser.
# Every crash, leak,
# timeout or out-of-memory input is copied to tests/fuzz/regressions/<parser>/,
# which ctest replays on the normal build (test_fuzz_replay_<parser>).
#
# usage: sh bench/fuzz.sh [SECONDS_PER_PARSER] [PARSER...]
#   FUZZ_RUNS=N   also stop a harness after N executions (default: time only)
#   FUZZ_KEEP=DIR keep the corpora and logs in DIR instead of a temporary folder
#   FUZZ_TIMEOUT=S an input running longer than S seconds of wall time is a
#                 finding (default 60: niced on a shared machine, one input of a
#                 committed params seed that replays in 45 ms took over 10 s)
# Needs Debian's clang and libclang-rt-14-dev (apt-get install clang libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
[ $# -gt 0 ] && shift
parsers=${*:-"runs_table params nvsmi engine requests_json requests_csv manifest_powertrace manifest_run mlenergy http_predict http_batch prom_text prom_json"}
runs=${FUZZ_RUNS:--1}
timeout=${FUZZ_TIMEOUT:-60}
shared=${WC_SHARED_DIR:-../shared}

command -v clang >/dev/null || { echo "fuzz.sh: clang not found (apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWC_FUZZ=ON >/dev/null
targets=""
for p in $parsers; do targets="$targets fuzz_$p"; done
# shellcheck disable=SC2086
nice -n 19 cmake --build build-fuzz -j2 --target $targets >/dev/null

work=${FUZZ_KEEP:-$(mktemp -d /tmp/wattcast-fuzz.XXXXXX)}
mkdir -p "$work"
# Seeds made by the binary (a fitted parameter file, an imported table) come
# from the normal build when there is one.
sh tests/fuzz/seeds.sh "$work/seeds" "$shared" "${WATTCAST_BIN:-$root/build/wattcast}" >&2

export OPENBLAS_NUM_THREADS=1
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
printf '%-22s %12s %10s %8s %8s %8s %8s %9s\n' parser execs execs/s seconds edges max_len corpus findings
for p in $parsers; do
	corpus=$work/corpus/$p
	art=$work/artifacts/$p
	mkdir -p "$corpus" "$art"
	cp "$work/seeds/$p/"* "$corpus/" 2>/dev/null || true
	cp "tests/fuzz/seeds/$p/"* "$corpus/" 2>/dev/null || true
	# The largest seed (at least 8 KiB), so no seed is cut short.
	max_len=$(find "$corpus" -type f -exec wc -c {} + | awk '$2 != "total" && $1 > m { m = $1 } END { print (m > 8192 ? m : 8192) }')
	start=$(date +%s)
	(cd "$art" && nice -n 19 "$root/build-fuzz/tests/fuzz/fuzz_$p" -jobs=1 -workers=1 \
		-max_total_time="$seconds" -runs="$runs" -max_len="$max_len" -timeout="$timeout" -rss_limit_mb=2048 \
		-dict="$root/tests/fuzz/$p.dict" -artifact_prefix="$art/" -print_final_stats=1 \
		"$corpus" >/dev/null 2>&1) || true
	elapsed=$(( $(date +%s) - start ))
	log=$art/fuzz-0.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	edges=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$log" | tail -1)
	findings=0
	for f in "$art"/crash-* "$art"/leak-* "$art"/timeout-* "$art"/oom-*; do
		[ -f "$f" ] || continue
		findings=$((findings + 1))
		mkdir -p "tests/fuzz/regressions/$p"
		cp "$f" "tests/fuzz/regressions/$p/"
		echo "fuzz.sh: $p: $(basename "$f") kept in tests/fuzz/regressions/$p/ (log: $log)" >&2
	done
	printf '%-22s %12s %10s %8s %8s %8s %8s %9s\n' "$p" "${execs:-?}" "${rate:-?}" "$elapsed" \
		"${edges:-?}" "$max_len" "$(find "$corpus" -type f | wc -l)" "$findings"
done
[ -n "${FUZZ_KEEP:-}" ] || rm -rf "$work"
