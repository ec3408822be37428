/*
 * perf script frame lines, "  addr func+0xoff (module)", tidied exactly as
 * FlameGraph's stackcollapse-perf.pl does (see tidy_piece()), with each
 * frame's module kept for filters (f.module): the base name of a path
 * ("libc.so.6"), a bracketed name as it is ("[kernel.kallsyms]"), nothing
 * for "[unknown]".  ';' and newlines in names are left to the engine's
 * push, which owns folded text's separators.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static inline bool is_word(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_xdigit_lc(unsigned char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

/* The oracle's frame rule, /^\s*(\w+)\s*(.+) \((.*)\)/: the function runs
 * to the last " (" that has a ')' after it; the module to the last ')'. */
bool perf_match_frame(const char *s, size_t n, struct fline *f)
{
	size_t i = 0, rp, lp, pce;
	const char *p;

	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	f->pc = s + i;
	while (i < n && is_word((unsigned char)s[i]))
		i++;
	f->pc_len = (size_t)(s + i - f->pc);
	if (!f->pc_len)
		return false;
	pce = i;
	while (i < n && is_ws((unsigned char)s[i]))
		i++;
	p = s + n;
	while (p > s && p[-1] != ')')
		p--;
	if (p == s)
		return false;
	rp = (size_t)(p - s) - 1;
	/* last " (" before the last ')' with at least one function byte */
	lp = rp;
	while (lp > pce && !(s[lp - 1] == ' ' && s[lp] == '('))
		lp--;
	if (lp <= pce)
		return false;
	if (lp - 1 <= i) {
		/* no name: the regex backtracks and the name is the one blank
		 * before " (" ("7f1e2215d058  (/lib/libc.so)" names a frame " ") */
		if (lp - 1 <= pce)
			return false;
		i = lp - 2;
	}
	f->func = s + i;
	f->func_len = lp - 1 - i;
	f->mod = s + lp + 1;
	f->mod_len = rp - lp - 1;
	return true;
}

int perf_grow(const struct fk_host *h, void **p, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 64;
	void *v;
	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	v = h->realloc(*p, c * elem);
	if (!v)
		return FK_ERR_NOMEM;
	*p = v;
	*cap = c;
	return 0;
}

static bool has_sub(const char *s, size_t n, const char *sub)
{
	return perf_memmem(s, n, sub, strlen(sub)) != NULL;
}

/* /\.\(.*\)\./: a Go method such as "net/http.(*Client).Do" */
static bool looks_go(const char *s, size_t n)
{
	const char *a = perf_memmem(s, n, ".(", 2);
	if (!a)
		return false;
	a += 2;
	return perf_memmem(a, n - (size_t)(a - s), ").", 2) != NULL;
}

/*
 * A kernel module: stackcollapse-perf.pl's /^\[/ and /vmlinux$/ (never one
 * naming "unknown"), and what that rule misses of the same kernel: a
 * versioned image, as perf names the debug vmlinux Debian and Ubuntu ship
 * (/usr/lib/debug/boot/vmlinux-6.1.0-13-amd64: "vmlinux" then only
 * [A-Za-z0-9._-] in its last path component), and a loadable module
 * resolved against its file (/lib/modules/VER/.../mlx5_core.ko), as
 * inferno's collapse-perf annotates them.
 */
static bool mod_is_kernel(const char *m, size_t n)
{
	size_t base = n, k;

	if (has_sub(m, n, "unknown"))
		return false;
	if (n > 0 && m[0] == '[')
		return true;
	if (n >= 3 && memcmp(m + n - 3, ".ko", 3) == 0)
		return true;
	while (base > 0 && m[base - 1] != '/')
		base--;
	if (n - base < 7 || memcmp(m + base, "vmlinux", 7) != 0)
		return n >= 7 && memcmp(m + n - 7, "vmlinux", 7) == 0;
	for (k = base + 7; k < n; k++)
		if (!is_digit((unsigned char)m[k]) && !(m[k] >= 'a' && m[k] <= 'z') &&
		    !(m[k] >= 'A' && m[k] <= 'Z') && m[k] != '.' && m[k] != '_' && m[k] != '-')
			return n >= 7 && memcmp(m + n - 7, "vmlinux", 7) == 0;
	return true;
}

/*
 * A JIT's code: the script's /tmp/perf-PID.map, and the ELF images perf
 * inject --jit writes from a jitdump (jitted-PID-N.so), which the script
 * predates.
 */
static bool mod_is_jit(const char *m, size_t n)
{
	const char *p = m;
	size_t left = n, base = n;

	while (base > 0 && m[base - 1] != '/')
		base--;
	if (n - base > 10 && memcmp(m + base, "jitted-", 7) == 0 && memcmp(m + n - 3, ".so", 3) == 0)
		return true;
	while ((p = perf_memmem(p, left, "/tmp/perf-", 10)) != NULL) {
		const char *d = p + 10, *end = m + n;
		const char *q = d;
		while (q < end && is_digit((unsigned char)*q))
			q++;
		/* the oracle's "." matches any byte before "map" */
		if (q > d && end - q >= 4 && memcmp(q + 1, "map", 3) == 0)
			return true;
		p++;
		left = (size_t)(end - p);
	}
	return false;
}

/* Bytes into st->names. */
int perf_stack_put(const struct fk_host *h, struct stack *st, const char *s, size_t n)
{
	if (st->names_len + n > st->names_cap &&
	    perf_grow(h, (void **)&st->names, &st->names_cap, st->names_len + n, 1) < 0)
		return FK_ERR_NOMEM;
	if (n)
		memcpy(st->names + st->names_len, s, n);
	st->names_len += n;
	return 0;
}

int perf_stack_frame(const struct fk_host *h, struct stack *st, size_t off, size_t len, int annot)
{
	struct frame *f;
	if (st->n == st->cap && perf_grow(h, (void **)&st->fr, &st->cap, st->n + 1, sizeof *st->fr) < 0)
		return FK_ERR_NOMEM;
	f = &st->fr[st->n++];
	f->off = (uint32_t)off;
	f->len = (uint32_t)len;
	f->mod_off = f->mod_len = 0;
	f->annot = annot;
	return 0;
}

int perf_stack_copy(const struct fk_host *h, struct stack *dst, const struct stack *src)
{
	if (perf_grow(h, (void **)&dst->names, &dst->names_cap, src->names_len + 1, 1) < 0 ||
	    perf_grow(h, (void **)&dst->mods, &dst->mods_cap, src->mods_len + 1, 1) < 0 ||
	    perf_grow(h, (void **)&dst->fr, &dst->cap, src->n + 1, sizeof *dst->fr) < 0)
		return FK_ERR_NOMEM;
	if (src->names_len)
		memcpy(dst->names, src->names, src->names_len);
	if (src->mods_len)
		memcpy(dst->mods, src->mods, src->mods_len);
	if (src->n)
		memcpy(dst->fr, src->fr, src->n * sizeof *dst->fr);
	dst->names_len = src->names_len;
	dst->mods_len = src->mods_len;
	dst->n = src->n;
	return 0;
}

void perf_stack_free(const struct fk_host *h, struct stack *st)
{
	h->free(st->names);
	h->free(st->mods);
	h->free(st->fr);
	memset(st, 0, sizeof *st);
}

/* The module as filters see it: "[kernel.kallsyms]" as it is, a path's
 * base name, nothing for "[unknown]" or an empty module. */
static void module_name(const char *m, size_t n, const char **out, size_t *len)
{
	const char *b = m + n;
	*out = NULL;
	*len = 0;
	if (n == 0 || (n == 9 && memcmp(m, "[unknown]", 9) == 0))
		return;
	if (m[0] != '[')
		while (b > m && b[-1] != '/')
			b--;
	else
		b = m;
	*out = b;
	*len = (size_t)(m + n - b);
}

/*
 * Tidy one inline piece and append it to st->names.  The oracle's steps,
 * in order: "[unknown]" becomes the module's base name (or its address
 * with --addrs); unless it is a Go method, everything from the first '('
 * that does not open "(anonymous namespace)" is cut; quotes are deleted;
 * for a java comm a leading 'L' goes from names holding '/'.
 */
static int tidy_piece(const struct tidy *t, struct stack *st, const char *p, size_t n,
                      const struct fline *f, bool java, bool first, int *annot)
{
	size_t start = st->names_len;
	char tmp[512];

	*annot = FK_ANNOT_NONE;
	if (n == 9 && memcmp(p, "[unknown]", 9) == 0) {
		const char *m = f->mod;
		size_t mn = f->mod_len;
		int k;
		if (mn == 9 && memcmp(m, "[unknown]", 9) == 0) {
			m = "unknown";
			mn = 7;
		} else {
			const char *sl = m + mn;
			while (sl > m && sl[-1] != '/')
				sl--;
			mn -= (size_t)(sl - m);
			m = sl;
		}
		if (mn > 200)
			mn = 200;
		/* "[%.*s <%.*s>]" or "[%.*s]" without snprintf: one frame in
		 * three of a system-wide capture comes here */
		tmp[0] = '[';
		memcpy(tmp + 1, m, mn);
		k = 1 + (int)mn;
		if (t->addrs) {
			size_t pn = f->pc_len > 64 ? 64 : f->pc_len;
			tmp[k++] = ' ';
			tmp[k++] = '<';
			memcpy(tmp + k, f->pc, pn);
			k += (int)pn;
			tmp[k++] = '>';
		}
		tmp[k++] = ']';
		p = tmp;
		n = (size_t)k;
	}
	if (!looks_go(p, n)) {
		const char *q = p, *e = p + n;
		while ((q = memchr(q, '(', (size_t)(e - q))) != NULL) {
			if (!((size_t)(e - q) >= 21 && memcmp(q, "(anonymous namespace)", 21) == 0)) {
				n = (size_t)(q - p);
				break;
			}
			q++;
		}
	}
	if (st->names_len + n > st->names_cap &&
	    perf_grow(t->h, (void **)&st->names, &st->names_cap, st->names_len + n, 1) < 0)
		return FK_ERR_NOMEM;
	if (!memchr(p, '"', n) && !memchr(p, '\'', n)) {
		memcpy(st->names + st->names_len, p, n);
		st->names_len += n;
	} else {
		for (size_t i = 0; i < n; i++)
			if (p[i] != '"' && p[i] != '\'')
				st->names[st->names_len++] = p[i];
	}
	if (java && st->names_len > start && st->names[start] == 'L' &&
	    memchr(st->names + start, '/', st->names_len - start)) {
		memmove(st->names + start, st->names + start + 1, st->names_len - start - 1);
		st->names_len--;
	}
	if (!first) {
		if (!has_sub(st->names + start, st->names_len - start, "_[i]"))
			*annot = FK_ANNOT_INLINE;
	} else if (t->kernel && mod_is_kernel(f->mod, f->mod_len)) {
		*annot = FK_ANNOT_KERNEL;
	} else if (t->jit && mod_is_jit(f->mod, f->mod_len)) {
		if (!has_sub(st->names + start, st->names_len - start, "_[j]"))
			*annot = FK_ANNOT_JIT;
	}
	return 0;
}

/* One frame line: append its pieces to the stack, leaf first. */
int perf_add_frame(const struct tidy *t, struct stack *st, const struct fline *f, bool java)
{
	const char *s = f->func, *mod;
	size_t n = f->func_len, cut = n, mod_len, mod_off;
	size_t starts[64], ends[64], np = 0;

	/* strip a trailing +0x<hex> offset */
	{
		size_t k = n;
		while (k > 0 && is_xdigit_lc((unsigned char)s[k - 1]))
			k--;
		if (k < n && k >= 3 && s[k - 1] == 'x' && s[k - 2] == '0' && s[k - 3] == '+')
			cut = k - 3;
	}
	n = cut;
	/* the oracle skips names starting with '(' (it meant process names);
	 * "(anonymous namespace)::f" is a real C++ frame */
	if (n > 0 && s[0] == '(' && !(n >= 21 && memcmp(s, "(anonymous namespace)", 21) == 0))
		return 0;
	/* split at "->" (perf's inline chain), but not inside "operator->" */
	{
		size_t a = 0;
		const char *q = s, *e = s + n;
		while (q + 1 < e && (q = memchr(q, '-', (size_t)(e - q - 1))) != NULL) {
			size_t i = (size_t)(q - s);
			if (s[i + 1] != '>' || (i >= 8 && memcmp(s + i - 8, "operator", 8) == 0)) {
				q++;
				continue;
			}
			if (np < 63) {
				starts[np] = a;
				ends[np] = i;
				np++;
			}
			a = i + 2;
			q += 2;
		}
		starts[np] = a;
		ends[np] = n;
		np++;
	}
	module_name(f->mod, f->mod_len, &mod, &mod_len);
	mod_off = st->mods_len;
	if (mod_len) {
		if (st->mods_len + mod_len > st->mods_cap &&
		    perf_grow(t->h, (void **)&st->mods, &st->mods_cap, st->mods_len + mod_len, 1) < 0)
			return FK_ERR_NOMEM;
		memcpy(st->mods + st->mods_len, mod, mod_len);
		st->mods_len += mod_len;
	}
	/* pieces go root-to-leaf in the final stack; we collect leaf first */
	for (size_t k = np; k-- > 0;) {
		size_t off = st->names_len;
		int annot, rc;
		rc = tidy_piece(t, st, s + starts[k], ends[k] - starts[k], f, java, k == 0, &annot);
		if (rc < 0)
			return rc;
		rc = perf_stack_frame(t->h, st, off, st->names_len - off, annot);
		if (rc < 0)
			return rc;
		st->fr[st->n - 1].mod_off = (uint32_t)mod_off;
		st->fr[st->n - 1].mod_len = (uint32_t)mod_len;
	}
	return 0;
}
