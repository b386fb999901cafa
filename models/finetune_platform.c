/*
 * The platforms a fine-tuning question may name (docs/finetune.md,
 * "Predicting"). A law calibrated on a GPU the datasheet catalog does not
 * know (an RTX PRO 6000 run) answered without --platform "on 4 x
 * RTX-PRO-6000" but refused --platform RTX-PRO-6000: the law's own
 * platforms are accepted here, beside the levels and catalog boards of
 * wc_params_platform.
 */
#include "models/params.h"
#include "models/catalog.h"

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

/* Each name wc_finetune_platform accepts, once, into `l`: the law's
 * calibration platforms, the set's levels, the catalog's other boards. */
static void
add_names(const wc_params *p, wc_name_list *l)
{
	const char *list = p->finetune.present ? p->finetune.platform : "";
	for (const char *q = list; *q;) {
		size_t k = strcspn(q, "+");
		int again = 0;
		for (const char *r = list; r < q && !again;) {
			size_t m = strcspn(r, "+");
			again = m == k && strncmp(r, q, k) == 0;
			r += m + (r[m] == '+');
		}
		if (!again)
			wc_name_list_add(l, q, k);
		q += k + (q[k] == '+');
	}
	for (int i = 0; i < p->n_levels; i++)
		if (!wc_ft_platform_calibrated(list, p->levels[i].name))
			wc_name_list_add(l, p->levels[i].name, strlen(p->levels[i].name));
	wc_params_datasheet_names(p, list, l);
}

void
wc_finetune_unknown_platform(const wc_params *p, const char *field, char quote, const char *asked,
                             const char *pointer, char *out)
{
	char known[WC_ERROR_MSG_MAX], see[64] = "";
	char name[64];
	/* the name as asked, cut by the one rule of a message: "..." when cut */
	wc_error_name_cut(asked, 50, name, sizeof name);
	if (pointer)
		snprintf(see, sizeof see, "; see %s", pointer);
	int fixed = snprintf(NULL, 0, "%s: unknown platform %c%s%c (known: %s)", field, quote, name, quote, see);
	size_t room = fixed > 0 && fixed < WC_ERROR_MSG_MAX - 1 ? (size_t)(WC_ERROR_MSG_MAX - 1 - fixed) : 0;
	wc_name_list l;
	wc_name_list_init(&l, known, room + 1);
	add_names(p, &l);
	wc_name_list_end(&l);
	snprintf(out, WC_ERROR_MSG_MAX, "%s: unknown platform %c%s%c (known: %s%s)", field, quote, name, quote,
	         known, see);
}
