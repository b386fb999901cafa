#!/bin/sh
# Regenerates the built-in `measured` profile (models/profile_measured.c;
# docs/fitting.md, "The measured profile") with the built wattcast, on every
# real measurement the repository can use, deterministically (seed 42):
#   1. the inference law on the ML.ENERGY v3 subset, every run in (quantized
#      ones without a precision term) with the structure terms MoE and
#      log TP: the held-out scores chose both, docs/validation.md
#      "Candidate terms"; P0 of H100 from the paper's Table 13 (the prior),
#      of B200 estimated from its board limit;
#   2. A100 and H200 levels from the paper's published law as observations:
#      its runs at the published design (data/default/paper-design-seed42.csv, drawn --uncapped,
#      simulated from Table 13), calibrated at platform scope relative to
#      H100 (the design's offsets of A100 and H200 from its H100, added to
#      step 1's H100; docs/calibration.md "Relative to a level") with the
#      shared slopes of step 1 held; then A100's P0 replaced by the real
#      A100 boards' idle: the PowerTrace-Sim A100 runs' measured idle
#      (each run's by ingest's rule, docs/trace-metrics.md "Idle power"),
#      pooled as `calibrate --scope platform` pools a new level's P0 (the
#      P0 of that calibration, its S and theta not kept; docs/fitting.md,
#      "The measured profile"); H200 keeps the design's simulated idle
#      (no real H200 run exists);
#   3. the capacity section on the PowerTrace-Sim runs (their TTFT/ITL), the
#      ML.ENERGY table and the published periods, Huber-weighted (the
#      default of `fit capacity`, chosen by held-out scores:
#      docs/capacity.md "Robust fit");
#   4. the held-out error of mean power, leaving each ML.ENERGY model out,
#      its datasheet stratum (leaving each platform out), and the capacity
#      model's held-out error of latency and energy per output token on the
#      capacity fit's own inputs, leaving each model out.
# Usage: sh validation/refit-measured.sh [BUILD_DIR] [SHARED_DIR] [OUT.json]
# then `jq -r -f validation/measured-to-c.jq OUT.json` prints the constants
# of models/profile_measured.c. Takes about 40 s on 2 cores; needs jq (it
# puts A100's measured P0 into the set of step 2).
# OpenBLAS picks its kernels by CPU, and their rounding moves the point
# estimates in their 8th-9th digit and the bootstrap's replicates with them:
# with the AVX-512 (SkylakeX) kernels the capacity section's gpqa input ci95
# upper end is 620.01 tokens and H100's t0 lower 5.548e-4 s, against the
# 545.84 and 5.380e-4 of the built-in profile, made with the Haswell (AVX2)
# kernels (docs/fitting.md, "The measured profile"). Those are pinned where
# the CPU has AVX2 and the BLAS is OpenBLAS; it says so on stderr.
set -eu
if ! command -v jq >/dev/null 2>&1; then
	echo "refit-measured.sh: jq not found; install it (Debian: apt-get install jq)" >&2
	exit 1
fi
build=${1:-build}
shared=${2:-../shared}
out=${3:-measured.json}
here=$(cd "$(dirname "$0")/.." && pwd)
w="$build/wattcast"
core=
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
	core=$(OPENBLAS_VERBOSE=2 OPENBLAS_CORETYPE=Haswell "$w" --version 2>&1 | sed -n 's/^Core: //p')
fi
if [ "$core" = Haswell ]; then
	OPENBLAS_CORETYPE=Haswell
	export OPENBLAS_CORETYPE
	echo "refit-measured.sh: OpenBLAS kernels pinned to Haswell, the built-in profile's" >&2
else
	echo "refit-measured.sh: warning: OpenBLAS's Haswell kernels not available here (no AVX2, or another" \
		"BLAS): interval ends may differ from the built-in profile's by several % of their width" >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
design="$here/data/default/paper-design-seed42.csv"
common="--seed 42 --threads 2"
"$w" import mlenergy "$shared/data/real/mlenergy/configurations_text.csv" -o "$tmp/ml.csv" >/dev/null
"$w" fit inference "$tmp/ml.csv" -o "$tmp/s1.json" --profile paper --terms as-bf16 --law-terms moe,tp \
	--bootstrap 200 $common --name measured
"$w" calibrate --params "$tmp/s1.json" "$design" -o "$tmp/s2.json" --scope platform --platform A100 \
	--relative-to H100 $common
"$w" calibrate --params "$tmp/s2.json" "$design" -o "$tmp/s3d.json" --scope platform --platform H200 \
	--relative-to H100 $common
"$w" ingest "$shared/data/real/powertrace-sim" -o "$tmp/pts.csv" --platform A100 --tp 1 \
	--model Qwen/Qwen3-8B --utc-offset -25200 --quiet >/dev/null 2>&1
# A100's idle: a platform-scope calibration on the real runs over step 1's
# set, which has no A100 level; only its P0 (source measured) is kept.
"$w" calibrate --params "$tmp/s1.json" "$tmp/pts.csv" -o "$tmp/idle.json" --scope platform --platform A100 \
	--bootstrap 0 $common >/dev/null
# The rows that idle came from are recorded (provenance idle_row_hashes):
# scored later, their P0 is in-sample (docs/validation.md).
jq --slurpfile idle "$tmp/idle.json" \
	'(.levels[] | select(.name == "A100") | .p0_w) = ($idle[0].levels[] | select(.name == "A100") | .p0_w)
	 | .provenance.idle_row_hashes = $idle[0].provenance.calibration.row_hashes' \
	"$tmp/s3d.json" >"$tmp/s3.json"
"$w" fit capacity "$tmp/pts.csv" "$tmp/ml.csv" "$here/data/default/published-periods.csv" \
	-o "$tmp/s4.json" --params "$tmp/s3.json" --bootstrap 200 $common \
	--calibrated-on "PowerTrace-Sim runs, ML.ENERGY v3 subset, published periods"
"$w" fit intervals "$tmp/ml.csv" --params "$tmp/s4.json" --folds model --terms as-bf16 -o "$tmp/s5.json" >/dev/null
"$w" fit intervals "$tmp/ml.csv" --params "$tmp/s5.json" --folds platform --terms as-bf16 -o "$tmp/s6.json" >/dev/null
"$w" fit intervals "$tmp/pts.csv" "$tmp/ml.csv" "$here/data/default/published-periods.csv" \
	--params "$tmp/s6.json" --quantity capacity -o "$out"
