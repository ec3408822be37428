/*
 * libFuzzer harness for what the perf-data plugin reads of a perf.data
 * file itself (plugins/input/perf-data/header.c): the header, the event
 * attributes, the feature section with the sample time range and the
 * sample records of the data section.  The generic input harness cannot
 * reach that code: the plugin's parse runs perf, and needs a real file.
 * The input is written to a memory file descriptor, as the plugin reads a
 * file with pread.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../plugins/input/perf-data/header.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct pd_header hd;
	const char *why = NULL;
	uint64_t b[64];

	if (fd < 0 && (fd = memfd_create("perf.data", 0)) < 0)
		return 0;
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return 0;
	if (pd_header_read(fd, &hd, &why) == 0) {
		unsigned m = pd_sample_bounds(fd, &hd, 3, b);
		for (unsigned k = 2; k < m; k++)
			if (b[k] <= b[k - 1])
				__builtin_trap(); /* cut points must increase */
	}
	return 0;
}
