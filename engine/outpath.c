/*
 * Where an output may be written, and the temporaries a signal removes.
 *
 * The path of an output is walked one component at a time, as the kernel
 * walks it, holding the directory reached so far open (O_PATH), so that
 * every symbolic link met - the last component, or a directory on the way -
 * is judged before it is followed, by the rule of fs.protected_symlinks
 * whatever that sysctl says: a link is followed when the directory holding
 * it is not sticky and world-writable, when the caller owns the link, or
 * when the link's owner owns that directory.  A link in /tmp planted by
 * another user is refused, so root cannot be aimed at ~/.ssh/authorized_keys.
 * And a link whose target does not exist is followed to create that target
 * only when the caller owns it: nobody chooses where root creates a file.
 *
 * Everything after the walk happens relative to the directory it found
 * (openat, renameat, unlinkat), so nothing renamed into the path afterwards
 * changes where the bytes go.
 *
 * Each temporary is registered, and SIGINT, SIGTERM and SIGHUP remove the
 * registered ones and exit with 128 + the signal (a signal the process
 * inherited as ignored stays ignored: nohup, `cmd &`).
 */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "fk.h"

#define PROC_SUPER_MAGIC 0x9fa0
#define MAX_LINKS 40

void fk_outpath_free(struct fk_outpath *op)
{
	if (op->dirfd >= 0)
		close(op->dirfd);
	fk_free(op->name);
	fk_free(op->dir);
	op->dirfd = -1;
	op->name = op->dir = NULL;
}

/* "dir/name", "name" when dir is "" (the current directory). */
static char *join(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	char *s = fk_malloc(d + n + 2);

	if (!s)
		return NULL;
	if (!d)
		memcpy(s, name, n + 1);
	else
		sprintf(s, "%s%s%s", dir, dir[d - 1] == '/' ? "" : "/", name);
	return s;
}

/* The name of uid for a message: "nobody", or the number. */
static void user_name(uid_t uid, char *buf, size_t cap)
{
	struct passwd *pw = getpwuid(uid);

	if (pw && pw->pw_name)
		snprintf(buf, cap, "%s", pw->pw_name);
	else
		snprintf(buf, cap, "%lu", (unsigned long)uid);
}

/* May the caller follow the link `lst` found in the directory dirfd?  The
 * kernel's may_follow_link(). */
static bool may_follow(int dirfd, const struct stat *lst, struct stat *dst)
{
	if (fstat(dirfd, dst) < 0)
		return false;
	return !((dst->st_mode & S_ISVTX) && (dst->st_mode & S_IWOTH)) ||
	       lst->st_uid == geteuid() || lst->st_uid == dst->st_uid;
}

static bool on_procfs(int dirfd)
{
	struct statfs sf;

	return fstatfs(dirfd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* Replace the walk's directory with the root, for an absolute path. */
static int go_root(struct fk_outpath *op)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *d = fk_strdup("/");

	if (fd < 0 || !d) {
		if (fd >= 0)
			close(fd);
		fk_free(d);
		if (!d)
			errno = ENOMEM;
		return -1;
	}
	if (op->dirfd >= 0)
		close(op->dirfd);
	fk_free(op->dir);
	op->dirfd = fd;
	op->dir = d;
	return 0;
}

/* Step into the directory `comp` of op->dirfd (never through a link: the
 * walk has judged comp not to be one, and O_NOFOLLOW holds it to that). */
static int go_down(struct fk_outpath *op, const char *comp)
{
	int fd = openat(op->dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *d = join(op->dir, comp);

	if (fd < 0 || !d) {
		if (fd >= 0)
			close(fd);
		if (!d)
			errno = ENOMEM;
		fk_free(d);
		return -1;
	}
	close(op->dirfd);
	fk_free(op->dir);
	op->dirfd = fd;
	op->dir = d;
	return 0;
}

/* The link refused, for the message: where it is and who owns it. */
struct refusal {
	char *link;
	uid_t owner, dirowner;
	bool dangling;
};

/* The path left to walk after the link `comp` of op->dirfd: its target,
 * then what followed the link (`next`, NULL when the link was the last
 * component; `slash` when a trailing slash followed it, which stays: "link/"
 * must name a directory).  Replaces *rest; an absolute target takes the walk
 * back to the root.  0, or -1 with errno set. */
static int splice_link(struct fk_outpath *op, const char *comp, const struct stat *st,
                  const char *next, bool slash, char **rest)
{
	size_t cap = (size_t)st->st_size + PATH_MAX; /* procfs links say 0 */
	char *target = fk_malloc(cap + 1), *nrest = NULL;
	ssize_t tn;
	int rc = -1;

	if (!target) {
		errno = ENOMEM;
		return -1;
	}
	tn = readlinkat(op->dirfd, comp, target, cap);
	if (tn <= 0) {
		if (tn == 0)
			errno = ENOENT;
		goto out;
	}
	target[tn] = '\0';
	if (!(nrest = fk_malloc((size_t)tn + (next ? strlen(next) : 0) + 2))) {
		errno = ENOMEM;
		goto out;
	}
	sprintf(nrest, "%s%s%s", target, next || slash ? "/" : "", next ? next : "");
	if (target[0] == '/' && go_root(op) < 0)
		goto out;
	fk_free(*rest);
	*rest = nrest;
	nrest = NULL;
	rc = 0;
out:
	fk_free(nrest);
	fk_free(target);
	return rc;
}

/* Walk `path` (see the top of the file) into op.  Returns 0; -1 with errno
 * set; or -2 with *no filled in, when a link may not be followed. */
static int walk(const char *path, struct fk_outpath *op, struct refusal *no)
{
	char *rest = fk_strdup(path), *p, *comp = NULL, *last_foreign = NULL;
	uid_t foreign_owner = 0, foreign_dirowner = 0;
	int hops = 0, rc = -1;

	op->dirfd = -1;
	op->name = op->dir = NULL;
	op->proc = false;
	if (!rest) {
		errno = ENOMEM;
		return -1;
	}
	if (path[0] == '/') {
		if (go_root(op) < 0)
			goto out;
	} else if ((op->dirfd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	           !(op->dir = fk_strdup(""))) {
		if (op->dirfd >= 0)
			errno = ENOMEM;
		goto out;
	}
	for (p = rest;;) {
		struct stat st, dst;
		char *end, *next;
		bool last;
		size_t n;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		n = end ? (size_t)(end - p) : strlen(p);
		next = end;
		while (next && *next == '/')
			next++;
		last = !next || !*next;
		fk_free(comp);
		if (!(comp = n ? fk_strndup(p, n) : fk_strdup("."))) {
			errno = ENOMEM;
			goto out;
		}
		if (!last && strcmp(comp, ".") == 0) {
			p = next;
			continue;
		}
		if (!last && strcmp(comp, "..") == 0) {
			if (go_down(op, "..") < 0)
				goto out;
			p = next;
			continue;
		}
		if (fstatat(op->dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT || !last)
				goto out;
			if (end) {
				errno = EISDIR; /* "new/": a file cannot be created as a directory */
				goto out;
			}
			if (last_foreign) {
				/* a dangling link: its target would be created in our
				 * name where another user chose */
				no->link = last_foreign;
				no->owner = foreign_owner;
				no->dirowner = foreign_dirowner;
				no->dangling = true;
				last_foreign = NULL;
				rc = -2;
				goto out;
			}
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (last && end && !S_ISDIR(st.st_mode)) {
				errno = ENOTDIR; /* "file/" */
				goto out;
			}
			if (last)
				break;
			if (go_down(op, comp) < 0)
				goto out;
			p = next;
			continue;
		}
		if (last && on_procfs(op->dirfd)) {
			op->proc = true; /* /proc/self/fd/1: opened as it is */
			break;
		}
		if (!may_follow(op->dirfd, &st, &dst)) {
			if (!(no->link = join(op->dir, comp))) {
				errno = ENOMEM;
				goto out;
			}
			no->owner = st.st_uid;
			no->dirowner = dst.st_uid;
			no->dangling = false;
			rc = -2;
			goto out;
		}
		if (++hops > MAX_LINKS) {
			errno = ELOOP;
			goto out;
		}
		if (last && st.st_uid != geteuid()) {
			/* the last one of another user's links on the way to the file */
			fk_free(last_foreign);
			if (!(last_foreign = join(op->dir, comp))) {
				errno = ENOMEM;
				goto out;
			}
			foreign_owner = st.st_uid;
			foreign_dirowner = dst.st_uid;
		}
		if (splice_link(op, comp, &st, last ? NULL : next, last && end, &rest) < 0)
			goto out;
		p = rest;
	}
	op->name = comp;
	comp = NULL;
	rc = 0;
out:
	if (rc < 0)
		fk_outpath_free(op);
	fk_free(comp);
	fk_free(rest);
	fk_free(last_foreign);
	return rc;
}

int fk_outpath_walk(const char *path, struct fk_outpath *op, bool quiet)
{
	struct refusal no = { 0 };
	char who[64], dirwho[64];
	int rc = walk(path, op, &no);

	if (rc == 0)
		return 0;
	if (rc == -1) {
		rc = errno == ENOMEM ? FK_ERR_NOMEM : FK_ERR_IO;
		if (quiet)
			return rc;
		if (rc == FK_ERR_NOMEM)
			fk_log(FK_LOG_ERROR, "out of memory");
		else
			fk_log(FK_LOG_ERROR, "%s: cannot create output file: %s", path, strerror(errno));
		return rc;
	}
	if (!quiet) {
		user_name(no.owner, who, sizeof who);
		user_name(no.dirowner, dirwho, sizeof dirwho);
		if (no.dangling)
			fk_log(FK_LOG_ERROR, "%s: refusing to create a file through the symbolic link %s, "
			       "owned by %s, whose target does not exist", path, no.link, who);
		else
			fk_log(FK_LOG_ERROR, "%s: refusing to follow the symbolic link %s, owned by %s, in "
			       "a sticky world-writable directory owned by %s", path, no.link, who, dirwho);
	}
	fk_free(no.link);
	return FK_ERR_IO;
}

/* ---- temporaries removed on a signal ------------------------------------------------ */

#define SLOTS 32

/* Slots are never freed, so the handler can read them while the main
 * thread adds one; `used` is set only once dirfd and name are complete. */
struct slot {
	volatile sig_atomic_t used;
	int dirfd;
	char name[NAME_MAX + 1];
};
struct chunk {
	struct chunk *next;
	struct slot s[SLOTS];
};

static struct chunk *chunks;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	for (struct chunk *c = __atomic_load_n(&chunks, __ATOMIC_ACQUIRE); c; c = c->next)
		for (int i = 0; i < SLOTS; i++)
			if (__atomic_load_n(&c->s[i].used, __ATOMIC_ACQUIRE))
				unlinkat(c->s[i].dirfd, c->s[i].name, 0);
	_exit(128 + sig);
}

static void install_handlers(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (size_t k = 0; k < sizeof caught / sizeof *caught; k++) {
		struct sigaction sa, old;
		if (sigaction(caught[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigfillset(&sa.sa_mask);
		sigaction(caught[k], &sa, NULL);
	}
}

/* A free slot, a new chunk when all are taken; NULL when out of memory.
 * Called with slots_lock held. */
static struct slot *take_slot(void)
{
	struct chunk *c;

	for (c = chunks; c; c = c->next)
		for (int i = 0; i < SLOTS; i++)
			if (!c->s[i].used)
				return &c->s[i];
	if (!(c = calloc(1, sizeof *c))) /* never freed: the handler may be reading it */
		return NULL;
	c->next = chunks;
	__atomic_store_n(&chunks, c, __ATOMIC_RELEASE);
	return &c->s[0];
}

/* Six letters and digits, different for every call of the process. */
static void suffix(char out[7])
{
	static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t count;
	struct timespec ts;
	uint64_t x;

	clock_gettime(CLOCK_REALTIME, &ts);
	x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
	    (++count * 0x9e3779b97f4a7c15ull);
	for (int i = 0; i < 6; i++) {
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ull;
		out[i] = al[(x >> 40) % (sizeof al - 1)];
	}
	out[6] = '\0';
}

int fk_temp_create(int dirfd, const char *name, char **tmp, void **slot)
{
	size_t n = strlen(name);
	sigset_t all, old;
	struct slot *s;
	int fd = -1, err = 0;

	*tmp = NULL;
	*slot = NULL;
	if (!(*tmp = fk_malloc(n + 12))) {
		errno = ENOMEM;
		return -1;
	}
	/* no signal between creating the file and registering it */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&slots_lock);
	install_handlers();
	if (!(s = take_slot())) {
		err = ENOMEM;
		goto out;
	}
	for (int tries = 0; tries < 100; tries++) {
		char x[7];
		suffix(x);
		sprintf(*tmp, "%s.tmp.%s", name, x);
		fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		err = errno;
		goto out;
	}
	if (strlen(*tmp) < sizeof s->name) {
		s->dirfd = dirfd;
		memcpy(s->name, *tmp, strlen(*tmp) + 1);
		__atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
		*slot = s;
	}
out:
	pthread_mutex_unlock(&slots_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		fk_free(*tmp);
		*tmp = NULL;
		errno = err;
	}
	return fd;
}

void fk_temp_forget(void *slot)
{
	struct slot *s = slot;

	if (s)
		__atomic_store_n(&s->used, 0, __ATOMIC_RELEASE);
}
