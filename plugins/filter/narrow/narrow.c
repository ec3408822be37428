/*
 * Filter plugin "narrow": the profile-narrowing options of pprof, inferno
 * and perf, on each sample in input order.
 *
 * Which samples stay (tested on the frames as they come):
 *   focus RE     some frame matches (pprof -focus)
 *   ignore RE    no frame matches (pprof -ignore)
 *   tagfocus K=RE  attribute K's value matches (pprof -tagfocus, labels)
 *   comm RE, pid N, tid N  the sample's thread (perf script's columns)
 *   from T, to T   its time in [from, to], seconds: from the first sample
 *                  with a time, or perf's absolute timestamps when T is at
 *                  least the first sample's (samples without a time go)
 *   base NAME    some frame is NAME (inferno --base)
 * Then the frames:
 *   base NAME        the deepest NAME becomes the root (inferno --base)
 *   skip-after NAME  the frames between the root and the deepest NAME go,
 *                    the root kept when it is the sample's process name
 *                    (inferno-collapse-perf --skip-after)
 *   hide RE          matching frames go (pprof -hide)
 *   show RE          only matching frames stay (pprof -show)
 *   collapse-recursion  a;b;b;b;c -> a;b;c
 * A sample left with no frame is dropped (as pprof does).  Regular
 * expressions are POSIX extended, unanchored; each distinct frame is tested
 * once (a cache indexed by its interned id).
 */
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "framecache.h"

struct opts {
	const char *focus, *ignore, *hide, *show, *tagfocus, *comm;
	const char *base, *skip_after, *from, *to;
	long long pid, tid;
	int collapse_recursion;
};

enum { RE_FOCUS, RE_IGNORE, RE_HIDE, RE_SHOW, NRE };
/* Cache bits per frame id: framecache's FC_KNOWN, then 1 << (1 + RE_*),
 * then the names. */
#define BIT(k) (1u << (1 + (k)))
#define IS_BASE (1u << 5)
#define IS_SKIP (1u << 6)

struct state {
	const struct fk_host *h;
	const struct opts *o;
	regex_t re[NRE], tag, comm;
	bool has[NRE], has_tag, has_comm;
	const char *tagkey;
	size_t tagkeylen;
	double from, to;             /* seconds as given, NAN: none */
	bool timed;                  /* the window is set (first sample seen) */
	int64_t from_ns, to_ns;
	struct fc cache;             /* bits by frame id, and names for regexec */
};

static const char *const re_opt[NRE] = { "focus", "ignore", "hide", "show" };

/* A time of --from/--to: seconds, >= 0.  NAN for none; -1 when bad. */
static double seconds(const char *s)
{
	char *end;
	double v;

	if (!s || !*s)
		return NAN;
	v = strtod(s, &end);
	return *end || !(v >= 0) || v > 9.2e9 ? -1 : v;
}

static void destroy(void *state)
{
	struct state *s = state;

	if (!s)
		return;
	for (int k = 0; k < NRE; k++)
		if (s->has[k])
			regfree(&s->re[k]);
	if (s->has_tag)
		regfree(&s->tag);
	if (s->has_comm)
		regfree(&s->comm);
	fc_free(&s->cache, s->h);
	s->h->free(s);
}

static int check(const struct fk_host *h, const void *optp, const char *where)
{
	const struct opts *o = optp;
	const char *eq = o->tagfocus ? strchr(o->tagfocus, '=') : NULL;

	(void)where;
	if (o->tagfocus && *o->tagfocus && (!eq || eq == o->tagfocus)) {
		h->log(FK_LOG_ERROR, "--tagfocus takes KEY=REGEX, not \"%s\"", o->tagfocus);
		return FK_ERR_USAGE;
	}
	if (seconds(o->from) == -1 || seconds(o->to) == -1) {
		h->log(FK_LOG_ERROR, "--%s takes seconds (a number, at least 0), not \"%s\"",
		       seconds(o->from) == -1 ? "from" : "to", seconds(o->from) == -1 ? o->from : o->to);
		return FK_ERR_USAGE;
	}
	if (o->pid < -1 || o->tid < -1) {
		h->log(FK_LOG_ERROR, "--%s takes a process or thread id, not %lld",
		       o->pid < -1 ? "pid" : "tid", o->pid < -1 ? o->pid : o->tid);
		return FK_ERR_USAGE;
	}
	return 0;
}

static int create(const struct fk_host *h, const void *optp, const char *where, void **state)
{
	const struct opts *o = optp;
	const char *pat[NRE] = { o->focus, o->ignore, o->hide, o->show };
	struct state *s;
	int rc;

	if (!FK_HOST_HAS(h, se_attr)) {
		h->log(FK_LOG_ERROR, "%s: the narrow filter needs a newer flamekit (host services)",
		       where ? where : "narrow");
		return FK_ERR_PLUGIN;
	}
	if ((rc = check(h, o, where)) < 0)
		return rc;
	if (!(s = h->alloc(sizeof *s)))
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	s->o = o;
	for (int k = 0; k < NRE; k++) {
		if (!pat[k] || !*pat[k])
			continue;
		if ((rc = fc_regcomp(h, &s->re[k], pat[k], 0, "--%s", re_opt[k])) < 0)
			goto fail;
		s->has[k] = true;
	}
	if (o->tagfocus && *o->tagfocus) {
		const char *eq = strchr(o->tagfocus, '=');
		s->tagkey = o->tagfocus;
		s->tagkeylen = (size_t)(eq - o->tagfocus);
		if ((rc = fc_regcomp(h, &s->tag, eq + 1, 0, "--tagfocus")) < 0)
			goto fail;
		s->has_tag = true;
	}
	if (o->comm && *o->comm) {
		if ((rc = fc_regcomp(h, &s->comm, o->comm, 0, "--comm")) < 0)
			goto fail;
		s->has_comm = true;
	}
	s->from = seconds(o->from);
	s->to = seconds(o->to);
	*state = s;
	return 0;
fail:
	destroy(s);
	return rc;
}

static const char *cstr(struct state *s, const char *name, size_t len)
{
	return fc_cstr(&s->cache, s->h, name, len);
}

static bool is(const char *name, size_t len, const char *want)
{
	return want && *want && strlen(want) == len && memcmp(name, want, len) == 0;
}

/* A frame's bits, tested on a miss of the cache. */
static unsigned test_name(void *ctx, const char *name, size_t len)
{
	const struct state *s = ctx;
	unsigned b = 0;

	for (int k = 0; k < NRE; k++)
		if (s->has[k] && regexec(&s->re[k], name, 0, NULL, 0) == 0)
			b |= BIT(k);
	if (is(name, len, s->o->base))
		b |= IS_BASE;
	if (is(name, len, s->o->skip_after))
		b |= IS_SKIP;
	return b;
}

/* The cache bits of frame i of the sample. */
static int frame_bits(struct state *s, struct fk_sample_edit *e, size_t i, unsigned *bits)
{
	return fc_bits(&s->cache, s->h, e, i, test_name, s, bits);
}

/* The sample's thread and time against comm, pid, tid, from and to. */
static int thread_and_time(struct state *s, struct fk_sample_edit *e, bool *keep)
{
	const struct fk_logged_sample *m = s->h->se_meta(e);
	const char *c;
	size_t len;

	*keep = false;
	if ((s->o->pid >= 0 && (!m || m->pid != s->o->pid)) ||
	    (s->o->tid >= 0 && (!m || m->tid != s->o->tid)))
		return 0;
	if (s->has_comm) {
		const char *comm = s->h->se_comm(e, &len);
		if (!comm)
			return 0;
		if (!(c = cstr(s, comm, len)))
			return FK_ERR_NOMEM;
		if (regexec(&s->comm, c, 0, NULL, 0) != 0)
			return 0;
	}
	if (!isnan(s->from) || !isnan(s->to)) {
		if (!m || m->time_ns < 0)
			return 0;
		if (!s->timed) {
			/* relative to this first timed sample, unless at least its time */
			double first = (double)m->time_ns / 1e9;
			s->from_ns = isnan(s->from) ? INT64_MIN
			             : (int64_t)llround((s->from >= first ? s->from : first + s->from) * 1e9);
			s->to_ns = isnan(s->to) ? INT64_MAX
			           : (int64_t)llround((s->to >= first ? s->to : first + s->to) * 1e9);
			s->timed = true;
		}
		if (m->time_ns < s->from_ns || m->time_ns > s->to_ns)
			return 0;
	}
	if (s->has_tag) {
		const char *v = s->h->se_attr(e, s->tagkey, s->tagkeylen, &len);
		if (!v)
			return 0;
		if (!(c = cstr(s, v, len)))
			return FK_ERR_NOMEM;
		if (regexec(&s->tag, c, 0, NULL, 0) != 0)
			return 0;
	}
	*keep = true;
	return 0;
}

/* Is frame 0 the sample's process name (perf's root frame)? */
static bool comm_root(struct state *s, struct fk_sample_edit *e)
{
	size_t len, clen;
	const char *name = s->h->se_frame_name(e, 0, &len);
	const char *comm = s->h->se_comm(e, &clen);

	return comm && name && len == clen && memcmp(name, comm, len) == 0;
}

/* The frame edits, once the sample stays. */
static int edit(struct state *s, struct fk_sample_edit *e, size_t deepest_base, size_t deepest_skip)
{
	const struct fk_host *h = s->h;
	size_t n;

	if (deepest_base != (size_t)-1)
		h->se_remove_range(e, 0, deepest_base);
	else if (deepest_skip != (size_t)-1) {
		size_t keep = comm_root(s, e) ? 1 : 0;
		if (deepest_skip > keep)
			h->se_remove_range(e, keep, deepest_skip - keep);
	}
	n = h->se_depth(e);
	for (size_t i = n; i-- > 0;) {
		unsigned b;
		int rc = frame_bits(s, e, i, &b);
		if (rc < 0)
			return rc;
		if ((s->has[RE_HIDE] && (b & BIT(RE_HIDE))) || (s->has[RE_SHOW] && !(b & BIT(RE_SHOW))))
			h->se_remove(e, i);
	}
	if (s->o->collapse_recursion) {
		n = h->se_depth(e);
		for (size_t i = n; i-- > 1;)
			if (h->se_frame_id(e, i) == h->se_frame_id(e, i - 1))
				h->se_remove(e, i);
	}
	if (h->se_depth(e) == 0)
		h->se_drop(e);
	return 0;
}

static int sample(void *state, struct fk_sample_edit *e)
{
	struct state *s = state;
	size_t n = s->h->se_depth(e), base = (size_t)-1, skip = (size_t)-1;
	bool focus = !s->has[RE_FOCUS], keep;
	int rc;

	if ((rc = thread_and_time(s, e, &keep)) < 0)
		goto nomem;
	if (!keep) {
		s->h->se_drop(e);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned b;
		if ((rc = frame_bits(s, e, i, &b)) < 0)
			goto nomem;
		if (b & BIT(RE_IGNORE)) {
			s->h->se_drop(e);
			return 0;
		}
		if (b & BIT(RE_FOCUS))
			focus = true;
		if (b & IS_BASE)
			base = i;
		if (b & IS_SKIP)
			skip = i;
	}
	if (!focus || (s->o->base && *s->o->base && base == (size_t)-1)) {
		s->h->se_drop(e);
		return 0;
	}
	if ((rc = edit(s, e, base, skip)) < 0)
		goto nomem;
	return 0;
nomem:
	s->h->log(FK_LOG_ERROR, "out of memory");
	return rc;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "focus", NULL, struct opts, focus,
	          "keep only samples with a frame matching this extended regex (pprof -focus)"),
	FK_OPTION(FK_OPT_STRING, "ignore", NULL, struct opts, ignore,
	          "drop samples with a frame matching this extended regex (pprof -ignore)"),
	FK_OPTION(FK_OPT_STRING, "hide", NULL, struct opts, hide,
	          "remove the frames matching this extended regex (pprof -hide)"),
	FK_OPTION(FK_OPT_STRING, "show", NULL, struct opts, show,
	          "keep only the frames matching this extended regex (pprof -show)"),
	FK_OPTION(FK_OPT_STRING, "tagfocus", NULL, struct opts, tagfocus,
	          "KEY=REGEX: keep only samples whose attribute KEY matches (pprof -tagfocus)"),
	FK_OPTION(FK_OPT_STRING, "base", NULL, struct opts, base,
	          "keep only samples with a frame NAME, re-rooted at the deepest (inferno --base)"),
	FK_OPTION(FK_OPT_STRING, "skip-after", NULL, struct opts, skip_after,
	          "drop the frames above the deepest NAME, but the process name (inferno)"),
	FK_OPTION(FK_OPT_FLAG, "collapse-recursion", "false", struct opts, collapse_recursion,
	          "merge a frame into its caller of the same name: a;b;b;c -> a;b;c"),
	FK_OPTION(FK_OPT_STRING, "from", NULL, struct opts, from,
	          "keep samples from T seconds after the first (or perf's timestamp T)"),
	FK_OPTION(FK_OPT_STRING, "to", NULL, struct opts, to,
	          "keep samples up to T seconds after the first (or perf's timestamp T)"),
	FK_OPTION(FK_OPT_STRING, "comm", NULL, struct opts, comm,
	          "keep only samples whose process name (comm) matches this extended regex"),
	FK_OPTION(FK_OPT_INT, "pid", "-1", struct opts, pid, "keep only samples of this process id"),
	FK_OPTION(FK_OPT_INT, "tid", "-1", struct opts, tid, "keep only samples of this thread id"),
	FK_OPTION_END,
};

static struct fk_filter_plugin plugin = {
	.h = {
		.name = "narrow",
		.version = "1.0",
		.description = "pprof's focus, ignore, hide, show; inferno's base, skip-after; "
		               "time, thread and recursion",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.create = create,
	.sample = sample,
	.destroy = destroy,
	.check = check,
};

FLAMEKIT_REGISTER_FILTER(plugin)
