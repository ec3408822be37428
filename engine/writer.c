/*
 * Output streams.  A regular file is written to "TARGET.tmp.XXXXXX" beside
 * it and renamed into place by fk_writer_commit(), so a failed run leaves
 * either the old file or nothing, never half a graph; a signal removes the
 * temporary (outpath.c).  TARGET is the path with its symlinks followed
 * where the rule of fs.protected_symlinks allows (outpath.c), so a link
 * stays a link and its target is what gets replaced, keeping the old file's
 * mode (and owner, as root).
 *
 * What is not a regular file cannot be replaced without harm: renaming over
 * /dev/null breaks the machine, over a FIFO strands its reader, over
 * /proc/self/fd/1 writes nowhere.  Those are opened and written in place
 * ("direct"), as `sort -o` and shell redirections do; a device is never
 * truncated.  stdout is written directly too; a reader that goes away
 * (EPIPE) ends the run quietly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fk.h"

#define WBUF (256u * 1024)

static const char *wname(const struct fk_writer *w) { return w->path ? w->path : "<stdout>"; }

/* Open the output in place: a device, FIFO or socket, or an fd link.  Only a
 * regular file (reached through /proc/N/fd) is truncated.  O_NOFOLLOW but
 * for a /proc link: the walk judged the name not to be a link. */
static int open_direct(struct fk_writer *w, const struct stat *st)
{
	w->direct = true;
	w->fd = openat(w->at.dirfd, w->at.name, O_WRONLY | O_NOCTTY | O_CLOEXEC |
	               (w->at.proc ? 0 : O_NOFOLLOW) | (S_ISREG(st->st_mode) ? O_TRUNC : 0));
	if (w->fd < 0) {
		fk_log(FK_LOG_ERROR, "%s: cannot open output: %s", w->path, strerror(errno));
		return FK_ERR_IO;
	}
	return 0;
}

/* Create the temporary beside the file it replaces, with that file's mode
 * (and owner and group where the caller may keep them: all of them as
 * root, the group it is a member of otherwise), or open()'s mode for a new
 * one. */
static int open_temp(struct fk_writer *w, const struct stat *old)
{
	w->fd = fk_temp_create(w->at.dirfd, w->at.name, &w->tmp, &w->slot);
	if (w->fd < 0) {
		if (errno == ENOMEM) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return FK_ERR_NOMEM;
		}
		fk_log(FK_LOG_ERROR, "%s: cannot create output file: %s", w->path, strerror(errno));
		return FK_ERR_IO;
	}
	if (old) {
		/* Owner first: chown clears the set-id bits fchmod then restores. */
		if (geteuid() == 0 && fchown(w->fd, old->st_uid, old->st_gid) < 0) {
			fk_log(FK_LOG_ERROR, "%s: cannot give the new file the old one's owner: %s",
			       w->path, strerror(errno));
			return FK_ERR_IO;
		}
		if (geteuid() != 0 && old->st_gid != getegid()) {
			/* fails when we are not in the old group: the new file has ours */
			int ignored = fchown(w->fd, (uid_t)-1, old->st_gid);
			(void)ignored;
		}
		fchmod(w->fd, old->st_mode & 07777);
	} else {
		/* 0600 so far; give the file the mode open() would have. */
		mode_t um = umask(0);
		umask(um);
		fchmod(w->fd, 0666 & ~um);
	}
	return 0;
}

int fk_writer_open(struct fk_writer *w, const char *path)
{
	struct stat st;
	bool exists;
	int rc;

	memset(w, 0, sizeof *w);
	w->at.dirfd = -1;
	w->fd = STDOUT_FILENO;
	w->cap = WBUF;
	w->buf = fk_malloc(w->cap);
	if (!w->buf) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	if (!path || strcmp(path, "-") == 0)
		return 0;
	w->fd = -1;
	if (!(w->path = fk_strdup(path))) {
		fk_log(FK_LOG_ERROR, "out of memory");
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if ((rc = fk_outpath_walk(path, &w->at, false)) < 0)
		goto out;
	exists = fstatat(w->at.dirfd, w->at.name, &st, w->at.proc ? 0 : AT_SYMLINK_NOFOLLOW) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		fk_log(FK_LOG_ERROR, "%s: cannot create output file: it is a directory", path);
		rc = FK_ERR_IO;
		goto out;
	}
	if (exists && (w->at.proc || !S_ISREG(st.st_mode)))
		rc = open_direct(w, &st);
	else
		rc = open_temp(w, exists ? &st : NULL);
out:
	if (rc < 0)
		fk_writer_abort(w);
	return rc;
}

/* Side outputs not yet committed or aborted, newest first (renders run one
 * at a time, on the calling thread). */
static struct fk_writer *pending;

static void unpend(struct fk_writer *s)
{
	for (struct fk_writer **pp = &pending; *pp; pp = &(*pp)->next_pending)
		if (*pp == s) {
			*pp = s->next_pending;
			return;
		}
}

static struct fk_writer *find_pending(const char *path)
{
	for (struct fk_writer *s = pending; s; s = s->next_pending)
		if (fk_output_same(s->path, path))
			return s;
	return NULL;
}

int fk_writer_side(struct fk_writer *w, const char *path, struct fk_writer **side)
{
	struct fk_writer *s = fk_malloc(sizeof *s), *old;
	int rc;

	*side = NULL;
	if (!s) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	if ((rc = fk_writer_open(s, path)) < 0) {
		fk_free(s);
		return rc;
	}
	if ((old = find_pending(path)) != NULL) {
		/* an earlier output's map, which this one started from */
		for (struct fk_writer **pp = &old->parent->sides; *pp; pp = &(*pp)->next)
			if (*pp == old) {
				*pp = old->next;
				break;
			}
		fk_writer_abort(old);
		fk_free(old);
	}
	s->parent = w;
	s->next = w->sides;
	w->sides = s;
	s->next_pending = pending;
	pending = s;
	*side = s;
	return 0;
}

const char *fk_writer_side_pending(const char *path, size_t *len)
{
	struct fk_writer *s = find_pending(path);

	*len = s ? s->len : 0;
	return s ? s->buf : NULL;
}

/* The name an output's bytes end up under, for comparing outputs: links
 * followed, the directory made absolute and free of "." and "..". */
static char *output_key(const char *path)
{
	struct fk_outpath at;
	char *real, *key = NULL;

	if (fk_outpath_walk(path, &at, true) < 0)
		return NULL;
	real = realpath(*at.dir ? at.dir : ".", NULL);
	if (real && (key = fk_malloc(strlen(real) + strlen(at.name) + 2)) != NULL)
		sprintf(key, "%s/%s", real, at.name);
	free(real);
	fk_outpath_free(&at);
	return key;
}

bool fk_output_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ka, *kb;
	bool same;

	if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
		return false;
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		/* Two outputs into one device or FIFO (/dev/null) are both written. */
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (strcmp(a, b) == 0)
		return true;
	ka = output_key(a);
	kb = output_key(b);
	same = ka && kb && strcmp(ka, kb) == 0;
	fk_free(ka);
	fk_free(kb);
	return same;
}

bool fk_output_replaces(const char *path, dev_t dev, ino_t ino)
{
	struct stat st;

	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       st.st_dev == dev && st.st_ino == ino;
}

int fk_output_not_input(const char *out, const char *const *files, size_t n)
{
	for (size_t k = 0; out && k < n; k++) {
		struct stat st;
		bool in = !files[k] || strcmp(files[k], "-") == 0;
		if ((in ? fstat(STDIN_FILENO, &st) : stat(files[k], &st)) == 0 &&
		    fk_output_replaces(out, st.st_dev, st.st_ino)) {
			fk_log(FK_LOG_ERROR, "the output \"%s\" would overwrite the input \"%s\"", out,
			       in ? "<stdin>" : files[k]);
			return FK_ERR_USAGE;
		}
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

/* A side output keeps its bytes until it is finished. */
static int keep(struct fk_writer *w, const void *p, size_t n)
{
	if (w->len + n > w->cap) {
		size_t cap = w->cap;
		char *b;
		while (cap < w->len + n)
			cap *= 2;
		if (!(b = fk_realloc(w->buf, cap))) {
			fk_log(FK_LOG_ERROR, "out of memory");
			return w->error = FK_ERR_NOMEM;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
	return 0;
}

int fk_writer_write(struct fk_writer *w, const void *p, size_t n)
{
	if (w->error)
		return w->error;
	if (w->parent && !w->finished)
		return keep(w, p, n);
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
	for (struct fk_writer *s = w->sides; s && rc == 0; s = s->next)
		rc = fk_writer_finish(s);
	return rc;
}

/* Free what w holds (sides included) and leave it closed. */
static void release(struct fk_writer *w)
{
	if (w->parent)
		unpend(w);
	while (w->sides) {
		struct fk_writer *s = w->sides;
		w->sides = s->next;
		fk_writer_abort(s);
		fk_free(s);
	}
	fk_free(w->buf);
	fk_free(w->path);
	fk_outpath_free(&w->at);
	fk_free(w->tmp);
	memset(w, 0, sizeof *w);
	w->fd = -1;
	w->at.dirfd = -1;
}

int fk_writer_commit(struct fk_writer *w)
{
	int rc = fk_writer_finish(w);

	if (rc == 0 && w->error)
		rc = w->error;
	if (!w->path && w->epipe)
		rc = 0; /* the reader has what it wanted */
	if (w->tmp) {
		if (rc == 0 && renameat(w->at.dirfd, w->tmp, w->at.dirfd, w->at.name) < 0) {
			fk_log(FK_LOG_ERROR, "%s: cannot rename output into place: %s", w->path,
			       strerror(errno));
			rc = FK_ERR_IO;
		}
		if (rc < 0)
			unlinkat(w->at.dirfd, w->tmp, 0);
		fk_temp_forget(w->slot);
	}
	while (w->sides) {
		struct fk_writer *s = w->sides;
		int c;
		w->sides = s->next;
		if (rc == 0) {
			c = fk_writer_commit(s);
			rc = rc ? rc : c;
		} else {
			fk_writer_abort(s);
		}
		fk_free(s);
	}
	release(w);
	return rc;
}

void fk_writer_abort(struct fk_writer *w)
{
	if (w->path && w->fd >= 0)
		close(w->fd);
	if (w->tmp) {
		unlinkat(w->at.dirfd, w->tmp, 0);
		fk_temp_forget(w->slot);
	}
	release(w);
}
