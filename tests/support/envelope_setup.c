#include "tests/support/envelope_setup.h"
#include "tests/support/support.h"

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
