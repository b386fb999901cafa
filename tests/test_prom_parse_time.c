/*
 * --start and --end as ingest --prometheus reads them (wc_prom_parse_time,
 * docs/fleet.md): RFC 3339 with an offset or Z, fractions of a second,
 * epoch seconds; a date the calendar lacks is refused (timegm carried
 * it into the next month), and second 60 only as a leap second.
 */
#include "data/prom.h"
#include "tests/support/support.h"

#define T0 1767225600L

int
main(void)
{
	double t;
	CHECK(wc_prom_parse_time("2026-01-01T01:00:00+01:00", &t) == WC_OK && t == (double)T0);
	CHECK(wc_prom_parse_time("2026-01-01T00:00:00.250Z", &t) == WC_OK && t == T0 + 0.25);
	CHECK(wc_prom_parse_time("1767225600.5", &t) == WC_OK && t == T0 + 0.5);
	CHECK(wc_prom_parse_time("2026-01-01 00:00", &t) != WC_OK);
	/* Days the month lacks: timegm carried them into the next month. */
	CHECK(wc_prom_parse_time("2026-02-30T00:00:00Z", &t) != WC_OK);
	CHECK(wc_prom_parse_time("2026-04-31T00:00:00Z", &t) != WC_OK);
	CHECK(wc_prom_parse_time("2026-02-29T00:00:00Z", &t) != WC_OK);
	CHECK(wc_prom_parse_time("2028-02-29T00:00:00Z", &t) == WC_OK);
	CHECK(wc_prom_parse_time("2000-02-29T00:00:00Z", &t) == WC_OK);
	CHECK(wc_prom_parse_time("2100-02-29T00:00:00Z", &t) != WC_OK);
	/* Second 60 only as a leap second (23:59:60 UTC); 23:00:60 was
	 * carried into the next minute. */
	CHECK(wc_prom_parse_time("2026-07-18T23:00:60Z", &t) != WC_OK);
	CHECK(wc_prom_parse_time("2016-12-31T23:59:60Z", &t) == WC_OK && t == 1483228800.0);
	CHECK(wc_prom_parse_time("2017-01-01T00:59:60+01:00", &t) == WC_OK && t == 1483228800.0);
	CHECK(wc_prom_parse_time("2017-01-01T00:59:60Z", &t) != WC_OK);
	return check_report("test_prom_parse_time");
}
