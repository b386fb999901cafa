#!/bin/sh
# Soak of the REST server (not a test; docs/results.md, "Soak"): measures the
# peak rate of POST /v1/predict/inference with wrk (-t2 -c32, 10 s), then
# loads it at half that rate for SECONDS, one 10-s wrk window after another,
# printing per window the requests per second, p50 and p99 latency, errors
# (socket errors and non-2xx answers) and the server's resident memory. Every
# 30 s the parameter file is swapped (alternating two fitted sets, renamed into
# place) and the server sent SIGHUP: reloads under load. At the end: totals,
# reloads seen, and whether RSS stayed within 10 % after the first minute.
#
#   sh bench/soak.sh [BUILD_DIR] [SECONDS] [PARAMS.json]
#   (defaults: build, 600; the two sets are fitted from the default table with
#   200 bootstrap draws unless PARAMS is given, which is then the first one)
#
# The half rate is paced with wrk's Lua delay() per request and connection
# (a mean of whole milliseconds, corrected after each window by the rate
# achieved), and the achieved rate is printed, not assumed.
# Needs wrk (Debian package wrk). The server runs under `nice`.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
seconds=${2:-600}
params=${3:-}
wattcast=$build/wattcast
command -v wrk >/dev/null 2>&1 || { echo "soak.sh: wrk not found (apt-get install wrk)" >&2; exit 1; }
[ -x "$wattcast" ] || { echo "soak.sh: $wattcast missing; build first" >&2; exit 1; }
tmp=$(mktemp -d /tmp/wattcast-soak.XXXXXX)
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

runs=data/default/paper-design-seed42.csv
if [ -n "$params" ]; then
	cp "$params" "$tmp/a.json"
else
	"$wattcast" fit inference "$runs" -o "$tmp/a.json" --bootstrap 200 --seed 1 --threads 1 >/dev/null 2>&1
fi
"$wattcast" fit inference "$runs" -o "$tmp/b.json" --bootstrap 200 --seed 2 --threads 1 >/dev/null 2>&1
cp "$tmp/a.json" "$tmp/live.json"

nice -n 10 "$wattcast" serve --params "$tmp/live.json" --listen 127.0.0.1:0 \
	>"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.out" | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "soak.sh: the server did not start" >&2; cat "$tmp/serve.err" >&2; exit 1; }
url=http://127.0.0.1:$port/v1/predict/inference

cat >"$tmp/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"platform":"H100","tp":1,"model":"Qwen3-8B","concurrency":32}'
wrk.headers["Content-Type"] = "application/json"
-- wrk's delay() is whole milliseconds: a fractional pace is drawn as its
-- floor or ceiling with the right odds, so the mean delay is the pace.
local pace = tonumber(os.getenv("SOAK_DELAY_MS") or "0")
if pace > 0 then
	local lo = math.floor(pace)
	local p_hi = pace - lo
	function delay()
		if math.random() < p_hi then return lo + 1 end
		return lo
	end
end
function done(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("STATS %d %.3f %d %d %d %d %d %d %d %d\n", summary.requests,
		summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
		e.connect + e.read + e.write + e.status + e.timeout,
		e.connect, e.read, e.write, e.status, e.timeout))
end
LUA

# window DELAY_MS: one 10-s wrk run; prints "requests seconds p50_us p99_us
# errors connect read write status timeout"
window() {
	SOAK_DELAY_MS=$1 wrk -t2 -c32 -d10s -s "$tmp/post.lua" "$url" 2>/dev/null |
		sed -n 's/^STATS //p'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }

set -- $(window 0)
peak=$(awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }')
target=$((peak / 2))
# 32 connections, each waiting `delay` ms (a mean) before its next request;
# after every window the delay is corrected by achieved / target, since
# the answer's own latency adds to it.
delay=$(awk -v t="$target" 'BEGIN { printf "%.3f", 32000 / t }')
echo "peak: $peak req/s (wrk -t2 -c32, 10 s); target $target req/s for $seconds s, SIGHUP every 30 s"
printf '%6s %10s %9s %9s %7s %9s\n' t_s req/s p50_ms p99_ms errors rss_mb

windows=$((seconds / 10))
total=0 errors=0 reloads=0 rss_min=0 rss_max=0 i=0
while [ $i -lt $windows ]; do
	i=$((i + 1))
	set -- $(window "$delay")
	rss=$(rss_kb)
	total=$((total + $1))
	errors=$((errors + $5))
	awk -v t=$((i * 10)) -v n="$1" -v s="$2" -v p50="$3" -v p99="$4" -v e="$5" -v r="$rss" \
		'BEGIN { printf "%6d %10.0f %9.3f %9.3f %7d %9.1f\n", t, n / s, p50 / 1e3, p99 / 1e3, e, r / 1024 }'
	[ "$5" -eq 0 ] || echo "       errors: connect $6, read $7, write $8, status $9, timeout ${10} (wrk's 2 s)"
	delay=$(awk -v d="$delay" -v n="$1" -v s="$2" -v t="$target" \
		'BEGIN { f = (n / s) / t; if (f < 0.5) f = 0.5; if (f > 2) f = 2; d *= f; printf "%.3f", d < 0.05 ? 0.05 : d }')
	# After the first minute (warm-up), RSS must stay within 10 %.
	if [ $i -gt 6 ]; then
		[ "$rss_min" -eq 0 ] || [ "$rss" -lt "$rss_min" ] && rss_min=$rss
		[ "$rss" -gt "$rss_max" ] && rss_max=$rss
	fi
	if [ $((i % 3)) -eq 0 ]; then
		next=$([ $((i / 3 % 2)) -eq 1 ] && echo b || echo a)
		cp "$tmp/$next.json" "$tmp/live.json.new" && mv "$tmp/live.json.new" "$tmp/live.json"
		kill -HUP "$pid"
		reloads=$((reloads + 1))
	fi
done
sleep 1
ok=$(grep -c "reloaded" "$tmp/serve.err" || true)
refused=$(grep -c "reload refused" "$tmp/serve.err" || true)
echo "total: $total requests, $errors errors; $reloads SIGHUPs, $ok reloaded, $refused refused"
if [ "$rss_min" -gt 0 ]; then
	awk -v lo="$rss_min" -v hi="$rss_max" 'BEGIN {
		d = (hi - lo) / lo * 100
		printf "RSS after warm-up: %.1f-%.1f MB (spread %.1f %%): %s\n", lo / 1024, hi / 1024, d,
			d <= 10 ? "flat within 10 %" : "NOT flat"
	}'
fi
