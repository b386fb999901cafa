#!/bin/sh
# Screenshots of the planner page (docs/planner.md) at 1280x800 and at a
# 390x844 phone size, written to docs/img/planner-desktop.png and
# docs/img/planner-phone.png. Fits the embedded default table with
# bootstrap draws (so the plots have interval bands), serves it on a free
# loopback port and opens a shared link with a comparison in headless
# Chromium (Debian package chromium). Never run by ctest.
#   sh docs/screenshots.sh [path/to/wattcast]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/wattcast}
chromium=${WC_CHROMIUM:-/usr/bin/chromium}
[ -x "$bin" ] || { echo "screenshots: no $bin (build first)" >&2; exit 1; }
[ -x "$chromium" ] || { echo "screenshots: no Chromium at $chromium (apt-get install chromium)" >&2; exit 1; }

tmp=$(mktemp -d)
server=""
cleanup() {
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

"$bin" fit inference data/default/paper-design-seed42.csv -o "$tmp/params.json" \
	--bootstrap 200 --seed 42 >/dev/null
# Served from its folder, so the page names it "params.json".
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
(cd "$tmp" && exec "$bin" serve --params params.json --listen 127.0.0.1:0) >"$tmp/serve.out" 2>&1 &
server=$!
port=""
for _ in $(seq 50); do
	port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/serve.out")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "screenshots: the server did not start" >&2; cat "$tmp/serve.out" >&2; exit 1; }

link="http://127.0.0.1:$port/?platform=H200&model=Qwen3-8B&concurrency=32&input_tokens=512&output_tokens=512"
link="$link&cmp=platform:H100;model:Qwen3-8B&cmp=platform:A100;model:Qwen3-8B"
link="$link&cmp=platform:H200;model:Qwen3-32B;tp:2"

mkdir -p docs/img
shot() { # shot NAME WIDTH HEIGHT
	"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile-$1" --hide-scrollbars --virtual-time-budget=10000 \
		--window-size="$2,$3" --screenshot="docs/img/planner-$1.png" "$link" >/dev/null 2>&1
	echo "docs/img/planner-$1.png ($2x$3)"
}
shot desktop 1280 800
shot phone 390 844
