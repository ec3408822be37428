/* libfksym: opening a file a profile names without following a link
 * another user planted (cfg.guard_links).
 *
 * The path is walked one component at a time, each opened O_PATH |
 * O_NOFOLLOW relative to the directory reached so far, so every symbolic
 * link met (the last component or a directory on the way) is judged before
 * it is followed, by the rule of fs.protected_symlinks whatever that sysctl
 * says: a link is followed when the directory holding it is not sticky and
 * world-writable, when the caller owns the link, or when the link's owner
 * owns that directory.  The file itself is opened relative to its
 * directory with O_NOFOLLOW, so nothing swapped into the path after the
 * walk changes what is read.  The same rule as the engine's output paths
 * (engine/outpath.c), for reading.
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define MAX_LINKS 40

static int reopen_root(int *dirfd)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	close(*dirfd);
	*dirfd = fd;
	return 0;
}

/* Whether the link with status lst, in the directory dirfd, may be followed
 * (the kernel's may_follow_link()). */
static int may_follow(int dirfd, const struct stat *lst)
{
	struct stat dst;

	if (fstat(dirfd, &dst) < 0)
		return 0;
	return !((dst.st_mode & S_ISVTX) && (dst.st_mode & S_IWOTH)) || lst->st_uid == geteuid() ||
	       lst->st_uid == dst.st_uid;
}

/* The regular file comp of dirfd, read-only.  Its type is judged on an
 * O_PATH descriptor before anything opens it for reading (opening a device
 * can do things: a tty becomes the controlling terminal, a watchdog
 * starts), and the same inode is then opened through /proc/self/fd; without
 * /proc, by its name again and judged again.  -1 with errno (EISDIR: not a
 * regular file). */
static int open_regular(int dirfd, const char *comp)
{
	int pfd = openat(dirfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd = -1, err = 0;
	struct stat st;
	char proc[64];

	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) < 0) {
		err = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		err = EISDIR;
		goto out;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = openat(dirfd, comp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
			errno = EISDIR;
		}
	}
	err = fd < 0 ? errno : 0;
out:
	close(pfd);
	errno = err;
	return fd;
}

int fk_sym_open_guarded(const char *path, long *link_uid)
{
	/* what is left to walk: the path, then each link's target before the
	 * rest of it */
	char *rest = malloc(2 * PATH_MAX + 2), *comp;
	int dirfd = -1, fd = -1, links = 0, err = 0;
	size_t len = strlen(path);

	*link_uid = -1;
	if (!rest || len > PATH_MAX) {
		err = rest ? ENAMETOOLONG : ENOMEM;
		goto out;
	}
	memcpy(rest, path, len + 1);
	if ((dirfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
		err = errno;
		goto out;
	}
	for (comp = rest;;) {
		char *end, *next;
		struct stat st;

		while (*comp == '/')
			comp++;
		if (!*comp) {
			err = EISDIR; /* the path names a directory */
			goto out;
		}
		end = strchr(comp, '/');
		next = end ? end + 1 : comp + strlen(comp);
		if (end)
			*end = '\0';
		while (*next == '/')
			next++;
		if (fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			err = errno;
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX + 1];
			ssize_t n;
			size_t tail = strlen(next);

			if (!may_follow(dirfd, &st)) {
				*link_uid = (long)st.st_uid;
				err = EACCES;
				goto out;
			}
			if (++links > MAX_LINKS || (n = readlinkat(dirfd, comp, target, PATH_MAX)) < 0) {
				err = links > MAX_LINKS ? ELOOP : errno;
				goto out;
			}
			if (n == PATH_MAX || (size_t)n + 1 + tail > 2 * PATH_MAX) {
				err = ENAMETOOLONG;
				goto out;
			}
			/* rest becomes "target/next" (memmove: next lies in rest) */
			memmove(rest + n + 1, next, tail + 1);
			memcpy(rest, target, (size_t)n);
			rest[n] = tail ? '/' : '\0';
			if (target[0] == '/' && reopen_root(&dirfd) < 0) {
				err = errno;
				goto out;
			}
			comp = rest;
			continue;
		}
		if (!*next) {
			fd = open_regular(dirfd, comp);
			err = fd < 0 ? errno : 0;
			goto out;
		}
		if ((fd = openat(dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			err = errno;
			goto out;
		}
		close(dirfd);
		dirfd = fd;
		fd = -1;
		comp = next;
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(rest);
	errno = err;
	return fd;
}
