#include "tests/support/synth_epoch.h"
#include "tests/support/support.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void
write_in(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	CHECK_INT(write_text(p, text), 0);
	free(p);
}

void
synth_epoch_power(const char *dir, double t0, int n, double w0, double dw)
{
	size_t cap = 64 * (size_t)n + 64, len;
	char *buf = malloc(cap);
	if (!buf)
		exit(1);
	len = (size_t)snprintf(buf, cap, "index,timestamp,power.draw\n");
	for (int i = 0; i < n; i++) {
		time_t sec = (time_t)t0 + i / 10;
		struct tm tm;
		char ts[40];
		gmtime_r(&sec, &tm);
		strftime(ts, sizeof ts, "%Y/%m/%d %H:%M:%S", &tm);
		len += (size_t)snprintf(buf + len, cap - len, "0,%s.%03d,%.2f\n", ts, (i % 10) * 100, w0 + dw * i);
	}
	write_in(dir, "power.csv", buf);
	free(buf);
}

void
synth_epoch_tgi(const char *dir, double t0, double dt, const int *running, int n)
{
	size_t cap = 32 * (size_t)n + 64, len;
	char *buf = malloc(cap);
	if (!buf)
		exit(1);
	len = (size_t)snprintf(buf, cap, "timestamp,tgi_batch_current_size,tgi_queue_size\n");
	for (int k = 0; k < n; k++)
		len += (size_t)snprintf(buf + len, cap - len, "%.3f,%d,0\n", t0 + dt * k, running[k]);
	write_in(dir, "engine.csv", buf);
	free(buf);
}
