/*
 * The platforms a fine-tuning question may name (docs/finetune.md,
 * "Predicting"). A law calibrated on a GPU the datasheet catalog does not
 * know (an RTX PRO 6000 run) answered without --platform "on 4 x
 * RTX-PRO-6000" but refused --platform RTX-PRO-6000: the law's own
 * platforms are accepted here, beside the levels and catalog boards of
 * wc_params_platform.
 */
#include "models/params.h"

#include <stdio.h>
#include <string.h>

int
wc_ft_platform_calibrated(const char *list, const char *name)
{
	size_t n = strlen(name);
	/* The whole '+'-joined list too: a question without --platform is
	 * answered under it, and naming that answer's platform was refused. */
	if (strcmp(list, name) == 0 && n > 0)
		return 1;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, "+");
		if (k == n && strncmp(p, name, n) == 0)
			return 1;
		p += k + (p[k] == '+');
	}
	return 0;
}

const char *
wc_finetune_platform(const wc_params *p, const char *name)
{
	if (p->finetune.present && wc_ft_platform_calibrated(p->finetune.platform, name))
		return name;
	return wc_params_platform(p, name);
}

/* Append `name` (k bytes) unless `buf` holds it already as a whole item. */
static size_t
append(char *buf, size_t cap, size_t used, const char *name, size_t k)
{
	for (const char *q = buf; used && *q;) {
		size_t m = strcspn(q, ",");
		if (m == k && strncmp(q, name, k) == 0)
			return used;
		q += m + (q[m] == ',');
		q += *q == ' ';
	}
	if (used < cap)
		used += (size_t)snprintf(buf + used, cap - used, "%s%.*s", used ? ", " : "", (int)k, name);
	return used < cap ? used : cap;
}

const char *
wc_finetune_platform_names(const wc_params *p, char *buf, size_t cap)
{
	size_t used = 0;
	char sheets[512];
	if (!cap)
		return buf;
	buf[0] = '\0';
	for (const char *q = p->finetune.present ? p->finetune.platform : ""; *q;) {
		size_t k = strcspn(q, "+");
		used = append(buf, cap, used, q, k);
		q += k + (q[k] == '+');
	}
	for (int i = 0; i < p->n_levels; i++)
		used = append(buf, cap, used, p->levels[i].name, strlen(p->levels[i].name));
	wc_params_datasheet_names(p, sheets, sizeof sheets);
	for (const char *q = sheets; *q;) {
		size_t k = strcspn(q, ",");
		used = append(buf, cap, used, q, k);
		q += k + (q[k] == ',');
		q += *q == ' ';
	}
	return buf;
}
