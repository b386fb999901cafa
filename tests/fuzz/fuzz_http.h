/*
 * The HTTP body routes (server/route_predict.c, server/route_batch.c)
 * without a connection: the bytes of a request body go through the same
 * function the route calls once it has read the body
 * (wc_answer_predict_inference / wc_answer_predict_batch, declared in the
 * private server/server_internal.h), against the published profile with
 * 50 bootstrap draws. Every answer must be JSON; an error must have the
 * API's shape with its own status, a code, a valid UTF-8 message (never
 * the "not valid UTF-8" fallback) and, for an unknown field, a pointer to
 * it ("/" for the key "", never empty); a batch answer must list one
 * result per item, errors indexed.
 */
#ifndef WC_FUZZ_HTTP_H
#define WC_FUZZ_HTTP_H

#include "data/data.h"
#include "server/server_internal.h"
#include "tests/fuzz/fuzz_common.h"

#include <gsl/gsl_errno.h>

static wc_profiles *fuzz_profiles;

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	wc_params p = WC_PARAMS_INIT;
	wc_error err;
	char names[1][WC_LABEL_MAX] = { "theta[H100]" };
	double draws[50];
	(void)argc;
	(void)argv;
	gsl_set_error_handler_off();
	json_object_seed(0);
	wc_params_default(&p);
	for (int i = 0; i < 50; i++)
		draws[i] = p.levels[1].theta.value * (0.95 + 0.002 * i);
	const wc_params *sets[1] = { &p };
	const char *sources[1] = { "fuzz" };
	if (wc_params_set_draws(&p, 50, 1, (const char (*)[WC_LABEL_MAX])names, draws, &err) != WC_OK ||
	    wc_profiles_new(1, sets, sources, &fuzz_profiles, &err) != WC_OK) {
		fprintf(stderr, "fuzz: %s\n", err.msg);
		abort();
	}
	wc_params_clear(&p);
	return 0;
}

/* The error object of an answer: the API's shape with its status. */
static inline void
check_error(const json_t *e, long status)
{
	FUZZ_ASSERT(json_is_object(e));
	FUZZ_ASSERT(json_integer_value(json_object_get(e, "status")) == status);
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));
	FUZZ_ASSERT(code && code[0] && msg && msg[0]);
	FUZZ_ASSERT(strcmp(msg, "(message not valid UTF-8)") != 0);
	FUZZ_ONE_LINE(msg);
	const json_t *field = json_object_get(e, "field");
	if (field) {
		const char *f = json_string_value(field);
		FUZZ_ASSERT(f && (f[0] == '\0' || f[0] == '/'));
		/* An unknown key always has a pointer ("/" for the key ""). */
		if (strcmp(code, "unknown_field") == 0)
			FUZZ_ASSERT(f[0] == '/');
	}
}

/* Check an answer: JSON, and errors in the API's shape. Returns the
 * parsed body (caller releases). */
static inline json_t *
check_answer(const wc_response *res)
{
	static const int statuses[] = { 200, 400, 404, 413, 415, 422, 500 };
	int known = 0;
	for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
		known |= res->status == statuses[i];
	FUZZ_ASSERT(known);
	FUZZ_ASSERT(res->body != NULL);
	json_t *root = json_loadb(res->body, res->len, 0, NULL);
	FUZZ_ASSERT(root != NULL);
	if (res->status != 200)
		check_error(json_object_get(root, "error"), res->status);
	return root;
}

#endif
