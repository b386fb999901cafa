/*
 * Routes run on a stack of their own (server/stack.c): a handler
 * that needs far more than the 15 KiB a CivetWeb worker has left runs to
 * the end, on the same OS thread, on a stack outside the worker's, and
 * the stack is reused by the next call and by a call from inside a call.
 * The worker here is a thread with CivetWeb's 100 KiB stack; the work
 * recurses 1 MiB deep, which on that stack would fault.
 */
#include "server/server_internal.h"
#include "tests/support/check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define FRAME 4096
#define DEPTH 256 /* x 4 KiB frames = 1 MiB */

typedef struct {
	pthread_t thread;      /* the thread the work ran on */
	uintptr_t lowest;      /* the deepest frame's address */
	long sum;              /* what the recursion computed */
	int nested_ran;
} work;

static __attribute__((noinline)) long
recurse(int depth, work *w)
{
	volatile char frame[FRAME];
	memset((char *)frame, depth & 0x7f, sizeof frame);
	if ((uintptr_t)frame < w->lowest)
		w->lowest = (uintptr_t)frame;
	long below = depth > 1 ? recurse(depth - 1, w) : 0;
	return below + frame[depth % FRAME];
}

static void
nested(void *arg)
{
	((work *)arg)->nested_ran = 1;
}

static void
deep(void *arg)
{
	work *w = arg;
	w->thread = pthread_self();
	w->lowest = UINTPTR_MAX;
	w->sum = recurse(DEPTH, w);
	/* a call from inside a call runs on the stack it is already on */
	CHECK_INT(wc_server_call_deep(nested, w), 0);
}

typedef struct {
	work w[2];
	int rc[2];
	uintptr_t worker_local; /* an address on the worker's own stack */
	pthread_t self;
} worker_run;

static void *
worker(void *arg)
{
	worker_run *r = arg;
	volatile int here = 0;
	r->worker_local = (uintptr_t)&here;
	r->self = pthread_self();
	for (int i = 0; i < 2; i++)
		r->rc[i] = wc_server_call_deep(deep, &r->w[i]);
	return NULL;
}

int
main(void)
{
	long expect = 0;
	for (int d = 1; d <= DEPTH; d++)
		expect += d & 0x7f;
	worker_run r;
	memset(&r, 0, sizeof r);
	pthread_attr_t attr;
	pthread_t tid;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 100 * 1024);
	CHECK_INT(pthread_create(&tid, &attr, worker, &r), 0);
	pthread_attr_destroy(&attr);
	pthread_join(tid, NULL);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(r.rc[i], 0);
		CHECK(r.w[i].sum == expect);
		CHECK(r.w[i].nested_ran);
		CHECK(pthread_equal(r.w[i].thread, r.self));
		/* 1 MiB below the worker's own frame: not its 100 KiB stack */
		uintptr_t dist = r.worker_local > r.w[i].lowest ? r.worker_local - r.w[i].lowest
		                                                : r.w[i].lowest - r.worker_local;
		CHECK(dist > 100 * 1024);
	}
	/* the second call reused the first call's stack */
	CHECK(r.w[0].lowest == r.w[1].lowest);
	return check_report("test_server_stack");
}
