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
 * A Rust legacy name that a tool demangled only half, knowing C++ and not
 * Rust (macOS's sample and Instruments, DTrace, old perf), keeps Rust's
 * escapes and hash: "_$LT$F$u20$as$u20$Foo$GT$::call::h0123456789abcdef".
 * Its "::"-separated components are mangled again ("_ZN" LEN NAME ... "E")
 * and given to the same demangler, which decodes the escapes and drops
 * the hash in the short style, as for a name still mangled whole.
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
#include <stdio.h>
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

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Whether name[i..n) is ":: h" and 16 hex digits ending the path */
static bool rust_hash(const char *c, size_t n)
{
	size_t k;

	if (n != 17 || c[0] != 'h')
		return false;
	for (k = 1; k < n; k++)
		if (!is_hex(c[k]))
			return false;
	return true;
}

/*
 * A half-demangled Rust legacy path at name[i..len): components of
 * [A-Za-z0-9_.$] joined by "::", none starting with a digit, the last a
 * hash or one holding a '$' escape; then the end, an offset ('+') or a
 * blank.  Writes "_ZN<len><comp>...E" into s->buf (with ".llvm.N" when
 * macOS's " (.llvm.N)" follows, which the demangler drops) and sets *endp
 * to where the replaced text ends.  Returns 1 when it did, 0 when the
 * text is not such a path, or a negative status.
 */
static int rust_remangle(struct state *s, const char *name, size_t len, size_t i, size_t *endp)
{
	size_t j, c0, ncomp = 0, need = 5, end;
	bool escaped = false, hashed = false;
	char *o;
	int rc;

	for (j = i;;) {
		c0 = j;
		while (j < len && sym_char(name[j]))
			j++;
		if (j == c0 || (name[c0] >= '0' && name[c0] <= '9'))
			return 0;
		ncomp++;
		need += (j - c0) + 20;
		escaped = escaped || memchr(name + c0, '$', j - c0) != NULL;
		hashed = rust_hash(name + c0, j - c0);
		if (j + 1 < len && name[j] == ':' && name[j + 1] == ':') {
			j += 2;
			continue;
		}
		break;
	}
	if (ncomp < 2 || !(escaped || hashed) || (j < len && name[j] != '+' && name[j] != ' '))
		return 0;
	end = j;
	if ((rc = fk_vector_grow((void **)&s->buf, &s->cap, need + (len - j), 1, s->h->realloc)) < 0)
		return rc;
	o = s->buf;
	memcpy(o, "_ZN", 3);
	o += 3;
	for (j = i; j < end;) {
		c0 = j;
		while (j < end && name[j] != ':')
			j++;
		o += sprintf(o, "%zu", j - c0);
		memcpy(o, name + c0, j - c0);
		o += j - c0;
		j += 2;
	}
	*o++ = 'E';
	/* " (.llvm.123)": the clone suffix as macOS's demangler prints it */
	if (len - end > 9 && memcmp(name + end, " (.llvm.", 8) == 0 && name[len - 1] == ')') {
		for (j = end + 8; j < len - 1 && name[j] >= '0' && name[j] <= '9'; j++)
			;
		if (j == len - 1 && j > end + 8) {
			memcpy(o, name + end + 2, j - end - 2);
			o += j - end - 2;
			end = len;
		}
	}
	*o = '\0';
	*endp = end;
	return 1;
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
	if (start == len) {
		if ((rc = rust_remangle(s, name, len, pre, &end)) < 0)
			goto nomem;
		if (rc == 0)
			return 0;
		d = cplus_demangle(s->buf, s->flags);
	} else {
		for (end = start; end < len && sym_char(name[end]); end++)
			;
		if ((rc = fk_vector_grow((void **)&s->buf, &s->cap, end - start + 1, 1, h->realloc)) < 0)
			goto nomem;
		memcpy(s->buf, name + start, end - start);
		s->buf[end - start] = '\0';
		d = cplus_demangle(s->buf, s->flags);
	}
	if (!d && start != len && strchr(s->buf, '.')) {
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
