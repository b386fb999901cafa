#!/bin/sh
# Benchmark (not a test): `wattcast ingest --prometheus` on a day of a
# 64-GPU fleet at 1 s (8 hosts x 8 GPUs x 86 400 s, tests/support/
# fleet_openmetrics.sh, loaded into Debian's prometheus by promtool) beside
# `promtool query range` fetching the same nine series, with wall time and
# peak RSS of each, and where the time goes: the server answering the
# queries (curl of the same pages to /dev/null), and wattcast's own parsing
# and windowing (the same pages ingested from saved files). Results in
# docs/results.md (#fleet-ingest-from-prometheus).
#
# usage: sh bench/run_prometheus.sh [BUILD_DIR] [HOSTS GPUS SECONDS]   (default: build 8 8 86400)
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
hosts=${2:-8} gpus=${3:-8} secs=${4:-86400}
dir=${WC_BENCH_DIR:-/tmp/wattcast-bench}/prometheus-$hosts-$gpus-$secs
t0=1767225600
end=$((t0 + secs - 1))
port=${WC_BENCH_PORT:-19390}
url=http://127.0.0.1:$port
for tool in /usr/bin/prometheus /usr/bin/promtool /usr/bin/time curl; do
	command -v "$tool" >/dev/null || { echo "run_prometheus: $tool missing (apt-get install prometheus time curl)" >&2; exit 2; }
done
[ -x "$build/wattcast" ] || { echo "run_prometheus: $build/wattcast not found" >&2; exit 2; }
mkdir -p "$dir"

# measure NAME CMD...: "wall_s peak_rss_mb" of CMD into $dir/NAME.t, its output into NAME.log
measure() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/$name.t" "$@" >"$dir/$name.log" 2>&1
	awk '{ printf "%s %.1f\n", $1, $2 / 1024 }' "$dir/$name.t"
}

if [ ! -d "$dir/tsdb" ]; then
	echo "generating $hosts x $gpus GPUs x $secs s ..." >&2
	sh tests/support/fleet_openmetrics.sh "$hosts" "$gpus" "$secs" "$t0" "$dir" om-only
	promtool tsdb create-blocks-from openmetrics "$dir/fleet.om" "$dir/tsdb" >/dev/null
	rm -f "$dir/fleet.om"
fi
printf 'global:\n  scrape_interval: 1m\n' >"$dir/prometheus.yml"
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/tsdb" \
	--storage.tsdb.retention.time=100y --web.listen-address=127.0.0.1:$port \
	>"$dir/prometheus.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true' EXIT INT TERM
i=0
until curl -sf "$url/-/ready" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] || { echo "run_prometheus: server not ready (see $dir/prometheus.log)" >&2; exit 1; }
	sleep 0.5
done

echo "what                                   wall_s  peak_rss_mb"
r=$(measure ingest "$build/wattcast" ingest --prometheus "$url" --start $t0 --end $end --step 1 \
	-o "$dir/fleet.csv" --verbose --quiet)
echo "wattcast ingest --prometheus           $r"
sed -n 's/^wattcast ingest: query: //p' "$dir/ingest.log" >"$dir/queries.txt"
# promtool query range, the same nine queries (it fetches one range per query:
# up to 11 000 steps, so in pages of 10 000 like wattcast)
cat >"$dir/promtool.sh" <<EOS
while IFS= read -r q; do
	a=$t0
	while [ \$a -le $end ]; do
		b=\$((a + 9999)); [ \$b -le $end ] || b=$end
		promtool query range --start=\$a --end=\$b --step=1s "$url" "\$q" >/dev/null
		a=\$((b + 1))
	done
done <"$dir/queries.txt"
EOS
r=$(measure promtool sh "$dir/promtool.sh")
echo "promtool query range (9 queries)       $r"
# the server's share: the same pages as JSON to disk, through curl
cat >"$dir/curl.sh" <<EOS
n=0
while IFS= read -r q; do
	a=$t0
	while [ \$a -le $end ]; do
		b=\$((a + 9999)); [ \$b -le $end ] || b=$end
		n=\$((n + 1))
		curl -sfG "$url/api/v1/query_range" --data-urlencode "query=\$q" \
			--data-urlencode start=\$a --data-urlencode end=\$b --data-urlencode step=1 \
			-o "$dir/page\$(printf %04d \$n).json"
		a=\$((b + 1))
	done
done <"$dir/queries.txt"
EOS
r=$(measure curl sh "$dir/curl.sh")
echo "curl, the same pages to JSON files     $r"
set -- "$build/wattcast" ingest --quiet -o "$dir/files.csv"
for f in "$dir"/page*.json; do set -- "$@" --prometheus-json "$f"; done
r=$(measure files "$@")
echo "wattcast ingest --prometheus-json      $r"
echo "json bytes: $(cat "$dir"/page*.json | wc -c); rows: $(($(grep -vc '^#' "$dir/fleet.csv") - 1))"
rm -f "$dir"/page*.json
