#!/bin/sh
# The byte-identical check: runs a fixed list of wattcast commands and keeps
# everything they print and write, so that two builds (before and after a
# refactoring) can be compared file by file. docs/architecture.md#the-byte-identical-check
#
#   sh bench/golden.sh run WATTCAST_BIN OUT_DIR [SHARED_DIR]
#   sh bench/golden.sh compare OUT_DIR_A OUT_DIR_B
#   sh bench/golden.sh list
#
# run: executes every command of the list below in OUT_DIR (created; must not
# exist yet) with relative paths only, so that the outputs do not depend on
# where the repository or the build sits. Per command NN-name it keeps
# NN-name.out (stdout), NN-name.err (stderr), NN-name.rc (exit status) and the
# files it writes (parameter files, runs tables, per-run CSVs, SVGs), all named
# NN-name.*. Inputs come from this repository's data/default/ and from
# SHARED_DIR (default: ../shared/data/real beside the repository); the commands
# on real data are left out, and listed as skipped, when it is absent.
# compare: lists every file of both folders and whether it is identical,
# differs (with the first lines of the difference) or is missing on one side;
# exit 0 only when everything is identical.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)

# The list: NAME|needs|COMMAND. needs = "-" (always) or "real" (SHARED_DIR).
# $W is the binary; in/ the embedded inputs; real/ the shared real data.
# SOURCE_DATE_EPOCH pins created_utc in every written parameter file.
golden_list() {
	cat <<'EOF'
predict-h200|-|$W predict inference --platform H200 --model Qwen3-14B --concurrency 32
predict-h200-json|-|$W predict inference --platform H200 --model Qwen3-14B --concurrency 32 --json
predict-capacity|-|$W predict inference --platform H200 --model Qwen3-14B --concurrency 32 --input-tokens 500 --output-tokens 512 --price-per-kwh 0.15 --grams-co2-per-kwh 400
predict-capacity-json|-|$W predict inference --platform H200 --model Qwen3-14B --concurrency 32 --input-tokens 500 --output-tokens 512 --price-per-kwh 0.15 --grams-co2-per-kwh 400 --json
fit-capacity|-|$W fit capacity in/published-periods.csv --bootstrap 1000 --seed 42 --threads 2 -o NN.json
predict-powercap|-|$W predict inference --platform H100 --model Qwen3-14B --concurrency 32 --input-tokens 512 --output-tokens 256 --power-cap 450
predict-powercap-json|-|$W predict inference --platform H100 --model Qwen3-14B --concurrency 32 --input-tokens 512 --output-tokens 256 --power-cap 450 --json
flexibility|-|$W predict flexibility --platform H100 --model Qwen3-14B --concurrency 32 --input-tokens 512 --output-tokens 256 --svg NN.svg
flexibility-json|-|$W predict flexibility --platform H100 --model Qwen3-14B --concurrency 32 --input-tokens 512 --output-tokens 256 --json
fit-inference|-|$W fit inference in/paper-design-seed42.csv -o params.json --bootstrap 1000 --seed 42 --threads 2 --name default
fit-inference-t1|-|$W fit inference in/paper-design-seed42.csv -o NN.json --bootstrap 200 --seed 7 --threads 1 --form saturating
validate-forms|-|$W validate forms in/paper-design-seed42.csv
validate-forms-json|-|$W validate forms in/paper-design-seed42.csv --json
validate-precision|-|$W validate precision in/paper-design-seed42.csv
validate-heldout|-|$W validate heldout --params params.json in/paper-design-seed42.csv --per-run NN.csv
validate-heldout-paper|-|$W validate heldout --profile paper in/paper-design-seed42.csv --per-run NN.csv --json
validate-lomo|-|$W validate lomo in/paper-design-seed42.csv
fit-intervals|-|$W fit intervals in/paper-design-seed42.csv --params params.json -o NN.json
predict-params|-|$W predict inference --params params.json --platform H100 --model Qwen3-8B --tp 1 --concurrency 32 --json
predict-prefill|-|$W predict inference --profile paper-prefill --platform A100 --model Qwen3-8B --concurrency 1 --input-tokens 4600 --output-tokens 100 --json
fit-finetune|-|$W fit finetune in/finetune-design-seed42.csv -o ft-params.json --params params.json --bootstrap 1000 --seed 42 --threads 2
validate-finetune|-|$W validate finetune in/finetune-design-seed42.csv --per-run NN.csv
validate-finetune-json|-|$W validate finetune in/finetune-design-seed42.csv --json
predict-finetune|-|$W predict finetune --method qlora --model Llama-3.1-8B --micro-batch 8 --seq-len 1024 --grad-accum 4 --gpus 4 --lora-rank 64 --steps 1000
predict-finetune-json|-|$W predict finetune --params ft-params.json --method qlora --model Llama-3.1-8B --micro-batch 8 --seq-len 1024 --grad-accum 4 --lora-rank 64 --steps 1000 --json
calibrate-finetune|-|$W calibrate finetune in/finetune-design-seed42.csv -o NN.json --params ft-params.json --seed 1 --bootstrap 200
calibrate-model|-|$W calibrate --profile paper in/paper-design-seed42.csv -o NN.json --model Qwen3-8B --bootstrap 200 --seed 3
simulate-inference|-|$W simulate inference --seed 7 --noise 0.005 -o NN.csv
simulate-finetune|-|$W simulate finetune --seed 42 -o NN.csv
profile-export|-|$W profile export paper -o NN.json
profile-export-default|-|$W profile export default -o NN.json
envelope|-|$W envelope --platform A100 --model Qwen3-8B --poisson 4 --horizon 3600 --replicas 100 --threads 2 --svg NN.svg
envelope-json|-|$W envelope --platform A100 --model Qwen3-8B --poisson 4 --horizon 600 --replicas 20 --threads 2 --fleet 200 --json --csv NN.csv
envelope-budget|-|$W envelope --platform H100 --model Qwen3-8B --poisson 4 --horizon 600 --budget 1000000 --max-fleet 5000 --threads 2
envelope-budget-json|-|$W envelope --platform H100 --model Qwen3-8B --poisson 4 --horizon 600 --budget 1000000 --max-fleet 5000 --threads 2 --json
serve-curl|-|serve_curl params.json
import-mlenergy|real|$W import mlenergy real/mlenergy/configurations_text.csv -o ml.csv
ingest-pts|real|$W ingest real/powertrace-sim -o NN.csv --platform A100 --tp 1 --model Qwen/Qwen3-8B --utc-offset -25200
metrics-json|real|$W metrics real/powertrace-sim/validate_qwen3-8b_a100/a100_validate_tp1_r4p0_b1p0_s20260712_1784415439/power.csv --json
fit-capacity-ml|real|$W fit capacity ml.csv -o NN.json --threads 2 --bootstrap 200 --seed 1
validate-forms-real|real|$W validate forms --real ml.csv --json
validate-lomo-ml|real|$W validate lomo ml.csv --json
validate-capacity-ml|real|$W validate capacity ml.csv --json
fit-intervals-ml|real|$W fit intervals ml.csv --profile paper --folds frozen -o NN.json
fit-response|real|$W fit response real/powertrace-sim -o response.json --platform A100 --model Qwen3-8B --utc-offset -25200 --threads 2 --bootstrap 50
validate-envelope|real|$W validate envelope --profile paper real/powertrace-sim --response loro --platform A100 --model Qwen3-8B --utc-offset -25200 --threads 2 --json --per-run NN.csv
envelope-measured|real|$W envelope --platform A100 --model Qwen3-8B --params response.json --measured real/powertrace-sim/validate_qwen3-8b_a100/a100_validate_tp1_r4p0_b1p0_s20260712_1784415439 --utc-offset -25200 --replicas 20 --threads 2 --json
EOF
}

# The HTTP answers of the frozen set: the server on a free port, three
# requests (inference, batch, fine-tuning), then SIGTERM.
serve_curl() {
	command -v curl >/dev/null 2>&1 || { echo "curl absent"; return 0; }
	log=serve.log
	: >"$log"
	"$W" serve --params "$1" --listen 127.0.0.1:0 >"$log" 2>&1 &
	spid=$!
	port=""
	tries=0
	while [ -z "$port" ] && [ "$tries" -lt 200 ]; do
		port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$log")
		[ -n "$port" ] || { sleep 0.1; tries=$((tries + 1)); }
	done
	[ -n "$port" ] || { kill "$spid"; cat "$log"; return 1; }
	u="http://127.0.0.1:$port"
	h='Content-Type: application/json'
	curl -sS "$u/v1/predict/inference" -H "$h" \
		-d '{"platform":"H100","tp":1,"model":"Qwen3-8B","concurrency":32}'
	echo
	curl -sS "$u/v1/predict/batch" -H "$h" \
		-d '[{"platform":"H200","tp":1,"model":"Qwen3-14B","concurrency":1},{"platform":"H200","tp":1,"model":"Qwen3-14B","concurrency":256}]'
	echo
	curl -sS "$u/v1/predict/finetune" -H "$h" \
		-d '{"method":"qlora","model":"Llama-3.1-8B","micro_batch":8,"seq_len":1024,"grad_accum":4,"lora_rank":64,"steps":1000}'
	echo
	kill -TERM "$spid"
	wait "$spid" || true
	rm -f "$log"
}

golden_run() {
	W=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	out=$2
	shared=${3:-$here/../shared/data/real}
	[ -x "$W" ] || { echo "golden: $W is not an executable" >&2; exit 2; }
	[ ! -e "$out" ] || { echo "golden: $out exists; give a new folder" >&2; exit 2; }
	mkdir -p "$out"
	mkdir "$out/in"
	cp "$here"/data/default/*.csv "$out/in/"
	have_real=0
	if [ -d "$shared/mlenergy" ] && [ -d "$shared/powertrace-sim" ]; then
		have_real=1
		ln -s "$(cd "$shared" && pwd)" "$out/real"
	fi
	cd "$out"
	export SOURCE_DATE_EPOCH=1700000000 TZ=UTC LC_ALL=C
	n=0
	golden_list | while IFS='|' read -r name needs cmd; do
		n=$((n + 1))
		id=$(printf '%02d-%s' "$n" "$name")
		if [ "$needs" = real ] && [ "$have_real" = 0 ]; then
			echo "skipped $id (no real data at $shared)" | tee -a SKIPPED
			continue
		fi
		cmd=$(printf '%s' "$cmd" | sed "s/NN\./$id./g")
		rc=0
		eval "$cmd" >"$id.out" 2>"$id.err" </dev/null || rc=$?
		echo "$rc" >"$id.rc"
		echo "ran $id: exit $rc"
	done
	# Files the list writes under fixed names, kept as the last step's.
	for f in params.json ft-params.json ml.csv response.json; do
		[ ! -f "$f" ] || mv "$f" "zz-$f"
	done
	rm -rf in real
}

# What is not a result is masked: the wall time a budget plan reports
# (`"seconds"` in its JSON, "N s" after "servers simulated") and the time
# of writing in a runs table's first comment line (`ingest`).
golden_mask() {
	sed -E 's/("seconds": )[0-9.eE+-]+/\1WALL/; s/(servers simulated, )[0-9.]+ s$/\1WALL s/
		1s/^(# wattcast [a-z]+ [^,]*, )[0-9T:-]+Z/\1NOW/' "$1"
}

golden_compare() {
	a=$1
	b=$2
	status=0
	ta=$(mktemp)
	tb=$(mktemp)
	for f in $( (cd "$a" && find . -type f; cd "$b" && find . -type f) | sort -u); do
		f=${f#./}
		if [ ! -e "$a/$f" ] || [ ! -e "$b/$f" ]; then
			echo "MISSING   $f (only in $([ -e "$a/$f" ] && echo "$a" || echo "$b"))"
			status=1
			continue
		fi
		golden_mask "$a/$f" >"$ta"
		golden_mask "$b/$f" >"$tb"
		if cmp -s "$ta" "$tb"; then
			echo "identical $f"
		else
			echo "DIFFERS   $f"
			diff "$ta" "$tb" | head -20 | sed 's/^/    /'
			status=1
		fi
	done
	rm -f "$ta" "$tb"
	[ "$status" = 0 ] && echo "golden: every file identical" ||
		echo "golden: differences (above)"
	return "$status"
}

case "${1:-}" in
run) [ $# -ge 3 ] || { echo "usage: $0 run WATTCAST_BIN OUT_DIR [SHARED_DIR]" >&2; exit 2; }
	shift; golden_run "$@" ;;
compare) [ $# -eq 3 ] || { echo "usage: $0 compare DIR_A DIR_B" >&2; exit 2; }
	golden_compare "$2" "$3" ;;
list) golden_list | cut -d'|' -f1,3 | sed 's/|/: /' ;;
*) echo "usage: $0 run WATTCAST_BIN OUT_DIR [SHARED_DIR] | compare DIR_A DIR_B | list" >&2
	exit 2 ;;
esac
