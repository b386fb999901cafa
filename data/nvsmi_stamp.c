/*
 * nvidia-smi timestamps (docs/formats/telemetry.md, "Timestamps"): the
 * local wall time nvidia-smi writes, `YYYY/MM/DD HH:MM:SS[.fff]`, into
 * seconds; a row's time is taken in nvsmi_row.c (row_time).
 */
#include "nvsmi_internal.h"

int
wc__nv_digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (H. Hinnant's days_from_civil). */
static long
days_from_civil(int y, int m, int d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
wc_nvsmi_parse_time(const char *s, size_t len, double *out)
{
	int y, mo, d, h, mi, se;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (len < 19 || (s[4] != '/' && s[4] != '-') || s[7] != s[4] ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return -1;
	if (wc__nv_digits(s, 4, &y) || wc__nv_digits(s + 5, 2, &mo) || wc__nv_digits(s + 8, 2, &d) ||
	    wc__nv_digits(s + 11, 2, &h) || wc__nv_digits(s + 14, 2, &mi) || wc__nv_digits(s + 17, 2, &se))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || se > 60)
		return -1;
	double frac = 0.0, scale = 0.1;
	size_t i = 19;
	if (i < len && s[i] == '.') {
		if (++i == len)
			return -1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, scale *= 0.1)
			frac += (s[i] - '0') * scale;
	}
	if (i != len)
		return -1;
	*out = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + se + frac;
	return 0;
}
