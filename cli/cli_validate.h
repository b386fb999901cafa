/* Private to cli/: reports of `wattcast validate` kept in files of their own. */
#ifndef WC_CLI_VALIDATE_H
#define WC_CLI_VALIDATE_H

#include "validation/validation.h"

/** Print the report of `validate forms --real` (report_forms_real.c), as
 *  text or JSON. Returns CLI_OK. */
int cli_report_forms_real(const char *input, int json, const wc_forms_real_report *r);

#endif
