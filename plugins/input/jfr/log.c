/*
 * async-profiler's own log in a recording: the profiler.Log events (a
 * level, from the profiler.types.LogLevel pool, and a message) it writes
 * for what went wrong while it profiled ("perf_event_open for TID 42
 * failed", "Perf events unavailable").  The warnings and errors are counted
 * and the first kept, for the plugin to report once: a recording without
 * samples then says why.  See jfr.h.
 */
#include <string.h>

#include "jfr.h"

void jfr_log_resolve(struct jfr_log *l, const struct jfr_chunk *c)
{
	int level = jfr_class_named(c, "profiler.types.LogLevel");

	l->cls = jfr_class_named(c, "profiler.Log");
	l->string_cls = jfr_class_named(c, "java.lang.String");
	l->level_cls = level;
	l->f_level = jfr_field_index(c, l->cls, "level");
	l->f_msg = jfr_field_index(c, l->cls, "message");
	l->f_name = jfr_field_index(c, level, "name");
	if (l->cls >= 0 && (l->f_level < 0 || l->f_msg < 0 || l->f_level >= JFR_LOG_FIELDS ||
	                    l->f_msg >= JFR_LOG_FIELDS || l->f_name >= JFR_LOG_FIELDS))
		l->cls = -1;
	l->id = l->cls >= 0 ? c->cls[l->cls].id : 0;
}

/* The text of v into out[0 .. cap), control bytes as spaces. */
static size_t text(struct jfr_chunk *c, const struct jfr_log *l, const struct jfr_val *v, char *out,
                   size_t cap)
{
	size_t n = jfr_text(c, v, l->string_cls, out, cap);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = ' ';
	return n;
}

void jfr_log_event(struct jfr_log *l, struct jfr_rd *r)
{
	struct jfr_chunk *c = r->c;
	struct jfr_val v[JFR_LOG_FIELDS], lv[JFR_LOG_FIELDS];
	char level[16];
	size_t n = 0, m;

	memset(v, 0, sizeof v);
	memset(lv, 0, sizeof lv);
	jfr_read_struct(r, l->cls, v, JFR_LOG_FIELDS, 0);
	if (c->err)
		return;
	if (v[l->f_level].kind == 1 && l->f_name >= 0) {
		/* a pool key: the level's name */
		size_t off = jfr_pool_find(c, l->level_cls, v[l->f_level].u);
		struct jfr_rd p = { c, off, c->end };
		if (off) {
			jfr_read_struct(&p, l->level_cls, lv, JFR_LOG_FIELDS, 0);
			if (!c->err)
				n = text(c, l, &lv[l->f_name], level, sizeof level);
		}
	} else {
		n = text(c, l, &v[l->f_level], level, sizeof level);
	}
	if (c->err)
		return;
	level[n] = '\0';
	if (strcmp(level, "WARN") != 0 && strcmp(level, "ERROR") != 0)
		return;
	if (l->n++)
		return;
	memcpy(l->first, "[", 1);
	memcpy(l->first + 1, level, n);
	memcpy(l->first + 1 + n, "] ", 2);
	m = 3 + n;
	m += text(c, l, &v[l->f_msg], l->first + m, sizeof l->first - m);
	l->first[m] = '\0';
}
