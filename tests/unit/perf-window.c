/*
 * perf-data's read window (plugins/input/perf-data/window.c) against the
 * file's own bytes: a data section of records of every size (an AUXTRACE
 * record's payload skipped), walked with the lowest kept record lagging
 * by a varying number of records, so that records straddle reads, the
 * buffer is moved down and grows; every record pd_window_next gives, and
 * every kept one asked for again, must be the bytes at its offset in the
 * file.  Then a record that claims more than the section holds (pd_next's
 * sentence) and a file cut while read.  And the same walk over a source
 * that gives the bytes a piece at a time (as perf record -z's stream does),
 * whose end is found where a record of 8 bytes ends: the records, the size
 * known there, the walk again after a restart, and a read back refused.
 */
#include <fcntl.h>
#include <unistd.h>

#include "testlib.h"

#include "../../plugins/input/perf-data/window.h"

#define PREFIX 300 /* the data section's offset in the file */

static char path[4096];
static unsigned char *bytes; /* the whole file */
static size_t nbytes;
static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A record of type t and sz bytes at data offset at: its header, then
 * bytes that name their own offset.  AUXTRACE: its 8-byte payload size
 * after the header, then the payload. */
static size_t put_record(unsigned char *d, uint64_t at, uint32_t t, uint16_t sz, uint64_t payload)
{
	memcpy(d, &t, 4);
	memset(d + 4, 0, 2);
	memcpy(d + 6, &sz, 2);
	for (size_t i = 8; i < sz; i++)
		d[i] = (unsigned char)((at + i) * 131 >> 3);
	if (t == PD_REC_AUXTRACE)
		memcpy(d + 8, &payload, 8);
	for (size_t i = 0; i < payload; i++)
		d[sz + i] = 0xa5;
	return sz + payload;
}

static int setup(void **state)
{
	const char *t = getenv("TMPDIR");
	size_t cap = 6 << 20, n = PREFIX;
	int fd;

	(void)state;
	snprintf(path, sizeof path, "%s/fk-window.XXXXXX", t && *t ? t : "/tmp");
	assert_true((fd = mkstemp(path)) >= 0);
	bytes = malloc(cap);
	assert_non_null(bytes);
	memset(bytes, 0x11, PREFIX);
	while (n < cap - (1 << 20)) {
		uint64_t r = next_rand();
		uint16_t sz;
		if (r % 401 == 0) { /* AUXTRACE: a payload of up to 300 KiB */
			n += put_record(bytes + n, n - PREFIX, PD_REC_AUXTRACE, 48, (r >> 8) % (300 << 10));
			continue;
		}
		/* mostly small, some up to the largest a record can be */
		sz = (uint16_t)(r % 41 == 0 ? 8 + (r >> 16) % 65528 : 8 + (r >> 16) % 600);
		n += put_record(bytes + n, n - PREFIX, (uint32_t)(1 + (r >> 40) % 20), sz, 0);
	}
	nbytes = n;
	assert_int_equal(write(fd, bytes, nbytes), (ssize_t)nbytes);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	free(bytes);
	return 0;
}

static struct pd_file section(uint64_t size)
{
	struct pd_file f;

	memset(&f, 0, sizeof f);
	f.buf = bytes;
	f.len = nbytes;
	f.data_off = PREFIX;
	f.data_size = size;
	return f;
}

/* Walk the records with pd_next over the file in memory and through the
 * window, the lowest kept record `lag` records behind (lag varying from 0
 * to 300 when 0 is given), each record and a kept one checked. */
static void walk(int vary)
{
	struct pd_file f = section(nbytes - PREFIX);
	struct pd_window w;
	struct pd_err e;
	uint64_t mpos = 0, wpos = 0, *at = malloc(sizeof(uint64_t) * (nbytes / 8));
	uint32_t *len = malloc(sizeof(uint32_t) * (nbytes / 8));
	size_t k = 0, lag = 0, grew = 0, moved = 0;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0 && at && len);
	pd_window_init(&w, fd, PREFIX, f.data_size);
	for (;;) {
		uint32_t mt, wt, ms, ws;
		uint16_t mm, wm;
		const unsigned char *mr, *wr;
		int a = pd_next(&f, &mpos, &mt, &mm, &mr, &ms, &e);
		uint64_t here = wpos;
		size_t cap = w.cap;
		uint64_t lo = w.lo;
		int b = pd_window_next(&w, &f, &wpos, &wt, &wm, &wr, &ws, &e);

		assert_int_equal(a, b);
		if (a <= 0)
			break;
		grew += w.cap > cap;
		moved += w.lo > lo;
		assert_int_equal(mt, wt);
		assert_int_equal(ms, ws);
		assert_true(mpos == wpos);
		assert_memory_equal(wr, bytes + PREFIX + here, ws);
		at[k] = here;
		len[k++] = ws;
		if (vary)
			lag = (k / 1000) % 300;
		if (k > lag) {
			/* a kept record, asked for again: still there, unmoved */
			size_t old = k - 1 - lag;
			const unsigned char *p = pd_window_at(&w, at[old], len[old], &e);
			assert_non_null(p);
			assert_memory_equal(p, bytes + PREFIX + at[old], len[old]);
			pd_window_keep(&w, at[old]);
		} else {
			pd_window_keep(&w, 0);
		}
	}
	assert_true(k > 1000);
	if (vary) { /* the buffer grew for the kept records, and moved them down */
		assert_true(grew > 0);
		assert_true(moved > 0);
	}
	/* from the start again, as the walk after the prescan does */
	pd_window_keep(&w, 0);
	wpos = 0;
	{
		uint32_t wt, ws;
		uint16_t wm;
		const unsigned char *wr;
		assert_int_equal(pd_window_next(&w, &f, &wpos, &wt, &wm, &wr, &ws, &e), 1);
		assert_memory_equal(wr, bytes + PREFIX, ws);
	}
	pd_window_free(&w);
	close(fd);
	free(at);
	free(len);
}

static void window_no_lag(void **state)
{
	(void)state;
	walk(0);
}

static void window_kept_records(void **state)
{
	(void)state;
	walk(1);
}

/* A record that claims more than is left: pd_next's sentence, the same
 * offset. */
static void window_record_too_long(void **state)
{
	struct pd_file f = section(1000);
	struct pd_window w;
	struct pd_err e1, e2;
	uint64_t p1 = 0, p2 = 0;
	uint32_t t, s;
	uint16_t m;
	const unsigned char *r;
	int fd = open(path, O_RDONLY), a, b;

	(void)state;
	assert_true(fd >= 0);
	pd_window_init(&w, fd, PREFIX, f.data_size);
	do
		a = pd_next(&f, &p1, &t, &m, &r, &s, &e1);
	while (a > 0);
	do
		b = pd_window_next(&w, &f, &p2, &t, &m, &r, &s, &e2);
	while (b > 0);
	assert_int_equal(a, -1);
	assert_int_equal(b, -1);
	assert_string_equal(e1.msg, e2.msg);
	assert_true(e1.off == e2.off);
	pd_window_free(&w);
	close(fd);
}

/* The file shorter than its data section (cut while read): the offset
 * where the bytes end. */
static void window_file_cut(void **state)
{
	struct pd_window w;
	struct pd_err e;
	char msg[200];
	int fd = open(path, O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	pd_window_init(&w, fd, PREFIX, nbytes - PREFIX + 4096);
	assert_non_null(pd_window_at(&w, 0, 16, &e));
	assert_null(pd_window_at(&w, nbytes - PREFIX, 16, &e));
	snprintf(msg, sizeof msg, "cannot read it: the file ends there (was it cut while read?)");
	assert_string_equal(e.msg, msg);
	assert_true(e.off == nbytes);
	pd_window_free(&w);
	close(fd);
}

/* A source of the data section's bytes, handed out in pieces of 1 to
 * 70,000 bytes. */
struct piecewise {
	const unsigned char *b;
	size_t n, at;
};

static int pieces(void *ctx, unsigned char *dst, size_t cap, size_t *got, struct pd_err *e)
{
	struct piecewise *p = ctx;
	size_t k = 1 + next_rand() % 70000;

	(void)e;
	if (k > cap)
		k = cap;
	if (k > p->n - p->at)
		k = p->n - p->at;
	memcpy(dst, p->b + p->at, k);
	p->at += k;
	*got = k;
	return 0;
}

static void window_source(void **state)
{
	/* the section's records, then one of 8 bytes: the end comes less than
	 * 16 bytes after the last record starts */
	size_t n = nbytes - PREFIX + 8;
	unsigned char *d = malloc(n);
	struct pd_file f = section(UINT64_MAX), mem = section(n);
	struct piecewise src = { d, n, 0 };
	struct pd_window w;
	struct pd_err e;

	(void)state;
	assert_non_null(d);
	memcpy(d, bytes + PREFIX, n - 8);
	put_record(d + n - 8, n - 8, 3, 8, 0);
	mem.buf = d;
	mem.data_off = 0;
	f.data_off = 0;
	pd_window_init_source(&w, pieces, &src);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t p1 = 0, p2 = 0, k = 0;
		int a, b;
		do {
			uint32_t t1, t2, s1, s2;
			uint16_t m1, m2;
			const unsigned char *r1, *r2;
			a = pd_next(&mem, &p1, &t1, &m1, &r1, &s1, &e);
			pd_window_keep(&w, p2);
			b = pd_window_next(&w, &f, &p2, &t2, &m2, &r2, &s2, &e);
			assert_int_equal(a, b);
			if (a > 0) {
				assert_int_equal(s1, s2);
				assert_true(p1 == p2);
				assert_memory_equal(r1, r2, s1);
				k++;
			}
		} while (a > 0);
		assert_true(k > 1000);
		if (pass == 0) /* found at the end */
			assert_int_equal(w.eof, 1);
		assert_true(w.size == n);
		f.data_size = w.size;
		src.at = 0;
		pd_window_restart(&w);
	}
	/* a source is read once: asking below what it holds is refused */
	src.at = 0;
	pd_window_restart(&w);
	assert_non_null(pd_window_at(&w, 0, 16, &e));
	pd_window_keep(&w, 300000);
	assert_non_null(pd_window_at(&w, 300000, 16, &e));
	assert_non_null(pd_window_at(&w, 600000, 16, &e));
	assert_null(pd_window_at(&w, 0, 16, &e));
	assert_string_equal(e.msg, "the records made are read again without starting again");
	pd_window_free(&w);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(window_no_lag),
		cmocka_unit_test(window_kept_records),
		cmocka_unit_test(window_record_too_long),
		cmocka_unit_test(window_file_cut),
		cmocka_unit_test(window_source),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
