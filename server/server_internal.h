/*
 * Private to server/ (and to the white-box server tests): the pieces the
 * routes share, one concern per header:
 *   render_internal.h     an answer's JSON
 *   api_error_internal.h  the API's errors and the text they quote
 *   state_internal.h      the served parameter sets, profiles, answer memo
 *   metrics_internal.h    the counters of GET /metrics
 *   http_internal.h       the server, requests, answers, route table
 *   requests_internal.h   request bodies into queries and answers
 *   routes_internal.h     the routes
 * A file of server/ may include only those it uses; this one is all of
 * them.
 */
#ifndef WC_SERVER_INTERNAL_H
#define WC_SERVER_INTERNAL_H

#include "render_internal.h"
#include "api_error_internal.h"
#include "state_internal.h"
#include "metrics_internal.h"
#include "http_internal.h"
#include "requests_internal.h"
#include "routes_internal.h"

#endif
