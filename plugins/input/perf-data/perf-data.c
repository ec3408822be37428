/*
 * Input plugin "perf-data": a perf.data file, read by running the system's
 * `perf script` on it and handing what it prints, through a pipe, to the
 * perf plugin (host->parse_parts): no text file in between, and the folded
 * result is byte for byte what `perf script -i FILE | flamekit collapse
 * --format perf` gives.
 *
 * With N threads, N `perf script --time START,STOP` processes print N time
 * slices of the file at once, each parsed as it comes on a thread of its
 * own; the engine joins their results in slice order.  The slices
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
 * tests the time only at the sample, before resolving its stack.  Folded
 * output sums equal stacks, so it is the same whatever N; time-ordered
 * outputs see the slices in time order.
 *
 * One process is run, whatever the thread count, when:
 *   - --offcpu, --wakeups, --leak: a switch-out and its switch-in (or a
 *     wakeup, or an allocation and its free) may fall in two slices, and
 *     each slice, parsed on its own, would then lose that pair (the perf
 *     plugin pairs across the chunks of one stream, not across streams);
 *   - the file has several sampling events and neither --event-filter nor
 *     --series-by-event (which name what to keep): the perf
 *     plugin keeps the first event type of its input, which a later slice
 *     would choose again from its own first record;
 *   - the header gives no usable time range (a file written to a pipe, or
 *     recorded without sample times).
 */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <flamekit/plugin.h>

#include "header.h"

extern char **environ;

#define SLICES_MAX 64
#define ARGS_MAX 16

struct pd_opts {
	int pid, tid, kernel, jit, all, addrs, offcpu;
	int wakeups, leak;
	const char *leak_alloc, *leak_free, *leak_ptr, *leak_bytes;
	long long leak_align, leak_page_size;
	const char *event_filter;
	const char *perf, *symfs, *kallsyms;
	const char *weight_field, *series_by_event;
};

/* One `perf script` process and the input reading its standard output. */
struct child {
	pid_t pid;            /* 0: not running (never started, or reaped) */
	int status;           /* from waitpid */
	struct fk_input *in;  /* owned; closing it closes the pipe */
	char from[32], to[32]; /* --time bounds, "" for none */
};

/* The perf plugin's options we pass on, by name (flags: value NULL). */
struct passed {
	const char *names[20];
	const char *values[20];
	size_t n;
	char align[24], page[24]; /* --leak-align, --leak-page-size as text */
};

/* --wakeups, --leak and --leak's own options. */
static void pass_pairing(const struct pd_opts *o, struct passed *p)
{
	const struct { const char *name, *value; } strs[] = {
		{ "leak-alloc", o->leak_alloc }, { "leak-free", o->leak_free },
		{ "leak-ptr", o->leak_ptr },     { "leak-bytes", o->leak_bytes },
	};

	if (o->wakeups) {
		p->names[p->n] = "wakeups";
		p->values[p->n++] = NULL;
	}
	if (!o->leak)
		return;
	p->names[p->n] = "leak";
	p->values[p->n++] = NULL;
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
		if (strs[i].value) {
			p->names[p->n] = strs[i].name;
			p->values[p->n++] = strs[i].value;
		}
	snprintf(p->align, sizeof p->align, "%lld", o->leak_align);
	snprintf(p->page, sizeof p->page, "%lld", o->leak_page_size);
	p->names[p->n] = "leak-align";
	p->values[p->n++] = p->align;
	p->names[p->n] = "leak-page-size";
	p->values[p->n++] = p->page;
}

static void pass_on(const struct pd_opts *o, struct passed *p)
{
	const struct { int set; const char *name; } flags[] = {
		{ o->pid, "pid" },       { o->tid, "tid" },     { o->kernel, "kernel" },
		{ o->jit, "jit" },       { o->all, "all" },     { o->addrs, "addrs" },
		{ o->offcpu, "offcpu" },
	};

	p->n = 0;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		if (flags[i].set) {
			p->names[p->n] = flags[i].name;
			p->values[p->n++] = NULL;
		}
	if (o->event_filter) {
		p->names[p->n] = "event-filter";
		p->values[p->n++] = o->event_filter;
	}
	if (o->weight_field) {
		p->names[p->n] = "weight-field";
		p->values[p->n++] = o->weight_field;
	}
	if (o->series_by_event) {
		p->names[p->n] = "series-by-event";
		p->values[p->n++] = o->series_by_event;
	}
	pass_pairing(o, p); /* at most 7 more */
}

/* "SEC.NSEC", the form perf script --time reads to the nanosecond. */
static void fmt_ns(char *buf, size_t cap, uint64_t ns)
{
	snprintf(buf, cap, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
	         (unsigned long long)(ns % 1000000000u));
}

/*
 * How many slices to cut, and their bounds into c[].  Returns the count;
 * 1 (and c[0] unbounded) when the file cannot be sliced, saying why at
 * info level.  The cut points are the sample times' quantiles, so that
 * every slice has about as many samples to print, or failing that an even
 * cut of the header's time range.
 */
static unsigned plan(const struct fk_host *h, const char *path, const struct pd_opts *o,
                     unsigned want, struct child *c)
{
	struct pd_header hd;
	const char *why = NULL;
	int fd = want > 1 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	uint64_t b[SLICES_MAX];
	unsigned n, even = 0;

	if (want <= 1)
		return 1;
	if (o->offcpu)
		why = "--offcpu pairs switch-outs with switch-ins across the whole capture";
	else if (o->wakeups)
		why = "--wakeups pairs switch-outs with wakeups and switch-ins across the whole capture";
	else if (o->leak)
		why = "--leak pairs allocations with frees across the whole capture";
	else if (fd < 0 || pd_header_read(fd, &hd, &why) < 0)
		why = why ? why : "it cannot be opened here (perf will say why)";
	else if (hd.nevents > 1 && !o->event_filter && !o->series_by_event)
		why = "it holds several events and the first one kept depends on the whole stream "
		      "(give --event-filter NAME to slice it)";
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
	return n;
}

/* Start one `perf script` writing into a pipe that c->in reads. */
static int start(const struct fk_host *h, const char *path, const struct pd_opts *o,
                 struct child *c, const char *name)
{
	const char *perf = o->perf && o->perf[0] ? o->perf : "perf";
	char range[80];
	const char *argv[ARGS_MAX];
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t sa;
	sigset_t dfl;
	int p[2], e;

	argv[n++] = perf;
	argv[n++] = "script";
	argv[n++] = "-i";
	argv[n++] = path;
	if (o->wakeups || o->leak) {
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
	if (o->pid || o->tid || o->series_by_event) {
		argv[n++] = "-F";
		argv[n++] = o->series_by_event ? (o->pid || o->tid ? "+pid,+event,+period" : "+event,+period")
		                               : "+pid";
	}
	if (o->symfs) {
		argv[n++] = "--symfs";
		argv[n++] = o->symfs;
	}
	if (o->kallsyms) {
		argv[n++] = "--kallsyms";
		argv[n++] = o->kallsyms;
	}
	if (c->from[0] || c->to[0]) {
		snprintf(range, sizeof range, "%s,%s", c->from, c->to);
		argv[n++] = "--time";
		argv[n++] = range;
	}
	argv[n] = NULL;
	h->log(FK_LOG_DEBUG, "%s: running %s script%s%s", path, perf, n > 4 ? " ... " : "",
	       n > 4 ? argv[n - 1] : "");
	if (pipe2(p, O_CLOEXEC) < 0)
		return h->log(FK_LOG_ERROR, "%s: cannot make a pipe: %s", path, strerror(errno)),
		       FK_ERR_IO;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	/* flamekit ignores SIGPIPE; perf must die of it if we stop reading */
	posix_spawnattr_init(&sa);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigdefault(&sa, &dfl);
	posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
	e = posix_spawnp(&c->pid, perf, &fa, &sa, (char *const *)argv, environ);
	posix_spawnattr_destroy(&sa);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		c->pid = 0;
		if (e == ENOENT && !(o->perf && o->perf[0]))
			h->log(FK_LOG_ERROR, "%s: cannot run perf: it is not in PATH; install it (Debian's "
			       "package is linux-perf) or give its path with --perf PATH", path);
		else
			h->log(FK_LOG_ERROR, "%s: cannot run %s: %s", path, perf, strerror(e));
		return FK_ERR_USAGE;
	}
	c->in = h->input_open_fd(p[0], name);
	return c->in ? 0 : FK_ERR_NOMEM;
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
static int check_file(const struct fk_host *h, struct fk_input *in, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return h->input_error(in, 0, "perf script needs the file itself, and it cannot be "
		                      "opened: %s", strerror(errno));
	close(fd);
	return 0;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink,
                 const void *vopts)
{
	static const struct pd_opts defaults = { 0 };
	const struct pd_opts *o = vopts ? vopts : &defaults;
	const char *path = h->input_name(in);
	struct child c[SLICES_MAX];
	struct fk_input *ins[SLICES_MAX];
	struct passed ps;
	char *name = NULL;
	unsigned n = 0;
	int rc = 0;

	memset(c, 0, sizeof c);
	if (!FK_HOST_HAS(h, parse_parts))
		return h->input_error(in, 0, "this flamekit is too old for the perf-data plugin "
		                      "(it needs plugin ABI 1.2)");
	if (strcmp(path, "<stdin>") == 0)
		return h->input_error(in, 0, "perf script needs the perf.data file itself, not a pipe; "
		                      "give its path");
	if ((rc = check_file(h, in, path)) < 0)
		return rc;
	name = h->alloc(strlen(path) + 32);
	if (!name)
		return h->input_error(in, 0, "out of memory");
	sprintf(name, "%s (perf script output)", path);
	n = plan(h, path, o, h->sink_threads(sink), c);
	for (unsigned k = 0; k < n && rc == 0; k++) {
		rc = start(h, path, o, &c[k], name);
		ins[k] = c[k].in;
	}
	if (rc == 0) {
		pass_on(o, &ps);
		rc = h->parse_parts("perf", ps.names, ps.values, ps.n, ins, n, sink);
	}
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

/* A perf.data file starts with the magic "PERFILE2". */
static int probe(const unsigned char *buf, size_t len)
{
	return len >= 8 && memcmp(buf, "PERFILE2", 8) == 0 ? 100 : 0;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_FLAG, "pid", "0", struct pd_opts, pid,
	          "add the PID to the process name (comm-PID); asks perf script for -F +pid"),
	FK_OPTION(FK_OPT_FLAG, "tid", "0", struct pd_opts, tid,
	          "add the PID and TID to the process name (comm-PID/TID); asks for -F +pid"),
	FK_OPTION(FK_OPT_FLAG, "kernel", "0", struct pd_opts, kernel,
	          "annotate kernel frames with _[k]"),
	FK_OPTION(FK_OPT_FLAG, "jit", "0", struct pd_opts, jit,
	          "annotate JIT frames (/tmp/perf-PID.map) with _[j]"),
	FK_OPTION(FK_OPT_FLAG, "all", "0", struct pd_opts, all,
	          "all annotations (--kernel --jit)"),
	FK_OPTION(FK_OPT_FLAG, "addrs", "0", struct pd_opts, addrs,
	          "keep the address of unknown frames: [module <addr>]"),
	FK_OPTION(FK_OPT_STRING, "event-filter", NULL, struct pd_opts, event_filter,
	          "keep only this event (default: the first event); lets a file with several "
	          "events be read by several perf script processes"),
	FK_OPTION(FK_OPT_FLAG, "offcpu", "0", struct pd_opts, offcpu,
	          "sched:sched_switch events as off-CPU time in microseconds (one perf script "
	          "process, whatever --threads)"),
	FK_OPTION(FK_OPT_STRING, "weight-field", NULL, struct pd_opts, weight_field,
	          "weigh each kept record by this numeric tracepoint field (bytes_alloc, len, "
	          "nr_sector) instead of its period; records without it are skipped"),
	FK_OPTION(FK_OPT_STRING, "series-by-event", NULL, struct pd_opts, series_by_event,
	          "A,B: keep two events as the two series of one profile (two-column folded, "
	          "differential graph); asks perf script for -F +event,+period; time slices "
	          "allowed"),
	FK_OPTION(FK_OPT_FLAG, "wakeups", "0", struct pd_opts, wakeups,
	          "chain graph as the perf plugin's --wakeups (one perf script process, asked "
	          "for -F trace:comm,tid,time,event,trace,ip,sym,dso)"),
	FK_OPTION(FK_OPT_FLAG, "leak", "0", struct pd_opts, leak,
	          "memory growth as the perf plugin's --leak (one perf script process, asked "
	          "for the same tracepoint fields as --wakeups)"),
	FK_OPTION(FK_OPT_STRING, "leak-alloc", NULL, struct pd_opts, leak_alloc,
	          "--leak: the allocation events, comma-separated (as the perf plugin's)"),
	FK_OPTION(FK_OPT_STRING, "leak-free", NULL, struct pd_opts, leak_free,
	          "--leak: the free events, comma-separated"),
	FK_OPTION(FK_OPT_STRING, "leak-ptr", NULL, struct pd_opts, leak_ptr,
	          "--leak: the field holding the address (default ptr)"),
	FK_OPTION(FK_OPT_STRING, "leak-bytes", NULL, struct pd_opts, leak_bytes,
	          "--leak: the field holding the size (default bytes_alloc)"),
	FK_OPTION(FK_OPT_INT, "leak-align", "1", struct pd_opts, leak_align,
	          "--leak: round each size down to a multiple of this"),
	FK_OPTION(FK_OPT_INT, "leak-page-size", "4096", struct pd_opts, leak_page_size,
	          "--leak: bytes per page for kmem:mm_page_alloc"),
	FK_OPTION(FK_OPT_STRING, "perf", NULL, struct pd_opts, perf,
	          "the perf program to run (default: perf, found in PATH)"),
	FK_OPTION(FK_OPT_STRING, "symfs", NULL, struct pd_opts, symfs,
	          "passed to perf script --symfs: look for symbol files under this directory"),
	FK_OPTION(FK_OPT_STRING, "kallsyms", NULL, struct pd_opts, kallsyms,
	          "passed to perf script --kallsyms: kernel symbols from this file"),
	FK_OPTION_END,
};

static struct fk_input_plugin plugin = {
	.h = {
		.name = "perf-data",
		.version = "1.0",
		.description = "perf.data files, read by running perf script (N processes on N "
		               "time slices) into the perf plugin",
		.options = options,
		.options_size = sizeof(struct pd_opts),
	},
	.probe = probe,
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
