/* placeholder */
#include "validation/validation.h"
int wc_validation_placeholder_(void);
int wc_validation_placeholder_(void) { return 0; }
