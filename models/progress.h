/*
 * Progress of long work, for a person at a terminal (docs/cli.md,
 * "Progress"). Library code says what it is doing (a task and, when known,
 * how many steps it has) and counts steps as they finish, from any thread;
 * only the command line installs a reporter, so elsewhere (the server,
 * tests) each call is one load of a null pointer. Progress never changes a
 * result: the reporter only reads the counts.
 */
#ifndef WC_MODELS_PROGRESS_H
#define WC_MODELS_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Called with the task's name, the steps done and the total (0 = not
 *  known in advance), from whichever thread finished a step; at most one
 *  call at a time. */
typedef void (*wc_progress_fn)(const char *task, double done, double total);

/** Install the reporter (NULL = none). Not thread-safe: call it before the
 *  work starts. */
void wc_progress_install(wc_progress_fn fn);
/** A task begins: `task` must outlive it (a literal). */
void wc_progress_begin(const char *task, double total);
/** `amount` more steps are done (thread-safe). */
void wc_progress_add(double amount);
/** The task is over: the reporter is called once more with done = total. */
void wc_progress_end(void);

#ifdef __cplusplus
}
#endif
#endif
