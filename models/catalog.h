/*
 * The catalogs both sides use: published platform facts (memory,
 * bandwidth, throughput, power limit) and architecture facts of open
 * models, from each model's published configuration. Static tables;
 * lookups return borrowed pointers that live for the whole program.
 */
#ifndef WC_MODELS_CATALOG_H
#define WC_MODELS_CATALOG_H

#include <stddef.h>

#include "models/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- platforms */

/** Datasheet facts of one GPU board (docs/capacity.md, "Platforms").
 *  Zero = not published. Idle power is a typical value measured at rest
 *  with its source; where nobody measured it, idle_power_w is 0 and the
 *  caller estimates it (wc_params_estimated_idle_w). */
typedef struct {
	const char *name;           /* canonical name, e.g. "H100-NVL" */
	const char *architecture;   /* GPU generation, e.g. "Hopper" */
	const char *die;            /* the GPU die the board is cut from, e.g. "GH100" (H100 SXM,
	                             * PCIe and NVL, H200, GH200): a transfer to a board whose die
	                             * has a fitted level names it (wc_params_die_levels) */
	double memory_gb;           /* the datasheet's capacity, GB */
	double memory_mib;          /* the total the driver reports, MiB; 0 = not recorded */
	double bandwidth_tb_s;
	double bf16_tflops;         /* dense */
	double fp8_tflops;          /* dense; 0 = no FP8 tensor cores */
	double max_power_w;         /* board power limit (TDP) */
	double max_sm_clock_mhz;
	double min_sm_clock_mhz;    /* lowest supported application clock */
	double idle_power_w;        /* typical idle per GPU; 0 = not measured */
	const char *idle_source;    /* where idle_power_w comes from */
	int link_domain;            /* GPUs one NVLink (AMD: Infinity Fabric) domain joins: 1 none,
	                             * 2 bridged pairs, 4 bridged fours, 8 a baseboard's switch or
	                             * mesh; 0 = the system decides (wc_platform_tp_crossing) */
	const char *link;           /* that link's name ("NVLink", "Infinity Fabric"); NULL: none */
	const char *beyond_link;    /* what a group larger than the domain crosses: "PCIe" between
	                             * the cards of one node, "the network" past a baseboard's 8,
	                             * which are its node; NULL with link_domain 0 */
	int module_limit;           /* 1: max_power_w is a module's (CPU and its memory included) */
	const char *source;         /* the datasheet the row is read from */
	/* Other spellings, matched like the name (case, spaces, '-' and '_'
	 * ignored), including what nvidia-smi prints as the product name
	 * without its "NVIDIA " prefix. NULL-terminated. */
	const char *aliases[8];
} wc_platform_info;

/** Platform facts by name or alias: case-insensitive; spaces, '-' and '_'
 *  are ignored, and a leading vendor word ("NVIDIA", "AMD Instinct") is
 *  dropped, so "h100-nvl", "H100 NVL" and "NVIDIA H100 NVL" (nvidia-smi's
 *  product name) all find "H100-NVL". NULL when unknown. */
const wc_platform_info *wc_platform_lookup(const char *name);
/** The catalog's name for `name` (wc_platform_lookup's row), else `name`
 *  itself: the one spelling every reader of a platform name stores, so
 *  "NVIDIA L40S" and "l40s" in one runs table are one level. */
const char *wc_platform_canonical(const char *name);
/** The board a level runs on: the catalog row of its name, else of the
 *  level it shares S with (`shared_with`, may be NULL), else of the name
 *  before its first '-' (H100-locked -> H100); NULL when none is known. */
const wc_platform_info *wc_platform_board(const char *name, const char *shared_with);
/** Can board `pi` lock its SM clock at `mhz`: within its catalog range
 *  [min_sm_clock_mhz, max_sm_clock_mhz]. 1 also when `pi` is NULL or
 *  records no range (nothing to check against). Every reader of a locked
 *  clock -- requests, runs tables, calibration runs -- applies this one
 *  rule: outside it the law's clock factor would extrapolate far beyond
 *  anything measured. */
int wc_platform_clock_in_range(const wc_platform_info *pi, double mhz);
/** What a tensor-parallel group of `tp` GPUs of board `pi` crosses
 *  beyond the GPUs its NVLink (or Infinity Fabric) domain joins: the
 *  catalog's beyond_link ("PCIe" for every tp > 1 on a board with none,
 *  the L40S, and for tp > 2 on boards whose bridges join pairs, the H100
 *  PCIe and NVL and A100 PCIe; "the network" for tp > 8 on a baseboard's
 *  8, the H100 or MI300X, whose group spans nodes). NULL when the group
 *  stays on its link, `pi` is NULL or its domain depends on the system
 *  (GH200). The capacity law's communication term is fitted on boards
 *  whose groups never leave NVLink, so such an answer likely understates
 *  it (docs/capacity.md, "Warnings"). */
const char *wc_platform_tp_crossing(const wc_platform_info *pi, int tp);
/** 1 when nvidia-smi's `power.draw` of board `pi` is a mean over the last
 *  second rather than an instantaneous reading: NVIDIA boards of Ampere
 *  other than GA100 (the A100s) and newer (A10G, L4, L40S, H100, H200,
 *  GH200, B200); 0 for the A100s, other vendors and NULL
 *  (docs/formats/telemetry.md, "`power.csv`: nvidia-smi"). The one rule
 *  every reader of a power log applies. */
int wc_platform_power_draw_averaged(const wc_platform_info *pi);
/** 1 when boards `a` and `b` are cut from one die (the catalog's `die`:
 *  H100 PCIe and H200 NVL with H100); 0 otherwise and when either is NULL
 *  or records none. The one rule of both transfers' same-die levels. */
int wc_platform_same_die(const wc_platform_info *a, const wc_platform_info *b);
/** 1 when board `pi` is AMD's (the catalog's CDNA architectures); 0 for
 *  NVIDIA's and NULL. */
int wc_platform_amd(const wc_platform_info *pi);
/** The caveat of a transfer to board `me` (a level from its datasheet)
 *  from fitted boards none of which is AMD's (`sources_amd` 0): held out,
 *  transfers were scored between NVIDIA boards only, so an AMD board is
 *  further from its sources than any scored (docs/intervals.md, "Strata:
 *  what is pooled"). Writes "an AMD board (CDNA 3) can miss by more" to
 *  buf and returns 1 when `me` is AMD's and no source is; else "" and 0.
 *  The one rule and wording of the power and capacity transfers' notes. */
int wc_platform_vendor_caveat(const wc_platform_info *me, int sources_amd, char *buf, size_t cap);
/** Bytes of memory of one GPU of `level` whose datasheet capacity is
 *  `memory_gb`: the driver's total (memory_mib) when the level's board
 *  (wc_platform_board) records one and has that datasheet capacity, else
 *  memory_gb x 1e9 (a user-defined level, another capacity). The
 *  datasheet's "80 GB" of an A100 is 81 920 MiB, 85.9e9 bytes. */
double wc_platform_memory_bytes(const char *level, double memory_gb);
/** "A10G, L4, ..." — every canonical name, for error messages. */
const char *wc_platform_names(void);
/** The one wording of a board the catalog lacks, which `predict` and
 *  `ingest` both warn (docs/capacity.md, "A board the catalog lacks"):
 *  "NAME is not in the platform catalog: its board power limit and clock
 *  range are unknown" into `buf` (NAME cut to 64 bytes); each caller adds
 *  what that means for it. Returns `buf`. */
const char *wc_platform_unknown_note(const char *name, char *buf, size_t cap);
size_t wc_platform_count(void);
const wc_platform_info *wc_platform_at(size_t i);

/* ------------------------------------------------------------- models */

typedef enum {
	WC_ARCH_UNKNOWN = 0,
	WC_ARCH_DENSE,
	WC_ARCH_MOE,
	WC_ARCH_HYBRID,      /* Mamba-Transformer hybrids */
	WC_ARCH_COUNT
} wc_architecture;
/** "dense", "moe", "hybrid"; "" for unknown. */
const char *wc_architecture_name(wc_architecture a);
/** "" parses as unknown; other unknown names are WC_ENOTFOUND. */
int wc_architecture_from_name(const char *name, wc_architecture *out);
/** "dense, moe or hybrid", for messages. */
const char *wc_architecture_choices(void);

/** Architecture facts of an open model. Zero = not stated. */
typedef struct wc_model_info {
	const char *name;          /* e.g. "Qwen3-8B" */
	wc_architecture architecture;
	double total_params_b;
	double active_params_b;
	int layers, d_model, attention_heads, kv_heads, head_dim;
	int experts, experts_per_token;
	/* What the KV cache and recurrent state hold (docs/capacity.md,
	 * "Bytes and FLOPs"): layers with a growing KV cache (0 = every layer), values
	 * cached per token and such layer (0 = 2 * kv_heads * head_dim; the
	 * compressed latent for multi-head latent attention), and the
	 * recurrent (SSM) state one request keeps, bytes (0 = none). */
	int attention_layers;
	int kv_dim;
	double state_bytes;
	/* A sliding window (or chunk) of local attention, tokens (0 = none):
	 * the layers besides the attention_layers attend to at most this many
	 * tokens and cache no more (Gemma 2/3, gpt-oss, Llama 4). */
	int window;
	/* The weights' precision the model is published in (its config.json's
	 * quantization_config; MXFP4 counts as int4): what a name that states
	 * none is answered with, unless the weights are given: a wc_precision
	 * of models/law.h, 0 = bf16. */
	int weights;
	/* The context (prompt + output, tokens) vLLM serves the model with by
	 * default: config.json's max_position_embeddings (Mistral-Nemo: its
	 * card's 128 k) of the release the entry's name is; a later release
	 * of another context is wc_model_context's (Qwen3-4B-Instruct-2507);
	 * 0 = not stated. vLLM refuses a longer request unless served longer
	 * with RoPE scaling: answers warn, not refuse (docs/capacity.md). */
	int context_tokens;
	/* The width of the attention's products per layer, where it is not
	 * attention_heads x head_dim: the heads' query-key and value widths'
	 * mean, summed over the heads (multi-head latent attention's prefill
	 * multiplies 192-wide queries and keys and 128-wide values per head;
	 * docs/capacity.md, "Step time"); 0 = attention_heads x head_dim. */
	int attention_width;
} wc_model_info;

/** Look a model up by name, case-insensitively; an "org/" prefix (Hugging
 *  Face id) and a suffix after the catalog name ("-Instruct-2507",
 *  "-FP8") are tolerated, and Meta's "Meta-" before a Llama name. NULL
 *  when unknown. */
const wc_model_info *wc_model_lookup(const char *name);
/** wc_model_lookup, and in `rest` (may be NULL) where the catalog name
 *  that answers ends inside `name`: "" or the suffix starting at its '-'
 *  ("-FP8"), after any "org/" and "Meta-"; NULL when unknown. */
const wc_model_info *wc_model_lookup_rest(const char *name, const char **rest);
/** The context of `m` (an entry, or a caller's copy of one) as `name`
 *  calls it: the release its words name ("Qwen3-4B-Instruct-2507":
 *  262144), else m->context_tokens (docs/capacity.md, "The model's
 *  context"). 0 = not stated. */
int wc_model_context(const wc_model_info *m, const char *name);
/** How a name reads against the catalog (docs/capacity.md, "Model
 *  names"; models/model_match.c), the one rule of wc_model_lookup:
 *  `prefix`, the longest catalog name `name` starts with (after any
 *  "org/", and "Meta-" before a Llama name) followed by '-' or its end;
 *  `entry`, the one that answers it, `rest` the words after that one's
 *  name. `entry` is the prefix, unless a later word
 *  - begins another catalog name: that one, as its own name is read
 *    (`embedded` 1; "DeepSeek-R1-0528-Qwen3-8B" is Qwen3-8B), or
 *  - states a size other than the prefix's ("8B" after Qwen3-32B, not
 *    "12B" after Mistral-Nemo's 12.2 B; "135M") or makes it smaller
 *    ("mini", "small", "tiny", "nano", "micro"): NULL, another model;
 *  `word`, `word_n` that word (the embedded name). All NULL when `name`
 *  starts with no catalog name. Pointers into `name` and the catalog. */
typedef struct {
	const wc_model_info *entry, *prefix;
	const char *rest, *word;
	size_t word_n;
	int embedded;
} wc_model_match;
void wc_model_match_name(const char *name, wc_model_match *out);
/** Whether word w[0..n) states `m`'s size ("8B" of Qwen3-8B, "12B" of
 *  Mistral-Nemo): the rule of wc_model_match_name, for a reader of the
 *  words after the name, to which such a word says nothing new. */
int wc_model_match_size_word(const char *w, size_t n, const wc_model_info *m);
/** The catalog entry a name that wc_model_lookup does not know is most
 *  likely a typo of (at most 2 edits of letters and digits, case, spaces
 *  and '-' ignored: "Lama-3.1-8B", "Llama3.1-8B", "Llama 3.1 8B", with
 *  the same numbers: a version or size that differs is another model),
 *  for a "did you mean" in the refusal; NULL when none is that close. */
const wc_model_info *wc_model_suggest(const char *name);
#define WC_NAME_SUGGEST_MAX 63
/** Levenshtein distance of a[0..na) and b[0..nb), nb <= WC_NAME_SUGGEST_MAX:
 *  the one measure of a typo behind every "did you mean" (models, serving
 *  stacks). */
size_t wc_name_edit_distance(const char *a, size_t na, const char *b, size_t nb);
/** Whether `edits` edits of a name of `len` characters are a typo of it,
 *  not another name (the one rule of every "did you mean"): at most 2 and
 *  fewer than a third of the name, or one of a name of 3 or more
 *  characters that is `unique`ly the nearest (no other candidate as
 *  near). */
int wc_name_is_typo(size_t edits, size_t len, int unique);
size_t wc_model_count(void);
const wc_model_info *wc_model_at(size_t i);

/* ------------------------------------------------------ serving stacks */

/* The serving stack the built-in profiles' laws were calibrated on: every
 * run behind them is a vLLM run, and a parameter file records no stack
 * (docs/formats/params-file.md), so every set's is this one. */
#define WC_CALIBRATED_ENGINE "vllm"

/** A serving stack an answer may be asked for (docs/capacity.md,
 *  "Serving stacks"): its name in requests and answers, how people write
 *  it, and what is documented of its draw against vLLM's at the same
 *  batch (NULL: nothing; `measured` 0: never measured here). */
typedef struct {
	const char *name;  /* "tensorrt-llm" */
	const char *label; /* "TensorRT-LLM" */
	int measured;
	const char *fact;
} wc_engine_info;

/** The stack `name` names, case-insensitively, '_' read as '-', with the
 *  aliases of docs/capacity.md ("trtllm", "text-generation-inference");
 *  NULL when none. */
const wc_engine_info *wc_engine_lookup(const char *name);
/** Refuses (WC_EINVAL, "engine: unknown serving stack ...", with a "did
 *  you mean" for a typo and the accepted names) a name wc_engine_lookup
 *  does not know; else `*out` is the stack's name (static). NULL `name`
 *  is the calibrated stack. */
int wc_engine_parse(const char *name, const char **out, wc_error *err);
/** "vllm, sglang, tensorrt-llm, tgi, deepspeed-mii, transformers". */
const char *wc_engine_choices(void);
size_t wc_engine_count(void);
const wc_engine_info *wc_engine_at(size_t i);

/** Explicit architecture facts (the CLI's --layers ... flags, the HTTP
 *  API's "architecture" object), in the order of WC_ARCH_FACT_*: an int
 *  < 0 or total_params_b <= 0 is not given. */
enum { WC_ARCH_FACT_LAYERS, WC_ARCH_FACT_KV_HEADS, WC_ARCH_FACT_HEAD_DIM, WC_ARCH_FACT_D_MODEL,
       WC_ARCH_FACT_ATTENTION_HEADS, WC_ARCH_FACT_EXPERTS, WC_ARCH_FACT_EXPERTS_PER_TOKEN, WC_ARCH_FACT_CACHE_LAYERS,
       WC_ARCH_FACT_SLIDING_WINDOW, WC_ARCH_FACTS };
typedef struct {
	long ints[WC_ARCH_FACTS];
	double total_params_b;
} wc_arch_facts;

/** Nothing given. */
void wc_arch_facts_init(wc_arch_facts *f);
/** The least value fact `i` (WC_ARCH_FACT_*) may be given, the most
 *  being WC_MODEL_MAX_ARCH_INT: 1 for layers, kv_heads, head_dim, d_model
 *  and attention_heads (a model has them; 0 would erase a catalog model's own), 0 for
 *  the rest (0 experts: dense; 0 cache_layers: every layer; 0
 *  sliding_window: none). The one range of the CLI's flags and the HTTP
 *  API's "architecture" object (docs/capacity.md, "Bytes and FLOPs"). */
int wc_arch_fact_min(int i);
/** Whether any fact is given. */
int wc_arch_facts_any(const wc_arch_facts *f);
/** `out` = `base` (a catalog entry, or NULL: a dense model named `name`,
 *  borrowed, or "custom model" when NULL, of `active_params_b` and
 *  nothing else known) with the given facts
 *  over it; experts > 0 makes it a mixture of experts (models/arch_facts.c).
 *  `out` may be `base`. */
void wc_model_info_with_facts(const wc_model_info *base, const char *name, double active_params_b,
                              const wc_arch_facts *f, wc_model_info *out);
/** The sliding window (tokens) of the catalog model `m` is named after
 *  that `m` no longer applies, every layer caching the whole context
 *  (cache_layers over it, wc_model_info_with_facts); 0 when it applies or
 *  the catalog gives none. */
int wc_model_window_dropped(const wc_model_info *m);
/** The width the prefill's attention products run at (docs/capacity.md,
 *  "Step time"): `m`'s attention_width, else attention_heads x head_dim,
 *  else d_model, the fallback when the heads are not known; 0 when none
 *  is. */
int wc_model_attention_width(const wc_model_info *m);
/** Parameters of one layer's attention projections q, k, v and o
 *  (docs/finetune.md, "The adapters"), d x (2 q + 2 kv), with *q =
 *  attention_heads x head_dim (else d_model: multi-head attention), *kv =
 *  kv_heads x head_dim (else *q) and d = d_model (else *q, the width the
 *  heads stand for); 0 when neither heads nor d_model are known. */
double wc_model_attention_params(const wc_model_info *m, double *q, double *kv);
/** Refuses (WC_EINVAL, "<field>: 4000 layers of width 4096 hold 167.8 B
 *  parameters in their attention projections alone, more than the
 *  model's 8.19 B: ...") a shape whose layers' attention projections
 *  (wc_model_attention_params) alone hold more than `params_b` billion
 *  parameters, the active ones a step reads: a mistyped width, layer count
 *  or parameter count, which would leave the MLP a negative width. The one
 *  plausibility rule of a shape, for fine-tuning and inference alike
 *  (docs/finetune.md, "The adapters"; docs/capacity.md, "Bytes and FLOPs"). */
int wc_model_shape_check(const wc_model_info *m, double params_b, const char *field, wc_error *err);
/** Refuses (WC_EINVAL) attention and KV heads that do not group (the KV
 *  heads must divide the attention heads), naming the fact `f` sent:
 *  "architecture/attention_heads: must be a multiple of Qwen3-8B's 8 KV
 *  heads ..., got 33"; kv_heads when both are sent; a head_dim other
 *  than a latent-attention entry's own ("architecture/head_dim: ...
 *  leave it out or send its 128, got 64"). Then
 *  wc_model_shape_check of `m` (wc_model_info_with_facts' answer) against
 *  its active parameters, naming "architecture/<fact>" for the first of
 *  layers, d_model, attention_heads, head_dim and kv_heads `f` gives (else
 *  active_params_b, which then set the shape's size): the CLI's and the
 *  routes' rule for explicit facts. */
int wc_arch_facts_shape_check(const wc_model_info *m, const wc_arch_facts *f, wc_error *err);
/** Whether `m` sizes its KV cache: layers, and kv_dim or kv_heads and
 *  head_dim (docs/capacity.md, "Bytes and FLOPs"). */
int wc_model_info_sizes_kv(const wc_model_info *m);
/** The first of layers, kv_heads and head_dim (WC_ARCH_FACT_*) that `m`
 *  (wc_model_info_with_facts' answer) needs to size its KV cache and that
 *  neither its base nor `f` gives; -1 when it sizes it, or when the first
 *  lacking fact was given (as 0: the value's own refusal, not a missing
 *  one). The three are needed together (docs/capacity.md, "Bytes and FLOPs"). */
int wc_arch_facts_missing(const wc_model_info *m, const wc_arch_facts *f);

#ifdef __cplusplus
}
#endif
#endif
