/*
 * A perf.data file read natively: the header, the event attributes with
 * their ids, the feature sections the native reader needs, and the data
 * section's records, every length, offset and count checked against the
 * bytes that are there.  The layout is perf's (tools/perf/util/header.h,
 * tools/perf/Documentation/perf.data-file-format.txt; the records are the
 * kernel's, include/uapi/linux/perf_event.h).
 *
 * Nothing here logs or allocates through the host: errors are a byte
 * offset and a sentence in struct pd_err, so the fuzz harness
 * (fuzz/perf-data-header.c) drives this file alone.
 *
 * Ownership: pd_file_open keeps a pointer to the caller's buffer (which
 * must outlive the struct pd_file); everything else the struct points to
 * is its own, freed by pd_file_close.  Names and build ids point into
 * the buffer.  The native reader points buf, len, data_off and data_size at
 * the decompressed records of a perf record -z file (zdata.h) once the
 * header is read; the names and ids still point into the file.
 */
#ifndef FK_PERF_DATA_PDFILE_H
#define FK_PERF_DATA_PDFILE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* perf's own record types (tools/lib/perf/include/perf/event.h) */
enum {
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_HEADER_BUILD_ID = 67,
	PD_REC_FINISHED_ROUND = 68,
	PD_REC_ID_INDEX = 69,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_AUXTRACE_ERROR = 72,
	PD_REC_THREAD_MAP = 73,
	PD_REC_CPU_MAP = 74,
	PD_REC_EVENT_UPDATE = 78,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_FINISHED_INIT = 82,
};

/* perf's feature bits (enum in tools/perf/util/header.h) */
enum {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_ARCH = 6,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_CLOCK_DATA = 29,
	PD_FEAT_MAX = 256,
};

struct pd_err {
	uint64_t off;     /* the byte offset in the file the sentence is about */
	char msg[160];
};

struct pd_attr {
	uint32_t type;
	uint64_t config, sample_type, read_format, flags;
	const char *name;       /* from HEADER_EVENT_DESC, NUL-terminated; NULL if absent */
	const uint64_t *ids;    /* into the buffer (unaligned-safe reads: pd_u64) */
	uint64_t nids;
	unsigned trailer;       /* bytes of the sample_id_all trailer (0 without it) */
	uint64_t regs_user;     /* sample_regs_user: the registers REGS_USER holds (0 in an
	                         * attribute too short to have it) */
};

struct pd_build_id {
	int32_t pid;
	uint16_t misc;          /* cpumode: PERF_RECORD_MISC_KERNEL for the kernel's */
	unsigned char id[20];
	unsigned len;
	const char *path;       /* NUL-terminated, in the buffer */
};

struct pd_file {
	const unsigned char *buf;
	size_t len;
	uint64_t data_off, data_size;
	unsigned char feat[PD_FEAT_MAX / 8];
	struct pd_attr *attrs;
	unsigned nattrs;
	int same_type;          /* every attr has the same sample_type */
	struct pd_build_id *bids;
	unsigned nbids;
	const char *cmdline;    /* HEADER_CMDLINE joined with spaces (own), or NULL */
	uint64_t tracing_off, tracing_size;  /* HEADER_TRACING_DATA (a pipe's: its record's data),
	                                      * 0 0 without */
	uint64_t clock_off, clock_size;      /* HEADER_CLOCK_DATA, 0 0 without */
	unsigned name_width;    /* perf script's: the longest event name */
	const char *arch;       /* HEADER_ARCH (uname -m when recorded), in the buffer, or NULL */
};

/* A decoded SAMPLE (or a non-sample record's sample_id_all trailer). */
struct pd_sample {
	const struct pd_attr *attr;
	uint64_t ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu;
	uint64_t nr;            /* callchain entries */
	const unsigned char *chain; /* nr u64s, unaligned */
	uint32_t raw_size;
	const unsigned char *raw;
	uint64_t regs_abi;      /* REGS_USER: PERF_SAMPLE_REGS_ABI_*, 0 for none */
	const unsigned char *regs; /* the attr's regs_user registers, u64 each, unaligned */
	uint64_t stack_size;    /* STACK_USER: the bytes of the copy that hold the stack (dyn_size) */
	const unsigned char *stack; /* the copy of the user stack from the sample's SP, or NULL */
};

/* Set *e to off and the sentence; returns -1 (for "return pd_fail(...)"). */
int pd_fail(struct pd_err *e, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int pd_vfail(struct pd_err *e, uint64_t off, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static inline uint64_t pd_u64(const unsigned char *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline uint32_t pd_u32(const unsigned char *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

/* Read the header, attributes and features of the file in buf[0..len).
 * 0, or -1 with *e set.  A file written to a pipe (header size 16) is
 * refused with e->off 8 and the sentence "it was written to a pipe". */
int pd_file_open(struct pd_file *f, const unsigned char *buf, size_t len, struct pd_err *e);
/* The same for a file written to a pipe (perf record -o -): the
 * attributes from its HEADER_ATTR records, the names from its
 * HEADER_FEATURE EVENT_DESC; the data section is everything after the
 * 16-byte header, those records included. */
int pd_file_open_pipe(struct pd_file *f, const unsigned char *buf, size_t len, struct pd_err *e);
void pd_file_close(struct pd_file *f);

/* The sample_type bits this reader decodes; others make pd_file_check
 * return the first unknown bit's name. */
#define PD_SAMPLE_KNOWN 0x1b7efULL /* IP TID TIME ADDR CALLCHAIN ID CPU PERIOD STREAM_ID RAW
                                   * REGS_USER STACK_USER DATA_SRC IDENTIFIER */
/* What in the attributes the native reader cannot read, as a phrase
 * ("sample_type bit REGS_USER (--call-graph dwarf)"), or NULL. */
const char *pd_file_unsupported(const struct pd_file *f);

/* The record at data offset *pos (relative to data_off): its type, misc,
 * the record bytes (rec, size) and *pos moved past it (and past an
 * AUXTRACE record's payload).  1 with a record, 0 at the end, -1 with *e
 * set for a record that does not fit. */
int pd_next(const struct pd_file *f, uint64_t *pos, uint32_t *type, uint16_t *misc,
            const unsigned char **rec, uint32_t *size, struct pd_err *e);
/* The same for a record whose bytes are at r, not in buf (*pos below
 * data_size; r holds at least the first 16 bytes of the record, or what
 * is left of the data section where that is less): *rec is r. */
int pd_next_at(const struct pd_file *f, const unsigned char *r, uint64_t *pos, uint32_t *type,
               uint16_t *misc, const unsigned char **rec, uint32_t *size, struct pd_err *e);

/* A SAMPLE's time (0 for none), as pd_sample reads it, straight from
 * where its event's layout puts it (the event found by its identifier
 * where there are several); else through pd_sample.  0, or -1 with *e set
 * (pd_sample's error). */
int pd_sample_time(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
                   uint64_t *time, struct pd_err *e);
/* Decode the SAMPLE record rec[0..size) at file offset off into *s.
 * 0, or -1 with *e set. */
int pd_sample(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
              struct pd_sample *s, struct pd_err *e);
/* The sample_id_all trailer of non-sample record rec[0..size): its time
 * (and pid, tid) into *s, or s->time 0 when the record has none.  0, or -1
 * with *e set when the trailer does not fit.  body: the bytes before the
 * trailer. */
int pd_trailer(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
               struct pd_sample *s, uint32_t *body, struct pd_err *e);

#endif
