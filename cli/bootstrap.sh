#!/bin/sh
# The README's two commands. On a fresh Debian 12 machine each installs the
# Debian packages it is missing (apt-get, via sudo when not root), builds,
# and then:
#   cli/bootstrap.sh main   runs the main job on the embedded default
#   cli/bootstrap.sh test   runs the whole test suite, then again under
#                           AddressSanitizer + UndefinedBehaviorSanitizer
set -eu
cd "$(dirname "$0")/.."

PACKAGES="build-essential cmake pkg-config libgsl-dev liblapacke-dev libopenblas-dev
libjansson-dev libcivetweb-dev libcurl4-openssl-dev curl help2man"
# Only the test command needs these: chromium runs the planner page's
# browser test (label browser; skipped with a message without it);
# prometheus (with promtool) serves the fleet-ingest test's TSDB
# (tests/test_prometheus_fleet.c, docs/fleet.md); procps and systemd let
# test_install verify the service unit (/bin/kill, systemd-analyze).
TEST_PACKAGES="chromium prometheus procps systemd"

install_missing() {
	missing=""
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "bootstrap: installing$missing"
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing
}

# Redocly CLI (npm) lints the OpenAPI document in test_openapi_lint; the
# version is pinned so that the ruleset does not move under the tests.
REDOCLY_VERSION=2.77.0
install_redocly() {
	[ -x build/tools/node_modules/.bin/redocly ] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "bootstrap: npm not found: the OpenAPI lint test will be skipped"
		return 0
	fi
	npm install --prefix build/tools --no-audit --no-fund --silent "@redocly/cli@$REDOCLY_VERSION" ||
		echo "bootstrap: could not install Redocly CLI: the OpenAPI lint test will be skipped"
}

jobs=$(nproc 2>/dev/null || echo 2)

build() { # build DIR CMAKE_ARGS...
	dir=$1
	shift
	cmake -S . -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j"$jobs"
}

case "${1:-}" in
main)
	install_missing
	build build -DCMAKE_BUILD_TYPE=Release
	exec sh cli/main-job.sh build/wattcast
	;;
test)
	PACKAGES="$PACKAGES $TEST_PACKAGES"
	install_missing
	build build -DCMAKE_BUILD_TYPE=Release
	install_redocly
	(cd build && ctest --output-on-failure -j"$jobs")
	# The statistical coverage run (label slow) is skipped under the
	# sanitizers: it is the same code path, ten times slower.
	build build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWC_SANITIZE=ON
	(cd build-asan && ctest --output-on-failure -j"$jobs" -LE slow)
	;;
*)
	echo "usage: sh cli/bootstrap.sh main|test" >&2
	exit 2
	;;
esac
