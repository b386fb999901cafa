/* Must compile: fit/ depends on data/ and may include its public headers.
 * The control for the two probes that must fail (tests/CMakeLists.txt). */
#include "data/runs_table.h"
#include "fit/fit.h"

int layering_probe_allowed(void);
int layering_probe_allowed(void) { return (int)sizeof(wc_run) > 0 ? 0 : 1; }
