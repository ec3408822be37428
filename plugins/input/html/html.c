/*
 * Input plugin "html": reads back the profile a flamekit HTML report (the
 * `html` output plugin) embeds, so a report can be re-rendered or diffed
 * later.  The stacks and weights come back exactly; where the report has a
 * timeline, so do each sample's thread and its time (to the report's
 * --time-resolution), so the report can be drawn again as a flame chart or
 * per thread.  The format, its decoder and its encoder are libfkreport's
 * (plugins/lib/report/); this plugin pushes what the decoder reads.
 *
 * The report is held whole, so it is read only up to --max-input-size
 * (common/limit.h), its timeline inflated only up to the same limit, and a
 * file without the generator tag in its first bytes is refused before
 * more is read (/dev/zero is not read for ever).
 */
#include <string.h>

#include <flamekit/plugin.h>

#include "report.h"
#include "../common/limit.h"
#include "vector/fkvector.h"

struct opts {
	const char *max_input_size;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "max-input-size", "auto", struct opts, max_input_size, FK_LIMIT_HELP),
	FK_OPTION_END,
};

struct rd {
	const struct fk_host *h;
	struct fk_input *in;
	struct report rep;
	fk_node_t *node;             /* the sink's node of each tree node, or NULL (tree_nodes) */
	struct fk_frameref *fr;      /* push_node's path */
	size_t frcap;
};

/* A failure of the decoder as one message naming the input. */
static int failed(struct rd *r, int rc)
{
	const struct fk_host *h = r->h;

	if (rc == FK_ERR_DATA)
		return h->input_error(r->in, 0, "%s", r->rep.err);
	if (rc == FK_ERR_NOMEM)
		return h->input_error(r->in, 0, "out of memory");
	return rc;
}

static void frameref(const struct report *rep, size_t k, struct fk_frameref *f)
{
	memset(f, 0, sizeof *f);
	f->name = rep->names[rep->nodes[k].frame];
	f->len = rep->name_len[rep->nodes[k].frame];
}

/* Every node's stack as a tree node of the sink, through push_child (ABI
 * 1.6): a node's from its parent's and its frame, so a chain of n nodes
 * costs n, not n squared.  Only the nodes on the way to a stack's end get
 * one (a node below which no stack ends holds no frame of the profile).
 * r->node stays NULL when the host cannot (an older engine, per-sample
 * filters): push_node then pushes each path. */
static int tree_nodes(struct rd *r, struct fk_sink *sink)
{
	const struct fk_host *h = r->h;
	const struct report *rep = &r->rep;
	unsigned char *need;
	int rc = 0;

	if (!FK_HOST_HAS(h, push_child) || rep->nnodes == 0)
		return 0;
	need = h->alloc(rep->nnodes);
	r->node = h->alloc(rep->nnodes * sizeof *r->node);
	if (!need || !r->node) {
		rc = FK_ERR_NOMEM;
		goto out;
	}
	for (size_t k = 0; k < rep->nnodes; k++)
		need[k] = rep->nodes[k].end;
	for (size_t k = rep->nnodes; k-- > 0;) /* parents come before children */
		if (need[k] && rep->nodes[k].parent >= 0)
			need[rep->nodes[k].parent] = 1;
	for (size_t k = 0; k < rep->nnodes; k++) {
		int32_t par = rep->nodes[k].parent;
		struct fk_frameref f;
		r->node[k] = FK_NODE_NONE;
		if (!need[k])
			continue;
		frameref(rep, k, &f);
		if ((rc = h->push_child(sink, par < 0 ? FK_NODE_ROOT : r->node[par], &f, &r->node[k])) < 0)
			goto out;
		if (r->node[k] == FK_NODE_NONE) {
			h->free(r->node);
			r->node = NULL;
			break;
		}
	}
out:
	h->free(need);
	if (rc == FK_ERR_NOMEM)
		return h->input_error(r->in, 0, "out of memory");
	return rc;
}

/* Push one stack: node k's, by its tree node when known, else its path,
 * root first. */
static int push_node(struct rd *r, struct fk_sink *sink, size_t k, struct fk_sample *smp)
{
	const struct report *rep = &r->rep;
	size_t d = rep->nodes[k].depth;

	if (r->node)
		return r->h->push_node(sink, r->node[k], smp);
	if (fk_vector_grow((void **)&r->fr, &r->frcap, d, sizeof *r->fr, r->h->realloc) < 0)
		return r->h->input_error(r->in, 0, "out of memory");
	for (int32_t n = (int32_t)k; n >= 0; n = rep->nodes[n].parent)
		frameref(rep, (size_t)n, &r->fr[--d]);
	smp->frames = r->fr;
	smp->nframes = rep->nodes[k].depth;
	return r->h->push(sink, smp, NULL);
}

/* The timeline's runs, pushed as samples with their thread and time (to
 * the report's quantum), in the timeline's order: thread by thread, in time
 * order. */
static int push_timeline(struct rd *r, struct fk_sink *sink)
{
	const struct report *rep = &r->rep;
	struct report_sample rs;
	int rc;

	while ((rc = report_next(&r->rep, &rs)) > 0) {
		const struct report_thread *t = &rep->threads[rs.thread];
		struct fk_sample smp;
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = rs.weight;
		smp.flags = (rep->timed ? FK_SAMPLE_TIME : 0) | (t->pid >= 0 ? FK_SAMPLE_PID : 0) |
		            (t->tid >= 0 ? FK_SAMPLE_TID : 0);
		if (t->comm_len) {
			smp.flags |= FK_SAMPLE_COMM;
			smp.comm = t->comm;
			smp.comm_len = t->comm_len;
		}
		smp.time_ns = rs.time_ns;
		smp.pid = t->pid;
		smp.tid = t->tid;
		while (rs.cnt--)
			if ((rc = push_node(r, sink, rs.node, &smp)) < 0)
				return rc;
	}
	return rc < 0 ? failed(r, rc) : 0;
}

/* The stacks: the timeline's samples, then what the tree holds beyond them
 * (all of it in a report without a timeline). */
static int push_tree(struct rd *r, struct fk_sink *sink)
{
	const struct report *rep = &r->rep;
	int two = rep->series == 2, rc = tree_nodes(r, sink);

	if (rc == 0)
		rc = push_timeline(r, sink);
	for (size_t k = 0; rc == 0 && k < rep->nnodes; k++) {
		const struct report_node *n = &rep->nodes[k];
		struct fk_sample smp;
		if (!n->end || (n->used > 0 && n->w[0] - n->used <= 0))
			continue;
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = n->w[0] - n->used;
		smp.weight[1] = n->w[1];
		smp.flags = two ? FK_SAMPLE_SERIES : 0;
		rc = push_node(r, sink, k, &smp);
	}
	return rc;
}

/* The whole report into *buf (NUL-terminated, *len bytes), up to the
 * limit, the generator tag checked as soon as its bytes are in. */
static int read_all(const struct fk_host *h, struct fk_input *in, const struct fk_input_limit *lim, char **buf,
                    size_t *len)
{
	size_t cap = 1 << 20;
	int checked = 0;

	if (!(*buf = h->alloc(cap + 1)))
		return FK_ERR_NOMEM;
	for (;;) {
		ssize_t n;
		if (*len == cap) {
			char *nb = h->realloc(*buf, cap * 2 + 1);
			if (!nb)
				return FK_ERR_NOMEM;
			*buf = nb;
			cap *= 2;
		}
		n = h->read(in, *buf + *len, cap - *len);
		if (n < 0)
			return (int)n;
		*len += (size_t)n;
		if (!checked && (n == 0 || *len >= REPORT_MAGIC_WITHIN + strlen(REPORT_MAGIC))) {
			if (!report_has_magic(*buf, *len))
				return h->input_error(in, 0, "not a flamekit HTML report: no %s in its first "
				                      "%d bytes", REPORT_MAGIC, REPORT_MAGIC_WITHIN);
			checked = 1;
		}
		(*buf)[*len] = 0;
		if (n == 0)
			return 0;
		if (*len > lim->bytes)
			return fk_limit_exceeded(h, in, lim);
	}
}

FK_LIMIT_CHECK_FN(check, struct opts, max_input_size)

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	const struct opts *o = op;
	struct rd r = { .h = h, .in = in };
	struct fk_input_limit lim;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	fk_limit_for(h, in, o->max_input_size, &lim);
	if ((rc = read_all(h, in, &lim, &buf, &len)) < 0) {
		if (rc == FK_ERR_NOMEM)
			rc = h->input_error(in, 0, "out of memory");
		goto out;
	}
	if ((rc = report_open(&r.rep, h, buf, len)) < 0 || (rc = report_decode(&r.rep, lim.bytes)) < 0) {
		rc = rc == FK_ERR_LIMIT ? fk_limit_exceeded(h, in, &lim) : failed(&r, rc);
		goto out;
	}
	if (r.rep.unit_len && h->sink_set_unit)
		h->sink_set_unit(sink, r.rep.unit);
	rc = push_tree(&r, sink);
out:
	report_free(&r.rep);
	h->free(r.node);
	h->free(r.fr);
	h->free(buf);
	return rc;
}

/* A report says so in its first bytes: the generator tag written at the top
 * of page.html. */
static int probe(const unsigned char *buf, size_t len)
{
	return report_has_magic((const char *)buf, len) ? 100 : 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "html",
		.version = "1.0",
		.description = "the profile inside a flamekit HTML report (output plugin html)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.probe = probe,
	.parse = parse,
	.check = check,
	/* flamekit's own report: its names are what the run that wrote
	 * it chose */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
