/*
 * Input streams: files, stdin or memory, gzip-compressed or not (detected by
 * the magic bytes), read through one large buffer.  getline() hands out
 * lines in place (memchr, no per-line allocation); a line longer than the
 * buffer grows it, so a 16 MB line costs 16 MB once, not a quadratic scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fk.h"

#define BUFSZ (1u << 20)
#define ZBUFSZ (256u * 1024)
#define MAX_LINE ((size_t)1 << 30)


struct gz {
	z_stream z;
	unsigned char *in;
	bool done;
};

static int report_errno(struct fk_input *in, const char *what)
{
	fk_log(FK_LOG_ERROR, "%s: %s: %s", in->name, what, strerror(errno));
	in->error = FK_ERR_IO;
	return FK_ERR_IO;
}

/* Up to n bytes of fd at offset off, fewer only at the end of the file;
 * -1 (errno set) on a read error. */
static ssize_t pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static ssize_t raw_read(struct fk_input *in, void *dst, size_t cap)
{
	ssize_t r;

	if (in->fd < 0)
		return 0;
	if (in->range) {
		uint64_t off;
		size_t want = fk_range_claim(in->range, cap, &off);
		if ((r = pread_full(in->fd, dst, want, off)) < 0)
			return report_errno(in, "read error");
		if ((size_t)r < want)
			fk_range_short(in->range, off + (uint64_t)r);
		return r;
	}
	if (in->limited) {
		if (in->limit == 0)
			return 0;
		if (cap > in->limit)
			cap = (size_t)in->limit;
	}
	do
		r = read(in->fd, dst, cap);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return report_errno(in, "read error");
	if (in->limited)
		in->limit -= (uint64_t)r;
	return r;
}

/* Decompress into dst; 0 at the end of the last gzip member. */
static ssize_t gz_read(struct fk_input *in, unsigned char *dst, size_t cap)
{
	struct gz *g = in->gz;
	uInt want = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
	int zr;

	if (g->done)
		return 0;
	g->z.next_out = dst;
	g->z.avail_out = want;
	while (g->z.avail_out > 0) {
		if (g->z.avail_in == 0) {
			ssize_t r = raw_read(in, g->in, ZBUFSZ);
			if (r < 0)
				return r;
			if (r == 0) {
				if (g->z.avail_out < want)
					break; /* return what we have; the next call reports it */
				fk_log(FK_LOG_ERROR, "%s: compressed data is truncated", in->name);
				return in->error = FK_ERR_DATA;
			}
			g->z.next_in = g->in;
			g->z.avail_in = (uInt)r;
		}
		zr = inflate(&g->z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END) {
			/* Another member may follow (concatenated .gz files). */
			if (g->z.avail_in == 0) {
				ssize_t r = raw_read(in, g->in, ZBUFSZ);
				if (r < 0)
					return r;
				g->z.next_in = g->in;
				g->z.avail_in = (uInt)r;
			}
			if (g->z.avail_in == 0 || g->z.next_in[0] != 0x1f) {
				g->done = true;
				break;
			}
			inflateReset(&g->z);
			continue;
		}
		if (zr != Z_OK && !(zr == Z_BUF_ERROR && g->z.avail_in == 0)) {
			fk_log(FK_LOG_ERROR, "%s: corrupt compressed data (%s)", in->name,
			       g->z.msg ? g->z.msg : "inflate failed");
			return in->error = FK_ERR_DATA;
		}
		if (g->z.avail_out < want && g->z.avail_in == 0)
			break;
	}
	return (ssize_t)(want - g->z.avail_out);
}

static void count_new(struct fk_input *in, const char *p, size_t n)
{
	const char *end = p + n;

	if (!in->count_lines || n == 0)
		return;
	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		in->newlines++;
		p++;
	}
	in->last_byte = (unsigned char)end[-1];
}

void fk_input_count_lines(struct fk_input *in)
{
	in->count_lines = true;
	in->newlines = 0;
	in->last_byte = -1;
	count_new(in, in->buf + in->start, in->end - in->start);
}

uint64_t fk_input_lines(const struct fk_input *in)
{
	return in->newlines + (in->last_byte >= 0 && in->last_byte != '\n');
}

static ssize_t source_read(struct fk_input *in, void *dst, size_t cap)
{
	ssize_t r = in->gz ? gz_read(in, dst, cap) : raw_read(in, dst, cap);
	if (r > 0) {
		in->bytes += (uint64_t)r;
		count_new(in, dst, (size_t)r);
	}
	return r;
}

static void progress(struct fk_input *in)
{
	double now;

	if (!in->progress)
		return;
	now = fk_now();
	if (now - in->last_progress < 0.5)
		return;
	in->last_progress = now;
	fprintf(stderr, "\r%s: %s: %.1f MB read, %.0f MB/s   ", fk_progname, in->name,
	        (double)in->bytes / 1e6, (double)in->bytes / 1e6 / (now - in->t0 + 1e-9));
}

void fk_input_note_read(struct fk_input *in, uint64_t n)
{
	in->bytes += n;
	progress(in);
}

/* Read more into the buffer; returns bytes added, 0 at EOF, <0 on error. */
static ssize_t fill(struct fk_input *in)
{
	ssize_t r;

	if (in->eof)
		return 0;
	if (in->start > 0) {
		memmove(in->buf, in->buf + in->start, in->end - in->start);
		in->end -= in->start;
		in->start = 0;
	}
	if (in->end == in->cap) {
		size_t cap = in->cap * 2;
		char *nb;
		if (cap > MAX_LINE + BUFSZ) {
			fk_log(FK_LOG_ERROR, "%s:%llu: line longer than 1 GiB", in->name,
			       (unsigned long long)in->lineno + 1);
			return in->error = FK_ERR_LIMIT;
		}
		nb = fk_realloc(in->buf, cap);
		if (!nb) {
			fk_log(FK_LOG_ERROR, "%s: out of memory reading a %zu-byte line", in->name, in->end);
			return in->error = FK_ERR_NOMEM;
		}
		in->buf = nb;
		in->cap = cap;
	}
	r = source_read(in, in->buf + in->end, in->cap - in->end);
	if (r < 0)
		return r;
	if (r == 0)
		in->eof = true;
	in->end += (size_t)r;
	progress(in);
	return r;
}

static int setup(struct fk_input *in, const char *name, const struct fk_input_params *prm)
{
	const unsigned char *p;
	struct stat st;
	ssize_t n;

	if (in->fd >= 0 && fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode)) {
		in->regular = true;
		in->fsize = (uint64_t)st.st_size;
	}
	in->name = fk_strdup(name);
	in->cap = !prm->bufsize ? BUFSZ : prm->bufsize >= 4096 ? prm->bufsize : 4096;
	in->buf = fk_malloc(in->cap);
	if (!in->name || !in->buf) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", name);
		return FK_ERR_NOMEM;
	}
	in->t0 = in->last_progress = fk_now();
	/* Look for the gzip magic. */
	n = fk_input_peek(in, 2, &p);
	if (n < 0)
		return (int)n;
	if (n == 2 && p[0] == 0x1f && p[1] == 0x8b) {
		/* The peek may have read more than ZBUFSZ (a whole read buffer):
		 * the compressed buffer takes all of it. */
		size_t have = in->end - in->start;
		struct gz *g = fk_calloc(1, sizeof *g);
		if (!g || !(g->in = fk_malloc(have > ZBUFSZ ? have : ZBUFSZ))) {
			if (g)
				fk_free(g);
			fk_log(FK_LOG_ERROR, "%s: out of memory", name);
			return FK_ERR_NOMEM;
		}
		if (inflateInit2(&g->z, 15 + 16) != Z_OK) {
			fk_free(g->in);
			fk_free(g);
			fk_log(FK_LOG_ERROR, "%s: cannot start decompression", name);
			return FK_ERR_NOMEM;
		}
		/* Move what was already read into the compressed buffer. */
		memcpy(g->in, in->buf + in->start, have);
		g->z.next_in = g->in;
		g->z.avail_in = (uInt)have;
		in->bytes = 0;
		in->start = in->end = 0;
		in->eof = false;
		in->gz = g;
		in->regular = false;
	}
	return 0;
}

int fk_input_open(struct fk_input *in, const char *path)
{
	return fk_input_open_with(in, path, NULL);
}

int fk_input_open_with(struct fk_input *in, const char *path, const struct fk_input_params *params)
{
	static const struct fk_input_params defaults = { 0 };
	int rc;

	if (!params)
		params = &defaults;
	memset(in, 0, sizeof *in);
	in->fd = -1;
	if (strcmp(path, "-") == 0) {
		in->fd = STDIN_FILENO;
		rc = setup(in, "<stdin>", params);
	} else {
		in->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (in->fd < 0) {
			int e = errno;
			fk_log(FK_LOG_ERROR, "%s: cannot open: %s", path, strerror(e));
			in->fd = -1;
			return e == ENOMEM ? FK_ERR_NOMEM : FK_ERR_IO;
		}
		rc = setup(in, path, params);
	}
	if (rc < 0) /* nothing for the caller to close */
		fk_input_close(in);
	return rc;
}

int fk_input_open_fd(struct fk_input *in, int fd, const char *name)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
	in->name = fk_strdup(name);
	in->cap = BUFSZ;
	in->buf = fk_malloc(in->cap);
	in->t0 = in->last_progress = fk_now();
	if (!in->name || !in->buf) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", name);
		fk_input_close(in);
		return FK_ERR_NOMEM;
	}
	return 0;
}

int fk_input_open_mem(struct fk_input *in, const char *name, const void *data, size_t len)
{
	memset(in, 0, sizeof *in);
	in->fd = -1;
	in->name = fk_strdup(name);
	/* The whole input is here and never grows: no 1 MiB read buffer. */
	in->cap = len + 1;
	in->buf = fk_malloc(in->cap);
	if (!in->name || !in->buf) {
		fk_input_close(in);
		return FK_ERR_NOMEM;
	}
	memcpy(in->buf, data, len);
	in->end = len;
	in->eof = true;
	in->t0 = fk_now();
	return 0;
}

void fk_input_close(struct fk_input *in)
{
	if (in->progress && in->bytes)
		fprintf(stderr, "\r\033[K");
	if (in->gz) {
		struct gz *g = in->gz;
		inflateEnd(&g->z);
		fk_free(g->in);
		fk_free(g);
	}
	if (in->fd > STDIN_FILENO)
		close(in->fd);
	if (!in->chunk)
		fk_free(in->buf);
	fk_free(in->err_msg);
	if (!in->chunk)
		fk_free(in->name);
	memset(in, 0, sizeof *in);
	in->fd = -1;
}

int fk_sync_cut(int fd, const struct fk_plugin *pl, uint64_t o, uint64_t end, size_t max,
                uint64_t *cut)
{
	uint64_t ws = o - 1;
	size_t want = 64 * 1024;
	unsigned char *buf = NULL;
	int rc, e;

	for (;;) {
		unsigned char *nb = fk_realloc(buf, want);
		size_t ask = end - ws < want ? (size_t)(end - ws) : want;
		ssize_t got, r;
		bool eof;

		if (!nb) {
			rc = FK_ERR_NOMEM;
			break;
		}
		buf = nb;
		if ((got = pread_full(fd, buf, ask, ws)) < 0) {
			rc = FK_ERR_IO;
			break;
		}
		eof = ws + (uint64_t)got >= end || (size_t)got < ask; /* or the file ended first */
		r = fk_call_sync(pl, buf, (size_t)got, eof);
		if (r < 0) {
			rc = FK_ERR_DATA;
			break;
		}
		if (r > 0 || eof) {
			*cut = ws + (uint64_t)(r == 0 ? got : r); /* r <= got */
			rc = 1;
			break;
		}
		if (max && want >= max) {
			rc = 0;
			break;
		}
		want *= 2;
	}
	e = errno;
	fk_free(buf);
	errno = e;
	return rc;
}

/* The boundary the plugin finds for nominal cut point `o` (0 < o < size). */
static int shard_bound(struct fk_input *in, const struct fk_plugin *pl, uint64_t o,
                       uint64_t size, uint64_t *out)
{
	switch (fk_sync_cut(in->fd, pl, o, size, 0, out)) {
	case FK_ERR_NOMEM:
		fk_log(FK_LOG_ERROR, "%s: out of memory looking for a shard boundary", in->name);
		return FK_ERR_NOMEM;
	case FK_ERR_IO:
		return report_errno(in, "read error");
	case FK_ERR_DATA:
		fk_log(FK_LOG_ERROR, "%s: cannot be sharded: the %s plugin finds no sample "
		       "boundary it can cut at near byte %llu", in->name, pl->d.h.name,
		       (unsigned long long)o);
		return in->error = FK_ERR_DATA;
	}
	return 0;
}

ssize_t fk_input_head(const struct fk_input *in, void *buf, size_t cap)
{
	ssize_t got;

	if (in->chunk || in->gz || in->fd < 0)
		return 0;
	if ((got = pread_full(in->fd, buf, cap, 0)) >= 0)
		return got;
	if (errno == ESPIPE || errno == EINVAL)
		return 0; /* a pipe: its start is gone */
	fk_log(FK_LOG_ERROR, "%s: read error: %s", in->name, strerror(errno));
	return FK_ERR_IO;
}

int fk_input_shard(struct fk_input *in, const struct fk_plugin *pl, unsigned k, unsigned n)
{
	struct stat st;
	uint64_t size, start = 0, end, o;
	char *name;
	int rc;

	if (n <= 1)
		return 0;
	if (in->gz) {
		fk_log(FK_LOG_ERROR, "%s: compressed input cannot be sharded (--shard needs to "
		       "seek); decompress it first", in->name);
		return in->error = FK_ERR_USAGE;
	}
	if (in->fd < 0 || fstat(in->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fk_log(FK_LOG_ERROR, "%s: --shard needs a regular file, not a pipe or terminal",
		       in->name);
		return in->error = FK_ERR_USAGE;
	}
	if (!fk_plugin_has(pl, FK_CB_SYNC)) {
		fk_log(FK_LOG_ERROR, "%s: the %s format cannot be sharded (its plugin has no sync "
		       "callback); parse it whole", in->name, pl->d.h.name);
		return in->error = FK_ERR_USAGE;
	}
	size = (uint64_t)st.st_size;
	end = size;
	o = (uint64_t)((unsigned __int128)size * k / n);
	if (k > 0 && o > 0 && o < size && (rc = shard_bound(in, pl, o, size, &start)) < 0)
		return rc;
	if (k > 0 && o >= size)
		start = size;
	o = (uint64_t)((unsigned __int128)size * (k + 1) / n);
	if (k + 1 < n && o > 0 && o < size && (rc = shard_bound(in, pl, o, size, &end)) < 0)
		return rc;
	if (k + 1 < n && o == 0)
		end = 0;
	if (end < start)
		end = start;
	if (lseek(in->fd, (off_t)start, SEEK_SET) < 0)
		return report_errno(in, "cannot seek");
	name = fk_malloc(strlen(in->name) + 32);
	if (!name) {
		fk_log(FK_LOG_ERROR, "%s: out of memory", in->name);
		return FK_ERR_NOMEM;
	}
	sprintf(name, "%s[%u/%u]", in->name, k, n);
	fk_free(in->name);
	in->name = name;
	in->lineno = 0;
	in->shard_start = start;
	in->start = in->end = 0;
	in->bytes = 0;
	in->eof = start == end;
	in->limited = true;
	in->limit = end - start;
	fk_log(FK_LOG_INFO, "%s: bytes %llu to %llu of %llu", in->name, (unsigned long long)start,
	       (unsigned long long)end, (unsigned long long)size);
	return 0;
}

ssize_t fk_input_peek(struct fk_input *in, size_t cap, const unsigned char **data)
{
	while (in->end - in->start < cap && !in->eof) {
		if (in->start + cap > in->cap && in->start > 0) {
			memmove(in->buf, in->buf + in->start, in->end - in->start);
			in->end -= in->start;
			in->start = 0;
		}
		if (in->end == in->cap)
			break;
		ssize_t r = source_read(in, in->buf + in->end, in->cap - in->end);
		if (r < 0)
			return r;
		if (r == 0)
			in->eof = true;
		in->end += (size_t)r;
	}
	*data = (const unsigned char *)in->buf + in->start;
	return (ssize_t)(in->end - in->start < cap ? in->end - in->start : cap);
}

int fk_input_getline(struct fk_input *in, const char **line, size_t *len)
{
	size_t scanned = 0;

	for (;;) {
		char *s = in->buf + in->start;
		size_t avail = in->end - in->start;
		char *nl = scanned < avail ? memchr(s + scanned, '\n', avail - scanned) : NULL;
		size_t n;

		if (nl || (in->eof && avail > 0)) {
			n = nl ? (size_t)(nl - s) : avail;
			in->start += n + (nl ? 1 : 0);
			if (n > 0 && s[n - 1] == '\r')
				n--;
			*line = s;
			*len = n;
			in->lineno++;
			return 1;
		}
		if (in->eof)
			return 0;
		scanned = avail;
		ssize_t r = fill(in);
		if (r < 0)
			return (int)r;
	}
}

int fk_input_buffered(struct fk_input *in, const char **data, size_t *len)
{
	*data = in->buf ? in->buf + in->start : NULL;
	*len = in->end - in->start;
	return 0;
}

int fk_input_consume(struct fk_input *in, size_t len, uint64_t lines)
{
	if (len > in->end - in->start)
		return FK_ERR_USAGE;
	in->start += len;
	in->lineno += lines;
	return 0;
}

ssize_t fk_input_read(struct fk_input *in, void *buf, size_t cap)
{
	size_t avail = in->end - in->start;
	ssize_t r;

	if (avail) {
		size_t n = avail < cap ? avail : cap;
		memcpy(buf, in->buf + in->start, n);
		in->start += n;
		return (ssize_t)n;
	}
	if (in->eof)
		return 0;
	r = source_read(in, buf, cap);
	if (r == 0)
		in->eof = true;
	progress(in);
	return r;
}

int fk_input_error(struct fk_input *in, uint64_t line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (in->chunk || in->defer_errors) {
		if (!in->err_msg && !in->err_lost) {
			in->err_line = line;
			in->err_msg = fk_strdup(msg);
			in->err_lost = !in->err_msg;
		}
		if (!in->error)
			in->error = FK_ERR_DATA;
		return FK_ERR_DATA;
	}
	/* "flamekit: FILE:LINE: message", without the plugin's prefix, as
	 * part of the call that parses the input */
	FK_CTX_SERVE(cx, in->ctx);
	if (line)
		fk_log_bare(FK_LOG_ERROR, "%s:%llu: %s", in->name, (unsigned long long)line, msg);
	else
		fk_log_bare(FK_LOG_ERROR, "%s: %s", in->name, msg);
	if (!in->error)
		in->error = FK_ERR_DATA;
	return FK_ERR_DATA;
}

void fk_input_skip(struct fk_input *in, uint64_t line)
{
	if (in->skipped < sizeof in->skipped_first / sizeof in->skipped_first[0])
		in->skipped_first[in->skipped] = line;
	in->skipped++;
}

void fk_input_report(struct fk_input *in)
{
	char list[128];
	size_t n = 0, shown;

	if (!in->skipped)
		return;
	shown = in->skipped < 5 ? in->skipped : 5;
	list[0] = '\0';
	for (size_t i = 0; i < shown; i++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%llu", i ? ", " : "",
		                      (unsigned long long)in->skipped_first[i]);
	fk_log(FK_LOG_WARN, "%s: skipped %llu unreadable line%s (line%s %s%s)", in->name,
	       (unsigned long long)in->skipped, in->skipped == 1 ? "" : "s",
	       shown == 1 ? "" : "s", list, in->skipped > shown ? ", ..." : "");
}

uint64_t fk_input_left(const struct fk_input *in)
{
	off_t pos;

	if (in->range)
		return fk_range_left(in->range) + (in->end - in->start);
	if (in->chunk)
		return in->end - in->start;
	if (in->limited)
		return in->limit + (in->end - in->start);
	if (!in->regular || (pos = lseek(in->fd, 0, SEEK_CUR)) < 0 || (uint64_t)pos > in->fsize)
		return UINT64_MAX;
	return in->fsize - (uint64_t)pos + (in->end - in->start);
}
