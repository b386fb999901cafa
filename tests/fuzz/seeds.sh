#!/bin/sh
# Build the seed corpora of the fuzz harnesses in OUT/<parser>/ (a temporary
# folder: nothing here is committed). Seeds are the real measured files in
# SHARED/data/real (read in place, copied only into OUT), the project's
# default data and fixtures, files the wattcast binary makes from them, and
# a few small hand-written examples per format. CSVs are cut to their first
# 8 KiB at a line boundary (large logs would slow every execution); other
# seeds are kept whole, and bench/fuzz.sh sizes -max_len from the largest.
#
# usage: sh tests/fuzz/seeds.sh OUT [SHARED] [WATTCAST]
set -eu
out=$1
shared=${2:-../shared}
wattcast=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
real=$shared/data/real
for p in runs_table params nvsmi engine requests_json requests_csv manifest_powertrace \
         manifest_run mlenergy http_predict http_batch prom_text prom_json; do
	mkdir -p "$out/$p"
done

# head8k FILE DEST: the first lines of FILE that fit in 8 KiB.
head8k() {
	python3 - "$1" "$2" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
if len(data) > 8192:
    data = data[:8192]
    data = data[:data.rfind(b'\n') + 1]
open(sys.argv[2], 'wb').write(data)
PY
}

n=0
seed() { # seed PARSER: stdin -> a new seed file
	n=$((n + 1))
	cat > "$out/$1/hand-$n"
}

# ---- real measured files, in place
if [ -d "$real" ]; then
	for f in $(find "$real" -name power.csv | sort); do
		n=$((n + 1)); head8k "$f" "$out/nvsmi/real-$n"
	done
	for f in $(find "$real" -name engine.csv | sort); do
		n=$((n + 1)); head8k "$f" "$out/engine/real-$n"
	done
	for f in $(find "$real" -name requests.json | sort); do
		n=$((n + 1)); cp "$f" "$out/requests_json/real-$n"
	done
	for f in $(find "$real" -name manifest.json | sort); do
		n=$((n + 1))
		# The harness writes {"manifest_version":2, itself.
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("manifest_version",None); print(json.dumps(d)[1:])' \
			"$f" > "$out/manifest_powertrace/real-$n"
	done
	if [ -f "$real/mlenergy/configurations_text.csv" ]; then
		head8k "$real/mlenergy/configurations_text.csv" "$out/mlenergy/real-configurations"
	fi
else
	echo "seeds: $real not found; real-file seeds left out" >&2
fi

# ---- the project's default data and fixtures
head8k "$src/data/default/paper-design-seed42.csv" "$out/runs_table/default"
cp "$src/tests/fixtures/params/v1-power-law-fit.json" "$out/params/fixture-v1"
if [ -n "$wattcast" ] && [ -x "$wattcast" ]; then
	tmp=$(mktemp -d)
	"$wattcast" fit inference "$src/data/default/paper-design-seed42.csv" -o "$tmp/p.json" \
		--bootstrap 4 --seed 1 --threads 1 >/dev/null 2>&1 && cp "$tmp/p.json" "$out/params/fit-default"
	if [ -f "$real/mlenergy/configurations_text.csv" ] &&
	   "$wattcast" import mlenergy "$real/mlenergy/configurations_text.csv" -o "$tmp/ml.csv" >/dev/null 2>&1; then
		head8k "$tmp/ml.csv" "$out/runs_table/mlenergy-import"
	fi
	rm -rf "$tmp"
fi

# ---- hand-written examples
printf 'run_id,platform,tp,model,active_params_b,n_series,mean_power_w\nr1,H100,1,m,8,s.csv,400\n\000t_s,running\n0,1\n0.05,3\n0.1,2\n' | seed runs_table
printf 'run_id,platform,tp,model,active_params_b,running,mean_power_w,idle_power_w,weights,kv_cache,sm_clock_mhz,set,exclude\n"a,b",A100,2,"x ""y""",70.6,16,900.5,,fp8,bf16,1410,s,\n' | seed runs_table
printf 'timestamp, index, uuid, power.draw [W]\n2026/07/18 16:00:00.000, 0, GPU-a, 100.5 W\n2026/07/18 16:00:00.001, 1, GPU-b, [N/A]\n2026/07/18 16:00:00.100, 0, GPU-a, 110 W\n2026/07/18 16:00:00.101, 1, GPU-b, 111 W\n' | seed nvsmi
printf 'index,timestamp,power.draw\n0,2026-07-18T16:00:00.000,100\n0,2026-07-18T16:00:00.050,101\n0,2026-07-18T16:00:00.100,99\n' | seed nvsmi
printf 'timestamp,vllm:num_requests_running,num_requests_waiting,generation_tokens_total\r\n1000.0,1,0,5\r\n1000.5,2,1,9\r\n1001.0,2,0,3\r\n' | seed engine
printf 'arrival_s,completion_s,first_token_s,input_tokens,output_tokens\n1000,1002.5,1000.3,100,20\n1001,1001.5,,N/A,\n# note\n1002,1004,1002.1,50,30\n' | seed requests_csv
printf '{"request_timestamps":[1000,1001.5],"ttfts":[0.2,0.3],"itls":[[0.01,0.02],0.015],"output_lens":[3,4],"input_lens":[10,20],"e2els":[null,1.2]}' | seed requests_json
printf '{"arrival_s":[1,2,3],"e2els":[1,2,3]}' | seed requests_json
printf '"run_id":"r1","platform":"H100","model":"Qwen/Qwen3-8B","tp":2,"weights":"fp8","kv_cache":"bf16","workload":"poisson","request_rate":2.5,"burstiness":1,"utc_offset_s":-25200,"sm_clock_mhz":null,"idle_window":{"start_epoch":1000,"end_epoch":1060},"gpu_uuids":["GPU-a","GPU-b"]}' | seed manifest_run
printf '"architecture":"moe","active_params_b":3.3,"total_params_b":30,"concurrency":16,"workload":"closed","power_epoch_offset_s":0.5,"engine_epoch_offset_s":null,"requests":100}' | seed manifest_run
printf '"run_id":"x","hardware":"A100","tp":1,"model":"Qwen/Qwen3-8B","arch":{"n_active":8e9,"moe_frac":0,"fp8":0},"clock":{"power_timestamp_basis":"local_wall_time","local_utc_offset_s":-25200,"engine_timestamp_basis":"unix_epoch"},"server":{"kv_cache_dtype":"auto","active_gpu_uuids":["GPU-a"]},"probe":{"type":"trace_replay","idle_window":{"start_epoch":1,"end_epoch":2},"levels":[{"params":{"request_rate":2.5,"burstiness":4},"summary":{"completed":10}}]}}' | seed manifest_powertrace
printf '{"platform":"H100","tp":1,"model":"Qwen3-8B","concurrency":32}' | seed http_predict
printf '{"platform":"A100","tp":2.0,"active_params_b":70.6,"running_series":[0,1,2.5,3,3,8],"dt_s":0.05,"weights":"fp8","kv_cache":"fp8","sm_clock_mhz":1410}' | seed http_predict
printf '{"platform":"H200","tp":1,"model":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\303\251","concurrency":1,"colour":"\303\251\303\251"}' | seed http_predict
printf '[{"platform":"H100","tp":1,"model":"Qwen3-8B","concurrency":32},{"platform":"H100","tp":0,"active_params_b":8,"concurrency":1},{"platform":"H100-locked","tp":1,"active_params_b":8,"running_series":[1,2],"dt_s":1,"sm_clock_mhz":null},3,{"x":1}]' | seed http_batch
printf '[]' | seed http_batch
printf '# wattcast-scrape 1767225600 h1:8000\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="m",engine="0"} 4\n# wattcast-scrape 2026-01-01T00:00:01Z\nDCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="h1",modelName="NVIDIA H100 80GB HBM3",} 117.4 1767225601000\nx{a="\\"\\\\\\n"} NaN\n' | seed prom_text
printf '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","Hostname":"h1","gpu":"0"},"values":[[1767225600,"117.4"],[1767225601.5,"NaN"],[1767225602,"+Inf"]]}]}}' | seed prom_json
printf '{"status":"error","errorType":"bad_data","error":"parse error"}' | seed prom_json
echo "seeds: $(find "$out" -type f | wc -l) files in $out"
