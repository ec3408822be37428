/*
 * perf-data's native reader (native.h).  Each sample goes to the perf
 * parser's session as a record (fk_perf_records_add): its header line as
 * `perf script` prints it, and its frames by reference to their text in
 * the symbol cache (symtext.c), which the session parses only for a stack
 * it has not met, by the frames' ids.  The session is where --offcpu,
 * --wakeups, --leak, --weight-field, --series-by-event, --pid and the
 * annotations live: handing it what `perf script` would print keeps every
 * one of them byte-identical to the `perf script | flamekit collapse
 * --format perf` pipeline, without printing each frame and reading it
 * back.
 *
 * The order is perf's (tools/perf/util/ordered-events.c): records with a
 * timestamp are queued; at each FINISHED_ROUND those up to the largest
 * timestamp seen before the previous round are delivered in time order
 * (equal times in file order); the rest at the end.  Records without a
 * timestamp (perf's synthesized ones, with time 0, and perf's own record
 * types) are delivered at once, as perf does.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chains.h"
#include "machine.h"
#include "native.h"
#include "pdfile.h"
#include "obuf.h"
#include "symtext.h"
#include "trace.h"
#include "unwind.h"
#include "window.h"
#include "zdata.h"
#include "vector/fkvector.h"

#define MAX_STACK 127 /* perf script's --max-stack default (PERF_MAX_STACK_DEPTH) */

struct qev {
	uint64_t time, seq, pos; /* pos: the record's offset in the data section */
};

struct nat {
	const struct fk_host *h;
	struct fk_input *in;
	const char *path;
	struct pd_file f;
	struct pd_machine *m;
	struct pd_symtext *st;
	struct obuf out;
	struct qev *q, *tmpq;   /* the queue, and room to sort it (sort_queue) */
	size_t nq, capq, captmp, *runs;
	uint64_t seq, max_ts, next_flush;
	uint64_t lost, lost_recs, samples;
	int use_callchain;
	int print_pid;          /* as perf script -F +pid (--pid, --tid) */
	int compressed;         /* the file holds COMPRESSED records (perf record -z) */
	int tp_ip;              /* perf script prints tracepoints' ip (some has a callchain) */
	int dwarf;              /* some event samples user stacks (--call-graph dwarf) */
	struct pd_chains *chains; /* callchains met before, NULL with user stacks */
	struct pd_unwind *uw;   /* user stacks (--call-graph dwarf), NULL without */
	struct pd_symtext *ust; /* their frames' text: with inline frames */
	struct pd_trace *trace; /* the tracepoints' formats, NULL without tracing data */
	struct pd_err trace_err; /* why not, with tracing data */
	const unsigned char *map; /* the file mapped (NULL for a pipe): the header and features, */
	size_t maplen;          /* its length, */
	uint64_t dropped;       /* and how far its pages have been let go (drop_behind) */
	struct pd_window w;     /* the data section read through a buffer, where pd_window_on */
	struct pd_zstream zs;   /* perf record -z: the records its COMPRESSED ones hold, */
	int zs_on;              /* the window's source from decompress() on */
	const struct fk_input_limit *lim; /* what they may make */
	struct pd_err err;
	const struct fk_perf_opts *o;
	struct fk_perf_records *recs; /* the session the samples go to */
	struct nframe {         /* the sample's frames: callchain lines in st or ust */
		const struct pd_symtext *st;
		struct pd_symref ref;
	} *fr;
	size_t nfr, capfr;
	struct fk_perf_frame *pf; /* the same for the session */
	struct fk_perf_head head; /* the sample's header line's fields */
	int head_ok;              /* the session takes them for the line (sample_fields) */
	size_t cappf;
};

static int oom(struct nat *n)
{
	return n->h->input_error(n->in, 0, "out of memory");
}

static int bad(struct nat *n)
{
	if (strcmp(n->err.msg, "out of memory") == 0) /* the window's buffer */
		return oom(n);
	if (n->zs_on && n->w.src_rc == -2) /* a decompression bomb */
		return fk_limit_exceeded(n->h, n->in, n->lim);
	if (n->zs_on && !n->w.src_rc) /* the offset is in the records decompressed */
		return n->h->input_error(n->in, 0, "at byte %llu of its records decompressed "
		                         "(perf record -z): %s", (unsigned long long)n->err.off,
		                         n->err.msg);
	return n->h->input_error(n->in, 0, "at byte %llu: %s", (unsigned long long)n->err.off,
	                         n->err.msg);
}

/* The next record, from the window where the file is read through one
 * (pd_window_next), else from the records in memory (pd_next). */
static int next_rec(struct nat *n, uint64_t *pos, uint32_t *type, uint16_t *misc,
                    const unsigned char **rec, uint32_t *size)
{
	if (pd_window_on(&n->w))
		return pd_window_next(&n->w, &n->f, pos, type, misc, rec, size, &n->err);
	return pd_next(&n->f, pos, type, misc, rec, size, &n->err);
}

/* The bytes [pos, pos + len) of the data section, or NULL (n->err set):
 * a record next_rec gave, still kept in the window. */
static const unsigned char *data_at(struct nat *n, uint64_t pos, size_t len)
{
	if (pd_window_on(&n->w))
		return pd_window_at(&n->w, pos, len, &n->err);
	return n->f.buf + n->f.data_off + pos;
}

/* The header line of a sample, as perf script prints it. */
static void sample_head(struct nat *n, const struct pd_sample *s, const struct pd_thread *t,
                        int cc)
{
	const struct pd_attr *a = s->attr;
	const char *name = a->name ? a->name : "[unknown]";
	struct obuf *o = &n->out;
	uint64_t st = a->sample_type;

	if (cc)
		ob_str(o, t->comm), ob_c(o, ' ');
	else
		ob_pad(o, t->comm, 16), ob_c(o, ' ');
	if ((st & PERF_SAMPLE_TID) && n->print_pid) { /* -F +pid: "%5d/%-5d " */
		char pt[32];
		snprintf(pt, sizeof pt, "%5d/%-5d ", (int)s->pid, (int)s->tid);
		ob_str(o, pt);
	} else if (st & PERF_SAMPLE_TID)
		ob_dec(o, (int64_t)(int32_t)s->tid, 5), ob_c(o, ' ');
	if (st & PERF_SAMPLE_CPU) {
		char c[16]; /* "[%03u] " */
		unsigned v = s->cpu;
		int i = 15;
		c[i] = '\0';
		c[--i] = ' ';
		c[--i] = ']';
		do
			c[--i] = (char)('0' + v % 10);
		while ((v /= 10) || i > 10);
		c[--i] = '[';
		ob_str(o, c + i);
	}
	if (st & PERF_SAMPLE_TIME) { /* "%12s: " of "%lu.%06lu" (seconds, microseconds) */
		char tm[40];
		uint64_t sec = s->time / 1000000000u, us = s->time % 1000000000u / 1000u;
		int i = 39;
		tm[i] = '\0';
		for (int k = 0; k < 6; k++, us /= 10)
			tm[--i] = (char)('0' + us % 10);
		tm[--i] = '.';
		do
			tm[--i] = (char)('0' + sec % 10);
		while (sec /= 10);
		ob_pad(o, tm + i, 12);
		ob_str(o, ": ");
	}
	if ((st & PERF_SAMPLE_PERIOD) && a->type != PERF_TYPE_TRACEPOINT) /* not a tracepoint's field */
		ob_dec(o, (int64_t)s->period, 10), ob_c(o, ' ');
	ob_pad(o, name, n->f.name_width);
	ob_str(o, ": ");
}

/* Whether the session takes the header line of the sample s of thread t,
 * a callchain's (cc), as its fields (n->head) instead of its text: a
 * sample's with an address and a thread id, not a tracepoint's, with no
 * user stack to unwind (which can leave the address on the header line). */
static int sample_fields(struct nat *n, const struct pd_sample *s, const struct pd_thread *t,
                         int cc)
{
	const struct pd_attr *a = s->attr;
	const char *name = a->name ? a->name : "[unknown]";
	uint64_t st = a->sample_type;

	if (!cc || n->uw || a->type == PERF_TYPE_TRACEPOINT || !(st & PERF_SAMPLE_IP) ||
	    !(st & PERF_SAMPLE_TID))
		return 0;
	n->head = (struct fk_perf_head){
		.comm = t->comm, .comm_len = strlen(t->comm),
		.pid = n->print_pid ? (int32_t)s->pid : -1, .tid = (int32_t)s->tid,
		.has_time = (st & PERF_SAMPLE_TIME) != 0, .time_ns = (int64_t)(s->time / 1000u * 1000u),
		.has_period = (st & PERF_SAMPLE_PERIOD) != 0, .period = s->period,
		.event = name, .event_len = strlen(name) };
	return fk_perf_records_head_ok(n->recs, &n->head);
}

/* One frame of the sample: ip's callchain lines in st. */
static int add_frame(struct nat *n, struct pd_symtext *st, struct pd_map *map, int kernel,
                     uint64_t ip)
{
	if (fk_vector_grow((void **)&n->fr, &n->capfr, n->nfr + 1, sizeof *n->fr, realloc) < 0)
		return -1;
	n->fr[n->nfr].st = st;
	if (pd_symtext_ref(st, map, kernel, ip, &n->fr[n->nfr].ref) < 0)
		return -1;
	n->nfr++;
	return 0;
}

/* The sample printed into n->out and its frames (n->fr) to the session:
 * chain, frames follow the text. */
static int emit(struct nat *n, int chain)
{
	struct fk_perf_rec rec;
	const char *text, *utext;
	int rc;

	if (!ob_ok(&n->out))
		return oom(n);
	if (n->nfr > n->cappf) {
		struct fk_perf_frame *nv = realloc(n->pf, n->capfr * sizeof *nv);
		if (!nv)
			return oom(n);
		n->pf = nv;
		n->cappf = n->capfr;
	}
	text = pd_symtext_text(n->st, 0);
	utext = n->ust ? pd_symtext_text(n->ust, 0) : NULL;
	for (size_t i = 0; i < n->nfr; i++) {
		const struct nframe *f = &n->fr[i];
		int u = f->st == n->ust;
		/* offsets are unique within one symtext: its index in the low bit */
		n->pf[i] = (struct fk_perf_frame){ (u ? utext : text) + f->ref.off, f->ref.len,
		                                   f->ref.lines, (uint64_t)f->ref.off << 1 | (unsigned)u };
	}
	rec = (struct fk_perf_rec){ n->out.b, n->out.n, chain, n->pf, n->nfr,
	                            n->head_ok ? &n->head : NULL };
	rc = fk_perf_records_add(n->recs, &rec);
	n->out.n = 0;
	n->nfr = 0;
	return rc;
}

/* perf's callchain walk (machine__resolve_callchain_sample, callee order):
 * context markers set the cpumode, an unknown one empties the chain. */
static int walk_chain(struct nat *n, const struct pd_sample *s, struct pd_thread *t);

/* The callchain's frames: those of the same callchain met before in the
 * same maps (chains.h), else walked and kept for the next time. */
static int sample_chain(struct nat *n, const struct pd_sample *s, struct pd_thread *t)
{
	uint64_t us, ks;
	const struct pd_symref *refs;
	size_t k, mark = n->nfr;

	if (!n->chains)
		return walk_chain(n, s, t);
	us = pd_maps_stamp(t);
	ks = pd_kernel_stamp(n->m);
	if ((refs = pd_chains_get(n->chains, us, ks, s->chain, s->nr, &k))) {
		if (fk_vector_grow((void **)&n->fr, &n->capfr, n->nfr + k, sizeof *n->fr, realloc) < 0)
			return -1;
		for (size_t i = 0; i < k; i++)
			n->fr[n->nfr++] = (struct nframe){ n->st, refs[i] };
		return 0;
	}
	if (walk_chain(n, s, t) < 0)
		return -1;
	return pd_chains_put(n->chains, us, ks, s->chain, s->nr,
	                     n->nfr > mark ? &n->fr[mark].ref : NULL, n->nfr - mark, sizeof *n->fr);
}

static int walk_chain(struct nat *n, const struct pd_sample *s, struct pd_thread *t)
{
	int mode = PERF_RECORD_MISC_USER;
	unsigned kept = 0;
	size_t mark = n->nfr;

	for (uint64_t i = 0; i < s->nr && kept < MAX_STACK; i++) {
		uint64_t ip = pd_u64(s->chain + 8 * i);
		struct pd_map *map = NULL;
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			switch ((int64_t)ip) {
			case PERF_CONTEXT_HV: mode = PERF_RECORD_MISC_HYPERVISOR; break;
			case PERF_CONTEXT_KERNEL: mode = PERF_RECORD_MISC_KERNEL; break;
			case PERF_CONTEXT_USER: mode = PERF_RECORD_MISC_USER; break;
			case PERF_CONTEXT_GUEST: mode = PERF_RECORD_MISC_GUEST_KERNEL; break;
			case PERF_CONTEXT_GUEST_KERNEL: mode = PERF_RECORD_MISC_GUEST_KERNEL; break;
			case PERF_CONTEXT_GUEST_USER: mode = PERF_RECORD_MISC_GUEST_USER; break;
			default:
				n->nfr = mark; /* callchain_cursor_reset */
				return 0;
			}
			continue;
		}
		kept++;
		if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_USER)
			map = pd_map_find(n->m, t, mode == PERF_RECORD_MISC_KERNEL, ip);
		if (add_frame(n, n->st, map, mode == PERF_RECORD_MISC_KERNEL, ip) < 0)
			return -1;
	}
	return 0;
}

/* The callchain, then the user stack's frames after it, as perf appends
 * them (thread__resolve_callchain_unwind); 1 and nothing printed where
 * perf's unwinder fails the whole callchain (no instruction pointer among
 * the registers): perf script then prints the sample's address alone, on
 * its header line, as for a sample without a callchain. */
static int chain_and_stack(struct nat *n, const struct pd_sample *s, struct pd_thread *t)
{
	uint64_t ips[MAX_STACK];
	unsigned nips = 0;
	int r = n->uw ? pd_unwind_sample(n->uw, n->m, t, s, ips, MAX_STACK, &nips) : 0;

	if (r != 0)
		return r < 0 ? -1 : 1;
	if (!n->head_ok)
		ob_c(&n->out, '\n'); /* the header line's end */
	if (sample_chain(n, s, t) < 0)
		return -1;
	for (unsigned i = 0; i < nips; i++)
		if (add_frame(n, n->ust, pd_map_find(n->m, t, 0, ips[i]), 0, ips[i]) < 0)
			return -1;
	return 0;
}

static int do_sample(struct nat *n, const unsigned char *rec, uint32_t size, uint64_t off,
                     uint16_t misc)
{
	struct pd_sample s;
	struct pd_thread *t;
	int cc, tp, chain = 0;

	if (pd_sample(&n->f, rec, size, off, &s, &n->err) < 0)
		return bad(n);
	if (!(t = pd_thread_get(n->m, (int)s.pid, (int)s.tid)))
		return oom(n);
	n->samples++;
	cc = n->use_callchain && (s.attr->sample_type & PERF_SAMPLE_CALLCHAIN);
	tp = s.attr->type == PERF_TYPE_TRACEPOINT;
	if (!(n->head_ok = sample_fields(n, &s, t, cc)))
		sample_head(n, &s, t, cc && (!tp || n->tp_ip));
	/* a tracepoint's fields, then its ip only where perf script adds it */
	if (tp && s.raw && pd_trace_print(n->trace, &n->out, s.cpu, s.raw, s.raw_size) < 0)
		return oom(n);
	if ((s.attr->sample_type & PERF_SAMPLE_IP) && (!tp || n->tp_ip)) {
		int r = cc ? chain_and_stack(n, &s, t) : 1;

		if (r < 0)
			return oom(n);
		chain = r == 0;
		if (r > 0) {
			/* thread__find_map_fb: the sample's cpumode, then the address's */
			int kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
			struct pd_map *map = pd_map_find(n->m, t, kernel, s.ip);
			if (!map && kernel != (int)(s.ip >> 63))
				map = pd_map_find(n->m, t, !kernel, s.ip);
			ob_c(&n->out, ' ');
			if (pd_symtext_frame(n->st, &n->out, map, kernel || (s.ip >> 63), s.ip, 0) < 0)
				return oom(n);
		}
	}
	if (!chain) /* else the empty line after the frames ends the record */
		ob_c(&n->out, '\n');
	return emit(n, chain);
}

/* A NUL-terminated string at rec[at .. body), or NULL. */
static const char *str_at(const unsigned char *rec, uint32_t at, uint32_t body)
{
	if (at >= body || !memchr(rec + at, '\0', body - at))
		return NULL;
	return (const char *)rec + at;
}

static int deliver(struct nat *n, uint64_t pos)
{
	const unsigned char *rec = data_at(n, pos, 8); /* next_rec read it whole */
	uint64_t off = n->f.data_off + pos;
	uint32_t type, size, body, at;
	uint16_t misc, sz;
	struct pd_sample tr;
	const char *s;
	int kernel, rc = 0;

	if (!rec)
		return bad(n);
	type = pd_u32(rec);
	memcpy(&misc, rec + 4, 2);
	memcpy(&sz, rec + 6, 2);
	size = sz;
	if (!(rec = data_at(n, pos, size)))
		return bad(n);
	if (type == PERF_RECORD_SAMPLE)
		return do_sample(n, rec, size, off, misc);
	if (type >= PD_REC_HEADER_ATTR)
		return 0; /* perf's own records: none changes what is printed */
	if (pd_trailer(&n->f, rec, size, off, &tr, &body, &n->err) < 0)
		return bad(n);
	kernel = (misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	switch (type) {
	case PERF_RECORD_MMAP:
		if (!(s = str_at(rec, 40, body)))
			goto short_rec;
		rc = pd_machine_mmap(n->m, kernel, (int)pd_u32(rec + 8), (int)pd_u32(rec + 12),
		                     pd_u64(rec + 16), pd_u64(rec + 24), pd_u64(rec + 32),
		                     misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PD_PROT_EXEC, 0, s);
		break;
	case PERF_RECORD_MMAP2:
		if (!(s = str_at(rec, 72, body)))
			goto short_rec;
		rc = pd_machine_mmap(n->m, kernel, (int)pd_u32(rec + 8), (int)pd_u32(rec + 12),
		                     pd_u64(rec + 16), pd_u64(rec + 24), pd_u64(rec + 32),
		                     pd_u32(rec + 64), pd_u32(rec + 68), s);
		break;
	case PERF_RECORD_COMM:
		if (!(s = str_at(rec, 16, body)))
			goto short_rec;
		rc = pd_machine_comm(n->m, (int)pd_u32(rec + 8), (int)pd_u32(rec + 12), s);
		break;
	case PERF_RECORD_FORK:
		if (body < 32)
			goto short_rec;
		rc = pd_machine_fork(n->m, (int)pd_u32(rec + 8), (int)pd_u32(rec + 16),
		                     (int)pd_u32(rec + 12), (int)pd_u32(rec + 20),
		                     !(misc & PERF_RECORD_MISC_FORK_EXEC));
		break;
	case PERF_RECORD_LOST:         /* id, lost */
	case PERF_RECORD_LOST_SAMPLES: /* lost */
		at = type == PERF_RECORD_LOST ? 16 : 8;
		if (body < at + 8)
			goto short_rec;
		n->lost += pd_u64(rec + at);
		n->lost_recs++;
		break;
	case PERF_RECORD_KSYMBOL:
		if (!(s = str_at(rec, 24, body)))
			goto short_rec;
		rc = pd_machine_ksymbol(n->m, pd_u64(rec + 8), pd_u32(rec + 16),
		                        (rec[22] | rec[23] << 8) & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER,
		                        s);
		break;
	default: /* EXIT, THROTTLE, SWITCH, ...: nothing perf script prints by default */
		break;
	}
	return rc < 0 ? oom(n) : 0;
short_rec:
	snprintf(n->err.msg, sizeof n->err.msg, "a record of type %u and %u bytes is cut short",
	         type, size);
	n->err.off = off;
	return bad(n);
}

static int cmp_qev(const void *a, const void *b)
{
	const struct qev *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The mapped file's pages below offset upto, the walk done with them,
 * leave the process (MADV_DONTNEED: the page cache keeps them, and a read
 * of a page let go faults it in again, the same bytes, as the mapping is
 * read-only), in steps of 1 MiB: the records a round holds stay, so peak
 * RSS grows with them and not with the file. */
static void drop_behind(struct nat *n, uint64_t upto)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	if (!n->map)
		return;
	if (upto > n->maplen)
		upto = n->maplen;
	upto &= ~(page - 1);
	if (upto < n->dropped + ((uint64_t)1 << 20))
		return;
	(void)madvise((void *)(n->map + n->dropped), (size_t)(upto - n->dropped), MADV_DONTNEED);
	n->dropped = upto;
}

static int qev_before(const struct qev *a, const struct qev *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

/* The queue in (time, seq) order.  It is made of long sorted runs: perf
 * record writes each CPU's buffer as one chunk in time order, and what a
 * round left behind is sorted already; so a natural merge sort (runs
 * merged in pairs) is a few passes where qsort took a tenth of `collapse
 * perf.data`.  seq is unique: any correct sort gives these bytes.  qsort
 * where no memory for the merge. */
static void sort_queue(struct nat *n)
{
	struct qev *src = n->q, *dst, *t;
	size_t i, k, nr = 1;

	for (i = 1; i < n->nq; i++)
		nr += qev_before(&n->q[i], &n->q[i - 1]);
	if (nr == 1)
		return;
	if (n->capq > n->captmp) {
		free(n->tmpq);
		free(n->runs);
		n->captmp = 0;
		n->tmpq = malloc(n->capq * sizeof *n->tmpq);
		n->runs = malloc((n->capq + 1) * sizeof *n->runs);
		if (!n->tmpq || !n->runs) {
			qsort(n->q, n->nq, sizeof *n->q, cmp_qev);
			return;
		}
		n->captmp = n->capq;
	}
	dst = n->tmpq;
	n->runs[0] = 0;
	for (i = 1, k = 1; i < n->nq; i++)
		if (qev_before(&n->q[i], &n->q[i - 1]))
			n->runs[k++] = i;
	n->runs[nr] = n->nq;
	while (nr > 1) {
		for (i = 0, k = 0; i < nr; i += 2, k++) {
			const struct qev *a = src + n->runs[i], *am, *b, *be;
			struct qev *o = dst + n->runs[i];

			am = b = src + n->runs[i + 1 < nr ? i + 1 : nr];
			be = src + n->runs[i + 2 <= nr ? i + 2 : nr];
			while (a < am && b < be)
				*o++ = qev_before(b, a) ? *b++ : *a++;
			memcpy(o, a < am ? a : b, (size_t)(a < am ? am - a : be - b) * sizeof *o);
			n->runs[k] = n->runs[i];
		}
		n->runs[k] = n->nq;
		nr = k;
		t = src;
		src = dst;
		dst = t;
	}
	if (src != n->q)
		memcpy(n->q, src, n->nq * sizeof *n->q);
}

/* Deliver the queued records up to limit, in order. */
static int flush(struct nat *n, uint64_t limit)
{
	size_t k = 0;
	int rc = 0;

	sort_queue(n);
	while (k < n->nq && n->q[k].time <= limit && rc == 0)
		rc = deliver(n, n->q[k++].pos);
	memmove(n->q, n->q + k, (n->nq - k) * sizeof *n->q);
	n->nq -= k;
	return rc;
}

/* After a flush at the record at pos: let go of the pages before the
 * first record still queued (or before pos). */
static void flushed(struct nat *n, uint64_t pos)
{
	uint64_t low = pos;

	if (!pd_window_on(&n->w) && (!n->map || n->f.buf != n->map))
		return; /* a pipe's bytes */
	for (size_t i = 0; i < n->nq; i++)
		if (n->q[i].pos < low)
			low = n->q[i].pos;
	if (pd_window_on(&n->w))
		pd_window_keep(&n->w, low);
	else
		drop_behind(n, n->f.data_off + low);
}

/* The time perf orders the record by, 0 for none. */
static int record_time(struct nat *n, uint32_t type, const unsigned char *rec, uint32_t size,
                       uint64_t off, uint64_t *t)
{
	struct pd_sample s;
	uint32_t body;

	*t = 0;
	if (type >= PD_REC_HEADER_ATTR)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		/* the rest of it is read when it is delivered */
		if (pd_sample_time(&n->f, rec, size, off, &s.time, &n->err) < 0)
			return bad(n);
	} else if (pd_trailer(&n->f, rec, size, off, &s, &body, &n->err) < 0)
		return bad(n);
	*t = s.time == ~0ull ? 0 : s.time;
	return 0;
}

static int walk(struct nat *n)
{
	uint64_t pos = 0, at, t;
	const unsigned char *rec;
	uint32_t type, size;
	uint16_t misc;
	int r = 0, rc = 0;

	if (pd_window_on(&n->w))
		pd_window_keep(&n->w, 0);
	while (rc == 0 && (at = pos, r = next_rec(n, &pos, &type, &misc, &rec, &size)) > 0) {
		if (type == PD_REC_FINISHED_ROUND) {
			rc = flush(n, n->next_flush);
			n->next_flush = n->max_ts;
			flushed(n, at);
			continue;
		}
		if ((rc = record_time(n, type, rec, size, n->f.data_off + at, &t)) < 0)
			break;
		if (t == 0) {
			rc = deliver(n, at);
			continue;
		}
		if (n->nq == n->capq) {
			size_t cap = n->capq ? 2 * n->capq : 4096;
			struct qev *nv = realloc(n->q, cap * sizeof *nv);
			if (!nv)
				return oom(n);
			n->q = nv;
			n->capq = cap;
		}
		n->q[n->nq++] = (struct qev){ t, n->seq++, at };
		if (t > n->max_ts)
			n->max_ts = t;
	}
	if (rc == 0 && r < 0)
		return bad(n);
	return rc == 0 ? flush(n, ~0ull) : rc;
}

/* Why the tracepoint event a cannot be printed, or NULL. */
static const char *tracepoint(const struct nat *n, const struct pd_attr *a)
{
	static char why[240];

	if (!n->f.tracing_size)
		return "tracepoint payloads without the tracing data that describes them";
	if (!n->trace) {
		snprintf(why, sizeof why, "tracepoint payloads: its tracing data at byte %llu: %s",
		         (unsigned long long)n->trace_err.off, n->trace_err.msg);
		return why;
	}
	if (!pd_trace_has(n->trace, a->config)) {
		snprintf(why, sizeof why, "tracepoint payloads: its tracing data has no format for "
		         "%s (id %llu)", a->name ? a->name : "an event", (unsigned long long)a->config);
		return why;
	}
	return NULL;
}

/* "%pS" in a tracepoint's format: the kernel function, as a callchain's. */
static const char *resolve_ksym(void *ctx, uint64_t *addr)
{
	struct nat *n = ctx;

	return pd_symtext_ksym(n->st, pd_map_find(n->m, NULL, 1, *addr), addr);
}

/* The tracing data, for the tracepoints' formats (trace.h). */
static int tracing(struct nat *n)
{
	int tps = 0;

	for (unsigned i = 0; i < n->f.nattrs; i++)
		if (n->f.attrs[i].type == PERF_TYPE_TRACEPOINT) {
			tps = 1;
			if (n->f.attrs[i].sample_type & PERF_SAMPLE_CALLCHAIN)
				n->tp_ip = 1;
		}
	if (!tps || !n->f.tracing_size)
		return 0;
	n->trace = pd_trace_new(n->f.buf + n->f.tracing_off, n->f.tracing_size, n->f.tracing_off,
	                        resolve_ksym, n, &n->trace_err);
	return !n->trace && strcmp(n->trace_err.msg, "out of memory") == 0 ? oom(n) : 0;
}

/* What the native reader does not read in this file, or NULL. */
static const char *unsupported(const struct nat *n)
{
	const char *why = pd_file_unsupported(&n->f);

	if (why || (why = pd_unwind_unsupported(&n->f)))
		return why;
	for (unsigned i = 0; i < n->f.nattrs; i++) {
		const struct pd_attr *a = &n->f.attrs[i];
		if (a->type == PERF_TYPE_TRACEPOINT && (why = tracepoint(n, a)))
			return why;
		if (!a->name)
			return "an event without a name in the header (no HEADER_EVENT_DESC)";
		if (a->type == PERF_TYPE_RAW && (a->sample_type & PERF_SAMPLE_ADDR))
			return "raw events' addresses";
		if (!(a->sample_type & PERF_SAMPLE_TID))
			return "samples without a thread id";
	}
	return NULL;
}

/* The samples as records to a perf session, as the one part of
 * host->parse_streams on an empty input named "PATH (decoded)": the engine
 * then reports the lines the session skips (a tracepoint sample without a
 * callchain is one), numbered as in perf script's text, as it does for
 * that text. */
static int records_part(void *ctx, unsigned part, struct fk_input *in, struct fk_sink *sink)
{
	struct nat *n = ctx;
	struct fk_perf *p;
	int rc, e;

	(void)part;
	if ((rc = fk_perf_check(n->h, n->o, NULL)) < 0)
		return rc;
	if (!(p = fk_perf_begin(n->h, in, n->o, 1)))
		return FK_ERR_NOMEM;
	if (!(n->recs = fk_perf_records_begin(p, in, sink))) {
		rc = FK_ERR_NOMEM;
	} else {
		rc = walk(n);
		e = fk_perf_records_end(n->recs);
		n->recs = NULL;
		if (rc == 0)
			rc = e;
	}
	if (rc == 0)
		rc = fk_perf_end(p, sink);
	fk_perf_free(p);
	return rc;
}

static int parse_records(struct nat *n, struct fk_sink *sink)
{
	static const struct fk_part_ops ops = { records_part, NULL };
	char *name = n->h->alloc(strlen(n->path) + 16);
	struct fk_input *in = NULL;
	int p[2], rc;

	if (!name)
		return oom(n);
	if (pipe2(p, O_CLOEXEC) < 0) {
		n->h->free(name);
		return n->h->input_error(n->in, 0, "cannot make a pipe: %s", strerror(errno));
	}
	close(p[1]); /* the input is only a name: read, it is empty */
	sprintf(name, "%s (decoded)", n->path);
	if (!(in = n->h->input_open_fd(p[0], name))) {
		n->h->free(name);
		close(p[0]);
		return oom(n);
	}
	ob_init(&n->out, -1);
	rc = FK_HOST_HAS(n->h, parse_streams) ? n->h->parse_streams(&in, 1, sink, &ops, n)
	                                       : records_part(n, 0, in, sink);
	ob_free(&n->out);
	n->h->input_close(in);
	n->h->free(name);
	return rc;
}

/* Every record's bounds, before any text is made: what the reader does
 * not read (AUXTRACE) is found before anything is pushed, a cut or forged
 * record is one error; COMPRESSED records are noted (n->compressed). */
static int prescan(struct nat *n, const char **why)
{
	static char what[80];
	uint64_t pos = 0, at;
	const unsigned char *rec;
	uint32_t type, size;
	uint16_t misc;
	int r;

	/* each record is done with once read: the window keeps none */
	while ((at = pos, pd_window_keep(&n->w, pos), r = next_rec(n, &pos, &type, &misc, &rec,
	                                                          &size)) > 0) {
		struct pd_sample s;
		if (n->dwarf && type == PERF_RECORD_SAMPLE) { /* user stacks: readable, unwindable */
			if (pd_sample(&n->f, rec, size, n->f.data_off + at, &s, &n->err) < 0)
				return bad(n);
			if ((*why = pd_unwind_sample_unsupported(&s)))
				return PD_NATIVE_FALLBACK;
		}
		if (type == PD_REC_COMPRESSED)
			n->compressed = 1;
		if (type == PD_REC_AUXTRACE) {
			snprintf(what, sizeof what, "an AUXTRACE record at byte %llu%s",
			         (unsigned long long)(n->f.data_off + at),
			         n->zs_on ? " of its records decompressed" : "");
			*why = what;
			return PD_NATIVE_FALLBACK;
		}
	}
	if (r < 0)
		return bad(n);
	/* the walk reads the records again, from the start */
	if (!pd_window_on(&n->w) && n->map && n->f.buf == n->map) {
		drop_behind(n, n->maplen);
		n->dropped = 0;
	}
	return 0;
}

/* The window's source from decompress() on. */
static int zs_read(void *ctx, unsigned char *dst, size_t cap, size_t *got, struct pd_err *e)
{
	return pd_zstream_read(ctx, dst, cap, got, e);
}

/* perf record -z: the records its COMPRESSED ones hold (zdata.c), made as
 * the window needs them, walked from then on in place of its data section:
 * once by the prescan, which finds where they end, and again by the walk. */
static int decompress(struct nat *n, const struct fk_input_limit *lim, const char **why)
{
	int fd = n->w.fd, rc;

	pd_window_free(&n->w); /* the file's records: the stream reads them itself */
	if (pd_zstream_init(&n->zs, &n->f, fd, lim->bytes) < 0)
		return oom(n);
	n->zs_on = 1;
	n->lim = lim;
	n->f.data_off = 0;            /* offsets: in the records made */
	n->f.data_size = UINT64_MAX;  /* known at their end */
	pd_window_init_source(&n->w, zs_read, &n->zs);
	if ((rc = prescan(n, why)) != 0)
		return rc;
	n->f.data_size = n->w.size;
	n->h->log(FK_LOG_DEBUG, "%s: %llu COMPRESSED records decompressed to %llu bytes, %llu "
	          "records completed by a later one", n->path, (unsigned long long)n->zs.s.ncomp,
	          (unsigned long long)n->zs.s.made, (unsigned long long)n->zs.s.straddled);
	if (n->zs.s.cut)
		n->h->log(FK_LOG_WARN, "%s: its compressed records end inside a record (%llu bytes "
		          "of it): left out, as perf leaves it", n->path, (unsigned long long)n->zs.s.cut);
	if (pd_zstream_rewind(&n->zs) < 0)
		return oom(n);
	pd_window_restart(&n->w);
	return 0;
}

static int run(struct nat *n, struct fk_sink *sink, const struct pd_native_cfg *cfg,
               const char **why)
{
	struct pd_symtext_opts so;
	int rc = 0;

	if ((rc = tracing(n)) < 0)
		return rc;
	for (unsigned i = 0; i < n->f.nattrs; i++)
		if (n->f.attrs[i].sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
			n->dwarf = 1;
	if ((*why = unsupported(n)) || (rc = prescan(n, why)) != 0 ||
	    (n->compressed && (rc = decompress(n, &cfg->limit, why)) != 0))
		return *why ? PD_NATIVE_FALLBACK : rc;
	n->print_pid = cfg->perf->pid || cfg->perf->tid;
	for (unsigned i = 0; i < n->f.nattrs; i++)
		if (n->f.attrs[i].sample_type & PERF_SAMPLE_CALLCHAIN)
			n->use_callchain = 1;
	so = (struct pd_symtext_opts){ cfg->symfs, cfg->kallsyms, cfg->inline_frames, cfg->srcline,
	                               cfg->demangle, 0 };
	if (!(n->st = pd_symtext_new(n->h, &n->f, &so, why)))
		return *why ? PD_NATIVE_FALLBACK : oom(n);
	for (unsigned i = 0; i < n->f.nattrs; i++) {
		const struct pd_attr *a = &n->f.attrs[i];
		const char *bad_mask = pd_unwind_mask_problem(a->regs_user);
		if ((a->sample_type & PERF_SAMPLE_REGS_USER) && bad_mask)
			n->h->log(FK_LOG_WARN, "%s: event %s's user registers (sample_regs_user 0x%llx) %s",
			          n->path, a->name ? a->name : "[unknown]",
			          (unsigned long long)a->regs_user, bad_mask);
	}
	/* perf prints the frames of an unwound user stack with their inline
	 * callers (unwind_entry's append_inlines), --inline or not */
	so.inline_frames = 1;
	so.dwarf_names = 1;
	if (n->dwarf && (!(n->uw = pd_unwind_new(n->h, &n->f, n->path, cfg->symfs, why)) ||
	                 !(n->ust = pd_symtext_new(n->h, &n->f, &so, why))))
		return *why ? PD_NATIVE_FALLBACK : oom(n);
	if (!(n->m = pd_machine_new()))
		return oom(n);
	/* 8 MiB: tens of thousands of distinct callchains */
	if (!n->dwarf && !(n->chains = pd_chains_new(sizeof(struct pd_symref), (size_t)8 << 20)))
		return oom(n);
	n->o = cfg->perf;
	rc = parse_records(n, sink);
	if (rc == 0 && n->lost)
		n->h->log(FK_LOG_WARN, "%s: %llu samples were lost while recording (%llu LOST "
		          "record%s): the profile lacks them", n->path, (unsigned long long)n->lost,
		          (unsigned long long)n->lost_recs, n->lost_recs == 1 ? "" : "s");
	return rc;
}

/* All of the input (a pipe) into *buf, *len, up to lim's bytes (an
 * endless stream is refused there).  0, or a negative status (reported). */
static int slurp(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim,
                 unsigned char **buf, size_t *len)
{
	size_t cap = 1 << 20;
	ssize_t got;

	*len = 0;
	if (!(*buf = malloc(cap)))
		return h->input_error(in, 0, "out of memory");
	while ((got = h->read(in, *buf + *len, cap - *len)) > 0)
		if ((*len += (size_t)got) > lim->bytes)
			return fk_limit_exceeded(h, in, lim);
		else if (*len == cap) {
			unsigned char *nb = realloc(*buf, cap *= 2);
			if (!nb)
				return h->input_error(in, 0, "out of memory");
			*buf = nb;
		}
	return got < 0 ? (int)got : 0;
}

int pd_native_parse(const struct fk_host *h, struct fk_input *in, const char *path,
                    struct fk_sink *sink, const struct pd_native_cfg *cfg, const char **why)
{
	struct nat n;
	struct stat sb;
	void *map = MAP_FAILED;
	unsigned char *piped = NULL;
	size_t plen = 0;
	int fd = -1, rc;

	memset(&n, 0, sizeof n);
	n.w.fd = -1;
	n.h = h;
	n.in = in;
	n.path = path;
	*why = NULL;
	sb.st_size = 0;
	if (strcmp(path, "<stdin>") == 0) { /* perf record -o - | flamekit collapse - */
		if ((rc = slurp(h, in, &cfg->limit, &piped, &plen)) < 0)
			goto out;
		if (pd_file_open_pipe(&n.f, piped, plen, &n.err) < 0) {
			rc = bad(&n);
			goto out;
		}
		rc = run(&n, sink, cfg, why);
		goto out;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return h->input_error(in, 0, "cannot open it: %s", strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		*why = "it is not a regular file";
		return PD_NATIVE_FALLBACK;
	}
	if (sb.st_size > 0)
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (sb.st_size > 0 && map == MAP_FAILED) {
		rc = h->input_error(in, 0, "cannot map it: %s", strerror(errno));
		close(fd);
		return rc;
	}
	if (map != MAP_FAILED) {
		n.map = map;
		n.maplen = (size_t)sb.st_size;
	}
	if (pd_file_open(&n.f, map == MAP_FAILED ? (const unsigned char *)"" : map,
	                 (size_t)sb.st_size, &n.err) < 0) {
		if (strcmp(n.err.msg, "it was written to a pipe") == 0) {
			rc = pd_file_open_pipe(&n.f, map, (size_t)sb.st_size, &n.err) < 0
			             ? bad(&n) : run(&n, sink, cfg, why);
		} else
			rc = bad(&n);
		goto out;
	}
	/* the header and features through the mapping, the records through
	 * a buffer (window.h) */
	pd_window_init(&n.w, fd, n.f.data_off, n.f.data_size);
	rc = run(&n, sink, cfg, why);
out:
	free(n.q);
	free(n.tmpq);
	free(n.runs);
	free(n.fr);
	free(n.pf);
	pd_machine_free(n.m);
	pd_chains_free(n.chains);
	pd_symtext_free(n.st);
	pd_unwind_free(n.uw);
	pd_symtext_free(n.ust);
	pd_file_close(&n.f);
	if (n.zs_on)
		pd_zstream_free(&n.zs);
	pd_trace_free(n.trace);
	pd_window_free(&n.w);
	if (map != MAP_FAILED)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	free(piped);
	return rc;
}
