/*
 * What the perf-data plugin reads of a perf.data file itself, without perf:
 * whether the file can be cut into time slices, and where (the header's
 * sample time range, and the sample times in the data for even slices).
 * The layout is perf's (tools/perf/util/header.h, struct perf_file_header),
 * stable since perf 3.x: "PERFILE2", the header size (104 for a file, 16
 * for one written to a pipe), the attribute and data sections, a 256-bit
 * feature bitmap, and after the data one section per feature set.
 */
#ifndef FK_PERF_DATA_HEADER_H
#define FK_PERF_DATA_HEADER_H

#include <stdint.h>

struct pd_header {
	unsigned nevents;   /* events that can sample (perf's dummy left out) */
	int untimed;        /* some of them do not record PERF_SAMPLE_TIME */
	uint64_t first_ns;  /* HEADER_SAMPLE_TIME: the first and last sample's */
	uint64_t last_ns;   /* time, both 0 when the file does not say */
	uint64_t data_off, data_size; /* the data section */
	uint64_t sample_type; /* the events' PERF_SAMPLE_* bits, when all agree */
	int mixed;          /* the events' sample_type bits differ */
};

/*
 * Read the header of the perf.data file open on fd (with pread: the file
 * offset is left alone).  Returns 0, or a negative value with *why set to a
 * static phrase ("it was written to a pipe", ...) when the file cannot be
 * sliced by time; perf itself still reads it.
 */
int pd_header_read(int fd, struct pd_header *hd, const char **why);

/*
 * Cut points for n slices holding about as many samples each: bounds[1 ..
 * m-1], strictly increasing, from the sample times read in the data
 * section (every sample's, or every 2^k-th one's for a big file).  Returns
 * m (2 <= m <= n), or 0 when the data cannot be read that way (compressed
 * records, events that disagree on their sample layout, too few distinct
 * times): the caller then cuts the header's time range evenly.
 */
unsigned pd_sample_bounds(int fd, const struct pd_header *hd, unsigned n, uint64_t *bounds);

#endif
