/*
 * Route handlers on a stack of their own. CivetWeb's worker threads get
 * 100 KiB of stack, and glibc places the static thread-local storage of
 * every loaded library on that stack too: OpenBLAS alone takes 60 KiB,
 * CivetWeb's own frames 20 KiB, and a handler started with about 15 KiB
 * left (measured under gdb on Debian 12). A flexibility sweep that prints
 * a warning through glibc's printf needs more than that under
 * AddressSanitizer, and a deeper law would need more in a release build.
 *
 * A thread per request costs more than the answer (a cached inference
 * answer went from 0.93 to 0.40 of the trivial route's rate), so each
 * worker keeps one stack of WC_HTTP_HANDLER_STACK bytes, mapped on its
 * first request with a guard page below it, and runs every route on it,
 * switching with glibc's swapcontext: the same OS thread, so thread-local state is unchanged.
 * AddressSanitizer is told of each switch (its fiber interface), or it
 * would take the new stack for an overflow of the old one.
 */
#include "http_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define WC_ASAN_FIBERS 1
#else
#define WC_ASAN_FIBERS 0
#endif

typedef struct {
	ucontext_t caller, callee;
	void *map;                   /* guard page, then the stack */
	size_t map_len;
	char *stack;                 /* above the guard page */
	void (*fn)(void *);
	void *arg;
	const void *caller_bottom;   /* the worker's stack, for ASan */
	size_t caller_size;
} fiber;

static pthread_key_t fiber_key;
static pthread_once_t fiber_once = PTHREAD_ONCE_INIT;
static int fiber_key_ok;
/* The fiber a call runs on, NULL between calls: makecontext passes only
 * ints, so the entry finds its fiber here. */
static _Thread_local fiber *running;

static void
fiber_free(void *p)
{
	fiber *f = p;
	munmap(f->map, f->map_len);
	free(f);
}

static void
fiber_key_make(void)
{
	fiber_key_ok = pthread_key_create(&fiber_key, fiber_free) == 0;
}

/* This worker's fiber, mapped on first use; NULL when memory is short. */
static fiber *
fiber_of_thread(void)
{
	pthread_once(&fiber_once, fiber_key_make);
	if (!fiber_key_ok)
		return NULL;
	fiber *f = pthread_getspecific(fiber_key);
	if (f)
		return f;
	long page = sysconf(_SC_PAGESIZE);
	if (!(f = calloc(1, sizeof *f)))
		return NULL;
	f->map_len = WC_HTTP_HANDLER_STACK + (size_t)page;
	f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (f->map == MAP_FAILED) {
		free(f);
		return NULL;
	}
	/* An overflow faults on the guard page instead of writing the heap. */
	if (mprotect(f->map, (size_t)page, PROT_NONE) != 0 || pthread_setspecific(fiber_key, f) != 0) {
		fiber_free(f);
		return NULL;
	}
	f->stack = (char *)f->map + page;
	return f;
}

static void
fiber_main(void)
{
	fiber *f = running;
#if WC_ASAN_FIBERS
	__sanitizer_finish_switch_fiber(NULL, &f->caller_bottom, &f->caller_size);
#endif
	f->fn(f->arg);
#if WC_ASAN_FIBERS
	/* NULL: this context ends here (uc_link resumes the worker). */
	__sanitizer_start_switch_fiber(NULL, f->caller_bottom, f->caller_size);
#endif
}

/* The switch and back. getcontext returns twice: what is read after it
 * is volatile, and the rest of the call is kept out of this frame. */
static __attribute__((noinline)) int
switch_to(fiber *const f_in)
{
	fiber *volatile f = f_in;
	if (getcontext(&f->callee) != 0)
		return -1;
	f->callee.uc_stack.ss_sp = f->stack;
	f->callee.uc_stack.ss_size = WC_HTTP_HANDLER_STACK;
	f->callee.uc_link = &f->caller;
	makecontext(&f->callee, fiber_main, 0);
	running = f;
#if WC_ASAN_FIBERS
	void *volatile fake = NULL;
	__sanitizer_start_switch_fiber((void **)&fake, f->stack, WC_HTTP_HANDLER_STACK);
#endif
	int rc = swapcontext(&f->caller, &f->callee);
#if WC_ASAN_FIBERS
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
	running = NULL;
	return rc == 0 ? 0 : -1;
}

int
wc_server_call_deep(void (*fn)(void *), void *arg)
{
	if (running) { /* already on it */
		fn(arg);
		return 0;
	}
	fiber *f = fiber_of_thread();
	if (!f)
		return -1;
	f->fn = fn;
	f->arg = arg;
	return switch_to(f);
}
