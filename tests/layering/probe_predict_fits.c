/* Must NOT compile: predict/ never fits (docs/architecture.md, "Data
 * flow"), so fit's headers are not visible to it (tests/CMakeLists.txt). */
#include "fit/fit.h"

int layering_probe_predict_fits(void);
int layering_probe_predict_fits(void) { return 0; }
