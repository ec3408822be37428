/*
 * Filter plugin "grep": keep or drop whole samples by POSIX extended regular
 * expressions on their frame names, as `grep` / `grep -v` do on folded lines
 * but per frame: a sample is kept when some frame matches `include` (if set)
 * and no frame matches `exclude` (if set).
 *
 * Speed: the patterns are compiled once, and each distinct frame is tested
 * once; the answer is cached in an array indexed by the frame's interned id,
 * so the per-sample cost is one array load per frame, whatever the patterns.
 */
#include <regex.h>
#include <stdbool.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "framecache.h"

struct opts {
	const char *include;
	const char *exclude;
	int ignore_case;
};

/* Cache bits per frame id (bit 0 is framecache's FC_KNOWN). */
#define INCL 2u
#define EXCL 4u

struct state {
	const struct fk_host *h;
	regex_t inc, exc;
	bool has_inc, has_exc;
	struct fc cache;     /* bits by frame id, and the name for regexec */
};

static void destroy(void *state)
{
	struct state *s = state;
	if (!s)
		return;
	if (s->has_inc)
		regfree(&s->inc);
	if (s->has_exc)
		regfree(&s->exc);
	fc_free(&s->cache, s->h);
	s->h->free(s);
}

static int create(const struct fk_host *h, const void *optp, const char *where, void **state)
{
	const struct opts *o = optp;
	struct state *s;
	int rc;

	if (!FK_HOST_HAS(h, se_frame_id)) {
		h->log(FK_LOG_ERROR, "%s: the grep filter needs a newer flamekit (host services)", where);
		return FK_ERR_PLUGIN;
	}
	if ((!o->include || !*o->include) && (!o->exclude || !*o->exclude)) {
		h->log(FK_LOG_ERROR, "%s: the grep filter needs an include or an exclude pattern", where);
		return FK_ERR_USAGE;
	}
	s = h->alloc(sizeof *s);
	if (!s)
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	if (o->include && *o->include) {
		if ((rc = fc_regcomp(h, &s->inc, o->include, o->ignore_case ? REG_ICASE : 0,
		                      "%s: include pattern", where)) < 0)
			goto fail;
		s->has_inc = true;
	}
	if (o->exclude && *o->exclude) {
		if ((rc = fc_regcomp(h, &s->exc, o->exclude, o->ignore_case ? REG_ICASE : 0,
		                      "%s: exclude pattern", where)) < 0)
			goto fail;
		s->has_exc = true;
	}
	*state = s;
	return 0;
fail:
	destroy(s);
	return rc;
}

/* A frame's bits, tested on a miss of the cache. */
static unsigned test_name(void *ctx, const char *name, size_t len)
{
	const struct state *s = ctx;
	unsigned b = 0;

	(void)len;
	if (s->has_inc && regexec(&s->inc, name, 0, NULL, 0) == 0)
		b |= INCL;
	if (s->has_exc && regexec(&s->exc, name, 0, NULL, 0) == 0)
		b |= EXCL;
	return b;
}

static int sample(void *state, struct fk_sample_edit *e)
{
	struct state *s = state;
	size_t n = s->h->se_depth(e);
	bool inc = !s->has_inc;

	for (size_t i = 0; i < n; i++) {
		unsigned b;
		int rc = fc_bits(&s->cache, s->h, e, i, test_name, s, &b);
		if (rc < 0) {
			s->h->log(FK_LOG_ERROR, "out of memory");
			return rc;
		}
		if (b & EXCL) {
			s->h->se_drop(e);
			return 0;
		}
		if (b & INCL)
			inc = true;
	}
	if (!inc)
		s->h->se_drop(e);
	return 0;
}

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "include", NULL, struct opts, include,
	          "keep only samples with a frame matching this extended regex"),
	FK_OPTION(FK_OPT_STRING, "exclude", NULL, struct opts, exclude,
	          "drop samples with a frame matching this extended regex"),
	FK_OPTION(FK_OPT_FLAG, "ignore-case", "false", struct opts, ignore_case,
	          "match both patterns without regard to case"),
	FK_OPTION_END,
};

static struct fk_filter_plugin plugin = {
	.h = {
		.name = "grep",
		.version = "1.0",
		.description = "keep or drop samples by regex on their frames",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.create = create,
	.sample = sample,
	.destroy = destroy,
};

FLAMEKIT_REGISTER_FILTER(plugin)
