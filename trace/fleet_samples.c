/*
 * A series' value over one grid step (docs/fleet.md, "Problems in the
 * data"): the mean of a gauge's samples or a counter's last, as the
 * queries of wc_fleet_query compute them, with the samples checked as the
 * other telemetry readers check theirs (docs/formats/telemetry.md). A
 * power reading that is negative, infinite or beyond the per-GPU bound
 * is not averaged, as a bad line of an nvidia-smi log is not, with a line
 * saying so; a running or waiting count that is no count (negative,
 * infinite, beyond the bound of engine logs) refuses the ingest, as it
 * refuses an engine log. Each sample falls into exactly one step, so each
 * is checked and reported once.
 */
#include "fleet_internal.h"

#include <math.h>
#include <stdio.h>

#include "data/telemetry.h"
#include "trace/ingest.h"

/* The power bound of the nvidia-smi reader: one place for both. */
static int
power_ok(double w)
{
	return w >= 0.0 && w <= WC_TELEMETRY_MAX_POWER_W;
}

/* Said for a group's first; the rest counted (wc_fleet_finish says how
 * many): one line per sample of a fleet in milliwatts spent the 50
 * warnings in one step and hid what came after. */
static void
drop_power(wc_fleet *f, size_t i, const wc_prom_series *s, double t, double v)
{
	char at[40], head[200], series[WC_ERROR_MSG_MAX];
	long gi = f->group[i];
	f->n_power_dropped++;
	if (!(fabs(v) <= f->max_power_dropped))
		f->max_power_dropped = fabs(v);
	if (gi >= 0 && f->g[gi].n_power_dropped++ > 0)
		return;
	wc_prom_format_time(t, at, sizeof at);
	int n = snprintf(head, sizeof head, "power sample %.6g W at %s not averaged: %s the plausible "
	                 "0 to %.0f W per GPU (docs/formats/telemetry.md); series ", v, at,
	                 v < 0 ? "below" : "beyond", WC_TELEMETRY_MAX_POWER_W);
	/* The series last, shortened to what 255 bytes leave. */
	wc_error_name_cut(s->key, wc_error_name_room((size_t)n, 1), series, sizeof series);
	wc__fleet_warn(f, "%s%s", head, series);
}

static int
refuse_count(const wc_prom_series *s, double t, double v, wc_error *err)
{
	char at[40], head[200], series[WC_ERROR_MSG_MAX];
	wc_prom_format_time(t, at, sizeof at);
	int n = snprintf(head, sizeof head, "%s = %.10g at %s is not a count: expected 0 to %.10g "
	                 "(docs/formats/telemetry.md); nothing was written; series ", s->metric, v, at,
	                 (double)WC_INGEST_MAX_RUNNING);
	wc_error_name_cut(s->key, wc_error_name_room((size_t)n, 1), series, sizeof series);
	return wc_error_set(err, WC_ERANGE, "%s%s", head, series);
}

/* Series s has no sample in the step ending at t, between its samples
 * j - 1 and j. When they are at most FLEET_INTERVAL_SLACK steps apart no
 * scrape was missed: a cadence of about the step whose scrape times
 * jitter by milliseconds put the sample just across the step's ends, and
 * the step took none (with files' default step, the grid falls on the
 * sparsest series' own phase, and +-2 ms cut 8 windows into 56 with false
 * "exporter down?" gaps). The nearer of the two stands for the step
 * (docs/fleet.md, "Choose the step"); -1 when they are further apart (a
 * missed scrape, an outage: a gap) or it is no reading to use. A server's
 * values lie on the grid, a step apart at least: never closer than two. */
static long
stand_in(const wc_fleet *f, const wc_prom_series *s, size_t j, double t, int m)
{
	if (j == 0 || j >= s->n || s->t[j] - s->t[j - 1] > f->o.step * FLEET_INTERVAL_SLACK + 1e-6)
		return -1;
	size_t k = t - f->o.step - s->t[j - 1] <= s->t[j] - t ? j - 1 : j;
	double x = s->v[k];
	if (isnan(x) || (m == WC_FLEET_POWER && !power_ok(x)) || (m >= WC_FLEET_FIRST_COUNTER && !(x >= 0.0 && isfinite(x))) ||
	    ((m == WC_FLEET_RUNNING || m == WC_FLEET_WAITING) && !wc_ingest_running_ok(x)))
		return -1;
	return (long)k;
}

/* A counter's value below 0, infinite or NaN counts nothing: no restart
 * (a reset's value is a count from 0), said once per group and counter
 * with its series and time; the step's increases are withdrawn as for a
 * step without a sample (docs/fleet.md, "Problems in the data"). A NaN
 * was an outage of the engine: the window was cut and the next row
 * counted the increase across it, 276 tok/s for 160. A NaN waiting count
 * is no reading either: the step's other samples stand, or the step's
 * waiting is unknown, as without a sample; said once per group too. */
static void
drop_count(wc_fleet *f, size_t i, const wc_prom_series *s, double t, double v)
{
	char at[40], head[200], series[WC_ERROR_MSG_MAX];
	long gi = f->group[i];
	int bit = 1 << f->metric[i];
	if (gi >= 0 && (f->g[gi].bad_count_said & bit))
		return;
	if (gi >= 0)
		f->g[gi].bad_count_said |= bit;
	wc_prom_format_time(t, at, sizeof at);
	char val[32];
	if (isnan(v))
		snprintf(val, sizeof val, "NaN");
	else
		snprintf(val, sizeof val, "%.6g", v);
	int n = f->metric[i] == WC_FLEET_WAITING
	        ? snprintf(head, sizeof head, "NaN sample at %s not averaged: the step's waiting is of its other "
	                   "samples, or unknown without one (later ones not said); series ", at)
	        : snprintf(head, sizeof head, "counter value %s at %s is implausible, not a count: the increases "
	                   "either side are left out of the rates (later ones not said); series ", val, at);
	wc_error_name_cut(s->key, wc_error_name_room((size_t)n, 1), series, sizeof series);
	wc__fleet_warn(f, "%s%s", head, series);
}

/* Counter sample x after prev (NaN: none) into f->count. */
static void
count_add(fleet_count *c, double prev, double x)
{
	if (isnan(prev)) {
		c->first = x;
	} else if (x >= prev) {
		c->within += x - prev;
	} else {
		c->within += x;
		c->reset = 1;
		c->from = prev;
		c->to = x;
	}
}

int
wc__fleet_value_at(wc_fleet *f, const wc_prom_set *set, size_t i, double t, double *v, wc_error *err)
{
	const wc_prom_series *s = &set->s[i];
	double lo = t - f->o.step + 1e-6, hi = t + 1e-6, sum = 0.0, at = t, prev = NAN;
	size_t j = f->cursor[i], n = 0, q, dropped = 0;
	int nan = 0, m = f->metric[i], counter = m >= WC_FLEET_FIRST_COUNTER, bad_count = 0;
	while (j < s->n && s->t[j] <= lo)
		j++;
	f->cursor[i] = j;
	f->count = (fleet_count){ .prev = NAN, .prev_t = NAN };
	for (q = j; q < s->n && s->t[q] <= hi; q++) {
		double x = s->v[q];
		if ((counter && !(x >= 0.0 && isfinite(x))) || (m == WC_FLEET_WAITING && isnan(x))) {
			drop_count(f, i, s, s->t[q], x);
			bad_count = counter;
			continue;
		}
		nan = nan || isnan(x);
		if (isnan(x))
			continue;
		if (counter) {
			count_add(&f->count, prev, x);
			prev = x;
		}
		if (m == WC_FLEET_POWER && !power_ok(x)) {
			drop_power(f, i, s, s->t[q], x);
			dropped++;
			continue;
		}
		if ((m == WC_FLEET_RUNNING || m == WC_FLEET_WAITING) && !wc_ingest_running_ok(x))
			return refuse_count(s, s->t[q], x, err);
		if (m == WC_FLEET_POWER)
			f->n_power_ok++;
		sum = counter ? x : sum + x;
		at = s->t[q];
		n = counter ? 1 : n + 1;
	}
	f->step_live |= q != j;
	if (bad_count)
		return FLEET_DROPPED;
	if (nan)
		return FLEET_NAN;
	if (q == j) {
		long k = stand_in(f, s, j, t, m);
		if (k < 0)
			return FLEET_ABSENT;
		f->step_live = 1;
		if (k > 0) {
			f->count.prev = s->v[k - 1];
			f->count.prev_t = s->t[k - 1];
		}
		*v = f->count.first = s->v[k];
		f->sample_t = f->sample_t0 = s->t[k];
		f->sample_iv0 = f->sample_iv1 = f->o.step;
		return FLEET_VALUE;
	}
	if (n == 0 && dropped)
		return FLEET_DROPPED;
	if (n == 0) /* NaN waiting samples alone */
		return FLEET_ABSENT;
	*v = sum / (double)n;
	if (j > 0) {
		f->count.prev = s->v[j - 1];
		f->count.prev_t = s->t[j - 1];
	}
	f->sample_t = at;
	f->sample_t0 = s->t[j];
	f->sample_iv0 = j + 1 < s->n ? s->t[j + 1] - s->t[j] : f->o.step;
	f->sample_iv1 = q >= 2 ? s->t[q - 1] - s->t[q - 2] : f->o.step;
	return FLEET_VALUE;
}

/* Series s's first step >= k whose window (t - step, t] holds a sample
 * or whose value a stand-in gives (stand_in), as wc__fleet_value_at reads
 * it; f->n_steps when none. */
static size_t
series_next_live(const wc_fleet *f, const wc_prom_series *s, size_t k)
{
	double t = f->o.start + (double)k * f->o.step, lo = t - f->o.step + 1e-6;
	size_t a = 0, b = s->n;
	while (a < b) { /* the first sample after lo */
		size_t mid = a + (b - a) / 2;
		if (s->t[mid] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	if (a == s->n)
		return f->n_steps;
	if (s->t[a] <= t + 1e-6 || (a > 0 && s->t[a] - s->t[a - 1] <= f->o.step * FLEET_INTERVAL_SLACK + 1e-6))
		return k;
	/* The step whose window holds sample a, less one for the rounding. */
	double at = ceil((s->t[a] - 1e-6 - f->o.start) / f->o.step) - 1.0;
	if (!(at < (double)f->n_steps))
		return f->n_steps;
	return at > (double)k ? (size_t)at : k + 1;
}

size_t
wc__fleet_next_live(const wc_fleet *f, const wc_prom_set *set, size_t k)
{
	size_t next = f->n_steps;
	for (size_t i = 0; i < set->n && next > k; i++)
		if (f->group[i] >= 0 && f->g[f->group[i]].ever_gpu) {
			size_t n = series_next_live(f, &set->s[i], k);
			next = n < next ? n : next;
		}
	return next;
}
