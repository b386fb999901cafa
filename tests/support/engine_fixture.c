#include "tests/support/engine_fixture.h"

#include <stdlib.h>
#include <string.h>

wc_engine_log *
test_engine_fixture(const char *dir, const char *name, const char *body, double max_bad_fraction, test_warnings *w)
{
	char *p = test_fixture(dir, name, body);
	wc_telemetry_options opt = WC_TELEMETRY_OPTIONS_INIT;
	wc_engine_log *e = NULL;
	wc_error err;
	memset(w, 0, sizeof *w);
	opt.warn = test_collect_warning;
	opt.warn_payload = w;
	opt.max_bad_fraction = max_bad_fraction;
	CHECK_INT(wc_engine_read(p, &opt, 0, &e, &err), WC_OK);
	free(p);
	return e;
}
