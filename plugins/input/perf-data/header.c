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
		if (hd->nevents++ && u64_at(a + 24) != hd->sample_type)
			hd->mixed = 1;
		hd->sample_type = u64_at(a + 24);
		if (!(hd->sample_type & SAMPLE_TIME))
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
	hd->data_off = data_off = u64_at(h + 40);
	hd->data_size = data_size = u64_at(h + 48);
	if (read_at(fd, sec, sizeof sec, data_off + data_size + idx * 16) < 0 ||
	    u64_at(sec + 8) < 16 || read_at(fd, t, sizeof t, u64_at(sec)) < 0) {
		*why = "its sample time range cannot be read";
		return -1;
	}
	hd->first_ns = u64_at(t);
	hd->last_ns = u64_at(t + 8);
	return 0;
}

#define REC_SAMPLE 9          /* PERF_RECORD_SAMPLE */
#define REC_AUXTRACE 71       /* PERF_RECORD_AUXTRACE: its payload follows it */
#define REC_COMPRESSED 81     /* PERF_RECORD_COMPRESSED: samples we cannot see */
#define SAMPLE_IDENTIFIER (1u << 16)
#define SAMPLE_IP (1u << 0)
#define SAMPLE_TID (1u << 1)
#define KEEP_MAX 65536        /* sample times kept for the quantiles */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Every stride-th sample time of the data section into keep[]; the stride
 * doubles (and every other kept time goes) when keep[] is full.  Returns
 * the count, or -1 when a record is not one we can step over. */
static long collect_times(int fd, const struct pd_header *hd, uint64_t *keep)
{
	const size_t tpos = 8 + (hd->sample_type & SAMPLE_IDENTIFIER ? 8 : 0) +
	                    (hd->sample_type & SAMPLE_IP ? 8 : 0) + (hd->sample_type & SAMPLE_TID ? 8 : 0);
	unsigned char buf[1 << 16];
	uint64_t pos = 0, win = 0, seen = 0, stride = 1;
	size_t have = 0;
	long n = 0;

	while (pos < hd->data_size) {
		uint64_t left = hd->data_size - pos, step;
		const unsigned char *r;
		size_t avail;
		uint32_t type;
		uint16_t size;
		/* a window over the data holding this record's first 64 bytes */
		if (pos < win || pos + (left < 64 ? left : 64) > win + have) {
			win = pos;
			have = left < sizeof buf ? (size_t)left : sizeof buf;
			if (read_at(fd, buf, have, hd->data_off + pos) < 0)
				return -1;
		}
		r = buf + (pos - win);
		avail = (size_t)(win + have - pos);
		if (avail < 8)
			return -1;
		memcpy(&type, r, 4);
		memcpy(&size, r + 6, 2);
		if (size < 8 || type == REC_COMPRESSED || (type == REC_AUXTRACE && avail < 16))
			return -1;
		step = size + (type == REC_AUXTRACE ? u64_at(r + 8) : 0);
		if (step > left)
			return -1; /* past the data section (or wrapping round): not a record */
		if (type == REC_SAMPLE && size >= tpos + 8 && avail >= tpos + 8 && seen++ % stride == 0) {
			if (n == KEEP_MAX) {
				for (long i = 0; i < KEEP_MAX / 2; i++)
					keep[i] = keep[2 * i];
				n = KEEP_MAX / 2;
				stride *= 2;
			}
			keep[n++] = u64_at(r + tpos);
		}
		pos += step;
	}
	return n;
}

unsigned pd_sample_bounds(int fd, const struct pd_header *hd, unsigned n, uint64_t *bounds)
{
	uint64_t *keep;
	long got;
	unsigned m = 1;

	if (hd->mixed || !(hd->sample_type & SAMPLE_TIME) || n < 2)
		return 0;
	keep = malloc(KEEP_MAX * sizeof *keep);
	if (!keep)
		return 0;
	got = collect_times(fd, hd, keep);
	if (got < (long)n) {
		free(keep);
		return 0;
	}
	qsort(keep, (size_t)got, sizeof *keep, cmp_u64);
	for (unsigned k = 1; k < n; k++) {
		uint64_t b = keep[(size_t)got * k / n];
		if (b > (m > 1 ? bounds[m - 1] : keep[0]))
			bounds[m++] = b;
	}
	free(keep);
	return m >= 2 ? m : 0;
}
