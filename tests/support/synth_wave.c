/* Piecewise-constant waveforms for synthetic fine-tuning runs
 * (synth_wave.h). */
#include "tests/support/synth_wave.h"

#include "tests/support/support.h"

void
synth_wave_clear(synth_wave *v)
{
	v->n = 0;
	v->t = 0.0;
}

void
synth_wave_add(synth_wave *v, double len, double w, int step)
{
	CHECK(v->n < v->cap);
	if (v->n >= v->cap)
		return;
	v->s[v->n++] = (synth_seg){ v->t, v->t + len, w, step };
	v->t += len;
}

const synth_seg *
synth_wave_at(const synth_wave *v, double t)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) { /* the first segment ending after t */
		size_t m = (lo + hi) / 2;
		if (v->s[m].b <= t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < v->n && v->s[lo].a <= t ? &v->s[lo] : NULL;
}
