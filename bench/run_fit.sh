#!/bin/sh
# Fit benchmark: wattcast's bootstrap of the inference law against SciPy's
# least_squares(method="lm") on the same rows, resamples and start, in the
# same run. Needs Debian's python3-scipy (/usr/bin/python3).
#   sh bench/run_fit.sh [BUILD_DIR] [B]
set -eu
build=${1:-build}
B=${2:-1000}
here=$(cd "$(dirname "$0")" && pwd)
runs="$here/../data/default/paper-design-seed42.csv"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bench/bench_fit" "$runs" "$B" 2 42 "$out/fit" | tee "$out/c.txt"
/usr/bin/python3 "$here/peer_scipy_fit.py" "$out/fit" | tee "$out/py.txt"
c1=$(sed -n 's/^WATTCAST_SECONDS_1 //p' "$out/c.txt")
c2=$(sed -n 's/^WATTCAST_SECONDS_T //p' "$out/c.txt")
p1=$(sed -n 's/^SCIPY_SECONDS_1 //p' "$out/py.txt")
p2=$(sed -n 's/^SCIPY_SECONDS_2 //p' "$out/py.txt")
echo "load average (uptime): $(uptime | sed 's/.*load average: //')"
echo "ratio, 2 threads vs SciPy in 2 processes: $(echo "$p2 / $c2" | bc -l | cut -c1-6)x faster"
echo "ratio, 1 thread vs SciPy in 1 process:    $(echo "$p1 / $c1" | bc -l | cut -c1-6)x faster (goal: >= 10x)"
fd=$(sed -n 's/^SCIPY_SECONDS_FD //p' "$out/py.txt")
echo "(context) 2 threads vs SciPy with its default finite-difference Jacobian, 1 process: $(echo "$fd / $c2" | bc -l | cut -c1-6)x"
echo "interval agreement, wattcast vs SciPy 95 % bounds (relative difference; a weakly"
echo "identified parameter such as the locked-clock theta has no stable bound):"
paste -d, "$out/fit.intervals.csv" "$out/fit.scipy_intervals.csv" | awk -F, '
	{ m = 0; for (i = 2; i <= 3; i++) { a = $i; b = $(i + 3); d = (a - b) / (b == 0 ? 1 : b); d = d < 0 ? -d : d; if (d > m) m = d }
	  printf "  %-28s %.2g\n", $1, m }'
