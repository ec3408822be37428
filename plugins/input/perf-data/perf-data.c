/*
 * Input plugin "perf-data": a perf.data file, read by running the system's
 * `perf script` on it and parsing what it prints, through a pipe, with the
 * perf plugin's parser (plugins/input/perf, linked as a library): no text
 * file in between, and the folded result is byte for byte what `perf
 * script -i FILE | flamekit collapse --format perf` gives.
 *
 * With N threads, N `perf script --time START,STOP` processes print N time
 * slices of the file at once; host->parse_streams parses each as it comes
 * on a thread of its own, as the segments (in slice order) of one perf
 * parser session, and joins their results in slice order.  The slices
 * partition the samples exactly: perf keeps a sample when START <= t <= STOP
 * (tools/perf/util/time-utils.c, perf_time__skip_sample; an empty bound is
 * no bound), and we give integer-nanosecond bounds ",b1-1", "b1,b2-1", ...,
 * "bN-1,", so every integer timestamp falls in exactly one slice, whatever
 * the cut points b1 < b2 < ... are (the quantiles of the sample times read
 * from the data section, so that the slices hold about as many samples,
 * or an even cut of the header's first-to-last range).  A timestamp of 0
 * would pass every slice (perf skips the test for it), so slicing needs
 * every sampling event to record its time and a first sample time above 0.
 * What perf prints for a sample does not depend on the slice: perf still
 * processes every non-sample event (mmap, comm, fork) of the whole file and
 * tests the time only at the sample, before resolving its stack.  So the
 * slices, in order, are the one process's text cut at record boundaries,
 * and the session treats them as it treats the chunks of one stream:
 *   - what spans slices is settled in slice order at the end (fk_perf_end):
 *     --offcpu and --wakeups waits from a switch-out in one slice to the
 *     switch-in in a later one, --leak's allocations freed in a later
 *     slice, the time-order check, and the summary warnings, once;
 *   - a file with several sampling events keeps, as one pass does, the
 *     event of the first record perf script prints (unless --event-filter
 *     or --series-by-event name what to keep): a short perf script of the
 *     whole file, stopped at its first record, reads it before the slices
 *     are parsed (perf prints in time order, not in the file's).
 * Folded output sums equal stacks, so it is the same whatever N; time-ordered
 * outputs see the slices in time order.
 *
 * One process is run, whatever the thread count, when:
 *   - the header gives no usable time range (a file written to a pipe, or
 *     recorded without sample times);
 *   - --offcpu, --wakeups or --leak while an output keeps the samples in
 *     order (flamechart, pprof, ...): a pair spanning two slices is pushed
 *     only once both are parsed, later than one pass would push it;
 *   - several events and the first record could not be read ahead.
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <flamekit/plugin.h>

#include "../../lib/perfscript/perfscript.h"
#include "../common/limit.h"
#include "header.h"
#include "native.h"

extern char **environ;

#define SLICES_MAX 64
#define ARGS_MAX 20
#define PROBE_MAX ((size_t)16 << 20) /* how far the first record is looked for */

/* The perf parser's options, then perf-data's own. */
struct pd_opts {
	struct fk_perf_opts perf;
	const char *perf_bin, *symfs, *kallsyms, *max_input_size;
	int via_perf_script, inline_frames, srcline;
	int no_demangle; /* the user's --no-demangle (host->input_demangle), not an option */
};

/* One `perf script` process and the input reading its standard output. */
struct child {
	pid_t pid;            /* 0: not running (never started, or reaped) */
	int status;           /* from waitpid */
	struct fk_input *in;  /* owned; closing it closes the pipe */
	char from[32], to[32]; /* --time bounds, "" for none */
};

/* "SEC.NSEC", the form perf script --time reads to the nanosecond. */
static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	         (unsigned long long)(ns % 1000000000u));
}

/* Whether the perf parser would pick the event to keep from the first
 * record: no --event-filter, --series-by-event or pairing mode names it. */
static int keeps_first_event(const struct fk_perf_opts *o)
{
	return !(o->event_filter && o->event_filter[0]) && !o->series_by_event && !o->offcpu &&
	       !o->wakeups && !o->leak;
}

/* The perf script command line for o and the --time range (NULL: none). */
static void command(const struct pd_opts *o, const char *path, const char *range,
                    const char **argv)
{
	const struct fk_perf_opts *po = &o->perf;
	size_t n = 0;

	argv[n++] = "perf"; /* spawn() puts find_perf()'s path here */
	argv[n++] = "script";
	argv[n++] = "-i";
	argv[n++] = path;
	if (po->wakeups || po->leak) {
		/* the records paired are tracepoints (uprobes too): ask for all
		 * that is read from them, whatever perf's defaults */
		argv[n++] = "-F";
		argv[n++] = "trace:comm,tid,time,event,trace,ip,sym,dso";
	}
	/* The header must show PID/TID for --pid/--tid, and the event name and
	 * period of every record for --series-by-event, whatever the file's
	 * events.  A tracepoint's fields (--weight-field) are in perf script's
	 * default output; asking for "+trace" would only warn about the other
	 * events, which have none. */
	if (po->pid || po->tid || po->series_by_event) {
		argv[n++] = "-F";
		argv[n++] = po->series_by_event ? (po->pid || po->tid ? "+pid,+event,+period"
		                                                      : "+event,+period")
		                                : "+pid";
	}
	if (o->inline_frames)
		argv[n++] = "--inline";
	if (o->no_demangle)
		argv[n++] = "--no-demangle";
	if (o->symfs) {
		argv[n++] = "--symfs";
		argv[n++] = o->symfs;
	}
	if (o->kallsyms) {
		argv[n++] = "--kallsyms";
		argv[n++] = o->kallsyms;
	}
	if (range) {
		argv[n++] = "--time";
		argv[n++] = range;
	}
	argv[n] = NULL;
}

/*
 * perf's environment: ours, with glibc.malloc.hugetlb=1 added to
 * GLIBC_TUNABLES, so that perf script's heap is on transparent huge pages
 * as flamekit's is (engine/alloc.c).  perf script allocates as it goes,
 * and where page faults are dear (a virtual machine) they were a tenth of
 * its time: 4,300 faults for half of a 23 MB perf.data, 1,800 with the
 * tunable.  glibc before 2.35 and other C libraries ignore it; a
 * GLIBC_TUNABLES that sets glibc.malloc.hugetlb already is left alone.
 * And PATH without its empty and relative entries, for the programs perf
 * itself may run (addr2line, objdump), as find_perf() looks for perf.
 * Returns a NULL-terminated array of environ's strings but those two and
 * the new ones in own[0] and own[1] (all for the caller to free; an own[]
 * may be NULL), or NULL when out of memory (environ is used).
 */
#define THP_TUNABLE "glibc.malloc.hugetlb=1"
static char **perf_env(const struct fk_host *h, char **own)
{
	const char *old = getenv("GLIBC_TUNABLES"), *path = getenv("PATH"), *p, *e;
	size_t n = 0, i, k = 0, o = 5;
	char **env;

	own[0] = own[1] = NULL;
	while (environ[n])
		n++;
	env = h->alloc((n + 3) * sizeof *env);
	if (!(old && strstr(old, "glibc.malloc.hugetlb=")))
		own[0] = h->alloc(sizeof "GLIBC_TUNABLES=" + sizeof THP_TUNABLE +
		                  (old ? strlen(old) + 1 : 0));
	if (path)
		own[1] = h->alloc(strlen(path) + 6);
	if (!env || (!own[0] && !(old && strstr(old, "glibc.malloc.hugetlb="))) || (path && !own[1])) {
		h->free(env);
		h->free(own[0]);
		h->free(own[1]);
		own[0] = own[1] = NULL;
		return NULL;
	}
	if (own[0])
		sprintf(own[0], "GLIBC_TUNABLES=%s%s%s", old ? old : "", old && old[0] ? ":" : "",
		        THP_TUNABLE);
	if (own[1]) {
		memcpy(own[1], "PATH=", 5);
		for (p = path;; p = e + 1) {
			size_t l = (e = strchr(p, ':')) ? (size_t)(e - p) : strlen(p);
			if (l && p[0] == '/') {
				if (o > 5)
					own[1][o++] = ':';
				memcpy(own[1] + o, p, l);
				o += l;
			}
			if (!e)
				break;
		}
		own[1][o] = '\0';
	}
	for (i = 0; i < n; i++)
		if (!(own[0] && strncmp(environ[i], "GLIBC_TUNABLES=", 15) == 0) &&
		    !(own[1] && strncmp(environ[i], "PATH=", 5) == 0))
			env[k++] = environ[i];
	if (own[0])
		env[k++] = own[0];
	if (own[1])
		env[k++] = own[1];
	env[k] = NULL;
	return env;
}

/*
 * The perf program, into buf: --perf (from the command line only: the
 * option is FK_OPT_CMDLINE_ONLY, so a job file cannot choose a program for
 * flamekit to run), else $FLAMEKIT_PERF, else "perf".  A name with a '/'
 * is used as given; one without is looked up in PATH's absolute
 * directories only, since an empty or relative entry ("", ".", "bin")
 * would find a perf in whatever directory flamekit runs in, a job's
 * directory say, which the job's author may control.  PATH unset: glibc's
 * default, /bin:/usr/bin.  *name is the name looked for.  0, or -ENOENT.
 */
static int find_perf(const struct pd_opts *o, char *buf, size_t cap, const char **name)
{
	const char *prog = o->perf_bin && o->perf_bin[0] ? o->perf_bin : getenv("FLAMEKIT_PERF");
	const char *path = getenv("PATH"), *p, *e;

	if (!prog || !*prog)
		prog = "perf";
	*name = prog;
	if (strchr(prog, '/')) {
		snprintf(buf, cap, "%s", prog);
		return 0;
	}
	for (p = path ? path : "/bin:/usr/bin";; p = e + 1) {
		size_t n = (e = strchr(p, ':')) ? (size_t)(e - p) : strlen(p), l = strlen(prog);
		struct stat st;
		if (n && p[0] == '/' && n + l + 2 <= cap) {
			memcpy(buf, p, n);
			buf[n] = '/';
			memcpy(buf + n + 1, prog, l + 1);
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return 0;
		}
		if (!e)
			return -ENOENT;
	}
}

/* Start perf (find_perf) with argv and its standard output into a pipe
 * whose read end goes into *fd.  0, or the error of posix_spawn, reported
 * unless quiet (whose perf's standard error goes to /dev/null too). */
static int spawn(const struct fk_host *h, const char *path, const struct pd_opts *o,
                 const char *const *argv, int quiet, pid_t *pid, int *fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	sigset_t dfl;
	char **env, *own[2], prog[4096];
	const char *name, *av[ARGS_MAX];
	size_t n;
	int p[2], e;

	if (find_perf(o, prog, sizeof prog, &name) < 0) {
		*pid = 0;
		if (quiet)
			;
		else if (strcmp(name, "perf") == 0)
			h->log(FK_LOG_ERROR, "%s: cannot run perf: it is not in PATH; install it (Debian's "
			       "package is linux-perf) or give its path with --perf PATH or FLAMEKIT_PERF=PATH",
			       path);
		else
			h->log(FK_LOG_ERROR, "%s: cannot run %s: it is not in PATH", path, name);
		return FK_ERR_USAGE;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return h->log(FK_LOG_ERROR, "%s: cannot make a pipe: %s", path, strerror(errno)),
		       FK_ERR_IO;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (quiet)
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	/* flamekit ignores SIGPIPE; perf must die of it if we stop reading */
	posix_spawnattr_init(&sa);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&sa, &dfl);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
	env = perf_env(h, own);
	for (n = 0; argv[n] && n + 1 < ARGS_MAX; n++)
		av[n] = n ? argv[n] : prog; /* as execvp would: perf finds itself by it */
	av[n] = NULL;
	e = posix_spawn(pid, prog, &fa, &sa, (char *const *)av, env ? env : environ);
	h->free(env);
	h->free(own[0]);
	h->free(own[1]);
	posix_spawnattr_destroy(&sa);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		*pid = 0;
		if (!quiet)
			h->log(FK_LOG_ERROR, "%s: cannot run %s: %s", path, prog, strerror(e));
		return FK_ERR_USAGE;
	}
	*fd = p[0];
	return 0;
}

/* Start one `perf script` writing into a pipe that c->in reads. */
static int start(const struct fk_host *h, const char *path, const struct pd_opts *o,
                 struct child *c, const char *name)
{
	char range[80];
	const char *argv[ARGS_MAX];
	size_t n;
	int fd, rc;

	if (c->from[0] || c->to[0])
		snprintf(range, sizeof range, "%s,%s", c->from, c->to);
	command(o, path, c->from[0] || c->to[0] ? range : NULL, argv);
	for (n = 0; argv[n]; n++)
		;
	h->log(FK_LOG_DEBUG, "%s: running %s script%s%s", path, argv[0], n > 4 ? " ... " : "",
	       n > 4 ? argv[n - 1] : "");
	if ((rc = spawn(h, path, o, argv, 0, &c->pid, &fd)) < 0)
		return rc;
	c->in = h->input_open_fd(fd, name);
	return c->in ? 0 : FK_ERR_NOMEM;
}

/*
 * The event of the first record `perf script` prints for the whole file,
 * into ev[0..cap) ("" when it prints none): read from a perf script of its
 * own (its messages dropped: the slices' perf will say the same), stopped
 * once the first record header is in.  0, or -1 when it could not be run or
 * printed no record header in its first PROBE_MAX bytes.
 */
static int first_event(const struct fk_host *h, const char *path, const struct pd_opts *o,
                       char *ev, size_t cap)
{
	const char *argv[ARGS_MAX], *e;
	size_t len = 0, bcap = 64 * 1024, elen;
	char *buf = NULL;
	pid_t pid;
	int fd, rc = -1, st;

	ev[0] = '\0';
	command(o, path, NULL, argv);
	if (spawn(h, path, o, argv, 1, &pid, &fd) < 0)
		return -1;
	while ((buf || (buf = h->alloc(bcap))) && len < PROBE_MAX) {
		ssize_t got;
		const char *nl;
		if (len == bcap) {
			char *nb = h->realloc(buf, bcap * 2);
			if (!nb)
				break;
			buf = nb;
			bcap *= 2;
		}
		got = read(fd, buf + len, bcap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) { /* the end: the last line is whole as it is */
			rc = 0;
			if (fk_perf_first_event(buf, len, &e, &elen))
				snprintf(ev, cap, "%.*s", (int)elen, e);
			break;
		}
		len += (size_t)got;
		nl = memrchr(buf, '\n', len);
		if (nl && fk_perf_first_event(buf, (size_t)(nl + 1 - buf), &e, &elen)) {
			snprintf(ev, cap, "%.*s", (int)elen, e);
			rc = 0;
			break;
		}
	}
	kill(pid, SIGTERM);
	close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	h->free(buf);
	return rc;
}

/*
 * How many slices to cut, and their bounds into c[].  Returns the count;
 * 1 (and c[0] unbounded) when the file cannot be sliced, saying why at
 * info level.  The cut points are the sample times' quantiles, so that
 * every slice has about as many samples to print, or failing that an even
 * cut of the header's time range.  *ahead is set when the file has several
 * events and its first record decides which is kept (first_event).
 */
static unsigned plan(const struct fk_host *h, const char *path, const struct pd_opts *o,
                     struct fk_sink *sink, struct child *c, int *ahead)
{
	const struct fk_perf_opts *po = &o->perf;
	unsigned want = h->sink_threads(sink);
	struct pd_header hd;
	const char *why = NULL;
	int fd = want > 1 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint64_t b[SLICES_MAX];
	unsigned n, even = 0;

	if (want <= 1)
		return 1;
	if ((po->offcpu || po->wakeups || po->leak) && FK_HOST_HAS(h, sink_keeps_samples) &&
	    h->sink_keeps_samples(sink))
		why = po->leak ? "--leak pairs allocations with frees across slices, and an output keeps "
		                 "the samples in order"
		               : po->wakeups ? "--wakeups pairs switch-outs with switch-ins across slices, "
		                               "and an output keeps the samples in order"
		                             : "--offcpu pairs switch-outs with switch-ins across slices, "
		                               "and an output keeps the samples in order";
	else if (fd < 0 || pd_header_read(fd, &hd, &why) < 0)
		why = why ? why : "it cannot be opened here (perf will say why)";
	else if (hd.untimed)
		why = "some event does not record sample times";
	else if (hd.first_ns == 0 || hd.last_ns <= hd.first_ns)
		why = "its header gives no sample time range";
	n = want > SLICES_MAX ? SLICES_MAX : want;
	if (!why && !(n = pd_sample_bounds(fd, &hd, n, b))) {
		n = want > SLICES_MAX ? SLICES_MAX : want;
		if (hd.last_ns - hd.first_ns < n)
			n = (unsigned)(hd.last_ns - hd.first_ns);
		for (unsigned k = 1; k < n; k++)
			b[k] = hd.first_ns +
			       (uint64_t)((unsigned __int128)(hd.last_ns - hd.first_ns) * k / n);
		even = 1;
	}
	if (fd >= 0)
		close(fd);
	if (why) {
		h->log(FK_LOG_INFO, "%s: one perf script process: %s", path, why);
		return 1;
	}
	/* perf keeps START <= t <= STOP: slice k is [b[k], b[k+1] - 1] */
	for (unsigned k = 1; k < n; k++) {
		fmt_ns(c[k].from, sizeof c[k].from, b[k]);
		fmt_ns(c[k - 1].to, sizeof c[k - 1].to, b[k] - 1);
	}
	h->log(FK_LOG_INFO, "%s: %u perf script processes on time slices cut %s", path, n,
	       even ? "evenly over the header's time range" : "at the quantiles of the sample times");
	*ahead = hd.nevents > 1 && keeps_first_event(po);
	return n;
}

/* Wait for every child; after a failed parse, stop them first. */
static void reap(struct child *c, unsigned n, int failed)
{
	for (unsigned k = 0; k < n; k++)
		if (c[k].pid > 0 && failed)
			kill(c[k].pid, SIGTERM);
	for (unsigned k = 0; k < n; k++) {
		while (c[k].pid > 0 && waitpid(c[k].pid, &c[k].status, 0) < 0 && errno == EINTR)
			;
		c[k].pid = 0;
	}
}

/* The first child, in slice order, that did not exit with 0: one error. */
static int check_status(const struct fk_host *h, const char *path, const struct child *c,
                        unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		int st = c[k].status;
		char which[64] = "";
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		if (n > 1)
			snprintf(which, sizeof which, " (time slice %u of %u)", k + 1, n);
		if (WIFSIGNALED(st))
			h->log(FK_LOG_ERROR, "%s: perf script%s was killed by signal %d (%s)", path, which,
			       WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			h->log(FK_LOG_ERROR, "%s: perf script%s failed with exit status %d", path, which,
			       WEXITSTATUS(st));
		return FK_ERR_DATA;
	}
	return 0;
}

/* The file perf will read must be there: say so before starting any perf
 * (an input that is not a file, such as the fuzzing harness's, ends here). */
/* The capture's time, as perf report --header-only prints it ("captured
 * on": when perf record last wrote the file, its mtime), for outputs that
 * write a wall-clock time (pprof's time_nanos). */
static void report_start(const struct fk_host *h, int fd, struct fk_sink *sink)
{
	struct stat st;

	if (FK_HOST_HAS(h, sink_set_start_time) && fstat(fd, &st) == 0)
		h->sink_set_start_time(sink, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
}

static int check_file(const struct fk_host *h, struct fk_input *in, const char *path,
                      struct fk_sink *sink)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return h->input_error(in, 0, "perf script needs the file itself, and it cannot be "
		                      "opened: %s", strerror(errno));
	report_start(h, fd, sink);
	close(fd);
	return 0;
}

/* The first record's event into ev, for the *n slices started in c; when
 * it cannot be read, the slices are stopped and one process started
 * instead (*n then 1, or 0 when it could not start: its error returned). */
static int read_ahead(const struct fk_host *h, const char *path, const struct pd_opts *o,
                      struct child *c, unsigned *n, const char *name, char *ev, size_t cap)
{
	int rc;

	if (first_event(h, path, o, ev, cap) == 0) {
		if (ev[0])
			h->log(FK_LOG_INFO, "%s: its first record is of \"%s\", the event kept", path, ev);
		return 0;
	}
	h->log(FK_LOG_INFO, "%s: one perf script process: it holds several events and the first "
	       "record, whose event is kept, could not be read ahead (give --event-filter NAME)", path);
	for (unsigned k = 0; k < *n; k++) {
		h->input_close(c[k].in);
		c[k].in = NULL;
	}
	reap(c, *n, 1);
	memset(c, 0, *n * sizeof *c);
	ev[0] = '\0';
	rc = start(h, path, o, &c[0], name);
	*n = rc == 0 || c[0].pid > 0 ? 1 : 0;
	return rc;
}

/* The parse: the slices as the segments, in order, of one perf parser
 * session; one process parsed as one stream (chunked on the sink's threads). */
struct run {
	const struct fk_host *h;
	const struct fk_perf_opts *o;
	struct fk_perf *p; /* NULL for one process */
};

static int run_part(void *ctx, unsigned part, struct fk_input *in, struct fk_sink *sink)
{
	struct run *r = ctx;

	if (!r->p)
		return fk_perf_parse(r->h, in, sink, r->o);
	return fk_perf_segment(r->p, part, part, in, sink);
}

static int run_finish(void *ctx, struct fk_sink *sink)
{
	struct run *r = ctx;

	return r->p ? fk_perf_end(r->p, sink) : 0;
}

/* Parse the n children's outputs into sink; ev: the event to keep ("" for
 * the perf parser's own choice). */
static int parse_slices(const struct fk_host *h, const struct pd_opts *o, struct child *c,
                        unsigned n, const char *ev, struct fk_sink *sink)
{
	static const struct fk_part_ops ops = { run_part, run_finish };
	struct fk_input *ins[SLICES_MAX];
	struct run r = { h, &o->perf, NULL };
	int rc = 0;

	for (unsigned k = 0; k < n; k++)
		ins[k] = c[k].in;
	if (n > 1) {
		if (!(r.p = fk_perf_begin(h, ins[0], &o->perf, n)))
			return FK_ERR_NOMEM; /* or the options' conflict: reported */
		if (ev[0] && fk_perf_set_first_event(r.p, ev, strlen(ev)) < 0)
			rc = h->input_error(ins[0], 0, "out of memory");
	}
	if (rc == 0)
		rc = h->parse_streams(ins, n, sink, &ops, &r);
	fk_perf_free(r.p);
	return rc;
}

static int parse_via_perf(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                          const struct pd_opts *o);

/* Natively (native.c), unless asked for perf script (--via-perf-script,
 * or a --perf program named), or the file holds what the native reader
 * does not read: then one warning says what, and perf script runs. */
static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                 const void *vopts)
{
	static const struct pd_opts defaults = { 0 };
	struct pd_opts own = vopts ? *(const struct pd_opts *)vopts : defaults;
	const struct pd_opts *o = &own;
	const char *path = h->input_name(in), *why = NULL;
	struct pd_native_cfg cfg = { &o->perf, o->symfs, o->kallsyms, { 0, "" }, 0, 0, 1 };
	int rc;

	/* names as perf script prints them, demangled, unless --no-demangle:
	 * then as the files hold them, as perf script --no-demangle */
	own.no_demangle = FK_HOST_HAS(h, input_demangle) && h->input_demangle(in) == FK_DEMANGLE_NO;
	cfg.inline_frames = o->inline_frames;
	cfg.srcline = o->srcline;
	cfg.demangle = !o->no_demangle;
	if (o->via_perf_script || (o->perf_bin && o->perf_bin[0]))
		return parse_via_perf(h, in, sink, o);
	/* perf record -z compresses a deep stack's samples 100 times (measured):
	 * auto allows a file 16 times its size, and 1G at least */
	fk_limit_for_min(h, in, o->max_input_size, (uint64_t)1 << 30, &cfg.limit);
	if (strcmp(path, "<stdin>") != 0) { /* the capture's time, as the perf script path gives it */
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			report_start(h, fd, sink);
			close(fd);
		}
	}
	rc = pd_native_parse(h, in, path, sink, &cfg, &why);
	if (rc != PD_NATIVE_FALLBACK)
		return rc;
	if (strcmp(path, "<stdin>") == 0)
		return h->input_error(in, 0, "not read natively: %s; and perf script needs the "
		                      "perf.data file itself, not a pipe: save the capture to a file",
		                      why);
	h->log(FK_LOG_WARN, "%s: not read natively: %s; running perf script instead", path, why);
	return parse_via_perf(h, in, sink, o);
}

/* The perf script path. */
static int parse_via_perf(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                          const struct pd_opts *o)
{
	const char *path = h->input_name(in);
	struct child c[SLICES_MAX];
	char *name = NULL, ev[256];
	unsigned n = 0;
	int rc = 0, ahead = 0;

	memset(c, 0, sizeof c);
	if (o->srcline) /* perf script -F +srcline's lines are not the perf parser's */
		h->log(FK_LOG_WARN, "%s: --srcline is not applied: it needs the native reader, and "
		       "perf script runs instead", path);
	if (!FK_HOST_HAS(h, parse_streams))
		return h->input_error(in, 0, "this flamekit is too old for the perf-data plugin "
		                      "(it needs plugin ABI 1.3 with parse_streams)");
	if (strcmp(path, "<stdin>") == 0)
		return h->input_error(in, 0, "perf script needs the perf.data file itself, not a pipe; "
		                      "give its path");
	if ((rc = check_file(h, in, path, sink)) < 0)
		return rc;
	name = h->alloc(strlen(path) + 32);
	if (!name)
		return h->input_error(in, 0, "out of memory");
	sprintf(name, "%s (perf script output)", path);
	ev[0] = '\0';
	n = plan(h, path, o, sink, c, &ahead);
	for (unsigned k = 0; k < n && rc == 0; k++)
		rc = start(h, path, o, &c[k], name);
	/* the slices start (load their symbols) while the first record is read */
	if (rc == 0 && ahead)
		rc = read_ahead(h, path, o, c, &n, name, ev, sizeof ev);
	if (rc == 0)
		rc = parse_slices(h, o, c, n, ev, sink);
	for (unsigned k = 0; k < n; k++) {
		h->input_close(c[k].in); /* a perf still writing gets SIGPIPE */
		c[k].in = NULL;
	}
	reap(c, n, rc < 0);
	if (rc == 0)
		rc = check_status(h, path, c, n);
	h->free(name);
	return rc;
}

/* The perf parser's check (--series-by-event's names, options that
 * exclude each other), before any perf is run. */
static int check(const struct fk_host *h, const void *opts, const char *where)
{
	const struct pd_opts *o = opts;
	int rc = fk_limit_check(h, o ? o->max_input_size : NULL);

	return rc < 0 ? rc : fk_perf_check(h, o ? &o->perf : NULL, where);
}

/* A perf.data file starts with the magic "PERFILE2". */
static int probe(const unsigned char *buf, size_t len)
{
	return len >= 8 && memcmp(buf, "PERFILE2", 8) == 0 ? 100 : 0;
}

#define PD_OPTION(type, name, def, member, help) \
	FK_OPTION(type, name, def, struct pd_opts, perf.member, help)

static const struct fk_option options[] = {
	PD_OPTION(FK_OPT_FLAG, "pid", "0", pid,
	          "add the PID to the process name (comm-PID); asks perf script for -F +pid"),
	PD_OPTION(FK_OPT_FLAG, "tid", "0", tid,
	          "add the PID and TID to the process name (comm-PID/TID); asks for -F +pid"),
	PD_OPTION(FK_OPT_FLAG, "kernel", "0", kernel, "annotate kernel frames with _[k]"),
	PD_OPTION(FK_OPT_FLAG, "jit", "0", jit, "annotate JIT frames (/tmp/perf-PID.map) with _[j]"),
	PD_OPTION(FK_OPT_FLAG, "all", "0", all, "all annotations (--kernel --jit)"),
	PD_OPTION(FK_OPT_FLAG, "addrs", "0", addrs,
	          "keep the address of unknown frames: [module <addr>]"),
	PD_OPTION(FK_OPT_STRING, "event-filter", NULL, event_filter,
	          "keep only this event (default: the event of the first record perf script "
	          "prints, read ahead by a perf script stopped there when the file has several)"),
	PD_OPTION(FK_OPT_FLAG, "offcpu", "0", offcpu,
	          "sched:sched_switch events as off-CPU time in microseconds; waits spanning two "
	          "time slices are paired (one perf script process only when an output keeps "
	          "samples in order)"),
	PD_OPTION(FK_OPT_STRING, "weight-field", NULL, weight_field,
	          "weigh each kept record by this numeric tracepoint field (bytes_alloc, len, "
	          "nr_sector) instead of its period; records without it are skipped"),
	PD_OPTION(FK_OPT_STRING, "series-by-event", NULL, series_by_event,
	          "A,B: keep two events as the two series of one profile (two-column folded, "
	          "differential graph); asks perf script for -F +event,+period"),
	PD_OPTION(FK_OPT_FLAG, "wakeups", "0", wakeups,
	          "chain graph as the perf plugin's --wakeups, paired across time slices as "
	          "--offcpu; asks perf script for -F trace:comm,tid,time,event,trace,ip,sym,dso"),
	PD_OPTION(FK_OPT_FLAG, "leak", "0", leak,
	          "memory growth as the perf plugin's --leak, frees paired with allocations of "
	          "earlier time slices; asks for the same tracepoint fields as --wakeups"),
	PD_OPTION(FK_OPT_STRING, "leak-alloc", NULL, leak_alloc,
	          "--leak: the allocation events, comma-separated (as the perf plugin's)"),
	PD_OPTION(FK_OPT_STRING, "leak-free", NULL, leak_free,
	          "--leak: the free events, comma-separated"),
	PD_OPTION(FK_OPT_STRING, "leak-ptr", "ptr", leak_ptr,
	          "--leak: the field holding the address"),
	PD_OPTION(FK_OPT_STRING, "leak-bytes", "bytes_alloc", leak_bytes,
	          "--leak: the field holding the size"),
	PD_OPTION(FK_OPT_INT, "leak-align", "1", leak_align,
	          "--leak: round each size down to a multiple of this"),
	PD_OPTION(FK_OPT_INT, "leak-page-size", "4096", leak_page_size,
	          "--leak: bytes per page for kmem:mm_page_alloc"),
	FK_OPTION(FK_OPT_FLAG, "via-perf-script", "0", struct pd_opts, via_perf_script,
	          "run perf script on the file and parse its text, instead of reading the "
	          "file natively"),
	FK_OPTION(FK_OPT_STRING | FK_OPT_CMDLINE_ONLY, "perf", NULL, struct pd_opts, perf_bin,
	          "the perf program to run (default: $FLAMEKIT_PERF, else perf, found in PATH's "
	          "absolute directories); implies --via-perf-script"),
	FK_OPTION(FK_OPT_FLAG, "inline", "0", struct pd_opts, inline_frames,
	          "inlined functions as frames of their own, from DWARF, as perf script --inline "
	          "prints them (innermost first, each a \"NAME+0xOFF (inlined)\" line)"),
	FK_OPTION(FK_OPT_FLAG, "srcline", "0", struct pd_opts, srcline,
	          "append :FILE:LINE (DWARF's line, the file's base name) to each frame that has "
	          "one, as stackcollapse-perf.pl --srcline (with --inline: each inline frame's "
	          "own line, as --inline --context)"),
	FK_OPTION(FK_OPT_STRING, "symfs", NULL, struct pd_opts, symfs,
	          "passed to perf script --symfs: look for symbol files under this directory"),
	FK_OPTION(FK_OPT_STRING, "kallsyms", NULL, struct pd_opts, kallsyms,
	          "passed to perf script --kallsyms: kernel symbols from this file"),
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct pd_opts, max_input_size,
	          "refuse a capture on standard input longer than this many bytes, or whose "
	          "COMPRESSED records (perf record -z) decompress to more (K, M, G, T suffixes; 0: "
	          "no limit); auto: 1G, or 16 times a regular file's size when that is more"),
	FK_OPTION_END,
};

static struct fk_input_plugin plugin = {
	.h = {
		.name = "perf-data",
		.version = "1.0",
		.description = "perf.data files, read natively (or by running perf script on "
		               "time slices: --via-perf-script) into the perf parser",
		.options = options,
		.options_size = sizeof(struct pd_opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
	/* names are perf script's, which demangles (C++ and Rust, no
	 * argument lists) as it symbolizes: `perf script | flamekit collapse
	 * --format perf` gives the same, and perf's text is read as it is;
	 * the user's --no-demangle reaches the symbolizer through
	 * host->input_demangle (parse), as perf script --no-demangle */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
