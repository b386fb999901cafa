/* placeholder */
#include "fit/fit.h"
int wc_fit_placeholder_(void);
int wc_fit_placeholder_(void) { return 0; }
