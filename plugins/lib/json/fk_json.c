/*
 * libfkjson: the yajl driver of the JSON input plugins (fk_json.h).
 */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fk_json.h"

#define CHUNK (1u << 20)

/* Line and column (both 1-based) of byte `at` of the current chunk.  The
 * newlines counted so far in the chunk are kept, so that asking for each
 * token in turn scans the chunk once, not once a token. */
static void where(const struct fk_json *cj, size_t at, uint64_t *line, uint64_t *col)
{
	struct fk_json *j = (struct fk_json *)cj; /* the cache only */
	const unsigned char *q, *e = j->chunk ? j->chunk + at : NULL;

	if (!j->chunk || at < j->scan_at) {
		j->scan_at = 0;
		j->scan_nl = j->nl;
		j->scan_lastnl = j->lastnl;
	}
	q = j->chunk ? j->chunk + j->scan_at : NULL;
	while (q && q < e && (q = memchr(q, '\n', (size_t)(e - q))) != NULL) {
		j->scan_nl++;
		j->scan_lastnl = (int64_t)(j->base + (uint64_t)(q - j->chunk));
		q++;
	}
	if (j->chunk)
		j->scan_at = at;
	*line = j->scan_nl + 1;
	*col = (uint64_t)((int64_t)(j->base + at) - j->scan_lastnl);
}

/* The offset in the chunk of the last byte yajl has taken. */
static size_t taken(const struct fk_json *j)
{
	size_t used = j->y ? yajl_get_bytes_consumed(j->y) : 0;
	return used ? used - 1 : 0;
}

uint64_t fk_json_line(const struct fk_json *j)
{
	uint64_t line, col;
	where(j, taken(j), &line, &col);
	return line;
}

int fk_json_fail(struct fk_json *j, const char *fmt, ...)
{
	va_list ap;
	uint64_t line, col;
	int n;

	if (j->failed)
		return 0;
	j->failed = 1;
	where(j, taken(j), &line, &col);
	j->err_line = line;
	n = snprintf(j->err, sizeof j->err, "not a %s: ", j->what);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof j->err)
		n += vsnprintf(j->err + n, sizeof j->err - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof j->err)
		snprintf(j->err + n, sizeof j->err - (size_t)n, " (column %" PRIu64 ")", col);
	return 0;
}

int fk_json_stop(struct fk_json *j, int rc)
{
	if (!j->failed) {
		j->failed = 1;
		j->stop_rc = rc;
	}
	return 0;
}

int fk_json_nomem(struct fk_json *j)
{
	j->nomem = 1;
	return 0;
}

int fk_json_str_set(struct fk_json *j, struct fk_json_str *d, const unsigned char *s, size_t n)
{
	if (FK_JSON_GROW(j->h, d->s, d->cap, n + 1) < 0)
		return fk_json_nomem(j);
	memcpy(d->s, s, n);
	d->s[n] = '\0';
	d->len = n;
	d->set = 1;
	return 1;
}

/* Advance the line count over chunk[0..n). */
static void count_lines(struct fk_json *j, size_t n)
{
	const unsigned char *q = j->chunk, *e = j->chunk + n;

	while ((q = memchr(q, '\n', (size_t)(e - q))) != NULL) {
		j->nl++;
		j->prevnl = j->lastnl;
		j->lastnl = (int64_t)(j->base + (uint64_t)(q - j->chunk));
		q++;
	}
	j->base += n;
}

static int on_null(void *x)
{
	struct fk_json *j = x;
	return j->ops->scalar(j->ctx, 'z', 0, NULL, 0);
}

static int on_bool(void *x, int b)
{
	struct fk_json *j = x;
	(void)b;
	return j->ops->scalar(j->ctx, 'b', 0, NULL, 0);
}

static int on_string(void *x, const unsigned char *s, size_t len)
{
	struct fk_json *j = x;
	return j->ops->scalar(j->ctx, 's', 0, s, len);
}

static int on_number(void *x, const char *s, size_t len)
{
	struct fk_json *j = x;
	return j->ops->scalar(j->ctx, 'n', fk_json_number(s, len), NULL, 0);
}

static int on_key(void *x, const unsigned char *s, size_t len)
{
	struct fk_json *j = x;
	return j->ops->key(j->ctx, s, len);
}

static int on_start_map(void *x)
{
	struct fk_json *j = x;
	return j->ops->open(j->ctx, 1);
}

static int on_start_array(void *x)
{
	struct fk_json *j = x;
	return j->ops->open(j->ctx, 0);
}

static int on_end(void *x)
{
	struct fk_json *j = x;
	return j->ops->close(j->ctx);
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

int fk_json_parse_inner(struct fk_json *j, const unsigned char *s, size_t len, const char *what)
{
	yajl_handle y = yajl_alloc(&callbacks, NULL, j);
	yajl_status st;

	if (!y)
		return fk_json_nomem(j);
	yajl_config(y, yajl_dont_validate_strings, 1);
	st = yajl_parse(y, s, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(y);
	yajl_free(y);
	if (st == yajl_status_ok)
		return 1;
	if (j->failed || j->nomem)
		return 0; /* a callback's, already set */
	return fk_json_fail(j, "the string holding %s is not JSON", what);
}

void fk_json_init(struct fk_json *j, const struct fk_host *h, struct fk_input *in, const char *what,
                  const struct fk_input_limit *lim)
{
	memset(j, 0, sizeof *j);
	j->h = h;
	j->in = in;
	j->what = what;
	j->lim = lim;
}

const struct fk_option fk_json_options[] = {
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct fk_json_opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

int fk_json_check(const struct fk_host *h, const void *op, const char *where)
{
	(void)where;
	return fk_limit_check(h, ((const struct fk_json_opts *)op)->max_input_size);
}

int fk_json_parse(struct fk_json *j, const struct fk_json_ops *ops, void *ctx)
{
	const struct fk_host *h = j->h;
	unsigned char *buf = h->alloc(CHUNK);
	yajl_status st = yajl_status_ok;
	ssize_t got = 0;
	size_t len = 0, want = CHUNK;
	uint64_t total = 0;
	int rc = 0;

	j->lastnl = j->prevnl = -1;
	/* yajl gets libc's malloc, not the host's: yajl 2.1 does not check
	 * the allocations of its lexer and stacks (yajl_alloc dereferences a
	 * failed one), so the host's injected failures would crash it; what
	 * it holds is the longest token and a byte per nesting level. */
	j->ops = ops;
	j->ctx = ctx;
	if (!buf || !(j->y = yajl_alloc(&callbacks, NULL, j))) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	yajl_config(j->y, yajl_dont_validate_strings, 1);
	yajl_config(j->y, yajl_allow_trailing_garbage, 1);
	while (st == yajl_status_ok && (got = h->read(j->in, buf, want)) > 0) {
		total += (uint64_t)got;
		if (j->lim && total > j->lim->bytes) { /* a bomb, /dev/zero, an endless pipe */
			rc = fk_limit_exceeded(h, j->in, j->lim);
			goto out;
		}
		/* no more than one byte past the limit is ever read */
		if (j->lim && j->lim->bytes - total < CHUNK)
			want = (size_t)(j->lim->bytes - total) + 1;
		j->chunk = buf;
		j->scan_at = 0;
		j->scan_nl = j->nl;
		j->scan_lastnl = j->lastnl;
		len = (size_t)got;
		st = yajl_parse(j->y, buf, len);
		if (st == yajl_status_ok)
			count_lines(j, len);
	}
	if (got < 0) {
		rc = (int)got;
		goto out;
	}
	if (st == yajl_status_ok && j->base == 0) {
		rc = h->input_error(j->in, 0, "not a %s: the input is empty", j->what);
		goto out;
	}
	if (st == yajl_status_ok) {
		/* cut short: the error is at the last byte read */
		j->chunk = NULL;
		st = yajl_complete_parse(j->y);
		if (st != yajl_status_ok && !j->failed && !j->nomem && j->unclosed_ok) {
			st = yajl_status_ok;
		} else if (st != yajl_status_ok && !j->failed && !j->nomem) {
			uint64_t line = j->nl + 1, col;
			int64_t at = (int64_t)j->base - 1;
			if (j->lastnl == at) /* ends with a newline: at the end of that line */
				col = (uint64_t)(at - j->prevnl), line--;
			else
				col = (uint64_t)(at - j->lastnl);
			if (ops->syntax) {
				rc = ops->syntax(ctx, line, col, 1);
				goto out;
			}
			rc = h->input_error(j->in, line, "not a %s: the JSON is cut short at column %"
			                    PRIu64 " (truncated or unclosed)", j->what, col);
			goto out;
		}
	}
	if (j->nomem) {
		rc = FK_ERR_NOMEM;
	} else if (j->failed && j->stop_rc < 0) {
		rc = j->stop_rc; /* reported already */
	} else if (j->failed) {
		rc = h->input_error(j->in, j->err_line, "%s", j->err);
	} else if (st != yajl_status_ok) {
		uint64_t line, col;
		where(j, taken(j), &line, &col);
		rc = ops->syntax ? ops->syntax(ctx, line, col, 0) :
		     h->input_error(j->in, line, "not a %s: the JSON does not parse at column %" PRIu64
		                    " (malformed, or nested over %d deep)", j->what, col, FK_JSON_MAX_DEPTH);
	}
out:
	if (rc == FK_ERR_NOMEM) {
		j->nomem = 1; /* reported: callers check it */
		h->input_error(j->in, 0, "out of memory");
	}
	if (j->y)
		yajl_free(j->y);
	j->y = NULL;
	j->chunk = NULL;
	h->free(buf);
	return rc;
}

double fk_json_number(const char *s, size_t len)
{
	char buf[64];
	double v = 0;
	size_t i = s[0] == '-';

	/* the common case, a short integer, without strtod */
	while (i < len && i < 16 && s[i] >= '0' && s[i] <= '9')
		v = v * 10 + (s[i++] - '0');
	if (i < len) {
		if (len >= sizeof buf)
			len = sizeof buf - 1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		return strtod(buf, NULL);
	}
	return s[0] == '-' ? -v : v;
}

int fk_json_first(const unsigned char *buf, size_t len)
{
	size_t i = 0;

	if (len >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < len && (buf[i] == '{' || buf[i] == '[') ? buf[i] : 0;
}

int fk_json_has_key(const unsigned char *buf, size_t len, const char *key)
{
	size_t kl = strlen(key);
	const unsigned char *p = buf, *e = buf + len;

	while ((p = memmem(p, (size_t)(e - p), key, kl)) != NULL) {
		const unsigned char *q = p + kl;
		if (p > buf && p[-1] == '"' && q < e && *q == '"') {
			q++;
			while (q < e && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n'))
				q++;
			if (q < e && *q == ':')
				return 1;
		}
		p++;
	}
	return 0;
}

int fk_json_top_key(const unsigned char *buf, size_t len, const char *key)
{
	size_t kl = strlen(key), i = 0, depth = 0;

	while (i < len) {
		unsigned char c = buf[i++];
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth-- <= 1)
				return 0; /* the top level closed */
		} else if (c == '"') {
			size_t start = i;
			while (i < len && buf[i] != '"')
				i += buf[i] == '\\' ? 2 : 1;
			if (i >= len)
				return 0;
			if (depth == 1 && i - start == kl && !memcmp(buf + start, key, kl)) {
				size_t q = i + 1;
				while (q < len && (buf[q] == ' ' || buf[q] == '\t' || buf[q] == '\r' || buf[q] == '\n'))
					q++;
				if (q < len && buf[q] == ':')
					return 1;
			}
			i++;
		}
	}
	return 0;
}
