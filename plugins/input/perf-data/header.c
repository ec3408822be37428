/* Reading a perf.data header: see header.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "header.h"

#define FILE_HEADER_SIZE 104
#define FEAT_SAMPLE_TIME 21          /* HEADER_SAMPLE_TIME in perf's enum */
#define ATTR_TYPE_SOFTWARE 1
#define ATTR_SW_DUMMY 9
#define SAMPLE_TIME (1u << 2)        /* PERF_SAMPLE_TIME */
#define ATTRS_MAX 4096               /* more events than this: not a sane file */

static uint64_t u64_at(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8); /* the writer's byte order, ours: the magic said so */
	return v;
}

static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Count the sampling events and whether each records its time. */
static int read_attrs(int fd, uint64_t attr_size, uint64_t off, uint64_t size,
                      struct pd_header *hd, const char **why)
{
	unsigned char a[32];

	if (attr_size < 16 + sizeof a || size % attr_size || size / attr_size > ATTRS_MAX) {
		*why = "its event attributes are not laid out as this plugin knows";
		return -1;
	}
	for (uint64_t i = 0; i < size / attr_size; i++) {
		uint32_t type;
		if (read_at(fd, a, sizeof a, off + i * attr_size) < 0) {
			*why = "its event attributes cannot be read";
			return -1;
		}
		memcpy(&type, a, 4);
		if (type == ATTR_TYPE_SOFTWARE && u64_at(a + 8) == ATTR_SW_DUMMY)
			continue;
		hd->nevents++;
		if (!(u64_at(a + 24) & SAMPLE_TIME))
			hd->untimed = 1;
	}
	return 0;
}

int pd_header_read(int fd, struct pd_header *hd, const char **why)
{
	unsigned char h[FILE_HEADER_SIZE], sec[16], t[16];
	uint64_t data_off, data_size, idx = 0;

	memset(hd, 0, sizeof hd[0]);
	if (read_at(fd, h, 16, 0) < 0 || memcmp(h, "PERFILE2", 8) != 0) {
		*why = "its header cannot be read";
		return -1;
	}
	if (u64_at(h + 8) != FILE_HEADER_SIZE) {
		*why = u64_at(h + 8) == 16 ? "it was written to a pipe and has no sample time range"
		                           : "its header is not one this plugin knows";
		return -1;
	}
	if (read_at(fd, h, sizeof h, 0) < 0) {
		*why = "its header cannot be read";
		return -1;
	}
	if (read_attrs(fd, u64_at(h + 16), u64_at(h + 24), u64_at(h + 32), hd, why) < 0)
		return -1;
	/* Feature sections follow the data, one per bit set, in bit order. */
	for (unsigned b = 0; b < FEAT_SAMPLE_TIME; b++)
		idx += (h[72 + b / 8] >> (b % 8)) & 1;
	if (!((h[72 + FEAT_SAMPLE_TIME / 8] >> (FEAT_SAMPLE_TIME % 8)) & 1)) {
		*why = "it does not record its first and last sample times";
		return -1;
	}
	data_off = u64_at(h + 40);
	data_size = u64_at(h + 48);
	if (read_at(fd, sec, sizeof sec, data_off + data_size + idx * 16) < 0 ||
	    u64_at(sec + 8) < 16 || read_at(fd, t, sizeof t, u64_at(sec)) < 0) {
		*why = "its sample time range cannot be read";
		return -1;
	}
	hd->first_ns = u64_at(t);
	hd->last_ns = u64_at(t + 8);
	return 0;
}
