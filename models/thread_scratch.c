/*
 * Per-thread scratch memory on the heap (models/thread_scratch_internal.h): one
 * pthread key holds a thread's blocks, freed by its destructor.
 */
#include "thread_scratch_internal.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int key_made;

static void
blocks_free(void *p)
{
	void **blocks = p;
	for (int i = 0; i < WC_SCRATCH_COUNT; i++)
		free(blocks[i]);
	free(blocks);
}

static void
make_key(void)
{
	key_made = pthread_key_create(&key, blocks_free) == 0;
}

void *
wc__thread_scratch(wc_scratch which, size_t size)
{
	if (pthread_once(&once, make_key) != 0 || !key_made || which < 0 || which >= WC_SCRATCH_COUNT)
		return NULL;
	void **blocks = pthread_getspecific(key);
	if (!blocks) {
		if (!(blocks = calloc(WC_SCRATCH_COUNT, sizeof *blocks)))
			return NULL;
		if (pthread_setspecific(key, blocks) != 0) {
			free(blocks);
			return NULL;
		}
	}
	if (!blocks[which])
		blocks[which] = calloc(1, size);
	return blocks[which];
}
