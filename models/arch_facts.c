/*
 * A model's architecture from explicit facts over a catalog entry (or
 * alone, for a model the catalog does not have), as `predict inference`'s
 * --layers ... flags and the HTTP API's "architecture" object give them:
 * one assembly both front ends use (docs/capacity.md).
 */
#include "models/catalog.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void
wc_arch_facts_init(wc_arch_facts *f)
{
	for (int i = 0; i < WC_ARCH_FACTS; i++)
		f->ints[i] = -1;
	f->total_params_b = 0.0;
}

int
wc_arch_fact_min(int i)
{
	return i < WC_ARCH_FACT_EXPERTS ? 1 : 0;
}

int
wc_arch_facts_any(const wc_arch_facts *f)
{
	int any = f->total_params_b > 0;
	for (int i = 0; i < WC_ARCH_FACTS; i++)
		any |= f->ints[i] >= 0;
	return any;
}

void
wc_model_info_with_facts(const wc_model_info *base, const char *name, double active_params_b,
                         const wc_arch_facts *f, wc_model_info *out)
{
	wc_model_info m;
	if (base) {
		m = *base;
	} else {
		memset(&m, 0, sizeof m);
		m.name = name ? name : "custom model"; /* messages say "<name>'s 8 KV heads" */
		m.architecture = WC_ARCH_DENSE;
		m.active_params_b = active_params_b;
	}
	int *slots[WC_ARCH_FACTS] = { &m.layers, &m.kv_heads, &m.head_dim, &m.d_model, &m.attention_heads,
		                      &m.experts, &m.experts_per_token, &m.attention_layers, &m.window };
	for (int i = 0; i < WC_ARCH_FACTS; i++)
		if (f->ints[i] >= 0)
			*slots[i] = (int)f->ints[i];
	if (f->total_params_b > 0)
		m.total_params_b = f->total_params_b;
	/* A catalog width (multi-head latent attention's) is of its heads:
	 * per head it stays (the latent's 192- and 128-wide products do not
	 * change with their count, Kimi-K2's 64 heads are DeepSeek-V3's 128
	 * halved), so the catalog's own facts restated move nothing and
	 * other heads scale it. Heads of another size are not the latent's:
	 * wc_arch_facts_shape_check refuses them (docs/capacity.md, "Step
	 * time"). */
	if (base && base->attention_width > 0 && base->attention_heads > 0)
		m.attention_width = m.head_dim != base->head_dim ? 0
		                    : (int)lround((double)base->attention_width / base->attention_heads *
		                                  m.attention_heads);
	/* cache_layers and sliding_window split the layers between them
	 * (docs/capacity.md, "Bytes and FLOPs"): one given alone over a model
	 * with a window says every layer caches the whole context when it is
	 * cache_layers 0 or all of them, or sliding_window 0. The inherited
	 * other half would contradict it (a window no layer uses, layers
	 * caching nothing), so it goes with it: vLLM with its hybrid KV cache
	 * manager disabled, which wc_model_window_dropped lets the answer say. */
	const int window = base ? base->window : 0;
	const long full = f->ints[WC_ARCH_FACT_CACHE_LAYERS], win = f->ints[WC_ARCH_FACT_SLIDING_WINDOW];
	if (window > 0 && win < 0 && full >= 0 && (full == 0 || full == m.layers))
		m.window = 0;
	if (window > 0 && full < 0 && win == 0 && !(m.state_bytes > 0))
		m.attention_layers = 0;
	if (m.experts > 0)
		m.architecture = WC_ARCH_MOE;
	*out = m;
}

int
wc_model_info_sizes_kv(const wc_model_info *m)
{
	return m->layers > 0 && (m->kv_dim > 0 || (m->kv_heads > 0 && m->head_dim > 0));
}

int
wc_arch_facts_missing(const wc_model_info *m, const wc_arch_facts *f)
{
	if (wc_model_info_sizes_kv(m))
		return -1;
	/* kv_dim (a catalog entry's) stands for kv_heads and head_dim */
	const int need[] = { WC_ARCH_FACT_LAYERS, WC_ARCH_FACT_KV_HEADS, WC_ARCH_FACT_HEAD_DIM };
	const int have[] = { m->layers, m->kv_dim > 0 ? 1 : m->kv_heads, m->kv_dim > 0 ? 1 : m->head_dim };
	for (int i = 0; i < 3; i++)
		if (have[i] <= 0)
			return f->ints[need[i]] < 0 ? need[i] : -1;
	return -1;
}

int
wc_model_window_dropped(const wc_model_info *m)
{
	const wc_model_info *cat = m && m->name ? wc_model_lookup(m->name) : NULL;
	return cat && cat->window > 0 && m->window == 0 ? cat->window : 0;
}

int
wc_model_attention_width(const wc_model_info *m)
{
	if (m->attention_width > 0)
		return m->attention_width;
	/* the product of two counts up to WC_MODEL_MAX_ARCH_INT: capped, not
	 * wrapped (a width past the cap costs more than any prompt allows) */
	if (m->attention_heads > 0 && m->head_dim > 0)
		return (int)fmin((double)m->attention_heads * m->head_dim, (double)INT_MAX);
	return m->d_model > 0 ? m->d_model : 0;
}

double
wc_model_attention_params(const wc_model_info *m, double *q, double *kv)
{
	*q = m->attention_heads > 0 && m->head_dim > 0 ? (double)m->attention_heads * m->head_dim : m->d_model;
	*kv = m->kv_heads > 0 && m->head_dim > 0 ? (double)m->kv_heads * m->head_dim : *q;
	const double d = m->d_model > 0 ? m->d_model : *q;
	return d * (2.0 * *q + 2.0 * *kv);
}

int
wc_model_shape_check(const wc_model_info *m, double params_b, const char *field, wc_error *err)
{
	/* Layers whose attention projections alone hold more than the model's
	 * parameters leave the MLP a negative width (docs/finetune.md, "The
	 * adapters"): a slipped digit (400 layers for 40) was answered as a
	 * model with a tenth of the KV capacity and several times the latency. */
	double q, kv, attention = m->layers * wc_model_attention_params(m, &q, &kv);
	if (!(attention > params_b * 1e9))
		return WC_OK;
	const double d = m->d_model > 0 ? m->d_model : q;
	return wc_error_set(err, WC_EINVAL, "%s: %d layers of width %.0f hold %.4g B parameters in their attention "
	                    "projections alone, more than the model's %g B%s: a mistyped width, layer count or "
	                    "parameter count?", field, m->layers, d, attention * 1e-9, params_b,
	                    m->total_params_b > params_b ? " active" : "");
}

/* Grouped-query attention: each KV head serves an equal group of the
 * attention heads, so the KV heads divide them (docs/capacity.md, "Memory
 * as vLLM does it"). A pair that breaks this is refused on the fact sent:
 * attention_heads over a model's KV heads, kv_heads over its attention
 * heads, kv_heads when both are sent (the one that groups the other); the
 * model's own facts are named the model's, the sent ones "given". Neither
 * sent: the capacity model's own check (wc_capacity_arch_make). */
static int
heads_check(const wc_model_info *m, const wc_arch_facts *f, wc_error *err)
{
	const int heads = m->attention_heads, kv = m->kv_heads;
	if (m->kv_dim > 0 || heads <= 0 || kv <= 0 || heads % kv == 0)
		return WC_OK;
	const int heads_sent = f->ints[WC_ARCH_FACT_ATTENTION_HEADS] >= 0, kv_sent = f->ints[WC_ARCH_FACT_KV_HEADS] >= 0;
	const char *who = m->name ? m->name : "the model";
	if (heads_sent && !kv_sent)
		return wc_error_set(err, WC_EINVAL, "architecture/attention_heads: must be a multiple of %.64s's %d KV "
		                    "heads (each KV head serves an equal group of them), got %d", who, kv, heads);
	if (kv_sent && heads_sent)
		return wc_error_set(err, WC_EINVAL, "architecture/kv_heads: must %s the %d attention heads given (each KV "
		                    "head serves an equal group of them), got %d", kv > heads ? "be at most" : "divide",
		                    heads, kv);
	if (kv_sent)
		return wc_error_set(err, WC_EINVAL, "architecture/kv_heads: must %s %.64s's %d attention heads (each KV "
		                    "head serves an equal group of them), got %d", kv > heads ? "be at most" : "divide",
		                    who, heads, kv);
	return WC_OK;
}

/* Multi-head latent attention's heads have widths of their own, not
 * head_dim (queries and keys 192, values 128 over a 576-value latent
 * cache; docs/capacity.md, "Step time"): another head_dim over such a
 * catalog entry describes no model, and answering it with the latent's
 * cache but plain heads' prefill would mix two. */
static int
latent_check(const wc_model_info *m, const wc_arch_facts *f, wc_error *err)
{
	const wc_model_info *cat = m->kv_dim > 0 && m->name ? wc_model_lookup(m->name) : NULL;
	const long given = f->ints[WC_ARCH_FACT_HEAD_DIM];
	if (!cat || !(cat->attention_width > 0) || given < 0 || given == cat->head_dim)
		return WC_OK;
	return wc_error_set(err, WC_EINVAL, "architecture/head_dim: %.64s's multi-head latent attention has heads of "
	                    "its own widths over a %d-value latent cache, which another head_dim does not describe: "
	                    "leave it out or send its %d, got %ld", cat->name, cat->kv_dim, cat->head_dim, given);
}

int
wc_arch_facts_shape_check(const wc_model_info *m, const wc_arch_facts *f, wc_error *err)
{
	int rc = heads_check(m, f, err);
	if (rc == WC_OK)
		rc = latent_check(m, f, err);
	if (rc != WC_OK)
		return rc;
	static const struct {
		int fact;
		const char *name;
	} shape[] = { { WC_ARCH_FACT_LAYERS, "layers" }, { WC_ARCH_FACT_D_MODEL, "d_model" },
	              { WC_ARCH_FACT_ATTENTION_HEADS, "attention_heads" }, { WC_ARCH_FACT_HEAD_DIM, "head_dim" },
	              { WC_ARCH_FACT_KV_HEADS, "kv_heads" } };
	const char *field = "active_params_b";
	char named[48];
	for (size_t i = 0; i < sizeof shape / sizeof shape[0]; i++)
		if (f->ints[shape[i].fact] >= 0) {
			snprintf(named, sizeof named, "architecture/%s", shape[i].name);
			field = named;
			break;
		}
	return wc_model_shape_check(m, m->active_params_b, field, err);
}
