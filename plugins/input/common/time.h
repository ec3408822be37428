/*
 * How far from 0 a sample's time may be.  The inputs that read a time as a
 * number from the file (v8's microseconds, pprof's timestamp labels) refuse
 * one beyond FK_TIME_NS_LIMIT, 2^62 nanoseconds (146 years either side of
 * 0, of the epoch for wall-clock times: 1823 to 2116): then the difference
 * of any two times fits fk_sample.time_ns's int64, which the outputs that
 * subtract them (flame charts, the html timeline, pprof's duration) rely
 * on, and no real profile is refused.  A time is never clamped: a clamped
 * time would misorder the samples.  Header-only.
 */
#ifndef FK_INPUT_TIME_H
#define FK_INPUT_TIME_H

#include <stdbool.h>
#include <stdint.h>

#define FK_TIME_NS_LIMIT ((int64_t)1 << 62)
#define FK_TIME_YEARS "146"  /* FK_TIME_NS_LIMIT in years, for messages */

/* Whether ns (a double: NAN and infinities too) is within the limit. */
static inline bool fk_time_ns_fits(double ns)
{
	return ns > -(double)FK_TIME_NS_LIMIT && ns < (double)FK_TIME_NS_LIMIT;
}

static inline bool fk_time_ns_fits_i64(int64_t ns)
{
	return ns > -FK_TIME_NS_LIMIT && ns < FK_TIME_NS_LIMIT;
}

#endif
