/*
 * The sections of a parameter file beyond the inference law (schema 2,
 * docs/formats/params-file.md): the capacity model here, the fine-tuning
 * law in params_finetune.c. Each is read strictly like the rest of the
 * file; a section the file does not have is null.
 */
#include "params_internal.h"

static int
read_section_draws(wc__json_loader *ld, json_t *v, const char *path, wc_draws *out)
{
	char p[WC__JSON_PATH_MAX];
	json_t *x = json_object_get(v, "draws");
	if (!x || json_is_null(x))
		return WC_OK;
	wc__json_join(p, path, "draws");
	return wc__params_read_draws(ld, x, p, out);
}

int
wc__params_read_capacity(wc__json_loader *ld, json_t *v, const char *path, wc_capacity_params *out)
{
	static const char *const allowed[] = { "draws", NULL };
	static const char *const required[] = { NULL };
	int rc;
	wc_capacity_params_clear(out);
	if ((rc = wc__json_check_keys(ld, v, path, allowed, required)) ||
	    (rc = read_section_draws(ld, v, path, &out->draws)))
		return rc;
	out->present = 1;
	return WC_OK;
}

json_t *
wc__params_capacity_json(const wc_capacity_params *c, int with_draws)
{
	json_t *o = json_object();
	json_object_set_new(o, "draws", with_draws && c->draws.n > 0 ? wc__params_draws_json(&c->draws)
	                                                              : json_null());
	return o;
}
