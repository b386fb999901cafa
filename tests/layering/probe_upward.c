/* Must NOT compile: predict/ evaluates frozen laws and does not depend on
 * data/, so data's headers are not visible to it (tests/CMakeLists.txt). */
#include "data/runs_table.h"

int layering_probe_upward(void);
int layering_probe_upward(void) { return 0; }
