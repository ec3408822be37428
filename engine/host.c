/*
 * The host table: every engine service a plugin may call.  Plugins never
 * link against the engine; they receive this const table.
 */
#include <string.h>
#include <unistd.h>

#include "edit.h"
#include "fk.h"
#include "value.h"

static void *h_alloc(size_t n) { return fk_malloc(n); }
static void *h_realloc(void *p, size_t n) { return fk_realloc(p, n); }
static void h_free(void *p) { fk_free(p); }

static const char *h_input_name(const struct fk_input *in) { return in->name; }
static uint64_t h_input_start(const struct fk_input *in) { return in->shard_start; }
static uint64_t h_input_lineno(const struct fk_input *in) { return in->lineno; }

static int h_input_demangle(const struct fk_input *in)
{
	switch (in->demangle) {
	case FK_DMG_NO: return FK_DEMANGLE_NO;
	case FK_DMG_FULL: return FK_DEMANGLE_FULL;
	case FK_DMG_SHORT: return FK_DEMANGLE_SHORT;
	default: return -1;
	}
}

static int h_input_error(struct fk_input *in, uint64_t line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fk_input_error(in, line, "%s", msg);
}

static unsigned h_sink_threads(struct fk_sink *s) { return s->threads; }

/* The ops a plugin hands over are checked once, here, not at every call. */
static int h_parse_chunks(struct fk_input *in, struct fk_sink *sink, const struct fk_chunk_ops *ops,
                          void *ctx)
{
	int rc = fk_chunk_ops_check(ops);

	return rc < 0 ? rc : fk_parse_chunks(in, sink, ops, ctx);
}

static int h_parse_streams(struct fk_input *const *ins, size_t n, struct fk_sink *sink,
                           const struct fk_part_ops *ops, void *ctx)
{
	int rc = fk_part_ops_check(ops);

	return rc < 0 ? rc : fk_parse_streams(ins, n, sink, ops, ctx);
}
static int h_sink_keeps_samples(struct fk_sink *s) { return s->p->keep_samples; }

static void h_sink_set_unit(struct fk_sink *s, const char *unit)
{
	char **slot = &s->p->unit[s->series];
	if (!unit)
		return;
	if (!s->p->declared || strcmp(s->p->declared, unit) != 0) {
		fk_free(s->p->declared);
		s->p->declared = fk_strdup(unit);
	}
	if (!*slot)
		*slot = fk_strdup(unit);
}

static void h_sink_set_series_unit(struct fk_sink *s, int series, const char *unit)
{
	if (series == s->series) {
		h_sink_set_unit(s, unit);
		return;
	}
	/* another series than the sink's: not what the mixed-units warning
	 * compares (the sink's own), only the series' label */
	if (unit && series >= 0 && series < FK_SERIES_MAX && !s->p->unit[series])
		s->p->unit[series] = fk_strdup(unit);
}

static void h_sink_set_start_time(struct fk_sink *s, int64_t unix_ns)
{
	fk_profile_set_start(s->p, unix_ns);
}

static int h_start_time(const struct fk_profile *p, int64_t *unix_ns)
{
	if (!p->has_start)
		return 0;
	*unix_ns = p->start_ns;
	return 1;
}

static size_t h_nodes(const struct fk_profile *p) { return p->tree.nnodes; }
static fk_node_t h_node_parent(const struct fk_profile *p, fk_node_t n) { return p->tree.nodes[n].parent; }
static fk_frame_t h_node_frame(const struct fk_profile *p, fk_node_t n) { return p->tree.nodes[n].frame; }
static uint32_t h_node_depth(const struct fk_profile *p, fk_node_t n) { return p->tree.nodes[n].depth; }

static double h_node_self(const struct fk_profile *p, fk_node_t n, int s)
{
	return s >= 0 && s < FK_SERIES_MAX ? fk_node_self(&p->tree, n, s) : 0;
}

static double h_node_total(const struct fk_profile *p, fk_node_t n, int s)
{
	if (s < 0 || s >= FK_SERIES_MAX || !p->tree.finished)
		return 0;
	return p->tree.total[(size_t)n * FK_SERIES_MAX + s];
}

static int h_node_is_leaf(const struct fk_profile *p, fk_node_t n)
{
	return fk_node_leaf(&p->tree, n);
}

static size_t h_node_children(const struct fk_profile *p, fk_node_t n, const fk_node_t **kids)
{
	if (!p->tree.finished) {
		*kids = NULL;
		return 0;
	}
	*kids = p->tree.kids + p->tree.kid_start[n];
	return p->tree.kid_start[n + 1] - p->tree.kid_start[n];
}

static const char *h_frame_name(const struct fk_profile *p, fk_frame_t f, size_t *len)
{
	if (f >= p->in.nframes) {
		*len = 0;
		return "";
	}
	*len = p->in.frames[f].len;
	return p->in.frames[f].name;
}

static const char *h_frame_display(const struct fk_profile *p, fk_frame_t f, size_t *len)
{
	if (f >= p->in.nframes) {
		*len = 0;
		return "";
	}
	*len = p->in.frames[f].display_len;
	return p->in.frames[f].name;
}

static int h_frame_annot(const struct fk_profile *p, fk_frame_t f)
{
	return f < p->in.nframes ? p->in.frames[f].annot : 0;
}

static const char *h_frame_colour(const struct fk_profile *p, fk_frame_t f)
{
	return fk_intern_colour(&p->in, f);
}

static const char *h_frame_module(const struct fk_profile *p, fk_frame_t f, size_t *len)
{
	fk_frame_t m = f < p->in.nframes ? p->in.frames[f].module : FK_FRAME_NONE;
	if (m == FK_FRAME_NONE) {
		*len = 0;
		return NULL;
	}
	*len = p->in.frames[m].len;
	return p->in.frames[m].name;
}

static unsigned h_series_mask(const struct fk_profile *p) { return p->series_mask; }

static const char *h_series_unit(const struct fk_profile *p, int s)
{
	return s >= 0 && s < FK_SERIES_MAX ? p->unit[s] : NULL;
}

static size_t h_samples(const struct fk_profile *p) { return p->log.n; }

static const struct fk_logged_sample *h_sample(const struct fk_profile *p, size_t i)
{
	return i < p->log.n ? &p->log.v[i] : NULL;
}

static struct fk_profile *h_profile_reversed(const struct fk_profile *p)
{
	struct fk_profile *r = fk_profile_reversed(p);
	if (r && fk_profile_finish(r) < 0) {
		fk_profile_free(r);
		return NULL;
	}
	return r;
}

static struct fk_input *h_input_open_fd(int fd, const char *name)
{
	struct fk_input *in = fk_malloc(sizeof *in);

	if (!in) {
		if (fd >= 0)
			close(fd);
		fk_log(FK_LOG_ERROR, "%s: out of memory", name);
		return NULL;
	}
	if (fk_input_open_fd(in, fd, name) < 0) {
		fk_free(in);
		return NULL;
	}
	return in;
}

static void h_input_close(struct fk_input *in)
{
	if (!in)
		return;
	fk_input_close(in);
	fk_free(in);
}

static size_t h_frames(const struct fk_profile *p) { return p->in.nframes; }

static size_t h_sample_attrs(const struct fk_profile *p, size_t i, const struct fk_attr **attrs)
{
	if (i >= p->log.n) {
		*attrs = NULL;
		return 0;
	}
	return fk_attrs_get(&p->attrs, p->log.x[i].attrs, attrs);
}

static const char *h_sample_comm(const struct fk_profile *p, size_t i, size_t *len)
{
	if (i >= p->log.n || p->log.x[i].comm == FK_FRAME_NONE) {
		*len = 0;
		return NULL;
	}
	return fk_attrs_string_text(&p->attrs, p->log.x[i].comm, len);
}

static const char *h_writer_name(const struct fk_writer *w) { return w->path ? w->path : "<stdout>"; }

const struct fk_host fk_host = {
	.struct_size = sizeof(struct fk_host),
	.abi_major = FK_ABI_MAJOR,
	.abi_minor = FK_ABI_MINOR,
	.log = fk_log,
	.alloc = h_alloc,
	.realloc = h_realloc,
	.free = h_free,
	.getline = fk_input_getline,
	.read = fk_input_read,
	.input_name = h_input_name,
	.input_lineno = h_input_lineno,
	.input_error = h_input_error,
	.input_skip = fk_input_skip,
	.push = fk_sink_push,
	.push_node = fk_sink_push_node,
	.sink_threads = h_sink_threads,
	.sink_fork = fk_sink_fork,
	.sink_join = fk_sink_join,
	.sink_set_unit = h_sink_set_unit,
	.nodes = h_nodes,
	.node_parent = h_node_parent,
	.node_frame = h_node_frame,
	.node_depth = h_node_depth,
	.node_self = h_node_self,
	.node_total = h_node_total,
	.node_is_leaf = h_node_is_leaf,
	.node_children = h_node_children,
	.frame_name = h_frame_name,
	.frame_display = h_frame_display,
	.frame_annot = h_frame_annot,
	.frame_colour = h_frame_colour,
	.frame_module = h_frame_module,
	.series_mask = h_series_mask,
	.series_unit = h_series_unit,
	.samples = h_samples,
	.sample = h_sample,
	.profile_reversed = h_profile_reversed,
	.profile_free = fk_profile_free,
	.write = fk_writer_write,
	.printf = fk_writer_printf,
	.writer_name = h_writer_name,
	.fe_name = fk_fe_name,
	.fe_annot = fk_fe_annot,
	.fe_module = fk_fe_module,
	.fe_rename = fk_fe_rename,
	.fe_drop = fk_fe_drop,
	.fe_colour = fk_fe_colour,
	.se_depth = fk_se_depth,
	.se_frame_name = fk_se_frame_name,
	.se_frame_annot = fk_se_frame_annot,
	.se_frame_module = fk_se_frame_module,
	.se_rename = fk_se_rename,
	.se_colour = fk_se_colour,
	.se_remove = fk_se_remove,
	.se_truncate = fk_se_truncate,
	.se_insert = fk_se_insert,
	.se_weight = fk_se_weight,
	.se_set_weight = fk_se_set_weight,
	.se_drop = fk_se_drop,
	.se_meta = fk_se_meta,
	.se_comm = fk_se_comm,
	.parse_chunks = h_parse_chunks,
	.input_start = h_input_start,
	.se_frame_id = fk_se_frame_id,
	.se_remove_range = fk_se_remove_range,
	.input_open_fd = h_input_open_fd,
	.input_close = h_input_close,
	.parse_parts = fk_parse_parts,
	.input_head = fk_input_head,
	.value_type = fk_value_type,
	.value_text = fk_value_text,
	.value_count = fk_value_count,
	.value_item = fk_value_item,
	.frames = h_frames,
	.push_ext = fk_sink_push_ext,
	.se_attr = fk_se_attr,
	.se_attrs = fk_se_attrs,
	.sample_attrs = h_sample_attrs,
	.sample_comm = h_sample_comm,
	.sink_set_series_unit = h_sink_set_series_unit,
	.parse_streams = h_parse_streams,
	.sink_keeps_samples = h_sink_keeps_samples,
	.input_peek = fk_input_buffered,
	.input_consume = fk_input_consume,
	.side_output = fk_writer_side,
	.side_pending = fk_writer_side_pending,
	.push_child = fk_sink_push_child,
	.sink_set_start_time = h_sink_set_start_time,
	.start_time = h_start_time,
	.input_demangle = h_input_demangle,
};
