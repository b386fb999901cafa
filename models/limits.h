/*
 * The size and count limits of wattcast in one place, each with its
 * reason (docs/architecture.md, "Limits"). A limit here is what every
 * reader, command and route that takes the quantity enforces; a module
 * keeps a private limit only when it bounds something no other module
 * sees.
 */
#ifndef WC_MODELS_LIMITS_H
#define WC_MODELS_LIMITS_H

/** Longest name of a platform level (runs tables' `platform`, a set's
 *  levels) or of a parameter set, with its NUL: 47 bytes
 *  (docs/formats/runs-table.md). */
#define WC_NAME_MAX 48
/** Longest model name, with its NUL: 95 bytes, whatever the characters
 *  (32 CJK characters are 96 bytes). The runs tables' `model` column
 *  takes it (docs/formats/runs-table.md), and a model term keeps it whole
 *  (docs/calibration.md), so a calibration neither cuts a long name nor
 *  merges two names that differ late. */
#define WC_MODEL_NAME_MAX 96
/** Longest parameter label, with its NUL: the longest label is a model
 *  term's "shift[<model>@<level>]" (docs/formats/params-file.md, "Draws"),
 *  6 + 95 + 1 + 47 + 1 bytes; every other label ("theta[<level>]",
 *  "term[<setting>:<precision>@<level>]", "eta[<level>]", ...) is shorter.
 *  A label names its parameter in `draws.names`, in fits' and
 *  calibrations' reports, so it is never cut. */
#define WC_LABEL_MAX (WC_MODEL_NAME_MAX + WC_NAME_MAX + 8)

/** Bootstrap draws one command may ask for (`--bootstrap` of fit,
 *  calibrate and fit response): a million draws is already far past the
 *  point where a 95 % interval stops moving, and bounds the time and the
 *  memory of a parameter file's draws. */
#define WC_BOOTSTRAP_MAX 1000000

/** The largest whole number a number written with a fraction part or an
 *  exponent (`1e3`, `4.0`) is taken as: 2^53 - 1, below which every whole
 *  number is a double of its own (above it 9007199254740993e0 reads as
 *  ...992). A seed (0 .. 2^63 - 1) above it is exact only in plain digits,
 *  as a JSON integer is over HTTP (docs/cli.md, "Conventions";
 *  docs/http-api.md, "Errors"). */
#define WC_WHOLE_EXACT_MAX 9007199254740991.0
/** Fewest draws whose 2.5th and 97.5th percentiles are draws of their own
 *  (one draw in each 2.5 % tail): below, a "95 %" interval is the draws'
 *  range, and the CLI says so (docs/intervals.md). */
#define WC_BOOTSTRAP_MIN_95 40
/** What follows "--bootstrap N: " (CLI) or "bootstrap: N draws: " (HTTP)
 *  below WC_BOOTSTRAP_MIN_95 draws, with that number as its %d. */
#define WC_BOOTSTRAP_FEW_TEXT \
	"fewer than %d draws give no 2.5 %% tail of their own; the 95 %% intervals are the draws' range, too " \
	"narrow to cover 95 %%"

/** Share of the engine's time in prefill from which an answer of a law
 *  without a prefill term warns that its power is decode's (predict/
 *  predictor.c): a quarter is several times what the decode-dominated
 *  calibration runs (chat prompts of a few hundred tokens) spend there.
 *  Below the level's running span with prompts longer than the set's
 *  workloads' it warns at any share (docs/inference-law.md, "Prefill-aware
 *  form"). */
#define WC_PREFILL_SHARE_WARN 0.25

/** Share by which an open loop's mean power would fall were its counts
 *  above the board's limit held under it, from which the answer warns
 *  (predict/predictor.c, docs/capacity.md "What stays at m"): below a
 *  half percent it is far inside the law's error, and light loads whose
 *  Poisson tail just touches the limit would warn on every answer. */
#define WC_OPEN_LOOP_LIMIT_WARN 0.005

/** The scatter of one run a calibration takes (`--run-scatter`,
 *  `run_scatter`; sd of log dynamic power, docs/calibration.md
 *  "Intervals: the base's draws and the calibration's own scatter").
 *  The optimiser (fit/calibrate_solve.c) differentiates by forward steps of
 *  sqrt(DBL_EPSILON) |x|, about 1.5e-8 in log space for a shift near 1: a
 *  scatter below that moves each run's log power by less than the
 *  optimiser's own probe, so the solve stops at rounding noise (1e-9 did
 *  not converge on two exact runs; at 1e-300 the squared residuals
 *  overflow, at 1e-320 the shift came out 0). 1e-7 keeps a factor of
 *  about 7 above the step. 10 is a factor e^10 = 22000 between two runs
 *  of one setting, past any scatter. */
#define WC_RUN_SCATTER_MIN 1e-7
#define WC_RUN_SCATTER_MAX 10.0

/** Worker threads of the computing commands (`--threads` of fit,
 *  calibrate, envelope, validate envelope): well above any machine's core
 *  count the work would use, low enough that a typo cannot exhaust the
 *  process's thread and stack space. */
#define WC_THREADS_MAX 256

/** Worker threads of `wattcast serve`: each is a CivetWeb worker with its
 *  own stack, and 1024 serves far more connections than one process can
 *  answer at once (docs/http-api.md, "Limits"). */
#define WC_SERVE_THREADS_MAX 1024
/** ...and at least 2: one worker is always the reserve that answers
 *  requests without a body (/v1/health above all) while the others read
 *  bodies or hold kept-alive connections (docs/http-api.md, "Limits"). */
#define WC_SERVE_THREADS_MIN 2

/** A load and the capacity answers' workload (concurrency, rate, tokens
 *  per request): a million sequences at once would need terabytes of KV
 *  cache (the ingest's bound on a running gauge, WC_INGEST_MAX_RUNNING,
 *  too), a million requests per second is far past any serving group,
 *  and 100 M tokens is past every model's context; within them every
 *  latency, throughput and energy stays a finite number. The concurrency
 *  and the rate keep their range whatever else is given: `--concurrency`
 *  and `--rate` of predict, /concurrency and /rate of every route that
 *  takes them, with or without token lengths (a concurrency of 1e300
 *  without them was answered with a power); a running series' samples
 *  (`--running-series`, /running_series, a runs table's n_series) take
 *  the concurrency's bound as WC_RUN_MAX_RUNNING (docs/http-api.md,
 *  "Limits"; docs/cli.md, "predict inference"). */
#define WC_CAPACITY_MAX_CONCURRENCY 1e6
#define WC_CAPACITY_MAX_RATE 1e6
#define WC_CAPACITY_MAX_TOKENS 1e8

/** A run manifest's completed requests (wattcast-run.json's "requests",
 *  a level's "requests", a PowerTrace-Sim summary's "completed"): whole
 *  numbers to 10^9, a thousand requests a second for eleven days, past
 *  any run one engine.csv and power.csv record. A level's token totals
 *  (schema 4, "total_input_tokens", "total_output_tokens") sum its
 *  requests' counts, so they are whole numbers to the most tokens a
 *  request has (WC_CAPACITY_MAX_TOKENS) times this many requests, and
 *  to that many times the level's own requests (wc_run_level_totals_beyond,
 *  data/run_level_totals.c; docs/formats/telemetry.md, "wattcast's own
 *  manifest"). */
#define WC_RUN_MAX_REQUESTS 1e9
#define WC_RUN_MAX_TOTAL_TOKENS (WC_CAPACITY_MAX_TOKENS * WC_RUN_MAX_REQUESTS)
/** How far a level's stated token total may lie from the one the engine's
 *  counters or the request log give (a share of the larger) before ingest
 *  says so: the real PowerTrace-Sim runs' counters exceed their manifests'
 *  totals by 0.04 % (output) and 1.1-1.2 % (input: the chat template's few
 *  tokens a request), so 5 % passes them and names a total of another run
 *  or unit (docs/formats/telemetry.md, "wattcast's own manifest"). */
#define WC_RUN_TOTALS_TOLERANCE 0.05

/** vLLM's gpu_memory_utilization, the engine's share of each GPU's memory:
 *  0.1-1 (docs/http-api.md, docs/cli.md). One check and one message for
 *  every value outside, 0 and negatives too (0 inside a wc_config means
 *  "not given", so the CLI and the API refuse a given 0 when they read it). */
#define WC_GMU_MIN 0.1
#define WC_GMU_MAX 1.0
#define WC_GMU_IN_RANGE(u) ((u) >= WC_GMU_MIN && (u) <= WC_GMU_MAX)
#define WC_GMU_RANGE_TEXT "must be between 0.1 and 1"
/** The least share of a GPU's memory its engine holds (DCGM's
 *  DCGM_FI_DEV_FB_USED), which tells the GPUs of a host an engine runs
 *  on from idle ones (docs/fleet.md, "Grouping"): the engines reserve
 *  their share of each GPU they run on up front, weights and KV cache
 *  (vLLM's gpu_memory_utilization, 0.9 by default and WC_GMU_MIN at
 *  least; SGLang's mem_fraction_static, about 0.9; TGI's
 *  cuda_memory_fraction, 1), while a GPU no engine uses holds the
 *  driver's and at most a stray CUDA context's few hundred MiB, 2 % of
 *  the smallest board of the platform catalog (A10G, 23 028 MiB, whose
 *  tenth is 2303 MiB). Above this share of its board's memory a GPU is
 *  in use; the power of the GPUs drawn is never the test. */
#define WC_FLEET_GPU_IN_USE_SHARE WC_GMU_MIN


/** The smallest positive concurrency and rate (0 stays loaded idle for a
 *  concurrency): the energy per output token and per request divide the
 *  group's power by the throughput, which at a concurrency or rate of
 *  5e-324 is itself a subnormal number, so the quotient overflowed to
 *  infinity and the answer carried null energies. From a millionth of a
 *  request at once (or per second: one request in about 12 days) up,
 *  every energy stays a finite number within the maxima above, and no
 *  serving load is smaller. Checked by `--concurrency` and `--rate` of
 *  predict and by /concurrency and /rate of every route that takes them
 *  (docs/http-api.md, "Limits"; docs/cli.md, "predict inference"). */
#define WC_CAPACITY_MIN_CONCURRENCY 1e-6
#define WC_CAPACITY_MIN_RATE 1e-6

/** The smallest count `metrics` takes for --requests, --output-tokens and
 *  --iterations: the energy per unit divides the log's energy by it, and
 *  a count too small for a double (4e-320) made that quotient infinite
 *  (printed "inf", null in JSON, exit 0). A billionth of a request keeps
 *  every quotient finite for any energy a log holds; no window serves
 *  less (docs/cli.md, "metrics"). */
#define WC_METRICS_MIN_COUNT 1e-9

/** The largest energy price (per kWh, any currency) and carbon intensity
 *  (g/kWh) the cost and CO2 answers take: a price of 1e308 made the
 *  hourly cost overflow to a null, where the schema says number. A
 *  million per kWh is far past any tariff (and 10^6 g/kWh a thousand
 *  times coal's), and keeps every figure finite for a node within
 *  WC_GPU_MAX_POWER_W per GPU (docs/http-api.md, "Limits"). */
#define WC_CAPACITY_MAX_PRICE 1e6
#define WC_CAPACITY_MAX_CO2 1e6

/** GPUs in a serving group (tensor-parallel degree; `--tp`, HTTP `tp`, the
 *  tp of runs tables, manifests, periods and parameter files): the largest
 *  group the law accepts, far past any NVLink or NVSwitch domain, small
 *  enough that the size coordinate log(N / (8 G)) stays finite. */
#define WC_LAW_MAX_TP 4096

/** An inference model's architecture integers (`layers`, `kv_heads`,
 *  `head_dim`, `d_model`, `experts`, `experts_per_token`, `cache_layers`,
 *  `sliding_window`; `--layers` ... `--sliding-window` of predict and the
 *  `architecture` object of the HTTP routes): a million is past every
 *  published model's count of any of them by two orders of magnitude, and
 *  within it the KV cache and weight sizes stay finite numbers. */
#define WC_MODEL_MAX_ARCH_INT 1000000

/** A fine-tuned model's shape (`layers`, `d_model`, the attention counts
 *  and `lora_rank` of a fine-tuning configuration: `predict finetune`,
 *  `ingest finetune`, run manifests, POST /v1/predict/finetune, and
 *  models/finetune.c's check of every configuration): sanity bounds, not physics, each far past any
 *  published model (126 layers, d_model 16 384, rank 256), within which
 *  the step's FLOPs stay finite (docs/finetune.md). */
#define WC_FT_MAX_LAYERS 100000
#define WC_FT_MAX_HEADS 100000
#define WC_FT_MAX_D_MODEL 10000000
#define WC_FT_MAX_LORA_RANK 1000000
/** A fine-tuning configuration's GPUs and data-parallel replicas, and its
 *  micro-batch, sequence length and gradient accumulation (CLI flags and
 *  HTTP fields alike): sanity bounds, not physics (docs/cli.md,
 *  "predict finetune"). */
#define WC_FT_MAX_GPUS 65536
#define WC_FT_MAX_INT 100000000

/** The divisors j of a fine-tuning trace's first period P that the step
 *  search folds the trace at, P / 2 .. P / WC_FT_PERIOD_DIVISORS_MAX
 *  (trace/finetune_period.c, docs/finetune.md "Counting steps"). The fold
 *  at a j-th costs 4 x 16 j folds of the whole trace, so searching every
 *  divisor of a long first period is quadratic in it: an 80-s evaluation
 *  cycle sampled every 0.5 s (160 divisors) ran for hours. The cases the
 *  search is for repeat within a few steps: point samples of 1.55-s steps
 *  repeat every 31 samples at 0.5 s (10 steps) and at 0.25 s (5), 1.3-s
 *  steps at 0.5 s every 13 (5), two steps of four micro-steps every 8
 *  micro-steps; 32 holds a repeat of up to 32 steps or micro-steps (and
 *  every divisor of a period up to 32 samples). Divisors past it are said
 *  in a warning, not searched. */
#define WC_FT_PERIOD_DIVISORS_MAX 32

/** One evaluation of a fine-tuning run (a trainer state's `eval_runtime`,
 *  `eval_<name>_runtime`): at most a week, past any evaluation a Trainer
 *  runs between steps. Beyond it the value is no real one and is refused
 *  with its JSON path (1e300 s printed 300 digits); below it nothing in a
 *  run's files bounds one, as a resumed run keeps a crashed session's
 *  evaluations that its own power log need not hold (those are left
 *  unplaced: docs/formats/finetune-telemetry.md, "Step logs"). */
#define WC_FT_MAX_EVAL_S (7.0 * 86400.0)

/** A model's parameter counts, in billions (active_params_b,
 *  architecture total_params_b; `--active-params`, `--total-params`):
 *  100 000 B is fifty times the largest model published, so no real
 *  model meets it, and within it the weights' bytes, the GPUs they need
 *  and the law's power stay finite numbers; beyond it a request is
 *  refused naming the field, rather than answered with "inf" GB
 *  (docs/http-api.md, "Limits"; docs/cli.md, "predict inference"). */
#define WC_MODEL_MAX_PARAMS_B 1e5
/** ... and at least 1e-4 B (100 000 parameters), a tenth of the smallest
 *  published language model (TinyStories-1M): below it a size is a unit
 *  slip (parameters for billions read the other way), and a calibration
 *  on 1e-50 B ran the model's shift beyond any documented range. */
#define WC_MODEL_MIN_PARAMS_B 1e-4

/** A measured run's load and power: its mean running requests (runs
 *  tables' `running`, the runs of POST /v1/calibrate) at most the capacity
 *  answers' concurrency, for the same reason (a million sequences at once
 *  would need terabytes of KV cache); its power per GPU (runs tables'
 *  `mean_power_w` / tp and `idle_power_w`, the calibration's idle power,
 *  `--idle-power` and `idle_power_w`) at most 5 kW, above any GPU board
 *  made -- the telemetry readers' bound on a power sample
 *  (WC_TELEMETRY_MAX_POWER_W) is this one, and so is a power cap's
 *  (`--power-cap`, /power_cap_w; a cap between the board's limit and this
 *  one is answered with the warning that it cannot bind, docs/capacity.md
 *  "Clocks and power caps"). Beyond, the number is a typo
 *  or a unit slip, not a measurement: a run of 1e300 W was calibrated to
 *  a shift of 9.4 in z with only a ceiling warning, one of 1e300 running
 *  requests without a word. Refused naming the field or the cell
 *  (docs/http-api.md, "Limits"; docs/formats/runs-table.md). */
#define WC_RUN_MAX_RUNNING WC_CAPACITY_MAX_CONCURRENCY
#define WC_GPU_MAX_POWER_W 5000.0
/** No board draws twice its power limit: transients overshoot it for
 *  milliseconds, not twofold. A reading beyond this multiple of the
 *  platform's limit is a bad line (WC_TELEMETRY_POWER_LIMIT_FACTOR,
 *  docs/formats/telemetry.md), and a law's mean power beyond this multiple
 *  of its boards' ceiling is no answer (wc_power_beyond_boards,
 *  docs/intervals.md, "Physical ceiling"). A bound of physics, not a
 *  number tuned to data. */
#define WC_BOARD_LIMIT_MULTIPLE_MAX 2.0
/** ... and, for a fine-tuning run's step (runs tables' energy_per_step_j
 *  over gpus x step_s), at least 1 W per GPU: a GPU at work draws hundreds
 *  of watts and an idle one tens (the catalog's measured idles are 72.9 W
 *  on A100 to 126.3 W on H100, models/platform_catalog.c), so a step's
 *  energy below 1 W per GPU is a unit slip, not a measurement: 0.00001 J
 *  per step for 947 J made `fit finetune` refuse a table of five FLOPs per
 *  GPU as proportional, and 0.01 J fitted e0 = -537 J. A bound of
 *  physics, far under any board's idle, not a number tuned to data
 *  (docs/formats/finetune-runs.md). The same bound holds a run's mean
 *  power per GPU (runs tables' mean_power_w over tp, ingest's runs and
 *  windows: wc_power_under_floor, docs/formats/telemetry.md). */
#define WC_GPU_MIN_POWER_W 1.0

/** A measured run's group throughput (runs tables' `throughput_tok_s`) at
 *  most 10^7 output tokens per second, a hundred times the fastest
 *  serving group published; and its timings (the `itl_s`, `ttft_s` and
 *  ML.ENERGY `median_itl_ms` extras, a periods table's `period_s`) at
 *  most a day. Beyond, the number is a typo or a unit slip: `fit
 *  capacity` fitted a throughput of 1e300 tok/s and a period of 1e300 s
 *  as evidence ("converged in 1 iterations", rms 206 in log time).
 *  Refused at the cell (docs/formats/runs-table.md,
 *  docs/formats/periods-table.md). */
#define WC_RUN_MAX_THROUGHPUT_TOK_S 1e7
#define WC_RUN_MAX_TIME_S 86400.0

/** A measured run's energy per output token (runs tables'
 *  `energy_per_token_j`, J for the whole group of tp GPUs): > 0, since a
 *  token is made by GPUs that draw power, and at most
 *  tp x WC_GPU_MAX_POWER_W x WC_RUN_MAX_TIME_S (4.32e8 J per GPU): the
 *  group at a power above any board for the longest time a run's timing
 *  may state, a day, for the one token -- the most a window can spend on
 *  each token it makes, whatever else it does in that time. A bound of
 *  physics from the two limits above, not a number fitted to data (the
 *  ML.ENERGY table spans 0.04-22 J, ingest's segments no more); beyond,
 *  the number is a typo or a unit slip: `fit request-energy` left a row
 *  of -5.1 J out without a word and fitted 1e300 J into a 300-digit
 *  E_fixed, `validate capacity` scored 1e300 J as measured. Refused at
 *  the cell (docs/formats/runs-table.md). */
#define WC_RUN_MAX_ENERGY_PER_TOKEN_J_PER_GPU (WC_GPU_MAX_POWER_W * WC_RUN_MAX_TIME_S)

/** Bootstrap draws of one POST /v1/calibrate: a request-path budget (the
 *  route answers within its deadline), far below WC_BOOTSTRAP_MAX. */
#define WC_HTTP_CALIBRATE_MAX_DRAWS 2000
/** Rows of the runs table of one POST /v1/calibrate, for the same reason:
 *  the fit runs on the request path, and a thousand runs is more than a
 *  calibration of one model or platform needs (docs/http-api.md,
 *  "POST /v1/calibrate"). */
#define WC_SERVER_CALIBRATE_MAX_RUNS 1000

/** Per-bin values one answer of POST /v1/forecast/envelope may carry:
 *  its bins (horizon_s / bin_s) x the band's per-bin arrays (t_s, mean_w,
 *  p5_w, p95_w, mean_running) x the bands (the server's, and the fleet's
 *  when fleet.size > 1). No work bound counts them: a day at 50 ms bins
 *  for a fleet was 1.7e7 values, a 166 MB body after 15 s, and three at
 *  once took the server to 2 GB. 10^6 keeps a body near 10 MB (about 11
 *  bytes a value, measured) and still answers a day at 1 s bins with a
 *  fleet (864 000 values, 9.6 MB in 3.2 s on 2 CPUs); beyond, 413 on
 *  /bin_s (docs/http-api.md, "Limits"). The budget plan returns no bins. */
#define WC_HTTP_MAX_BIN_VALUES 1e6

/** Bytes the command line charges each per-bin value of `envelope --json`
 *  (wc_envelope_bin_values) in its memory check: the jansson tree (a real
 *  and its array slot) and the text dumped from it are held at once. A
 *  week at 50 ms bins (6.05e7 values) took 5.6 GB resident, about 90 bytes
 *  a value; charging the bands alone (16 bytes a bin), it ran 58 s and
 *  failed "render: out of memory" (docs/envelopes.md, "Limits and
 *  choices, in one place"). */
#define WC_CLI_JSON_BYTES_PER_BIN_VALUE 96.0

/** A budget plan's power budget, W (`--budget`, HTTP `budget_w`, the
 *  library's wc_envelope_budget): > 0 and at most 10^12 (1 TW, beyond any
 *  feed a fleet is planned for), one range for the command line and the
 *  routes (docs/envelopes.md, "Budget plans"; the CLI took 1e300 where
 *  HTTP refused past 1e12). */
#define WC_BUDGET_MAX_W 1e12

/* Whole-file readers (data/): each holds its file's text in memory while
 * it parses, so each refuses a file past a size no real input of its kind
 * approaches, rather than exhaust memory on a wrong path or a hostile file. */

/** Runs tables and the tables `import` converts (millions of rows). */
#define WC_RUNS_MAX_BYTES ((size_t)512 << 20)
#define WC_IMPORT_MAX_BYTES ((size_t)512 << 20)
/** Fine-tuning runs tables, n(t) series files, request logs and
 *  per-step logs: one row per request or step of long runs. */
#define WC_FINETUNE_RUNS_MAX_BYTES ((size_t)256 << 20)
#define WC_SERIES_MAX_BYTES ((size_t)256 << 20)
#define WC_REQUEST_LOG_MAX_BYTES ((size_t)256 << 20)
#define WC_STEP_LOG_MAX_BYTES ((size_t)256 << 20)
/** Parameter files (their bootstrap draws are most of them; jansson's
 *  tree costs several times the text) and periods tables. */
#define WC_PARAMS_MAX_BYTES ((size_t)64 << 20)
#define WC_PERIODS_MAX_BYTES ((size_t)64 << 20)
/** Run manifests: a few fields per run. */
#define WC_MANIFEST_MAX_BYTES ((size_t)16 << 20)
/** Prometheus data: a scrape file may hold days of samples of a fleet;
 *  a query_range answer, read from a file or over HTTP, is capped lower
 *  because jansson holds its whole tree. */
#define WC_PROM_TEXT_MAX_BYTES ((size_t)1 << 32)
#define WC_PROM_JSON_MAX_BYTES ((size_t)1 << 30)
/** Inputs hashed for a fingerprint of several files (`fit capacity`). */
#define WC_FINGERPRINT_MAX_BYTES ((size_t)1 << 30)

/** Steps of a fleet ingest's grid (`ingest --prometheus`, `--scrapes`,
 *  `--prometheus-json`: --start to --end every --step, docs/cli.md,
 *  "ingest"): a range that needs more (a century at 2 s, a year at 10 ms)
 *  is a typo in a time or a step in the wrong unit, refused naming a
 *  shorter range or the least --step that fits. */
#define WC_FLEET_MAX_STEPS 1e9

#endif
