#!/bin/sh
# Envelope benchmark: a 1-hour horizon x 100 replicas on 1 and 2 threads in
# the same run (the single-thread run is the peer; both must agree bit for
# bit), and power budget plans up to 1000 servers. Prints wall and CPU
# seconds: on a shared machine the wall time also measures the neighbours.
#   sh bench/run_envelope.sh [BUILD_DIR] [HORIZON_S] [REPLICAS] [THREADS] [MAX_FLEET] [PLAN_HORIZON_S]
set -eu
build=${1:-build}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$build/bench/bench_envelope" "${2:-3600}" "${3:-100}" "${4:-2}" "${5:-1000}" "${6:-600}" > "$out"
cat "$out"
awk '/^ENVELOPE_SECONDS_1/ { s1 = $2 } /^ENVELOPE_SECONDS_T/ { st = $2 }
     END { if (st > 0) printf "speed-up on the threads: %.2fx; goal <= 0.5 s on the threads: %s; goal <= 0.8 s on one (the peer): %s\n",
                              s1 / st, st <= 0.5 ? "met" : "missed", s1 <= 0.8 ? "met" : "missed" }' "$out"
echo "load average while it ran: $(cut -d' ' -f1-3 /proc/loadavg)"
