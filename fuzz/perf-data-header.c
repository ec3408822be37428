/*
 * libFuzzer harness for what the perf-data plugin reads of a perf.data
 * file itself: the slicer's header reader (plugins/input/perf-data/
 * header.c: the header, the event attributes, the feature section with
 * the sample time range and the sample records of the data section), and
 * the native reader's record parser (pdfile.c: the header, attributes (a
 * pipe's HEADER_ATTR and HEADER_FEATURE records too),
 * feature sections, every record, each SAMPLE decoded and each other
 * record's sample_id_all trailer, a --call-graph dwarf sample's registers
 * and stack copy read through) with the thread and map state the
 * records drive (machine.c), COMPRESSED records decompressed first as the
 * reader does (zdata.c, bounded at 64 MiB here), and the tracing data's
 * event formats read into libtraceevent, each tracepoint sample's payload
 * printed with them (trace.c), and the data section read again through
 * the read window (window.c) from the memory file, which must give the
 * same records, bytes and errors as the walk in memory, the lowest kept
 * record lagging by a few; and the records COMPRESSED ones hold, made as
 * the window reads them, against the same made at once.  The generic input harness cannot
 * reach that code: the plugin's parse runs perf, and needs a real file.
 * The input is written to a memory file descriptor, as the plugin reads a
 * file with pread.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <string.h>

#include "../plugins/input/perf-data/header.h"
#include "../plugins/input/perf-data/machine.h"
#include "../plugins/input/perf-data/pdfile.h"
#include "../plugins/input/perf-data/trace.h"
#include "../plugins/input/perf-data/window.h"
#include "../plugins/input/perf-data/zdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const char *__lsan_default_suppressions(void);

/* libtraceevent 1.7 leaks a token of a malformed event format inside
 * tep_parse_event (a few bytes per format, the library's to mend): not
 * a leak of ours. */
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

/* what the harness reads of a sample, so that the sanitizers see the reads */
static volatile uint64_t fuzz_sink;

/* A NUL-terminated string at rec[at .. end), or NULL (as native.c reads). */
static const char *str_at(const unsigned char *rec, uint32_t at, uint32_t end)
{
	return at < end && memchr(rec + at, '\0', end - at) ? (const char *)rec + at : NULL;
}

/* The data section through the window on fd: what pd_next gives in
 * memory, record for record, error for error. */
static void window_walk(int fd, const struct pd_file *f)
{
	struct pd_window w;
	struct pd_err e1, e2;
	uint64_t p1 = 0, p2 = 0, kept[4] = { 0 };
	const unsigned char *r1, *r2;
	uint32_t t1, t2, s1, s2;
	uint16_t m1, m2;
	unsigned k = 0;
	int a, b;

	pd_window_init(&w, fd, f->data_off, f->data_size);
	do {
		uint64_t at = p2;
		a = pd_next(f, &p1, &t1, &m1, &r1, &s1, &e1);
		b = pd_window_next(&w, f, &p2, &t2, &m2, &r2, &s2, &e2);
		if (a != b || (a > 0 && (t1 != t2 || m1 != m2 || s1 != s2 || p1 != p2 ||
		                         memcmp(r1, r2, s1) != 0)))
			__builtin_trap();
		if (a < 0 && strcmp(e2.msg, "out of memory") != 0 &&
		    (strcmp(e1.msg, e2.msg) != 0 || e1.off != e2.off))
			__builtin_trap();
		kept[k++ % 4] = at; /* keep the last four records */
		pd_window_keep(&w, kept[k % 4] < at ? kept[k % 4] : at);
	} while (a > 0);
	pd_window_free(&w);
}

static int zs_read(void *ctx, unsigned char *dst, size_t cap, size_t *got, struct pd_err *e)
{
	return pd_zstream_read(ctx, dst, cap, got, e);
}

/* The records COMPRESSED ones hold, made as a window reads them (as the
 * native reader walks a perf record -z file), against the same made at
 * once (z, from pd_zdata_make), record for record, twice (the reader's
 * prescan, then its walk). */
static void stream_walk(int fd, const struct pd_file *f, const struct pd_zdata *z)
{
	struct pd_zstream zs;
	struct pd_window w;
	struct pd_file mem = *f, made = *f;
	struct pd_err e1, e2;

	if (pd_zstream_init(&zs, f, fd, (uint64_t)64 << 20) < 0)
		return;
	mem.buf = z->buf;
	mem.len = z->len;
	mem.data_off = 0;
	mem.data_size = z->len;
	made.data_off = 0;
	made.data_size = UINT64_MAX; /* known at the end, as the reader finds it */
	pd_window_init_source(&w, zs_read, &zs);
	for (int pass = 0; pass < 2; pass++) {
		uint64_t p1 = 0, p2 = 0;
		const unsigned char *r1, *r2;
		uint32_t t1, t2, s1, s2;
		uint16_t m1, m2;
		int a, b;
		do {
			a = pd_next(&mem, &p1, &t1, &m1, &r1, &s1, &e1);
			pd_window_keep(&w, p2);
			b = pd_window_next(&w, &made, &p2, &t2, &m2, &r2, &s2, &e2);
			if (b < 0 && strcmp(e2.msg, "out of memory") == 0)
				goto out;
			if (a != b || (a > 0 && (t1 != t2 || s1 != s2 || p1 != p2 || memcmp(r1, r2, s1) != 0)))
				__builtin_trap();
		} while (a > 0);
		if (a < 0)
			break;
		if (w.size != z->len)
			__builtin_trap(); /* the end is where the records made at once end */
		made.data_size = w.size;
		if (pd_zstream_rewind(&zs) < 0)
			break;
		pd_window_restart(&w);
	}
out:
	pd_window_free(&w);
	pd_zstream_free(&zs);
}

/* Every record of the data section, as the native reader takes them. */
static void records(int fd, const uint8_t *data, size_t size)
{
	struct pd_file f;
	struct pd_err e;
	struct pd_machine *m;
	struct pd_zdata z;
	struct pd_trace *tr = NULL;
	struct obuf ob;
	uint64_t pos = 0;
	const unsigned char *rec;
	uint32_t type, len, body;
	uint16_t misc;

	if (pd_file_open(&f, data, size, &e) < 0 &&
	    (strcmp(e.msg, "it was written to a pipe") != 0 ||
	     pd_file_open_pipe(&f, data, size, &e) < 0)) {
		if (!e.msg[0] || !memchr(e.msg, '\0', sizeof e.msg))
			__builtin_trap(); /* an error is one sentence */
		return;
	}
	(void)pd_file_unsupported(&f);
	window_walk(fd, &f);
	if (f.tracing_size)
		tr = pd_trace_new(f.buf + f.tracing_off, f.tracing_size, f.tracing_off, NULL, NULL, &e);
	if (pd_zdata_make(&f, (uint64_t)64 << 20, &z, &e) == 0 && z.buf) { /* as native.c walks it */
		stream_walk(f.buf == data ? fd : -1, &f, &z);
		f.buf = z.buf;
		f.len = z.len;
		f.data_off = 0;
		f.data_size = z.len;
	}
	ob_init(&ob, -1); /* reset before each payload: never written out */
	if (!(m = pd_machine_new())) {
		ob_free(&ob);
		pd_trace_free(tr);
		pd_zdata_free(&z);
		pd_file_close(&f);
		return;
	}
	while (pd_next(&f, &pos, &type, &misc, &rec, &len, &e) > 0) {
		struct pd_sample s;
		const char *str;
		uint64_t off = (uint64_t)(rec - data);
		if (type == PERF_RECORD_SAMPLE) {
			if (pd_sample(&f, rec, len, off, &s, &e) == 0) {
				struct pd_thread *t = pd_thread_get(m, (int)s.pid, (int)s.tid);
				for (uint64_t i = 0; t && i < s.nr; i++)
					(void)pd_map_find(m, t, i & 1, pd_u64(s.chain + 8 * i));
				/* --call-graph dwarf: every register and stack byte said to be there */
				for (int k = 0; s.regs && k < __builtin_popcountll(s.attr->regs_user); k++)
					fuzz_sink ^= pd_u64(s.regs + 8 * k);
				if (s.stack && s.stack_size)
					fuzz_sink ^= s.stack[s.stack_size - 1];
				if (tr && s.raw && s.attr->type == PERF_TYPE_TRACEPOINT) {
					ob.n = 0;
					(void)pd_trace_print(tr, &ob, s.cpu, s.raw, s.raw_size);
				}
			}
			continue;
		}
		if (type >= PD_REC_HEADER_ATTR || pd_trailer(&f, rec, len, off, &s, &body, &e) < 0)
			continue;
		if (type == PERF_RECORD_MMAP2 && (str = str_at(rec, 72, body)))
			pd_machine_mmap(m, (misc & 7) == 1, (int)pd_u32(rec + 8), (int)pd_u32(rec + 12),
			                pd_u64(rec + 16), pd_u64(rec + 24), pd_u64(rec + 32),
			                pd_u32(rec + 64), pd_u32(rec + 68), str);
		else if (type == PERF_RECORD_COMM && (str = str_at(rec, 16, body)))
			pd_machine_comm(m, (int)pd_u32(rec + 8), (int)pd_u32(rec + 12), str);
		else if (type == PERF_RECORD_FORK && body >= 32)
			pd_machine_fork(m, (int)pd_u32(rec + 8), (int)pd_u32(rec + 16),
			                (int)pd_u32(rec + 12), (int)pd_u32(rec + 20), 1);
	}
	pd_machine_free(m);
	ob_free(&ob);
	pd_trace_free(tr);
	pd_zdata_free(&z);
	pd_file_close(&f);
}

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
	records(fd, data, size);
	return 0;
}
