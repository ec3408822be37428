/*
 * Output streams.  A file is written to "PATH.tmp.XXXXXX" beside it and
 * renamed into place by fk_writer_commit(), so a failed run leaves either
 * the old file or nothing, never half a graph.  stdout is written directly;
 * a reader that goes away (EPIPE) ends the run quietly.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fk.h"

#define WBUF (256u * 1024)

static const char *wname(const struct fk_writer *w) { return w->path ? w->path : "<stdout>"; }

int fk_writer_open(struct fk_writer *w, const char *path)
{
	memset(w, 0, sizeof *w);
	w->fd = STDOUT_FILENO;
	w->cap = WBUF;
	w->buf = fk_malloc(w->cap);
	if (!w->buf) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	if (!path || strcmp(path, "-") == 0)
		return 0;
	w->path = fk_strdup(path);
	w->tmp = fk_malloc(strlen(path) + 16);
	if (!w->path || !w->tmp) {
		fk_log(FK_LOG_ERROR, "out of memory");
		fk_writer_abort(w);
		return FK_ERR_NOMEM;
	}
	sprintf(w->tmp, "%s.tmp.XXXXXX", path);
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		fk_log(FK_LOG_ERROR, "%s: cannot create output file: %s", path, strerror(errno));
		fk_free(w->tmp);
		w->tmp = NULL;
		fk_writer_abort(w);
		return FK_ERR_IO;
	}
	{
		/* mkstemp makes 0600; give the file the mode open() would have. */
		mode_t um = umask(0);
		umask(um);
		fchmod(w->fd, 0666 & ~um);
	}
	return 0;
}

static int flush(struct fk_writer *w)
{
	size_t off = 0;

	while (off < w->len) {
		ssize_t r = write(w->fd, w->buf + off, w->len - off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			if (errno == EPIPE && !w->path) {
				w->epipe = true;
				w->error = FK_ERR_IO;
				w->len = 0;
				return FK_ERR_IO;
			}
			fk_log(FK_LOG_ERROR, "%s: write error: %s", wname(w), strerror(errno));
			w->error = FK_ERR_IO;
			w->len = 0;
			return FK_ERR_IO;
		}
		off += (size_t)r;
	}
	w->len = 0;
	return 0;
}

int fk_writer_write(struct fk_writer *w, const void *p, size_t n)
{
	if (w->error)
		return w->error;
	if (n >= w->cap) {
		if (flush(w) < 0)
			return w->error;
		w->len = n;
		char *save = w->buf;
		w->buf = (char *)p;
		int rc = flush(w);
		w->buf = save;
		return rc;
	}
	if (w->len + n > w->cap && flush(w) < 0)
		return w->error;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

int fk_writer_vprintf(struct fk_writer *w, const char *fmt, va_list ap)
{
	char small[1024], *big;
	va_list ap2;
	int n, rc;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return FK_ERR_INTERNAL;
	}
	if ((size_t)n < sizeof small) {
		va_end(ap2);
		return fk_writer_write(w, small, (size_t)n);
	}
	big = fk_malloc((size_t)n + 1);
	if (!big) {
		va_end(ap2);
		return w->error = FK_ERR_NOMEM;
	}
	vsnprintf(big, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	rc = fk_writer_write(w, big, (size_t)n);
	fk_free(big);
	return rc;
}

int fk_writer_printf(struct fk_writer *w, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = fk_writer_vprintf(w, fmt, ap);
	va_end(ap);
	return rc;
}

int fk_writer_finish(struct fk_writer *w)
{
	int rc;

	if (w->finished)
		return 0;
	rc = w->error ? w->error : flush(w);
	if (w->path && w->fd >= 0) {
		if (close(w->fd) < 0 && rc == 0) {
			fk_log(FK_LOG_ERROR, "%s: write error: %s", w->path, strerror(errno));
			rc = FK_ERR_IO;
		}
		w->fd = -1;
	}
	if (rc < 0 && !w->error)
		w->error = rc;
	w->finished = true;
	if (!w->path && w->epipe)
		rc = 0; /* the reader has what it wanted */
	return rc;
}

int fk_writer_commit(struct fk_writer *w)
{
	int rc = fk_writer_finish(w);

	if (rc == 0 && w->error)
		rc = w->error;
	if (!w->path && w->epipe)
		rc = 0; /* the reader has what it wanted */
	if (w->path) {
		if (rc == 0 && rename(w->tmp, w->path) < 0) {
			fk_log(FK_LOG_ERROR, "%s: cannot rename output into place: %s", w->path,
			       strerror(errno));
			rc = FK_ERR_IO;
		}
		if (rc < 0)
			unlink(w->tmp);
	}
	fk_free(w->buf);
	fk_free(w->path);
	fk_free(w->tmp);
	memset(w, 0, sizeof *w);
	w->fd = -1;
	return rc;
}

void fk_writer_abort(struct fk_writer *w)
{
	if (w->path && w->tmp) {
		if (w->fd >= 0)
			close(w->fd);
		unlink(w->tmp);
	}
	fk_free(w->buf);
	fk_free(w->path);
	fk_free(w->tmp);
	memset(w, 0, sizeof *w);
	w->fd = -1;
}
