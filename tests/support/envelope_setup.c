#include "tests/support/envelope_setup.h"
#include "tests/support/support.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

void
envelope_setup_init(envelope_setup *s, const wc_params *law)
{
	wc_error err;
	s->c = (wc_config)WC_CONFIG_INIT;
	s->c.platform = "A100";
	s->c.tp = 1;
	s->c.arch = wc_model_lookup("Qwen3-8B");
	s->c.active_params_b = s->c.arch->active_params_b;
	CHECK_INT(wc_roofline_standin_init(&s->rs, &s->c, &err), WC_OK);
	wc_roofline_standin_service(&s->rs, &s->st);
	CHECK_INT(wc_power_map_from_law(law, &s->c, NULL, &s->store, &s->pm, &err), WC_OK);
}

int
envelope_json_is(const char *text, const char *obj, const char *key, const char *want)
{
	json_t *root = json_loads(text, 0, NULL);
	const char *got = json_string_value(json_object_get(json_object_get(root, obj), key));
	int ok = got && strcmp(got, want) == 0;
	if (!ok)
		fprintf(stderr, "%s.%s: expected %s, got %s\n", obj, key, want, got ? got : "(none)");
	json_decref(root);
	return ok;
}
