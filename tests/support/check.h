/*
 * Tiny test harness: CHECK macros count failures and print file:line;
 * a test's main returns check_report() (0 = pass, 1 = fail; a test that
 * ran no check fails too) or TEST_SKIP (77, ctest's SKIP_RETURN_CODE)
 * with a message.
 */
#ifndef WC_TEST_CHECK_H
#define WC_TEST_CHECK_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define TEST_SKIP 77

/* Defined when the tests (and so the wattcast they run, one build) are
 * built with AddressSanitizer: a test that limits the address space or
 * preloads a library cannot run under it and skips. */
#if defined(__SANITIZE_ADDRESS__)
#define WC_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WC_TEST_ASAN 1
#endif
#endif

extern int check_failures;
extern int check_count;

#define CHECK(cond)                                                                  \
	do {                                                                         \
		check_count++;                                                       \
		if (!(cond)) {                                                       \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
			check_failures++;                                            \
		}                                                                    \
	} while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
	do {                                                                         \
		double check_a_ = (a), check_b_ = (b), check_t_ = (tol);             \
		check_count++;                                                       \
		if (!(fabs(check_a_ - check_b_) <= check_t_)) {                      \
			fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.10g, %s = %.10g, tol %g\n", \
			        __FILE__, __LINE__, #a, check_a_, #b, check_b_, check_t_); \
			check_failures++;                                            \
		}                                                                    \
	} while (0)

#define CHECK_INT(a, b)                                                              \
	do {                                                                         \
		long long check_a_ = (a), check_b_ = (b);                            \
		check_count++;                                                       \
		if (check_a_ != check_b_) {                                          \
			fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, expected %lld\n", \
			        __FILE__, __LINE__, #a, check_a_, check_b_);         \
			check_failures++;                                            \
		}                                                                    \
	} while (0)

/* `hay` contains `needle` (both C strings; NULL hay fails). */
#define CHECK_CONTAINS(hay, needle)                                                  \
	do {                                                                         \
		const char *check_h_ = (hay), *check_n_ = (needle);                  \
		check_count++;                                                       \
		if (!check_h_ || !strstr(check_h_, check_n_)) {                     \
			fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: \"%s\" not in \"%s\"\n", \
			        __FILE__, __LINE__, check_n_, check_h_ ? check_h_ : "(null)"); \
			check_failures++;                                            \
		}                                                                    \
	} while (0)

int check_report(const char *test_name);

#endif
