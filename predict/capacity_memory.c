/*
 * Memory as vLLM does it (docs/capacity.md, "Memory as vLLM does it"): the
 * reserve, the platform's memory facts, the model's bytes, the refusal of
 * a configuration that cannot load, and the one rule of a load beyond the
 * KV cache -- min(n, n_fit) run, the others wait -- with its warning, for
 * a concurrency and for each sample of a running_series alike.
 */
#include "predict/capacity_predict.h"
#include "predict_internal.h"
#include "models/catalog.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The share of memory kept free: the request's 1 - gpu_memory_utilization,
 * else the capacity section's, else the default. */
double
wc_predict_memory_reserve(const wc_params *p, const wc_config *c)
{
	if (c->gpu_memory_utilization > 0.0)
		return 1.0 - c->gpu_memory_utilization;
	return p->capacity.present ? p->capacity.memory_reserve : WC_CAPACITY_DEFAULT_RESERVE;
}

/* Platform facts and reserve: the capacity section's level, else the
 * board the level runs on (wc_platform_board: a level such as H100-locked
 * runs on H100, a shared level on its partner's board; docs/capacity.md,
 * "Memory as vLLM does it"), its capacity level if fitted, else its
 * catalog row. 0 when neither knows the platform. */
static int
memory_facts(const wc_params *p, const wc_config *c, wc_capacity_hw *hw, double *reserve)
{
	const wc_capacity_level *l = p->capacity.present ? wc_capacity_level_find(&p->capacity, c->platform) : NULL;
	const wc_platform_info *info = wc_predict_board(p, c->platform);
	if (!l && info && p->capacity.present)
		l = wc_capacity_level_find(&p->capacity, info->name);
	*reserve = wc_predict_memory_reserve(p, c);
	if (l && l->memory_gb > 0.0)
		*hw = wc_capacity_hw_datasheet(l->name, l->bandwidth_tb_s, l->bf16_tflops, l->memory_gb);
	else if (info)
		*hw = wc_capacity_hw_datasheet(info->name, info->bandwidth_tb_s, info->bf16_tflops, info->memory_gb);
	else
		return 0;
	return 1;
}

/* Bytes of the configuration's model: from its architecture, else a
 * dense model of N_act at the weights' precision (no KV known). */
int
wc__predict_config_arch(const wc_config *c, wc_capacity_arch *a, wc_error *err)
{
	if (c->arch) {
		int rc = wc_capacity_arch_make(c->arch, c->weights, c->kv, a, err);
		if (rc == WC_OK)
			wc_capacity_arch_place(a, c->tp, c->expert_parallel);
		return rc;
	}
	*a = (wc_capacity_arch){ 0 };
	a->weight_bytes = a->shared_weight_bytes = c->active_params_b * 1e9 * wc_capacity_bytes_per_value(c->weights);
	a->active_params = c->active_params_b * 1e9;
	return WC_OK;
}

int
wc_predict_spreads_experts(const wc_config *c)
{
	return c->expert_parallel && c->arch && c->arch->experts > 0;
}

int
wc_predict_clock_check(const wc_params *p, const wc_config *c, wc_error *err)
{
	const wc_platform_info *info = wc_predict_board(p, c->platform);
	if (!(c->sm_clock_mhz > 0.0) || wc_platform_clock_in_range(info, c->sm_clock_mhz))
		return WC_OK;
	return wc_error_set(err, WC_EINVAL, "sm_clock_mhz: %s MHz is outside the clock range of %s, %g-%g MHz",
	                    WC_NUM_TEXT(c->sm_clock_mhz), info->name, info->min_sm_clock_mhz, info->max_sm_clock_mhz);
}

/* The KV heads a tensor-parallel group splits: 0 for a latent cache
 * (kv_dim, multi-head latent attention), which is not split. */
static int
split_kv_heads(const wc_model_info *m)
{
	return m->kv_dim > 0 ? 0 : m->kv_heads;
}

enum { TP_STARTS, TP_ATTENTION, TP_KV };

/* Whether vLLM can start a tensor-parallel group of `g` GPUs on `m`
 * (docs/capacity.md, "Memory as vLLM does it"): its QKV projection shards
 * the attention heads, so g must divide them, and the K KV heads: with
 * K >= g, g must divide K; with fewer, g must be a multiple of K (each
 * head copied on g / K GPUs). Heads not known (0) are not checked. */
static int
tp_fault(const wc_model_info *m, int g)
{
	int kv = split_kv_heads(m);
	if (m->attention_heads > 0 && m->attention_heads % g != 0)
		return TP_ATTENTION;
	if (kv > 0 && (kv >= g ? kv % g : g % kv) != 0)
		return TP_KV;
	return TP_STARTS;
}

/* The smallest group of `from` GPUs or more, up to WC_LAW_MAX_TP, that
 * vLLM can start on `m` (tp_fault); 0 when none. Both refusals search
 * their remedy's group by it. */
static int
group_from(const wc_model_info *m, int from)
{
	for (int g = from < 1 ? 1 : from; g <= WC_LAW_MAX_TP; g++)
		if (tp_fault(m, g) == TP_STARTS)
			return g;
	return 0;
}

/* ": tp 8, the smallest Llama-3.1-405B's 128 attention and 8 KV heads
 * allow", the heads' `owner` said; its length. */
static int
group_tail(char *buf, size_t cap, const char *owner, int group, int heads, int kv)
{
	if (heads > 0 && kv > 0)
		return snprintf(buf, cap, ": tp %d, the smallest %s %d attention and %d KV heads allow", group, owner,
		                heads, kv);
	return snprintf(buf, cap, ": tp %d, the smallest %s %d %s heads allow", group, owner, heads > 0 ? heads : kv,
	                heads > 0 ? "attention" : "KV");
}

/* Whether `tp` GPUs, `reserve` kept free, hold the weights; and one
 * request's KV cache of context `ctx` (request_context) beside them. The
 * two checks refuse by these, and the utilization suggested is found by
 * them. */
static int
weights_held(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double reserve)
{
	return a->weight_bytes <= wc_capacity_memory_for_model(hw, tp, reserve);
}

static int
request_held(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double reserve, double ctx)
{
	return wc_capacity_max_concurrency(a, hw, tp, reserve, ctx) >= 1.0;
}

/* Whether the KV cache of one request is known from its token lengths. */
static int
lengths_known(const wc_config *c)
{
	return c->arch && c->output_tokens > 0;
}

/* The least context one running request holds (docs/capacity.md, "Memory
 * as vLLM does it"): its whole context with token lengths, else one KV
 * block (wc_capacity_kv_block_tokens: vLLM runs no request without one),
 * so that the minimum-block rule holds whether or not lengths are given. */
static double
request_context(const wc_config *c)
{
	return lengths_known(c) ? c->input_tokens + c->output_tokens : wc_capacity_kv_block_tokens(1.0);
}

/* The smallest gpu_memory_utilization, in the flag's hundredths up to its
 * own bound (WC_GMU_MAX, docs/capacity.md "Memory as vLLM does it"), at
 * which `tp` GPUs serve the request: the weights and one request's
 * context `ctx` (request_context) beside them, by the rules the checks
 * refuse by (so that following it answers; more requests than fit then
 * wait). 0 when none does. */
static double
utilization_fits(const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, double ctx)
{
	for (int h = (int)ceil(100.0 * WC_GMU_MIN - 1e-9); h <= (int)floor(100.0 * WC_GMU_MAX + 1e-9); h++) {
		const double reserve = 1.0 - h / 100.0;
		if (weights_held(a, hw, tp, reserve) && request_held(a, hw, tp, reserve, ctx))
			return h / 100.0;
	}
	return 0.0;
}

/* "; or gpu_memory_utilization 0.94 or more" for a utilization `fits` >
 * 0 that serves the request, else nothing: the one remedy both refusals
 * end with ("or more" only below the flag's bound, WC_GMU_MAX, which is
 * the most it takes). The CLI names its flag there
 * (--gpu-memory-utilization), HTTP the field. */
static void
utilization_more(double fits, char *more, size_t cap)
{
	more[0] = '\0';
	if (fits > 0.0)
		snprintf(more, cap, "; or gpu_memory_utilization %.2f%s", fits,
		         fits < WC_GMU_MAX - 1e-9 ? " or more" : "");
}

/* The bytes the CLI adds to a refusal that names a field: "--" before the
 * leading field, and before the remedy's, when `more` says one. */
static int
cli_spare(const char *more)
{
	return more[0] ? 4 : 2;
}

/* `bytes` in GB to `decimals` places, or to two significant digits where
 * those places would read 0: a cache of one 16-token block (4 MB for
 * Qwen3-32B) is no "0.00 GB". */
static const char *
gb_text(double bytes, int decimals, char *buf, size_t cap)
{
	const double gb = bytes / 1e9;
	if (fabs(gb) >= 0.5 * pow(10.0, -decimals) || gb == 0.0)
		snprintf(buf, cap, "%.*f", decimals, gb);
	else
		snprintf(buf, cap, "%.2g", gb);
	return buf;
}

void
wc__predict_kv_refusal(const char *field, const char *request, double ctx, const wc_capacity_arch *a,
                       const wc_capacity_hw *hw, int tp, const char *platform, double reserve, const char *taken,
                       int named, const char *more, char *msg, size_t cap)
{
	const double left = wc_capacity_memory_for_model(hw, tp, reserve) - a->weight_bytes;
	/* to stay whole in 255 bytes (with the CLI's flags) the echo of a
	 * utilization the head names already yields first, then the words on
	 * the workspace, then the name taken: the weights a name was sized
	 * as decide whether the refusal holds at all */
	char echo[48], need_gb[32], left_gb[32];
	gb_text(wc_capacity_kv_bytes(a, wc_capacity_kv_block_tokens(ctx)) + a->state_bytes, 2, need_gb, sizeof need_gb);
	gb_text(left, 2, left_gb, sizeof left_gb);
	for (int brief = 0; brief < 4; brief++) {
		snprintf(echo, sizeof echo, named && brief ? "" : " (gpu_memory_utilization %.2g)", 1.0 - reserve);
		int n = snprintf(msg, cap,
		                 "%s: %s needs %s GB of KV cache but %d x %.24s (%.1f GB each) leave %s GB after "
		                 "the weights%s%s%s%s",
		                 field, request, need_gb, tp, platform, hw->memory_bytes / 1e9, left_gb, brief > 2 ? "" : taken,
		                 brief > 1 ? "" : " and the engine's workspace", echo, more);
		if (n <= WC_ERROR_MSG_MAX - 1 - cli_spare(more))
			break;
	}
}

int
wc__predict_over_context(const wc_config *c, char *text, size_t cap)
{
	const int context = wc_model_context(c->arch, c->model);
	text[0] = '\0';
	if (!c->arch || context <= 0 || !(c->input_tokens + c->output_tokens > context))
		return 0;
	/* counts as given (WC_NUM_TEXT): %g printed 1234567 as 1.23457e+06 */
	snprintf(text, cap, "%s: %s + %s tokens exceed %.40s's context of %d tokens (config.json)",
	         c->output_tokens > c->input_tokens ? "output_tokens" : "input_tokens", WC_NUM_TEXT(c->input_tokens),
	         WC_NUM_TEXT(c->output_tokens), c->arch->name, context);
	return context;
}

/* The refusal of a request past the model's context (`over`, its text by
 * wc__predict_over_context) that the memory cannot hold either: the
 * context first, since vLLM refuses the request on it whatever the GPUs,
 * and so no group nor utilization as a remedy, which would send the user
 * to a configuration vLLM does not serve (docs/capacity.md, "Memory as
 * vLLM does it"). The memory that is short follows while room is left. */
static int
context_refusal(const char *over, const wc_capacity_arch *a, const wc_capacity_hw *hw, int tp, const char *platform,
                double reserve, double ctx, int weights, wc_error *err)
{
	char need_gb[32], left_gb[32], tail[160];
	const double left = wc_capacity_memory_for_model(hw, tp, reserve) - a->weight_bytes;
	gb_text(wc_capacity_kv_bytes(a, wc_capacity_kv_block_tokens(ctx)) + a->state_bytes, 2, need_gb, sizeof need_gb);
	gb_text(left, 2, left_gb, sizeof left_gb);
	if (weights)
		snprintf(tail, sizeof tail, "; nor do %d x %.24s (%.1f GB each) hold the weights' %.1f GB", tp, platform,
		         hw->memory_bytes / 1e9, a->weight_bytes / 1e9);
	else
		snprintf(tail, sizeof tail, "; nor would %d x %.24s (%.1f GB each) hold its %s GB of KV cache: %s GB are "
		         "left after the weights", tp, platform, hw->memory_bytes / 1e9, need_gb, left_gb);
	/* whole within 255 bytes with the CLI's "--": the memory yields */
	if ((int)(strlen(over) + strlen(", which vLLM refuses") + strlen(tail)) > WC_ERROR_MSG_MAX - 1 - cli_spare(""))
		tail[0] = '\0';
	return wc_error_set(err, WC_EINVAL, "%s, which vLLM refuses%s", over, tail);
}

/* The checks; `remedy` 0 leaves the utilization remedy out, for a front
 * end that takes no utilization. `*held` (may be NULL) gets the count the
 * running requests are held to (wc_predict_running_held): `*max_fit`'s
 * with token lengths, else the requests of one KV block each; NaN when
 * no memory is known. */
static int
memory_check(const wc_params *p, const wc_config *c, double *max_fit, double *held, int remedy, wc_error *err)
{
	wc_capacity_hw hw;
	wc_capacity_arch a;
	double reserve;
	int rc;
	if (max_fit)
		*max_fit = NAN;
	if (held)
		*held = NAN;
	if (c->gpu_memory_utilization != 0.0 && !WC_GMU_IN_RANGE(c->gpu_memory_utilization))
		return wc_error_set(err, WC_EINVAL, "gpu_memory_utilization: " WC_GMU_RANGE_TEXT ", got %s",
		                    WC_NUM_TEXT(c->gpu_memory_utilization));
	/* A group vLLM cannot start is refused as weights that do not fit
	 * are (tp_fault). An expert parallel group with data_parallel 1 (the
	 * only one a configuration states) splits its attention as tensor
	 * parallel does (docs/capacity.md, "Step time"): checked alike. */
	int fault = c->arch && c->tp > 1 ? tp_fault(c->arch, c->tp) : TP_STARTS;
	if (fault == TP_ATTENTION)
		return wc_error_set(err, WC_EINVAL, "tp: %d does not divide %s's %d attention heads; vLLM's tensor "
		                    "parallelism cannot start such a group (docs/capacity.md)", c->tp, c->arch->name,
		                    c->arch->attention_heads);
	if (fault == TP_KV)
		return wc_error_set(err, WC_EINVAL, "tp: %d %s %s's %d KV heads; vLLM's tensor parallelism cannot start "
		                    "such a group (docs/capacity.md)", c->tp,
		                    c->tp <= c->arch->kv_heads ? "does not divide" : "is not a multiple of", c->arch->name,
		                    c->arch->kv_heads);
	if ((rc = wc_predict_prefill_facts_check(c->arch, c->input_tokens, err)) != WC_OK)
		return rc;
	if (!c->platform || !memory_facts(p, c, &hw, &reserve) || c->tp < 1)
		return WC_OK; /* nothing to check against: a user-defined level */
	if ((rc = wc__predict_config_arch(c, &a, err)) != WC_OK)
		return rc;
	double avail = wc_capacity_memory_for_model(&hw, c->tp, reserve);
	/* A name with a word not read sized the weights as given or published:
	 * a refusal says which (docs/capacity.md, "Model names"); the name is
	 * read for a refusal only, not for every prediction that passes. */
	char taken[64];
	/* one request's whole context, else its one block: the KV cache it
	 * holds at least, checked below */
	const double ctx = request_context(c);
	char over[WC_ERROR_MSG_MAX];
	if (lengths_known(c) && wc__predict_over_context(c, over, sizeof over) &&
	    (!weights_held(&a, &hw, c->tp, reserve) || !request_held(&a, &hw, c->tp, reserve, ctx)))
		return context_refusal(over, &a, &hw, c->tp, c->platform, reserve, ctx, !weights_held(&a, &hw, c->tp, reserve),
		                       err);
	if (!weights_held(&a, &hw, c->tp, reserve)) {
		double per_gpu = wc_capacity_memory_for_model(&hw, 1, reserve);
		if (per_gpu <= 0.0)
			return wc_error_set(err, WC_EINVAL,
			                    "gpu_memory_utilization: %.2g of %s's %.1f GB leaves nothing beside the engine's "
			                    "%.2f GB workspace per GPU", 1.0 - reserve, c->platform, hw.memory_bytes / 1e9,
			                    WC_CAPACITY_WORKSPACE_GB);
		/* The fewest GPUs that hold the weights, and the group vLLM can
		 * start (tp_fault; known for models whose heads are known). */
		double need = ceil(a.weight_bytes / per_gpu);
		int heads = c->arch ? c->arch->attention_heads : 0, kv = c->arch ? split_kv_heads(c->arch) : 0;
		const int group = heads > 0 || kv > 0 ? group_from(c->arch, (int)fmin(need, WC_LAW_MAX_TP + 1.0)) : 0;
		/* A utilization up to the flag's bound that holds them on these
		 * GPUs is said too; the utilization given is then the cause, and
		 * the field named (docs/capacity.md, "Memory as vLLM does it"). */
		const double fits = remedy ? utilization_fits(&a, &hw, c->tp, ctx) : 0.0;
		char more[64] = "";
		utilization_more(fits, more, sizeof more);
		/* names cut so that any board and model fit in 255 bytes (with
		 * the CLI's "--"); the model's name yields to the weights taken,
		 * the group's heads and then the workspace's size (a constant,
		 * docs/capacity.md) to the utilization that holds them */
		char head[WC_ERROR_MSG_MAX], usable[160] = "", owner[40], ws[40], count[96];
		wc_model_name_taken(c->model, c->weights, taken, sizeof taken);
		/* No group vLLM starts holds them: a count of GPUs no group can
		 * take is no remedy, so the largest the heads allow is said. */
		int most = 0;
		for (int g = WC_LAW_MAX_TP; !group && (heads > 0 || kv > 0) && g >= 1 && !most; g--)
			most = tp_fault(c->arch, g) == TP_STARTS ? g : 0;
		if (most > 0)
			snprintf(count, sizeof count, "; no tensor-parallel group of this board holds them (at most %d "
			         "GPUs by the heads: %.0f GB)", most, most * per_gpu / 1e9);
		else
			snprintf(count, sizeof count, "; at least %.0f GPUs needed", need);
		int n = 0;
		for (int brief = 0; brief < 2 && (brief == 0 || n > (int)sizeof head - 1 - cli_spare(more) - (int)strlen(more));
		     brief++) {
			snprintf(ws, sizeof ws, brief ? "" : ", %.2f GB/GPU workspace", WC_CAPACITY_WORKSPACE_GB);
			n = snprintf(head, sizeof head, "%s: the weights need %.1f GB%s but %d x %.24s (%.1f GB each) hold "
			             "%.1f GB (%.0f %% kept free%s)%s",
			             fits > 0.0 && c->gpu_memory_utilization > 0.0 ? "gpu_memory_utilization" : "tp",
			             a.weight_bytes / 1e9, taken, c->tp, c->platform, hw.memory_bytes / 1e9, avail / 1e9,
			             100 * reserve, ws, count);
		}
		snprintf(owner, sizeof owner, "%.28s's", c->arch ? c->arch->name : "");
		const int room = (int)sizeof head - 1 - cli_spare(more) - n - (int)strlen(more);
		if (group > (int)need && group_tail(usable, sizeof usable, owner, group, heads, kv) > room &&
		    group_tail(usable, sizeof usable, "its", group, heads, kv) > room &&
		    snprintf(usable, sizeof usable, ": tp %d, as its heads allow", group) > room)
			usable[0] = '\0';
		return wc_error_set(err, WC_EINVAL, "%s%s%s", head, usable, more);
	}
	/* More requests than the KV cache holds are not refused: vLLM
	 * preempts, and fewer run (wc_predict_capacity says how many, and
	 * wc_predict_inference without token lengths). One request that
	 * cannot hold its own context, or without token lengths its one
	 * block, cannot run at all. */
	if (!request_held(&a, &hw, c->tp, reserve, ctx)) {
		/* A utilization up to the flag's bound that serves the request
		 * is said, given or not: the same request gets the same advice
		 * whether or not the default was spelled out. A utilization
		 * given is then the cause, and the field named; else the field
		 * that makes most of the context (docs/capacity.md, "Memory as
		 * vLLM does it"). */
		const double fits = remedy ? utilization_fits(&a, &hw, c->tp, ctx) : 0.0;
		char more[96] = "", by_tp[32] = "";
		utilization_more(fits, more, sizeof more);
		/* The smallest larger group vLLM starts (group_from, as the
		 * weights refusal finds its) that holds the weights and the
		 * request, placed as it would be (wc_capacity_arch_place: its KV
		 * copies), is said too. */
		for (int g = c->arch ? group_from(c->arch, c->tp + 1) : 0; g > 0 && !by_tp[0];
		     g = group_from(c->arch, g + 1)) {
			wc_config cg = *c;
			wc_capacity_arch ag;
			cg.tp = g;
			if (wc__predict_config_arch(&cg, &ag, err) == WC_OK && weights_held(&ag, &hw, g, reserve) &&
			    request_held(&ag, &hw, g, reserve, ctx))
				snprintf(by_tp, sizeof by_tp, "; tp %d holds it", g);
		}
		char both[sizeof more + sizeof by_tp];
		snprintf(both, sizeof both, "%s%s", by_tp, more);
		wc_model_name_taken(c->model, c->weights, taken, sizeof taken);
		char msg[2 * WC_ERROR_MSG_MAX], request[64];
		const int named = fits > 0.0 && c->gpu_memory_utilization > 0.0;
		if (lengths_known(c))
			snprintf(request, sizeof request, "one request of %s + %s tokens", WC_NUM_TEXT(c->input_tokens),
			         WC_NUM_TEXT(c->output_tokens));
		else
			snprintf(request, sizeof request, "one request's least %s-token block", WC_NUM_TEXT(ctx));
		/* without token lengths no length is the cause: the GPUs are */
		const char *field = named ? "gpu_memory_utilization"
		                    : !lengths_known(c) ? "tp"
		                    : c->output_tokens > c->input_tokens ? "output_tokens" : "input_tokens";
		wc__predict_kv_refusal(field, request, ctx, &a, &hw, c->tp, c->platform, reserve, taken, named, both, msg,
		                       sizeof msg);
		/* the group yields to the note on the weights taken, which
		 * decides whether the refusal holds at all */
		if (by_tp[0] && taken[0] && !strstr(msg, taken))
			wc__predict_kv_refusal(field, request, ctx, &a, &hw, c->tp, c->platform, reserve, taken, named, more,
			                       msg, sizeof msg);
		return wc_error_set(err, WC_EINVAL, "%s", msg);
	}
	const double fit = lengths_known(c) ? wc_capacity_running_fit(&a, &hw, c->tp, reserve, c->input_tokens,
	                                                               c->output_tokens)
	                                    : NAN;
	if (max_fit)
		*max_fit = fit;
	if (held)
		*held = lengths_known(c) ? fit : wc_capacity_max_concurrency(&a, &hw, c->tp, reserve, ctx);
	return WC_OK;
}

int
wc_predict_memory_check(const wc_params *p, const wc_config *c, double *max_fit, wc_error *err)
{
	return memory_check(p, c, max_fit, NULL, 1, err);
}

int
wc__predict_memory_held(const wc_params *p, const wc_config *c, double *held, wc_error *err)
{
	return memory_check(p, c, NULL, held, 1, err);
}

int
wc_predict_memory_check_fixed(const wc_params *p, const wc_config *c, wc_error *err)
{
	return memory_check(p, c, NULL, NULL, 0, err);
}

double
wc_predict_running_held(double n, double n_fit)
{
	return fmin(n, n_fit); /* fmin takes n when n_fit is NaN */
}

void
wc__predict_kv_wait_note(const wc_params *p, const wc_config *c, const char *field, double asked, double n_fit,
                         double share, int latency, char *buf, size_t len)
{
	wc_capacity_hw hw;
	wc_capacity_arch a;
	wc_error e;
	double reserve;
	char kv_gb[32] = "nan"; /* the KV cache's room: the memory for the model less the weights */
	if (memory_facts(p, c, &hw, &reserve) && wc__predict_config_arch(c, &a, &e) == WC_OK)
		gb_text(wc_capacity_memory_for_model(&hw, c->tp, reserve) - a.weight_bytes, 1, kv_gb, sizeof kv_gb);
	/* worded to stay whole at its longest (a series of 10^6 requests at
	 * 10^8-token lengths on the largest group: 243 of 255 bytes, 250 without lengths,
	 * tests/test_kv_note_whole.c) */
	char tail[96] = "(its power is that of those that run)", what[64];
	if (share >= 0.0)
		snprintf(tail, sizeof tail, "(%.3g %% of its time; its power is theirs)", 100.0 * share);
	else if (latency)
		snprintf(tail, sizeof tail, "(latency and time to first token include the wait)");
	/* the count is a steady state's: each request holds its prompt and
	 * half its output on average, in whole blocks, not its full context
	 * (docs/capacity.md, "Memory as vLLM does it"); without token lengths
	 * each holds one block at least (request_context) */
	if (lengths_known(c))
		snprintf(what, sizeof what, "at a mean %.0f tokens each",
		         wc_capacity_kv_tokens_held(c->input_tokens, c->output_tokens));
	else
		snprintf(what, sizeof what, "of one %s-token block each (the least)", WC_NUM_TEXT(request_context(c)));
	/* its precision: vLLM's --kv-cache-dtype fp8 (kv fp8 here) holds twice bf16's tokens */
	wc_error_format(buf, len, "%s: %s%g requests asked; the KV cache (%s GB after the weights, %s) holds about "
	                "%.0f %s, so vLLM runs %s%.0f and preempts the rest %s", field,
	                share >= 0.0 ? "up to " : "", asked, kv_gb, wc_precision_name(c->kv), n_fit, what,
	                share >= 0.0 ? "at most " : "", n_fit, tail);
}
