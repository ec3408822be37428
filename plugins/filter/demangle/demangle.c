/*
 * Filter plugin "demangle": frame names demangled by libiberty's
 * cplus_demangle, the demangler of c++filt (binutils): Itanium C++
 * (`_Z...`, `__Z...` as macOS writes it), Rust legacy (`_ZN...17h<hash>E`)
 * and v0 (`_R...`), and D (`_D...`).
 *
 * The mangled symbol is found inside the frame's text: after a module
 * prefix (DTrace's "mysqld`"), before an offset or a module suffix
 * ("+0x1f", "+12", " [libfoo.so]").  What surrounds it is kept:
 * "mysqld`_Z3foov+0x1f" becomes "mysqld`foo()+0x1f".  A name that is not
 * mangled, or that the demangler refuses, is left as it is.
 *
 * style=full prints what c++filt prints (argument lists, Rust hashes);
 * style=short drops argument lists, template arguments' parameter lists
 * of functions, and Rust hashes, as inferno's --demangle does.
 *
 * Speed: a per-frame filter, so the engine asks once per distinct frame.
 * libiberty (Debian's libiberty.a, position-independent) is linked into
 * this module alone; the module exports only flamekit_plugin_init.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include <flamekit/plugin.h>

#include "vector/fkvector.h"

struct opts {
	const char *style;
};

struct state {
	const struct fk_host *h;
	int flags;
	char *buf;        /* NUL-terminated copy of the symbol */
	size_t cap;
	char *out;        /* prefix + demangled + suffix */
	size_t outcap;
};

static const struct fk_option options[] = {
	FK_OPTION(FK_OPT_STRING, "style", "full", struct opts, style,
	          "full (as c++filt prints) or short (no argument lists, no Rust hashes)"),
	FK_OPTION_END,
};

static int check(const struct fk_host *h, const void *optp, const char *where)
{
	const struct opts *o = optp;

	(void)where;
	if (o->style && strcmp(o->style, "full") != 0 && strcmp(o->style, "short") != 0) {
		h->log(FK_LOG_ERROR, "style must be full or short, not \"%s\"", o->style);
		return FK_ERR_USAGE;
	}
	return 0;
}

static int create(const struct fk_host *h, const void *optp, const char *where, void **state)
{
	const struct opts *o = optp;
	struct state *s;
	int rc;

	if ((rc = check(h, optp, where)) < 0)
		return rc;
	if (!(s = h->alloc(sizeof *s)))
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	/* c++filt's flags; short drops the parameters and, without
	 * DMGL_VERBOSE, Rust's hashes */
	s->flags = DMGL_ANSI | DMGL_AUTO;
	if (!o->style || strcmp(o->style, "full") == 0)
		s->flags |= DMGL_PARAMS | DMGL_VERBOSE;
	*state = s;
	return 0;
}

static void destroy(void *state)
{
	struct state *s = state;

	if (!s)
		return;
	s->h->free(s->buf);
	s->h->free(s->out);
	s->h->free(s);
}

static bool sym_char(char c)
{
	return c == '_' || c == '.' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Where the mangled symbol of name[0..len) starts (len when none); *cut
 * is where the text it replaces starts (one earlier for "__Z", whose
 * underscores both go, as c++filt -_ does). */
static size_t sym_start(const char *name, size_t len, size_t *cut)
{
	size_t i = 0;
	const char *tick = memchr(name, '`', len);

	if (tick)
		i = (size_t)(tick - name) + 1;
	*cut = i;
	if (len - i >= 3 && name[i] == '_' && (name[i + 1] == 'Z' || name[i + 1] == 'R' ||
	                                       name[i + 1] == 'D'))
		return i;
	if (len - i >= 4 && name[i] == '_' && name[i + 1] == '_' && name[i + 2] == 'Z')
		return i + 1;
	return len;
}

static int frame(void *state, struct fk_frame_edit *e)
{
	struct state *s = state;
	const struct fk_host *h = s->h;
	size_t len, start, end, dlen, pre;
	const char *name = h->fe_name(e, &len);
	char *d;
	int rc;

	start = sym_start(name, len, &pre);
	if (start == len)
		return 0;
	for (end = start; end < len && sym_char(name[end]); end++)
		;
	if ((rc = fk_vector_grow((void **)&s->buf, &s->cap, end - start + 1, 1, h->realloc)) < 0)
		goto nomem;
	memcpy(s->buf, name + start, end - start);
	s->buf[end - start] = '\0';
	d = cplus_demangle(s->buf, s->flags);
	if (!d && strchr(s->buf, '.')) {
		/* a clone suffix the demangler does not take ("_Z3foov.lto_priv.0"
		 * is taken; "_ZN3foo3barE.llvm.123" is for some versions) */
		*strchr(s->buf, '.') = '\0';
		end = start + strlen(s->buf);
		d = cplus_demangle(s->buf, s->flags);
	}
	if (!d)
		return 0;
	dlen = strlen(d);
	rc = fk_vector_grow((void **)&s->out, &s->outcap, pre + dlen + (len - end), 1,
	                    h->realloc);
	if (rc == 0) {
		memcpy(s->out, name, pre);
		memcpy(s->out + pre, d, dlen);
		memcpy(s->out + pre + dlen, name + end, len - end);
		rc = h->fe_rename(e, s->out, pre + dlen + (len - end));
	}
	free(d);
	if (rc < 0)
		goto nomem;
	return 0;
nomem:
	h->log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

static struct fk_filter_plugin plugin = {
	.h = {
		.name = "demangle",
		.version = "1.0",
		.description = "demangle C++, Rust and D symbols (libiberty, as c++filt)",
		.options = options,
		.options_size = sizeof(struct opts),
	},
	.create = create,
	.frame = frame,
	.destroy = destroy,
	.check = check,
};

FLAMEKIT_REGISTER_FILTER(plugin)
