/*
 * Per-thread scratch memory on the heap, for memos that make repeated
 * answers cheap (the platform lookups, the datasheet transfer's note).
 * Not _Thread_local arrays: glibc carves static TLS from every thread's
 * own stack, and CivetWeb's workers have about 15 KiB of theirs left when
 * a request arrives (server/http_internal.h); 7.5 KiB of memos there
 * overflowed it under AddressSanitizer.
 *
 * Ownership: each block is the calling thread's, zeroed when first given,
 * freed when the thread exits; callers never free it.
 */
#ifndef WC_MODELS_THREAD_SCRATCH_INTERNAL_H
#define WC_MODELS_THREAD_SCRATCH_INTERNAL_H

#include <stddef.h>

typedef enum {
	WC_SCRATCH_PLATFORM_LOOKUP, /* models/platform_catalog.c */
	WC_SCRATCH_TRANSFER_NOTE,   /* models/capacity_transfer.c */
	WC_SCRATCH_COUNT
} wc_scratch;

/** This thread's block `which` of `size` bytes (the same size at every
 *  call for a given block), zeroed at first; NULL when out of memory (the
 *  caller works without its memo). */
void *wc__thread_scratch(wc_scratch which, size_t size);

#endif
