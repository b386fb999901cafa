#!/bin/sh
# Replays fuzz corpora of the HTTP harnesses against the real server
# (docs/architecture.md, "Fuzzing"): the harnesses call the route's answer
# function in process, on a big stack, so a handler that overflows
# CivetWeb's small worker stack (server/server_internal.h) is invisible to
# them. This posts every file of each corpus to `wattcast serve` on a free
# port and checks, per request, that an answer came (HTTP status of the
# API's list) with a JSON body, and at the end that the server is alive.
# usage: sh bench/fuzz_serve_replay.sh [WATTCAST] CORPUS_DIR...
#   a CORPUS_DIR named *http_batch* is posted to /v1/predict/batch,
#   anything else to /v1/predict/inference.
# Exit 0 when every answer was well-formed and the server survived.
set -eu
bin=build/wattcast
if [ $# -gt 0 ] && [ -x "$1" ] && [ ! -d "$1" ]; then
	bin=$1
	shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [WATTCAST] CORPUS_DIR..." >&2; exit 2; }
command -v curl >/dev/null && command -v jq >/dev/null || { echo "needs curl and jq" >&2; exit 2; }
tmp=$(mktemp -d)
"$bin" serve --listen 127.0.0.1:0 --threads 4 >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
i=0
while ! grep -q '127.0.0.1:' "$tmp/serve.out" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "server did not start: $(cat "$tmp/serve.err")" >&2; exit 1; }
	sleep 0.1
done
base=http://$(grep -o '127.0.0.1:[0-9]*' "$tmp/serve.out" | head -n1)
total=0 bad=0
for dir in "$@"; do
	case $dir in *http_batch*) route=/v1/predict/batch ;; *) route=/v1/predict/inference ;; esac
	n=0 nbad=0
	for f in "$dir"/*; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		code=$(curl -s -m 30 -o "$tmp/body" -w '%{http_code}' -H 'Content-Type: application/json' \
			--data-binary @"$f" "$base$route" || echo 000)
		case $code in 200|400|404|413|415|422|503) ok=1 ;; *) ok=0 ;; esac
		if [ $ok -eq 1 ] && ! jq -e . "$tmp/body" >/dev/null 2>&1; then ok=0; fi
		if [ $ok -eq 0 ]; then
			nbad=$((nbad + 1))
			echo "BAD $code $f" >&2
			kill -0 $pid 2>/dev/null || { echo "server died on $f: $(tail -n3 "$tmp/serve.err")" >&2; exit 1; }
		fi
	done
	printf '%-50s %s %6d requests %4d bad\n' "$dir" "$route" $n $nbad
	total=$((total + n))
	bad=$((bad + nbad))
done
alive=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$base/v1/health" || echo 000)
printf 'replayed %d requests: %d bad; server alive: %s\n' $total $bad "$([ "$alive" = 200 ] && echo yes || echo no)"
[ $bad -eq 0 ] && [ "$alive" = 200 ]
