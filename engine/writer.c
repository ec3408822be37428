/*
 * Output streams.  A regular file is written to "TARGET.tmp.XXXXXX" beside
 * it and renamed into place by fk_writer_commit(), so a failed run leaves
 * either the old file or nothing, never half a graph.  TARGET is the path
 * with its symlinks followed, so a link stays a link and its target is what
 * gets replaced, keeping the old file's mode (and owner, as root).
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
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "fk.h"

#define WBUF (256u * 1024)
#define PROC_SUPER_MAGIC 0x9fa0
#define MAX_LINKS 40

static const char *wname(const struct fk_writer *w) { return w->path ? w->path : "<stdout>"; }

/* Is the directory holding `path` a procfs?  Its links (/proc/N/fd/M) name
 * open files, not places in a directory: what they point at cannot be
 * replaced by a rename, and may not even have a name ("pipe:[123]"). */
static bool in_procfs(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? fk_strndup(path, (size_t)(slash - path) + (slash == path)) : fk_strdup(".");
	struct statfs sf;
	bool r = false;

	if (dir && statfs(dir, &sf) == 0)
		r = sf.f_type == PROC_SUPER_MAGIC;
	fk_free(dir);
	return r;
}

/* Follow path's symlinks to what they name, which need not exist yet (a
 * dangling link is written through to its target).  Stops early at a link
 * on procfs, setting *proc.  Returns an fk_malloc'd path the caller frees,
 * or NULL with errno set. */
static char *resolve_links(const char *path, bool *proc)
{
	char *cur = fk_strdup(path);
	char link[PATH_MAX];

	*proc = false;
	for (int hops = 0; cur && hops < MAX_LINKS; hops++) {
		struct stat st;
		const char *slash;
		char *next;
		ssize_t n;

		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return cur;
		if (in_procfs(cur)) {
			*proc = true;
			return cur;
		}
		n = readlink(cur, link, sizeof link - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		slash = strrchr(cur, '/');
		if (link[0] == '/' || !slash)
			next = fk_strdup(link);
		else if ((next = fk_malloc((size_t)(slash - cur) + 2 + (size_t)n)) != NULL)
			sprintf(next, "%.*s/%s", (int)(slash - cur), cur, link);
		fk_free(cur);
		cur = next;
		if (hops + 1 == MAX_LINKS)
			errno = ELOOP;
	}
	if (!cur)
		errno = ENOMEM;
	fk_free(cur);
	return NULL;
}

/* Open the output in place: a device, FIFO or socket, or an fd link.  Only a
 * regular file (reached through /proc/N/fd) is truncated. */
static int open_direct(struct fk_writer *w, const char *at, const struct stat *st)
{
	w->direct = true;
	w->fd = open(at, O_WRONLY | O_NOCTTY | (S_ISREG(st->st_mode) ? O_TRUNC : 0));
	if (w->fd < 0) {
		fk_log(FK_LOG_ERROR, "%s: cannot open output: %s", w->path, strerror(errno));
		return FK_ERR_IO;
	}
	return 0;
}

/* Create the temporary beside w->target, with the mode (and, as root, the
 * owner and group) of the file it replaces, or open()'s mode for a new one. */
static int open_temp(struct fk_writer *w, const struct stat *old)
{
	if (!(w->tmp = fk_malloc(strlen(w->target) + 16))) {
		fk_log(FK_LOG_ERROR, "out of memory");
		return FK_ERR_NOMEM;
	}
	sprintf(w->tmp, "%s.tmp.XXXXXX", w->target);
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0) {
		fk_log(FK_LOG_ERROR, "%s: cannot create output file: %s", w->path, strerror(errno));
		fk_free(w->tmp);
		w->tmp = NULL;
		return FK_ERR_IO;
	}
	if (old) {
		/* Owner first: chown clears the set-id bits fchmod then restores. */
		if (geteuid() == 0 && fchown(w->fd, old->st_uid, old->st_gid) < 0) {
			fk_log(FK_LOG_ERROR, "%s: cannot give the new file the old one's owner: %s",
			       w->path, strerror(errno));
			return FK_ERR_IO;
		}
		fchmod(w->fd, old->st_mode & 07777);
	} else {
		/* mkstemp makes 0600; give the file the mode open() would have. */
		mode_t um = umask(0);
		umask(um);
		fchmod(w->fd, 0666 & ~um);
	}
	return 0;
}

int fk_writer_open(struct fk_writer *w, const char *path)
{
	struct stat st;
	bool proc, exists;
	int rc;

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
	w->fd = -1;
	if (!(w->path = fk_strdup(path))) {
		fk_log(FK_LOG_ERROR, "out of memory");
		rc = FK_ERR_NOMEM;
		goto out;
	}
	if (!(w->target = resolve_links(path, &proc))) {
		rc = errno == ENOMEM ? FK_ERR_NOMEM : FK_ERR_IO;
		if (rc == FK_ERR_NOMEM)
			fk_log(FK_LOG_ERROR, "out of memory");
		else
			fk_log(FK_LOG_ERROR, "%s: cannot create output file: %s", path, strerror(errno));
		goto out;
	}
	exists = stat(w->target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		fk_log(FK_LOG_ERROR, "%s: cannot create output file: it is a directory", path);
		rc = FK_ERR_IO;
		goto out;
	}
	if (exists && (proc || !S_ISREG(st.st_mode)))
		rc = open_direct(w, w->target, &st);
	else
		rc = open_temp(w, exists ? &st : NULL);
out:
	if (rc < 0)
		fk_writer_abort(w);
	return rc;
}

/* The name an output's bytes end up under, for comparing outputs: links
 * followed, the directory made absolute and free of "." and "..". */
static char *output_key(const char *path)
{
	bool proc;
	char *t = resolve_links(path, &proc), *dir, *base, *key = NULL, *slash;

	if (!t)
		return NULL;
	slash = strrchr(t, '/');
	base = slash ? slash + 1 : t;
	dir = slash ? fk_strndup(t, (size_t)(slash - t) + (slash == t)) : fk_strdup(".");
	if (dir) {
		char *real = realpath(dir, NULL);
		if (real && (key = fk_malloc(strlen(real) + strlen(base) + 2)) != NULL)
			sprintf(key, "%s/%s", real, base);
		free(real);
	}
	fk_free(dir);
	if (!key)
		return t;
	fk_free(t);
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
	if (w->tmp) {
		if (rc == 0 && rename(w->tmp, w->target) < 0) {
			fk_log(FK_LOG_ERROR, "%s: cannot rename output into place: %s", w->path,
			       strerror(errno));
			rc = FK_ERR_IO;
		}
		if (rc < 0)
			unlink(w->tmp);
	}
	fk_free(w->buf);
	fk_free(w->path);
	fk_free(w->target);
	fk_free(w->tmp);
	memset(w, 0, sizeof *w);
	w->fd = -1;
	return rc;
}

void fk_writer_abort(struct fk_writer *w)
{
	if (w->path && w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	fk_free(w->buf);
	fk_free(w->path);
	fk_free(w->target);
	fk_free(w->tmp);
	memset(w, 0, sizeof *w);
	w->fd = -1;
}
