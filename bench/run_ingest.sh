#!/bin/sh
# Benchmark (not a test): `wattcast metrics` on synthetic nvidia-smi logs
# (8 GPUs, 100 ms) against pandas read_csv + to_datetime (Debian's
# python3-pandas, /usr/bin/python3) in the same run, at several file sizes,
# to show both the speed ratio and that wattcast's peak RSS does not grow
# with the file. Logs are generated once into $WC_BENCH_DIR (/tmp/wattcast-bench).
#
# usage: sh bench/run_ingest.sh [BUILD_DIR] [SIZE_MB...]     (default: build 256 1024)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
sizes=${*:-256 1024}
dir=${WC_BENCH_DIR:-/tmp/wattcast-bench}
py=/usr/bin/python3
if [ ! -x "$build/wattcast" ]; then
	echo "run_ingest: $build/wattcast not found; build first (cmake --build $build)" >&2
	exit 2
fi
if ! $py -c 'import pandas' 2>/dev/null; then
	echo "run_ingest: $py has no pandas (apt-get install python3-pandas)" >&2
	exit 2
fi
mkdir -p "$dir"

# measure OUT CMD...: wall seconds and peak RSS (MB) of CMD into OUT.
measure() {
	out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$out.t" "$@" >"$out.log" 2>&1
		awk '{ printf "%s %.1f\n", $1, $2 / 1024 }' "$out.t" >"$out"
	else
		# No GNU time: the children's getrusage, from Python.
		$py -c 'import resource, subprocess, sys, time
t = time.time(); subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + ".log", "w"), check=True)
print("%.2f %.1f" % (time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))' \
			"$out" "$@" >"$out"
	fi
}

echo "load average (uptime): $(uptime | sed 's/.*load average: //') (goal: ratio >= 20x at flat RSS)"
printf '%-8s %-10s %10s %12s %10s %12s %8s\n' size_mb lines wattcast_s wattcast_mb pandas_s pandas_mb ratio
for mb in $sizes; do
	f="$dir/nvsmi_${mb}mb.csv"
	bytes=$((mb * 1048576))
	if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -lt "$bytes" ]; then
		$py bench/gen_nvsmi.py "$f" "$bytes" 8 100 >&2
	fi
	cat "$f" >/dev/null # same page-cache state for both
	measure "$dir/wc.$mb" "$build/wattcast" metrics "$f" --json
	measure "$dir/pd.$mb" $py bench/peer_pandas_ingest.py "$f"
	read -r wt wm <"$dir/wc.$mb"
	read -r pt pm <"$dir/pd.$mb"
	lines=$(wc -l <"$f")
	ratio=$(awk -v a="$pt" -v b="$wt" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
	printf '%-8s %-10s %10s %12s %10s %12s %7sx\n' "$mb" "$lines" "$wt" "$wm" "$pt" "$pm" "$ratio"
done
if [ -x "$build/bench/bench_ingest" ]; then
	last=$(echo $sizes | awk '{ print $NF }')
	echo "library path on the ${last} MB log (bench_ingest):"
	"$build/bench/bench_ingest" "$dir/nvsmi_${last}mb.csv"
fi
