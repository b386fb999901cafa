/*
 * The fine-tuning energy law (models/finetune_law.h, docs/finetune.md): the
 * configuration and its analytical FLOPs, the per-factor relations, and
 * evaluating a bound configuration. The section's lifetime (clear, copy,
 * the published default, validation) is in finetune_params.c.
 */
#include "models/capacity_model.h"
#include "models/finetune_law.h"
#include "models/limits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const method_names[WC_FT_METHOD_COUNT] = { "full", "lora", "qlora" };

const char *
wc_ft_method_name(wc_ft_method m)
{
	return (unsigned)m < WC_FT_METHOD_COUNT ? method_names[m] : "";
}

int
wc_ft_method_from_name(const char *name, wc_ft_method *out)
{
	for (int i = 0; name && i < WC_FT_METHOD_COUNT; i++)
		if (strcmp(name, method_names[i]) == 0) {
			*out = (wc_ft_method)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

const char *
wc_ft_method_choices(void)
{
	return "full, lora or qlora";
}

int
wc_ft_methods_join(unsigned methods, const char *sep, char *buf, size_t cap)
{
	int n = 0;
	size_t used = 0;
	if (cap)
		buf[0] = '\0';
	for (int m = 0; m < WC_FT_METHOD_COUNT && cap; m++)
		if (methods & (1u << m)) {
			if (used < cap)
				used += (size_t)snprintf(buf + used, cap - used, "%s%s", n ? sep : "",
				                         wc_ft_method_name((wc_ft_method)m));
			n++;
		}
	return n;
}

void
wc_ft_config_from_model(wc_ft_config *c, const wc_model_info *m)
{
	c->params_b = m->active_params_b;
	c->layers = m->layers;
	c->d_model = m->d_model;
	c->attention_heads = m->attention_heads;
	c->kv_heads = m->kv_heads;
	c->head_dim = m->head_dim;
	c->model = m;
}

int
wc_ft_replicas(const wc_ft_config *c)
{
	return c->data_parallel > 0 ? c->data_parallel : c->gpus;
}

double
wc_ft_step_tokens(const wc_ft_config *c)
{
	return (double)c->micro_batch * c->seq_len * c->grad_accum * wc_ft_replicas(c);
}

/* A whole number in [lo, hi], named in the message. */
static int
check_int(const char *field, int v, int lo, int hi, const char *why, wc_error *err)
{
	if (v < lo)
		return wc_error_set(err, WC_EINVAL, "%s: must be a whole number %s, got %d", field, why, v);
	if (v > hi) /* say the bound that was crossed, not the one that holds */
		return wc_error_set(err, WC_EINVAL, "%s: must be at most %d, got %d", field, hi, v);
	return WC_OK;
}

/* The job's shape as the catalog states one, for the models/ rules of
 * a shape (wc_model_attention_params, wc_model_shape_check). */
static wc_model_info
shape_of(const wc_ft_config *c)
{
	return (wc_model_info){ .layers = c->layers, .d_model = c->d_model, .attention_heads = c->attention_heads,
		                .kv_heads = c->kv_heads, .head_dim = c->head_dim };
}

/* Parameters of one layer's attention projections q, k, v, o; *q and
 * *kv the widths of q and of k, v (d_model without heads). */
static double
attention_params(const wc_ft_config *c, double *q, double *kv)
{
	const wc_model_info m = shape_of(c);
	return wc_model_attention_params(&m, q, kv);
}

/* The model's size and shape. */
static int
check_model(const wc_ft_config *c, wc_error *err)
{
	int rc;
	if (!(c->params_b > 0) || !(c->params_b <= WC_MODEL_MAX_PARAMS_B))
		return wc_error_set(err, WC_EINVAL, "params_b: must be a number of billions > 0 and at most %g, "
		                    "got %s", WC_MODEL_MAX_PARAMS_B, WC_NUM_TEXT(c->params_b));
	if ((rc = check_int("layers", c->layers, 1, WC_FT_MAX_LAYERS, ">= 1", err)) ||
	    (rc = check_int("d_model", c->d_model, 1, WC_FT_MAX_D_MODEL, ">= 1", err)) ||
	    (rc = check_int("attention_heads", c->attention_heads, 0, WC_FT_MAX_HEADS, ">= 0", err)) ||
	    (rc = check_int("kv_heads", c->kv_heads, 0, WC_FT_MAX_HEADS, ">= 0", err)) ||
	    (rc = check_int("head_dim", c->head_dim, 0, WC_FT_MAX_HEADS, ">= 0", err)))
		return rc;
	/* a mistyped d_model or layers, named d_model (docs/finetune.md, "The
	 * adapters") */
	const wc_model_info m = shape_of(c);
	return wc_model_shape_check(&m, c->params_b, "d_model", err);
}

int
wc_ft_config_check(const wc_ft_config *c, wc_error *err)
{
	int rc;
	if ((unsigned)c->method >= WC_FT_METHOD_COUNT)
		return wc_error_set(err, WC_EINVAL, "method: expected %s", wc_ft_method_choices());
	if ((rc = check_model(c, err)))
		return rc;
	if (c->method == WC_FT_FULL && c->lora_rank != 0)
		return wc_error_set(err, WC_EINVAL, "lora_rank: only for lora and qlora, got %d with full",
		                    c->lora_rank);
	char gpus[40]; /* the bound as text, so that the message cannot drift from it */
	snprintf(gpus, sizeof gpus, "between 1 and %d", WC_FT_MAX_GPUS);
	if (c->method != WC_FT_FULL &&
	    (rc = check_int("lora_rank", c->lora_rank, 1, WC_FT_MAX_LORA_RANK, ">= 1 for lora and qlora", err)))
		return rc;
	if ((rc = check_int("micro_batch", c->micro_batch, 1, WC_FT_MAX_INT, ">= 1", err)) ||
	    (rc = check_int("seq_len", c->seq_len, 1, WC_FT_MAX_INT, ">= 1", err)) ||
	    (rc = check_int("grad_accum", c->grad_accum, 1, WC_FT_MAX_INT, ">= 1", err)) ||
	    (rc = check_int("gpus", c->gpus, 1, WC_FT_MAX_GPUS, gpus, err)) ||
	    (rc = check_int("data_parallel", c->data_parallel, 0, WC_FT_MAX_GPUS, ">= 0 (0 = gpus)", err)))
		return rc;
	if (c->data_parallel > 0 && (c->data_parallel > c->gpus || c->gpus % c->data_parallel != 0))
		return wc_error_set(err, WC_EINVAL,
		                    "data_parallel: must divide gpus (%d), got %d", c->gpus, c->data_parallel);
	if (!isnan(c->tokens_per_step) &&
	    !(c->tokens_per_step >= 1 && c->tokens_per_step <= WC_FT_MAX_TOKENS))
		return wc_error_set(err, WC_EINVAL, "tokens_per_step: must be between 1 and %g tokens, got %s",
		                    WC_FT_MAX_TOKENS, WC_NUM_TEXT(c->tokens_per_step));
	/* A step trains on at most every sequence of every micro-step of every
	 * replica; more tokens than that is a mistyped count (1e9 for a 2048-
	 * token micro-batch), which the law would answer as 500 000 times the
	 * energy, or an over-counting num_input_tokens_seen. One rule for a
	 * query, a runs-table row and ingest (docs/finetune.md, "Inputs of one
	 * job"). */
	double most = wc_ft_step_tokens(c);
	/* Derived, T is held to the bound a given T has: 1e8 in each of
	 * micro_batch, seq_len and grad_accum made 6.6e28 tokens, answered as
	 * 1e41 kWh of float noise (docs/finetune.md, "Inputs of one job"). */
	if (isnan(c->tokens_per_step) && !(most <= WC_FT_MAX_TOKENS))
		return wc_error_set(err, WC_EINVAL, "micro_batch: micro_batch %d x seq_len %d x grad_accum %d x %d "
		                    "data-parallel replica%s = %.4g tokens per step, over %g", c->micro_batch,
		                    c->seq_len, c->grad_accum, wc_ft_replicas(c), wc_ft_replicas(c) == 1 ? "" : "s",
		                    most, WC_FT_MAX_TOKENS);
	if (!isnan(c->tokens_per_step) && c->tokens_per_step > most)
		return wc_error_set(err, WC_EINVAL, "tokens_per_step: %s tokens are more than one step holds: "
		                    "micro_batch %d x seq_len %d x grad_accum %d x %d data-parallel replica%s = %.0f",
		                    WC_NUM_TEXT(c->tokens_per_step), c->micro_batch, c->seq_len, c->grad_accum, wc_ft_replicas(c),
		                    wc_ft_replicas(c) == 1 ? "" : "s", most);
	return WC_OK;
}

int
wc_ft_steps_check(double steps, wc_error *err)
{
	/* Optimizer steps are whole: 2.5 steps was answered as "0.000 kWh"
	 * rather than refused; one rule for the CLI and HTTP. */
	if (!isnan(steps) && !(steps >= 0 && steps <= WC_FT_MAX_STEPS && steps == floor(steps)))
		return wc_error_set(err, WC_EINVAL, "steps: must be a whole number of optimizer steps from 0 to %g, got %s",
		                    WC_FT_MAX_STEPS, WC_NUM_TEXT(steps));
	return WC_OK;
}

/* Sum of (d_in + d_out) over the matrices LoRA adapts in one layer: the
 * attention projections q, k, v, o and the MLP's gate, up and down
 * (PEFT's "all-linear"). The MLP width is estimated from the parameters
 * per layer left after attention (embeddings are not subtracted, so it
 * errs high). */
static double
adapter_width(const wc_ft_config *c)
{
	double d = c->d_model, q, kv;
	/* >= 0: check_model refuses a shape whose attention exceeds the parameters */
	double d_ff = (c->params_b * 1e9 / c->layers - attention_params(c, &q, &kv)) / (3.0 * d);
	return 7.0 * d + 2.0 * q + 2.0 * kv + 3.0 * d_ff;
}

/* The width the attention's score and value products run at: the
 * capacity model's (wc_model_attention_width, docs/capacity.md "Step
 * time"), of the catalog entry when the shape is its own (a latent
 * attention's 192- and 128-wide heads), else of the heads given, else
 * d_model. */
static double
attention_width(const wc_ft_config *c)
{
	wc_model_info shape = c->model ? *c->model : (wc_model_info){ 0 };
	if (!c->model || shape.d_model != c->d_model || shape.attention_heads != c->attention_heads ||
	    shape.head_dim != c->head_dim)
		shape.attention_width = 0;
	shape.d_model = c->d_model;
	shape.attention_heads = c->attention_heads;
	shape.head_dim = c->head_dim;
	return wc_model_attention_width(&shape);
}

/* The keys a token's attention products run over, summed over the
 * layers: S on a full-attention layer; on a catalog model's sliding-window
 * layers (its own shape) S times the windowed share of a causal
 * sequence's pairs, the capacity model's count (wc_capacity_causal_pairs,
 * docs/capacity.md "Step time"), so that at S <= W nothing moves. */
static double
attention_keys(const wc_ft_config *c)
{
	const double S = c->seq_len, full = wc_capacity_causal_pairs(S, 0.0);
	const wc_model_info *m = c->model;
	if (!m || !(m->window > 0) || m->layers != c->layers || !(m->attention_layers > 0) ||
	    m->attention_layers >= m->layers || !(full > 0.0))
		return c->layers * S;
	return S * (m->attention_layers + (m->layers - m->attention_layers) * wc_capacity_causal_pairs(S, m->window) / full);
}

int
wc_ft_flops_compute(const wc_ft_config *c, wc_ft_flops *out, wc_error *err)
{
	int rc = wc_ft_config_check(c, err);
	memset(out, 0, sizeof *out);
	if (rc != WC_OK)
		return rc;
	out->tokens_per_step = isnan(c->tokens_per_step) ? wc_ft_step_tokens(c) : c->tokens_per_step;
	out->weight_flops = 2.0 * c->params_b * 1e9;
	out->attention_flops = 2.0 * attention_keys(c) * attention_width(c);
	out->forward_flops = out->weight_flops + out->attention_flops;
	/* Full training: forward, backward for activations and for weights.
	 * PEFT: frozen weights need no weight gradient. The adapters are
	 * trained, so they take all three. Checkpointing repeats a forward. */
	out->base_passes = (c->method == WC_FT_FULL ? 3.0 : 2.0) + (c->checkpointing ? 1.0 : 0.0);
	if (c->method != WC_FT_FULL) {
		out->adapter_width = adapter_width(c);
		out->adapter_flops = 2.0 * c->lora_rank * (double)c->layers * out->adapter_width;
		out->adapter_passes = 3.0 + (c->checkpointing ? 1.0 : 0.0);
	}
	out->flops_per_token = out->base_passes * out->forward_flops + out->adapter_passes * out->adapter_flops;
	out->flops_per_step_tflop = out->tokens_per_step * out->flops_per_token * 1e-12;
	return WC_OK;
}

/* ----------------------------------------------- per-factor relations */

static const struct {
	const char *name, *factor, *form;
	int terms;
} relation_info[WC_FT_REL_COUNT] = {
	{ "batch_size", "micro_batch", "a + b/x", 2 },
	{ "sequence_length", "seq_len", "a + b*x + c/x", 3 },
	{ "model_size", "params_b", "a + b*x", 2 },
};

const char *
wc_ft_relation_name(wc_ft_relation_kind k)
{
	return (unsigned)k < WC_FT_REL_COUNT ? relation_info[k].name : "";
}

const char *
wc_ft_relation_factor(wc_ft_relation_kind k)
{
	return (unsigned)k < WC_FT_REL_COUNT ? relation_info[k].factor : "";
}

const char *
wc_ft_relation_form(wc_ft_relation_kind k)
{
	return (unsigned)k < WC_FT_REL_COUNT ? relation_info[k].form : "";
}

int
wc_ft_relation_terms(wc_ft_relation_kind k)
{
	return (unsigned)k < WC_FT_REL_COUNT ? relation_info[k].terms : 0;
}

double
wc_ft_relation_basis(wc_ft_relation_kind k, int j, double x)
{
	if (j == 0)
		return 1.0;
	switch (k) {
	case WC_FT_REL_BATCH: return 1.0 / x;
	case WC_FT_REL_SEQ: return j == 1 ? x : 1.0 / x;
	case WC_FT_REL_SIZE: return x;
	default: return NAN;
	}
}

double
wc_ft_relation_x(wc_ft_relation_kind k, const wc_ft_config *c)
{
	switch (k) {
	case WC_FT_REL_BATCH: return c->micro_batch;
	case WC_FT_REL_SEQ: return c->seq_len;
	case WC_FT_REL_SIZE: return c->params_b;
	default: return NAN;
	}
}

double
wc_ft_relation_eval(wc_ft_relation_kind k, const wc_ft_relation *r, double x)
{
	if (!r->present)
		return NAN;
	double e = 0.0;
	for (int j = 0; j < wc_ft_relation_terms(k); j++)
		e += r->coef[j].value * wc_ft_relation_basis(k, j, x);
	return e;
}

int
wc_ft_same_share(double a, double b)
{
	return fabs(a - b) <= 0.01 * fmax(fabs(a), fabs(b));
}

double
wc_ft_step_fill(const wc_ft_config *c)
{
	return isnan(c->tokens_per_step) ? 1.0 : c->tokens_per_step / wc_ft_step_tokens(c);
}

int
wc_ft_relation_on_sweep(wc_ft_relation_kind k, const wc_ft_relation *r, const wc_ft_config *c)
{
	const wc_ft_config *b = &r->base;
	if (!r->present || !r->has_base)
		return 0;
	if (b->method != c->method || b->checkpointing != c->checkpointing || b->gpus != c->gpus ||
	    wc_ft_replicas(b) != wc_ft_replicas(c) || b->grad_accum != c->grad_accum ||
	    (b->method != WC_FT_FULL && b->lora_rank != c->lora_rank))
		return 0;
	/* Tokens per step are a factor the sweep held too: its runs measured
	 * energy per token of steps filled to r->fill, and a step filled to
	 * another share is another configuration (docs/finetune.md, "How the
	 * compute law and the relations combine"). The share is the relation's,
	 * not the base's tokens_per_step: a params file records the share, and
	 * a base read without one (before schema 15) had full steps. */
	if (!wc_ft_same_share(isfinite(r->fill) && r->fill > 0 ? r->fill : 1.0, wc_ft_step_fill(c)))
		return 0;
	if (k != WC_FT_REL_BATCH && b->micro_batch != c->micro_batch)
		return 0;
	if (k != WC_FT_REL_SEQ && b->seq_len != c->seq_len)
		return 0;
	if (k != WC_FT_REL_SIZE && !wc_ft_same_share(b->params_b, c->params_b))
		return 0;
	return 1;
}

/* ------------------------------------------------ evaluating the law */

static const char *const e0_scope_names[] = { "gpu", "job" };

const char *
wc_ft_e0_scope_name(wc_ft_e0_scope s)
{
	return (unsigned)s <= WC_FT_E0_PER_JOB ? e0_scope_names[s] : "";
}

int
wc_ft_e0_scope_from_name(const char *name, wc_ft_e0_scope *out)
{
	for (int i = 0; name && i <= WC_FT_E0_PER_JOB; i++)
		if (strcmp(name, e0_scope_names[i]) == 0) {
			*out = (wc_ft_e0_scope)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

double
wc_ft_e0_multiplier(wc_ft_e0_scope s, int gpus)
{
	return s == WC_FT_E0_PER_JOB ? 1.0 : (double)gpus;
}

double
wc_ft_step_energy(double e0, double kappa, double e0_multiplier, double flops_tflop)
{
	return e0_multiplier * e0 + kappa * flops_tflop;
}

double
wc_ft_fixed_share(double e0, double kappa, double e0_multiplier, double flops_tflop)
{
	const double step = wc_ft_step_energy(e0, kappa, e0_multiplier, flops_tflop);
	return step > 0 && isfinite(step) ? e0_multiplier * e0 / step : NAN;
}

static const struct {
	const char *name, *held;
} cal_modes[] = {
	{ "scale", "the shape of the base law: e0 and kappa scaled by one factor (their ratio held)" },
	{ "kappa", "e0 at the base's value; kappa refitted" },
};

const char *
wc_ft_cal_mode_name(wc_ft_cal_mode m)
{
	return (unsigned)m <= WC_FT_CAL_KAPPA ? cal_modes[m].name : "";
}

int
wc_ft_cal_mode_from_name(const char *name, wc_ft_cal_mode *out)
{
	for (int i = 0; name && i <= WC_FT_CAL_KAPPA; i++)
		if (strcmp(name, cal_modes[i].name) == 0) {
			*out = (wc_ft_cal_mode)i;
			return WC_OK;
		}
	return WC_ENOTFOUND;
}

const char *
wc_ft_cal_mode_held(wc_ft_cal_mode m)
{
	return (unsigned)m <= WC_FT_CAL_KAPPA ? cal_modes[m].held : "";
}

int
wc_ft_bind(const wc_finetune_params *f, const wc_ft_config *c, wc_ft_binding *b, wc_error *err)
{
	memset(b, 0, sizeof *b);
	if (!f->present)
		return wc_error_set(err, WC_EINVAL,
		                    "finetune: the parameter set has no fine-tuning law (fit one with "
		                    "`wattcast fit finetune`, or use the built-in profile 'paper')");
	int rc = wc_ft_flops_compute(c, &b->flops, err);
	if (rc != WC_OK)
		return rc;
	b->f = f;
	b->e0_multiplier = wc_ft_e0_multiplier(f->e0_scope, c->gpus);
	b->col_e0 = wc_draws_column(&f->draws, WC_FT_DRAW_E0);
	b->col_kappa = wc_draws_column(&f->draws, WC_FT_DRAW_KAPPA);
	return WC_OK;
}

void
wc_ft_bound_point(const wc_ft_binding *b, const double *draw, wc_ft_point *out)
{
	double e0 = draw && b->col_e0 >= 0 ? draw[b->col_e0] : b->f->e0.value;
	double kappa = draw && b->col_kappa >= 0 ? draw[b->col_kappa] : b->f->kappa.value;
	out->energy_per_step_j = wc_ft_step_energy(e0, kappa, b->e0_multiplier, b->flops.flops_per_step_tflop);
	out->energy_per_token_j = out->energy_per_step_j / b->flops.tokens_per_step;
}
