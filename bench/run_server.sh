#!/bin/sh
# Benchmark of the REST server (not a test): wrk -t2 -c32 against
# POST /v1/predict/inference and against the trivial GET /v1/bench/trivial
# of the same `wattcast serve` process, in the same run; prints both and
# the ratios (goal: >= 0.9 with every capacity field), and the load
# average before and after (the machine may be shared: the ratios, measured
# in the same run, are what compare).
#
#   sh bench/run_server.sh [BUILD_DIR] [SECONDS] [PARAMS.json]
#   (defaults: build, 10, the built-in profile: no bootstrap draws; pass a
#   fitted file such as build/params.json to include the 95 % interval)
#
# Build in Release first (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
# cmake --build build). Needs wrk (Debian package wrk).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
seconds=${2:-10}
command -v wrk >/dev/null 2>&1 || { echo "run_server.sh: wrk not found (apt-get install wrk)" >&2; exit 1; }
for f in "$build/wattcast" "$build/bench/bench_server"; do
	[ -x "$f" ] || { echo "run_server.sh: $f missing; build first" >&2; exit 1; }
done
echo "load average before (uptime): $(uptime | sed 's/.*load average: //')"
"$build/bench/bench_server" "$build/wattcast" "$seconds" ${3:+"$3"}
# One fresh answer alone, in thread CPU time (no sockets; docs/results.md).
[ -x "$build/bench/bench_answer" ] && "$build/bench/bench_answer" 50000
echo "load average after (uptime): $(uptime | sed 's/.*load average: //')"
