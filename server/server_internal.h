/* Private to server/: jansson-level builders shared by the routes. */
#ifndef WC_SERVER_INTERNAL_H
#define WC_SERVER_INTERNAL_H

#include <jansson.h>

#include "server/server.h"

/** New reference: the JSON object of one inference prediction. */
json_t *wc_inference_json(const wc_inference_query *q, const wc_inference_prediction *pred,
                          const char *params_version);

#endif
