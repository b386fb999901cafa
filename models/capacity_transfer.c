/* A capacity level for a catalog board the parameter set was not fitted
 * on (docs/capacity.md, "Platforms without a capacity level").
 *
 * Why a transfer and not a refusal: the capacity model divides bytes and
 * FLOPs by the board's datasheet bandwidth and throughput, which the
 * platform catalog knows for every board it lists; what the fit adds per
 * level is how much of the datasheet a serving engine reaches (eta) and a
 * fixed cost per step (t0). An unfitted board takes, kind by kind, the
 * median over the fitted levels whose value of that kind their rows
 * identified (not left at a bound of the fit's domain: a level fitted on
 * two periods with its overhead at the lower bound says nothing about
 * another board's overhead), those on the board's own die when it has any
 * (an H200 NVL from the H100 and H200: leaving H100 and H200 out in turn,
 * each from the other missed less than from every level, docs/capacity.md
 * "Platforms without a capacity level"). The median, not the mean: one odd
 * level must not set another board's numbers. Every draw takes the median
 * of the same levels' columns, so an interval carries the spread of what
 * it transfers. */
#include "capacity_internal.h"

#include "models/catalog.h"
#include "models/stats.h"
#include "models/warnings.h"
#include "thread_scratch_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double
wc__capacity_transfer_value(const wc_capacity_binding *b, wc_capacity_kind k, const double *draw)
{
	double v[WC_CAPACITY_MAX_LEVELS];
	int n = b->n_src[k];
	for (int i = 0; i < n; i++) {
		int col = b->src_col[k][i];
		v[i] = draw && col >= 0 ? draw[col] : b->c->levels[b->src[k][i]].p[k].value;
	}
	return wc_stats_median(v, (size_t)n);
}

/* The source levels of kind k: those on the die of board `me` whose
 * value of it their rows identified (neither at a bound nor assumed: a
 * value the fit held at the other levels' median would count them
 * twice); when none, those of any die that did; every level when none
 * did. */
static int
source_levels(const wc_capacity_params *c, wc_capacity_kind k, const wc_platform_info *me, unsigned char *src)
{
	int n = 0;
	for (int pass = 0; pass < 2 && n == 0; pass++)
		for (int i = 0; i < c->n_levels; i++) {
			if (pass == 0 && !wc_platform_same_die(wc_platform_board(c->levels[i].name, NULL), me))
				continue;
			if (c->levels[i].p[k].source != WC_SRC_BOUND && c->levels[i].p[k].source != WC_SRC_ASSUMED)
				src[n++] = (unsigned char)i;
		}
	if (n == 0)
		for (int i = 0; i < c->n_levels; i++)
			src[n++] = (unsigned char)i;
	return n;
}

int
wc_capacity_bind_any(const wc_capacity_params *c, const char *platform, wc_capacity_binding *b,
                     wc_error *err)
{
	const wc_platform_info *info = platform ? wc_platform_board(platform, NULL) : NULL;
	char label[WC_LABEL_MAX];
	if (!c->present || wc_capacity_level_find(c, platform) || !info || c->n_levels < 1)
		return wc_capacity_bind(c, platform, b, err);
	if (wc_capacity_level_find(c, info->name)) /* an alias of a fitted level */
		return wc_capacity_bind(c, info->name, b, err);
	if (!(info->bandwidth_tb_s > 0) || !(info->bf16_tflops > 0) || !(info->memory_gb > 0))
		return wc_error_set(err, WC_ENOTFOUND, "platform: the capacity model has no level '%s' and the catalog "
		                    "no bandwidth, BF16 throughput and memory for it", platform);
	memset(b, 0, sizeof *b);
	b->c = c;
	snprintf(b->own.name, sizeof b->own.name, "%s", info->name);
	b->own.bandwidth_tb_s = info->bandwidth_tb_s;
	b->own.bf16_tflops = info->bf16_tflops;
	b->own.memory_gb = info->memory_gb;
	b->level = &b->own;
	b->hw = wc_capacity_hw_datasheet(info->name, info->bandwidth_tb_s, info->bf16_tflops, info->memory_gb);
	for (int k = 0; k < WC_CAP_KINDS; k++) {
		b->col[k] = -1;
		if (c->shared[k]) {
			wc_capacity_label(wc_capacity_value_kind(c, (wc_capacity_kind)k), NULL, label, sizeof label);
			b->base[k] = c->shared_p[k].value;
			b->col[k] = wc_draws_column(&c->draws, label);
			continue;
		}
		b->n_src[k] = (unsigned char)source_levels(c, (wc_capacity_kind)k, info, b->src[k]);
		for (int i = 0; i < b->n_src[k]; i++) {
			wc_capacity_label(wc_capacity_value_kind(c, (wc_capacity_kind)k), c->levels[b->src[k][i]].name, label,
			                  sizeof label);
			int col = wc_draws_column(&c->draws, label);
			b->src_col[k][i] = (int16_t)(col >= 0 && col <= INT16_MAX ? col : -1);
		}
		b->base[k] = wc__capacity_transfer_value(b, (wc_capacity_kind)k, NULL);
		b->own.p[k] = (wc_param){ b->base[k], NAN, NAN, WC_SRC_DATASHEET };
	}
	b->datasheet = 1;
	return WC_OK;
}

int
wc_capacity_point_any(const wc_capacity_params *c, const char *platform, wc_capacity_point *pt, wc_capacity_hw *hw)
{
	wc_capacity_binding *b = malloc(sizeof *b);
	int rc = b ? wc_capacity_bind_any(c, platform, b, NULL) : WC_ENOMEM;
	if (rc == WC_OK) {
		wc_capacity_bound_point(b, NULL, pt);
		*hw = b->hw;
	}
	free(b);
	return rc;
}

/* `s` after the first *used bytes of buf, as snprintf(buf + *used,
 * cap - *used, "%s", s) writes it (cut to the room, always ended). */
static void
append(char *buf, size_t cap, size_t *used, const char *s)
{
	size_t n = strlen(s), room = cap - *used - 1;
	n = n < room ? n : room;
	memcpy(buf + *used, s, n);
	*used += n;
	buf[*used] = '\0';
}

/* "A100, H100" for kind k's sources (cap > 0), "H100, H200: same GH100
 * die" when all are on the board's die: the power transfer's note of the
 * same board says it is not taken from them alone (docs/fitting.md). */
static void
source_names(const wc_capacity_binding *b, wc_capacity_kind k, char *buf, size_t cap)
{
	const wc_platform_info *me = wc_platform_board(b->own.name, NULL);
	size_t used = 0;
	int same = b->n_src[k] > 0;
	buf[0] = '\0';
	for (int i = 0; i < b->n_src[k]; i++) {
		const char *name = b->c->levels[b->src[k][i]].name;
		append(buf, cap, &used, i ? ", " : "");
		append(buf, cap, &used, name);
		same &= wc_platform_same_die(wc_platform_board(name, NULL), me);
	}
	if (same) {
		append(buf, cap, &used, ": same ");
		append(buf, cap, &used, me->die);
		append(buf, cap, &used, " die");
	}
}

/* The last note this thread made and what it was made of: a power cap's
 * clock asks up to 278 answers of one board, each with this note, and
 * formatting it was a sixth of such an answer's time (docs/http-api.md,
 * "POST /v1/predict/batch"). Made of these alone, so a note remembered is
 * the one it would make again. Per thread, on the heap
 * (models/thread_scratch_internal.h). */
typedef struct {
	char name[WC_NAME_MAX], eta[120], t0[120], vendor[64], note[512];
	double facts[4];
	size_t len;
} transfer_memo;

/* The note; an AMD board's carries the vendor caveat the power
 * transfer's does (wc_platform_vendor_caveat: every level was fitted on
 * NVIDIA boards). To keep it whole in 255 bytes the words yield in turn:
 * the board's datasheet figures (the catalog's, `models --platforms`),
 * then the source levels named once when both kinds have the same, then
 * counted (an AMD board's note with four levels named twice is 257). */
static int
format_note(const wc_capacity_binding *b, const transfer_memo *key, char *buf, size_t cap)
{
	char facts[64], eta[sizeof key->eta + 16], t0[sizeof key->t0 + 16];
	const int same = key->eta[0] && strcmp(key->eta, key->t0) == 0;
	int n = 0;
	for (int brief = 0; brief < 4; brief++) {
		if (brief == 2 && !same)
			continue;
		snprintf(facts, sizeof facts, brief ? "" : " (%.3g TB/s, %.4g TFLOPS)", b->own.bandwidth_tb_s,
		         b->own.bf16_tflops);
		const char *names[2] = { key->eta, key->t0 };
		char *said[2] = { eta, t0 };
		const size_t room[2] = { sizeof eta, sizeof t0 };
		const wc_capacity_kind kind[2] = { WC_CAP_ETA, WC_CAP_T0 };
		for (int k = 0; k < 2; k++) {
			if (!names[k][0])
				snprintf(said[k], room[k], " (of shared)");
			else if (brief < 2)
				snprintf(said[k], room[k], " (of %s)", names[k]);
			else if (brief == 2)
				snprintf(said[k], room[k], k ? " (each of %s)" : "", names[k]);
			else
				snprintf(said[k], room[k], " (of %d levels)", b->n_src[kind[k]]);
		}
		n = snprintf(buf, cap,
		             "platform: no fitted capacity level for %s: its datasheet%s with the median efficiency %.3g%s "
		             "and step overhead %.3g ms%s; a transfer, not a fit%s%s (docs/capacity.md)",
		             b->own.name, facts, b->base[WC_CAP_ETA], eta, 1e3 * b->base[WC_CAP_T0], t0,
		             key->vendor[0] ? ": " : "", key->vendor);
		if (n < WC_WARNING_LEN)
			break;
	}
	return n;
}

/* Whether any capacity level of `c` runs on an AMD board. */
static int
levels_amd(const wc_capacity_params *c)
{
	for (int i = 0; i < c->n_levels; i++)
		if (wc_platform_amd(wc_platform_board(c->levels[i].name, NULL)))
			return 1;
	return 0;
}

void
wc_capacity_transfer_note(const wc_capacity_binding *b, char *buf, size_t cap)
{
	transfer_memo key;
	if (cap)
		buf[0] = '\0';
	if (!b->datasheet || !cap)
		return;
	memset(&key, 0, sizeof key);
	snprintf(key.name, sizeof key.name, "%s", b->own.name);
	source_names(b, WC_CAP_ETA, key.eta, sizeof key.eta);
	source_names(b, WC_CAP_T0, key.t0, sizeof key.t0);
	wc_platform_vendor_caveat(wc_platform_board(b->own.name, NULL), levels_amd(b->c), key.vendor, sizeof key.vendor);
	key.facts[0] = b->own.bandwidth_tb_s;
	key.facts[1] = b->own.bf16_tflops;
	key.facts[2] = b->base[WC_CAP_ETA];
	key.facts[3] = b->base[WC_CAP_T0];
	transfer_memo *memo = wc__thread_scratch(WC_SCRATCH_TRANSFER_NOTE, sizeof *memo);
	if (!memo || memo->len == 0 || strcmp(memo->name, key.name) != 0 || strcmp(memo->eta, key.eta) != 0 ||
	    strcmp(memo->t0, key.t0) != 0 || strcmp(memo->vendor, key.vendor) != 0 || memcmp(memo->facts, key.facts, sizeof key.facts) != 0) {
		int n = format_note(b, &key, key.note, sizeof key.note);
		key.len = n > 0 && (size_t)n < sizeof key.note ? (size_t)n : 0;
		if (key.len == 0 || !memo) { /* longer than the memo holds, or none: as it comes */
			format_note(b, &key, buf, cap);
			return;
		}
		*memo = key;
	}
	size_t n = memo->len < cap - 1 ? memo->len : cap - 1;
	memcpy(buf, memo->note, n);
	buf[n] = '\0';
}
