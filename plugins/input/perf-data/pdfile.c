/* Reading a perf.data file natively: see pdfile.h. */
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdfile.h"

#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_MIN 48            /* type .. flags: what is read of an attribute */
#define ATTRS_MAX 4096         /* more events than this: not a file perf wrote */
#define FLAG_SAMPLE_ID_ALL (1ULL << 18)

int pd_vfail(struct pd_err *e, uint64_t off, const char *fmt, va_list ap)
{
	e->off = off;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int pd_fail(struct pd_err *e, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pd_vfail(e, off, fmt, ap);
	va_end(ap);
	return r;
}

/* Whether [off, off + size) lies in the file. */
static int fits(const struct pd_file *f, uint64_t off, uint64_t size)
{
	return off <= f->len && size <= f->len - off;
}

static int has_feat(const struct pd_file *f, unsigned bit)
{
	return (f->feat[bit / 8] >> (bit % 8)) & 1;
}

/* The section of feature `bit`: offset and size, checked to be in the
 * file.  1 with it, 0 when the file lacks the feature, -1 on error. */
static int feat_section(const struct pd_file *f, unsigned bit, uint64_t *off, uint64_t *size,
                        struct pd_err *e)
{
	uint64_t idx = 0, at;

	if (!has_feat(f, bit))
		return 0;
	for (unsigned b = 0; b < bit; b++)
		idx += has_feat(f, b);
	at = f->data_off + f->data_size + idx * 16;
	if (!fits(f, at, 16))
		return pd_fail(e, at, "the feature section table is cut short (the file is truncated)");
	*off = pd_u64(f->buf + at);
	*size = pd_u64(f->buf + at + 8);
	if (!fits(f, *off, *size))
		return pd_fail(e, at, "feature %u's section (%llu bytes at %llu) runs past the end of "
		               "the file", bit, (unsigned long long)*size, (unsigned long long)*off);
	return 1;
}

/* A perf header string (u32 length, then that many bytes, NUL-padded) at
 * *p in [*p, end): its start, *p moved past it; NULL when it does not fit
 * or holds no NUL. */
static const char *hstring(const unsigned char **p, const unsigned char *end)
{
	uint32_t n;
	const char *s;

	if (end - *p < 4)
		return NULL;
	n = pd_u32(*p);
	if (n == 0 || (uint64_t)n > (uint64_t)(end - *p - 4))
		return NULL;
	s = (const char *)*p + 4;
	if (!memchr(s, '\0', n))
		return NULL;
	*p += 4 + (size_t)n;
	return s;
}

static void attr_layout(struct pd_file *f, struct pd_attr *at);
static void name_width(struct pd_file *f);

static int read_attrs(struct pd_file *f, const unsigned char *h, struct pd_err *e)
{
	uint64_t asz = pd_u64(h + 16), off = pd_u64(h + 24), size = pd_u64(h + 32), n;

	if (asz < ATTR_MIN + 16 || asz > 4096)
		return pd_fail(e, 16, "its attribute size %llu is not one perf writes",
		               (unsigned long long)asz);
	if (!fits(f, off, size) || size % asz)
		return pd_fail(e, 24, "its attribute section (%llu bytes at %llu) does not fit the file",
		               (unsigned long long)size, (unsigned long long)off);
	n = size / asz;
	if (n == 0 || n > ATTRS_MAX)
		return pd_fail(e, 32, "it holds %llu event attributes", (unsigned long long)n);
	f->attrs = calloc((size_t)n, sizeof *f->attrs);
	if (!f->attrs)
		return pd_fail(e, 0, "out of memory");
	f->nattrs = (unsigned)n;
	f->same_type = 1;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *a = f->buf + off + i * asz, *ids = a + asz - 16;
		struct pd_attr *at = &f->attrs[i];
		uint64_t ioff = pd_u64(ids), isz = pd_u64(ids + 8);
		at->type = pd_u32(a);
		at->config = pd_u64(a + 8);
		at->sample_type = pd_u64(a + 24);
		at->read_format = pd_u64(a + 32);
		at->flags = pd_u64(a + 40);
		at->regs_user = asz - 16 >= 88 ? pd_u64(a + 80) : 0;
		if (!fits(f, ioff, isz) || isz % 8)
			return pd_fail(e, off + i * asz + asz - 16, "event %llu's ids (%llu bytes at %llu) do "
			               "not fit the file", (unsigned long long)i, (unsigned long long)isz,
			               (unsigned long long)ioff);
		at->ids = (const uint64_t *)(const void *)(f->buf + ioff);
		at->nids = isz / 8;
		attr_layout(f, at);
	}
	return 0;
}

static int event_desc(struct pd_file *f, uint64_t off, uint64_t size, struct pd_err *e);

/* HEADER_EVENT_DESC: the events' names, in the attributes' order. */
static int read_event_desc(struct pd_file *f, struct pd_err *e)
{
	uint64_t off, size;
	int r = feat_section(f, PD_FEAT_EVENT_DESC, &off, &size, e);

	return r <= 0 ? r : event_desc(f, off, size, e);
}

/* The event descriptions at [off, off + size) of the file. */
static int event_desc(struct pd_file *f, uint64_t off, uint64_t size, struct pd_err *e)
{
	const unsigned char *p, *end;
	uint32_t nre, sz;

	p = f->buf + off;
	end = p + size;
	if (size < 8)
		return pd_fail(e, off, "its event descriptions are cut short");
	nre = pd_u32(p);
	sz = pd_u32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nre; i++) {
		const char *name;
		uint32_t nids;
		if ((uint64_t)(end - p) < (uint64_t)sz + 4)
			return pd_fail(e, (uint64_t)(p - f->buf), "event description %u is cut short", i);
		p += sz;
		nids = pd_u32(p);
		p += 4;
		if (!(name = hstring(&p, end)) || (uint64_t)(end - p) < (uint64_t)nids * 8)
			return pd_fail(e, (uint64_t)(p - f->buf), "event description %u's name or ids are "
			               "cut short", i);
		p += (size_t)nids * 8;
		if (i < f->nattrs)
			f->attrs[i].name = name;
	}
	return 0;
}

/* HEADER_BUILD_ID: build_id records (header, pid, 24 id bytes, path). */
static int read_build_ids(struct pd_file *f, struct pd_err *e)
{
	uint64_t off, size, pos = 0;
	unsigned cap = 0;
	int r = feat_section(f, PD_FEAT_BUILD_ID, &off, &size, e);

	if (r <= 0)
		return r;
	while (size - pos >= 8) {
		const unsigned char *b = f->buf + off + pos;
		uint16_t misc, sz;
		struct pd_build_id *d;
		memcpy(&misc, b + 4, 2);
		memcpy(&sz, b + 6, 2);
		if (sz < 8 + 4 + 24 + 1 || sz > size - pos || !memchr(b + 36, '\0', sz - 36u))
			return pd_fail(e, off + pos, "a build id record of %u bytes does not fit its section",
			               sz);
		if (f->nbids == cap) {
			void *nv = realloc(f->bids, (cap = cap ? 2 * cap : 16) * sizeof *f->bids);
			if (!nv)
				return pd_fail(e, 0, "out of memory");
			f->bids = nv;
		}
		d = &f->bids[f->nbids++];
		memcpy(&d->pid, b + 8, 4);
		d->misc = misc;
		memcpy(d->id, b + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size is in byte 20 */
		d->len = misc & (1u << 15) ? (b[32] <= 20 ? b[32] : 20) : 20;
		d->path = (const char *)b + 36;
		pos += sz;
	}
	return 0;
}

/* HEADER_CMDLINE: u32 count, then that many strings; joined by spaces. */
static int read_cmdline(struct pd_file *f, struct pd_err *e)
{
	uint64_t off, size;
	const unsigned char *p, *end;
	char *s;
	size_t len = 0;
	uint32_t n;
	int r = feat_section(f, PD_FEAT_CMDLINE, &off, &size, e);

	if (r <= 0)
		return r;
	p = f->buf + off;
	end = p + size;
	if (size < 4 || !(s = malloc((size_t)size + 1)))
		return size < 4 ? pd_fail(e, off, "its command line is cut short")
		                : pd_fail(e, 0, "out of memory");
	n = pd_u32(p);
	p += 4;
	s[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		const char *a = hstring(&p, end);
		size_t al;
		if (!a) {
			free(s);
			return pd_fail(e, (uint64_t)(p - f->buf), "its command line's argument %u is cut short",
			               i);
		}
		al = strlen(a);
		if (len + al + 2 > size + 1)
			break;
		if (len)
			s[len++] = ' ';
		memcpy(s + len, a, al + 1);
		len += al;
	}
	f->cmdline = s;
	return 0;
}

/* HEADER_ARCH: one string. */
static int read_arch(struct pd_file *f, struct pd_err *e)
{
	uint64_t off, size;
	const unsigned char *p;
	int r = feat_section(f, PD_FEAT_ARCH, &off, &size, e);

	if (r <= 0)
		return r;
	p = f->buf + off;
	if (!(f->arch = hstring(&p, p + size)))
		return pd_fail(e, off, "its architecture name is cut short");
	return 0;
}

/* perf script's event column width: the longest event name. */
static void name_width(struct pd_file *f)
{
	unsigned w = 0;

	for (unsigned i = 0; i < f->nattrs; i++)
		if (f->attrs[i].name && strlen(f->attrs[i].name) > w)
			w = (unsigned)strlen(f->attrs[i].name);
	f->name_width = w;
}

int pd_file_open(struct pd_file *f, const unsigned char *buf, size_t len, struct pd_err *e)
{
	uint64_t hsz;
	const unsigned char *h = buf;
	int r;

	memset(f, 0, sizeof *f);
	f->buf = buf;
	f->len = len;
	if (len < 16 || memcmp(buf, "PERFILE2", 8) != 0)
		return pd_fail(e, 0, "it does not start with perf's magic PERFILE2");
	hsz = pd_u64(h + 8);
	if (hsz == PIPE_HEADER_SIZE)
		return pd_fail(e, 8, "it was written to a pipe");
	if (hsz != FILE_HEADER_SIZE || len < FILE_HEADER_SIZE)
		return pd_fail(e, 8, len < FILE_HEADER_SIZE ? "its header is cut short"
		                                            : "its header size %llu is not one perf writes",
		               (unsigned long long)hsz);
	memcpy(f->feat, h + 72, sizeof f->feat);
	f->data_off = pd_u64(h + 40);
	f->data_size = pd_u64(h + 48);
	if (!fits(f, f->data_off, f->data_size))
		return pd_fail(e, 40, "its data section (%llu bytes at %llu) runs past the end of the "
		               "file (%zu bytes): the file is truncated", (unsigned long long)f->data_size,
		               (unsigned long long)f->data_off, len);
	if ((r = read_attrs(f, h, e)) < 0 || (r = read_event_desc(f, e)) < 0 ||
	    (r = read_build_ids(f, e)) < 0 || (r = read_cmdline(f, e)) < 0 ||
	    (r = read_arch(f, e)) < 0 ||
	    (r = feat_section(f, PD_FEAT_TRACING_DATA, &f->tracing_off, &f->tracing_size, e)) < 0 ||
	    (r = feat_section(f, PD_FEAT_CLOCK_DATA, &f->clock_off, &f->clock_size, e)) < 0) {
		pd_file_close(f);
		return -1;
	}
	name_width(f);
	return 0;
}

/* The attribute's sample_id_all trailer size, and whether all agree. */
static void attr_layout(struct pd_file *f, struct pd_attr *at)
{
	if (at->flags & FLAG_SAMPLE_ID_ALL)
		at->trailer = 8 * (unsigned)__builtin_popcountll(
		        at->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		                           PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER));
	if (at->sample_type != f->attrs[0].sample_type)
		f->same_type = 0;
}

/* A HEADER_ATTR record of a pipe: the attribute, then its ids. */
static int pipe_attr(struct pd_file *f, const unsigned char *r, uint32_t size, uint64_t off,
                     struct pd_err *e)
{
	uint32_t asz = size >= 16 ? pd_u32(r + 12) : 0;
	struct pd_attr *at, *nv;

	if (asz < ATTR_MIN || asz > size - 8 || (size - 8 - asz) % 8)
		return pd_fail(e, off, "a HEADER_ATTR record of %u bytes holds an attribute of %u", size,
		               asz);
	if (f->nattrs >= ATTRS_MAX || !(nv = realloc(f->attrs, (f->nattrs + 1) * sizeof *nv)))
		return pd_fail(e, off, f->nattrs >= ATTRS_MAX ? "too many HEADER_ATTR records"
		                                              : "out of memory");
	f->attrs = nv;
	at = &f->attrs[f->nattrs++];
	memset(at, 0, sizeof *at);
	r += 8;
	at->type = pd_u32(r);
	at->config = pd_u64(r + 8);
	at->sample_type = pd_u64(r + 24);
	at->read_format = pd_u64(r + 32);
	at->flags = pd_u64(r + 40);
	at->regs_user = asz >= 88 ? pd_u64(r + 80) : 0;
	at->ids = (const uint64_t *)(const void *)(r + asz);
	at->nids = (size - 8 - asz) / 8;
	if (f->nattrs == 1)
		f->same_type = 1;
	attr_layout(f, at);
	return 0;
}

int pd_file_open_pipe(struct pd_file *f, const unsigned char *buf, size_t len, struct pd_err *e)
{
	uint64_t pos = 0;
	const unsigned char *r;
	uint32_t type, size;
	uint16_t misc;
	int rc;

	memset(f, 0, sizeof *f);
	f->buf = buf;
	f->len = len;
	if (len < 16 || memcmp(buf, "PERFILE2", 8) != 0 || pd_u64(buf + 8) != PIPE_HEADER_SIZE)
		return pd_fail(e, 0, "it does not start with a perf pipe header (PERFILE2, 16)");
	f->data_off = PIPE_HEADER_SIZE;
	f->data_size = len - PIPE_HEADER_SIZE;
	while ((rc = pd_next(f, &pos, &type, &misc, &r, &size, e)) > 0) {
		uint64_t off = (uint64_t)(r - buf);
		if (type == PD_REC_HEADER_ATTR)
			rc = pipe_attr(f, r, size, off, e);
		else if (type == PD_REC_HEADER_TRACING_DATA) { /* pd_next checked it fits */
			f->tracing_off = off + size;
			f->tracing_size = pd_u32(r + 8);
		} else if (type == PD_REC_HEADER_FEATURE && size >= 16 &&
		         pd_u64(r + 8) == PD_FEAT_EVENT_DESC)
			rc = event_desc(f, off + 16, size - 16, e);
		else if (type == PD_REC_HEADER_FEATURE && size >= 16 && pd_u64(r + 8) == PD_FEAT_ARCH) {
			const unsigned char *p = r + 16;
			if (!(f->arch = hstring(&p, r + size)))
				rc = pd_fail(e, off, "its architecture name is cut short");
		} else if (type == PD_REC_HEADER_FEATURE && size >= 16 && pd_u64(r + 8) < PD_FEAT_MAX)
			f->feat[pd_u64(r + 8) / 8] |= (unsigned char)(1u << (pd_u64(r + 8) % 8));
		if (rc < 0)
			break;
	}
	if (rc == 0 && f->nattrs == 0)
		rc = pd_fail(e, 16, "it holds no HEADER_ATTR record");
	if (rc < 0) {
		pd_file_close(f);
		return -1;
	}
	name_width(f);
	return 0;
}

void pd_file_close(struct pd_file *f)
{
	free(f->attrs);
	free(f->bids);
	free((char *)f->cmdline);
	f->attrs = NULL;
	f->bids = NULL;
	f->cmdline = NULL;
}

static const char *const sample_bits[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK (-b or --call-graph lbr)", "REGS_USER (--call-graph dwarf)",
	"STACK_USER (--call-graph dwarf)", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE",
	"WEIGHT_STRUCT",
};

const char *pd_file_unsupported(const struct pd_file *f)
{
	static char why[96];

	for (unsigned i = 0; i < f->nattrs; i++) {
		uint64_t bad = f->attrs[i].sample_type & ~PD_SAMPLE_KNOWN;
		if (bad) {
			unsigned b = (unsigned)__builtin_ctzll(bad);
			snprintf(why, sizeof why, "sample_type bit %s", b < sizeof sample_bits /
			         sizeof sample_bits[0] ? sample_bits[b] : "unknown");
			return why;
		}
	}
	if (!f->same_type)
		for (unsigned i = 0; i < f->nattrs; i++)
			if (!(f->attrs[i].sample_type & PERF_SAMPLE_IDENTIFIER))
				return "events with different sample layouts and no IDENTIFIER";
	return NULL;
}

int pd_next(const struct pd_file *f, uint64_t *pos, uint32_t *type, uint16_t *misc,
            const unsigned char **rec, uint32_t *size, struct pd_err *e)
{
	if (*pos >= f->data_size)
		return 0;
	return pd_next_at(f, f->buf + f->data_off + *pos, pos, type, misc, rec, size, e);
}

int pd_next_at(const struct pd_file *f, const unsigned char *r, uint64_t *pos, uint32_t *type,
               uint16_t *misc, const unsigned char **rec, uint32_t *size, struct pd_err *e)
{
	uint64_t left = f->data_size - *pos, step;
	uint16_t sz;

	if (left < 8)
		return pd_fail(e, f->data_off + *pos, "a record header is cut short (%llu bytes left in "
		               "the data section)", (unsigned long long)left);
	*type = pd_u32(r);
	memcpy(misc, r + 4, 2);
	memcpy(&sz, r + 6, 2);
	if (sz < 8 || sz > left)
		return pd_fail(e, f->data_off + *pos, "a record of type %u claims %u bytes, and %llu are "
		               "left in the data section", *type, sz, (unsigned long long)left);
	step = sz;
	if (*type == PD_REC_AUXTRACE) {
		if (sz < 16)
			return pd_fail(e, f->data_off + *pos, "an AUXTRACE record of %u bytes is cut short",
			               sz);
		if (pd_u64(r + 8) > left - sz)
			return pd_fail(e, f->data_off + *pos, "an AUXTRACE record's %llu bytes of data run "
			               "past the data section", (unsigned long long)pd_u64(r + 8));
		step += pd_u64(r + 8);
	} else if (*type == PD_REC_HEADER_TRACING_DATA) { /* pipe mode: the data follows */
		uint64_t t;
		if (sz < 12)
			return pd_fail(e, f->data_off + *pos, "a TRACING_DATA record of %u bytes is cut "
			               "short", sz);
		t = ((uint64_t)pd_u32(r + 8) + 7) & ~7ull;
		if (t > left - sz)
			return pd_fail(e, f->data_off + *pos, "a TRACING_DATA record's %llu bytes run past "
			               "the data", (unsigned long long)t);
		step += t;
	}
	*rec = r;
	*size = sz;
	*pos += step;
	return 1;
}

/* The attribute whose ids hold id, or NULL. */
static const struct pd_attr *by_id(const struct pd_file *f, uint64_t id)
{
	for (unsigned i = 0; i < f->nattrs; i++)
		for (uint64_t k = 0; k < f->attrs[i].nids; k++)
			if (pd_u64((const unsigned char *)(f->attrs[i].ids + k)) == id)
				return &f->attrs[i];
	return NULL;
}

/* REGS_USER: the abi, then (abi not NONE) a u64 per bit of the attr's mask.
 * 0, or -1 when they do not fit (s->regs_abi set). */
static int user_regs(const struct pd_attr *a, const unsigned char **p, const unsigned char *end,
                     struct pd_sample *s)
{
	uint64_t n = 8 * (uint64_t)__builtin_popcountll(a->regs_user);

	if (end - *p < 8)
		return -1;
	s->regs_abi = pd_u64(*p);
	*p += 8;
	if (!s->regs_abi)
		return 0;
	if ((uint64_t)(end - *p) < n)
		return -1;
	s->regs = *p;
	*p += n;
	return 0;
}

/* STACK_USER: its size, then (size not 0) the copy and dyn_size, the bytes
 * of it that hold the stack (perf refuses more than the copy).  0, or -1:
 * s->stack NULL when the copy (and dyn_size) does not fit, s->stack_size
 * the copy's size; s->stack set when dyn_size, in s->stack_size, is larger
 * than the copy. */
static int user_stack(const unsigned char **p, const unsigned char *end, struct pd_sample *s)
{
	uint64_t size;

	if (end - *p < 8)
		return -1;
	size = pd_u64(*p);
	*p += 8;
	if (!size)
		return 0;
	s->stack_size = size;
	if ((uint64_t)(end - *p) < size)
		return -1;
	s->stack = *p;
	*p += size;
	if (end - *p < 8) { /* dyn_size cut: the copy with it runs past the record */
		s->stack = NULL;
		return -1;
	}
	s->stack_size = pd_u64(*p);
	*p += 8;
	return s->stack_size > size ? -1 : 0;
}

int pd_sample_time(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
                   uint64_t *time, struct pd_err *e)
{
	const struct pd_attr *a = &f->attrs[0];
	uint64_t st = a->sample_type;
	uint32_t at;
	struct pd_sample s;

	/* the event's layout, as pd_sample finds it (the first event's unless
	 * an identifier leads); then the fields before the time are of fixed
	 * size */
	if (f->nattrs > 1 && (st & PERF_SAMPLE_IDENTIFIER))
		a = size >= 16 ? by_id(f, pd_u64(rec + 8)) : NULL;
	st = a ? a->sample_type : 0;
	at = 8 + 8 * (uint32_t)__builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
	                                                  PERF_SAMPLE_TID));
	if ((st & PERF_SAMPLE_TIME) && at + 8 <= size) {
		*time = pd_u64(rec + at);
		return 0;
	}
	if (pd_sample(f, rec, size, off, &s, e) < 0)
		return -1;
	*time = s.time;
	return 0;
}

#define TAKE(dst)                                                                     \
	do {                                                                          \
		if (end - p < 8)                                                      \
			goto short_rec;                                               \
		dst = pd_u64(p);                                                      \
		p += 8;                                                               \
	} while (0)

int pd_sample(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
              struct pd_sample *s, struct pd_err *e)
{
	const unsigned char *p = rec + 8, *end = rec + size;
	const struct pd_attr *a = &f->attrs[0];
	uint64_t st, v;

	memset(s, 0, sizeof *s);
	if (f->nattrs > 1 && (a->sample_type & PERF_SAMPLE_IDENTIFIER)) {
		if (size < 16)
			goto short_rec;
		s->id = pd_u64(p);
		if (!(a = by_id(f, s->id)))
			return pd_fail(e, off, "a sample's id %llu is no event's", (unsigned long long)s->id);
	}
	s->attr = a;
	st = a->sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER)
		TAKE(s->id);
	if (st & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (st & PERF_SAMPLE_TID) {
		TAKE(v);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	} else
		s->pid = s->tid = (uint32_t)-1;
	if (st & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (st & PERF_SAMPLE_ADDR)
		TAKE(s->addr);
	if (st & PERF_SAMPLE_ID)
		TAKE(s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		TAKE(s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		TAKE(v);
		s->cpu = (uint32_t)v;
	}
	if (st & PERF_SAMPLE_PERIOD)
		TAKE(s->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		TAKE(s->nr);
		if (s->nr > (uint64_t)(end - p) / 8)
			return pd_fail(e, off, "a sample's callchain of %llu entries runs past its record "
			               "of %u bytes", (unsigned long long)s->nr, size);
		s->chain = p;
		p += s->nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (end - p < 4)
			goto short_rec;
		s->raw_size = pd_u32(p);
		if (s->raw_size > (uint64_t)(end - p - 4))
			return pd_fail(e, off, "a sample's raw data of %u bytes runs past its record of %u "
			               "bytes", s->raw_size, size);
		s->raw = p + 4;
		p += 4 + s->raw_size;
	}
	if ((st & PERF_SAMPLE_REGS_USER) && user_regs(a, &p, end, s) < 0)
		return pd_fail(e, off, "a sample's %d user registers (abi %llu) run past its record of "
		               "%u bytes", __builtin_popcountll(a->regs_user),
		               (unsigned long long)s->regs_abi, size);
	if ((st & PERF_SAMPLE_STACK_USER) && user_stack(&p, end, s) < 0) {
		if (s->stack)
			return pd_fail(e, off, "a sample's user stack of %llu bytes holds %llu (dyn_size)",
			               (unsigned long long)(p - 8 - s->stack),
			               (unsigned long long)s->stack_size);
		return pd_fail(e, off, "a sample's user stack of %llu bytes runs past its record of %u "
		               "bytes", (unsigned long long)s->stack_size, size);
	}
	if (st & PERF_SAMPLE_DATA_SRC) /* perf record --call-graph dwarf sets it; not printed */
		TAKE(v);
	/* events of one layout told apart by PERF_SAMPLE_ID */
	if (f->nattrs > 1 && !(st & PERF_SAMPLE_IDENTIFIER) && (st & PERF_SAMPLE_ID) &&
	    !(s->attr = by_id(f, s->id)))
		return pd_fail(e, off, "a sample's id %llu is no event's", (unsigned long long)s->id);
	return 0;
short_rec:
	return pd_fail(e, off, "a sample record of %u bytes is too short for its event's sample_type "
	               "0x%llx", size, (unsigned long long)a->sample_type);
}

int pd_trailer(const struct pd_file *f, const unsigned char *rec, uint32_t size, uint64_t off,
               struct pd_sample *s, uint32_t *body, struct pd_err *e)
{
	const struct pd_attr *a = &f->attrs[0];
	const unsigned char *p, *end = rec + size;
	uint64_t st, v;

	memset(s, 0, sizeof *s);
	*body = size;
	if (f->nattrs > 1 && (a->sample_type & PERF_SAMPLE_IDENTIFIER) && a->trailer) {
		if (size < 16)
			goto short_rec;
		if (!(a = by_id(f, pd_u64(end - 8))))
			a = &f->attrs[0]; /* perf falls back to the first event too */
	}
	s->attr = a;
	if (!a->trailer)
		return 0;
	if (size < 8 + a->trailer)
		goto short_rec;
	*body = size - a->trailer;
	p = end - a->trailer;
	st = a->sample_type;
	if (st & PERF_SAMPLE_TID) {
		TAKE(v);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (st & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (f->nattrs > 1 && !(st & PERF_SAMPLE_IDENTIFIER) && (st & PERF_SAMPLE_ID)) {
		TAKE(s->id);
		if ((a = by_id(f, s->id)))
			s->attr = a;
	}
	return 0;
short_rec:
	return pd_fail(e, off, "a record of type %u and %u bytes is too short for its sample_id_all "
	               "fields", pd_u32(rec), size);
}
