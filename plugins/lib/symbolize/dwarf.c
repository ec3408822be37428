/* Inline frames and source lines from DWARF (libdw), cached per address:
 * the first lookup of an address finds its scopes in its unit's index of
 * the DIEs with addresses (made once a unit, as dwarf_getscopes would find
 * them) and its line in the line table (dwarf_getsrc_die); later ones are a
 * hash probe. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "vector/fkvector.h"

#define MAX_INLINE 15
#define MAX_DEPTH 256 /* DIEs nested deeper than this are not indexed */

/* A unit's DIEs that have addresses, as a tree in DIE order: the only ones
 * dwarf_getscopes looks into (it prunes every DIE whose ranges do not hold
 * the address, and descends only into scopes).  dwarf_getscopes and
 * dwarf_getscopes_die walk the whole unit for every address they are asked
 * about, which for a C++ unit full of templates was most of --inline's
 * time; the index walks it once. */
struct dw_node {
	Dwarf_Die die;
	uint32_t r, nr;               /* its ranges: rg[r .. r + nr) */
	int32_t parent, child, next;  /* -1: none (parent -1: the unit) */
};

struct fk_dw_cu {
	Dwarf_Off off;                /* the unit DIE's */
	struct dw_node *v;
	size_t n, cap;
	struct { uint64_t lo, hi; } *rg;
	size_t nrg, caprg;
	int32_t first;                /* the unit's first child with addresses */
};

static void cu_free(struct fk_dw_cu *c)
{
	free(c->v);
	free(c->rg);
}

void fk_dwarf_free(struct fk_dso *d)
{
	size_t i;

	for (i = 0; i < d->dwcu_n; i++)
		cu_free(&d->dwcu[i]);
	free(d->dwcu);
	d->dwcu = NULL;
	d->dwcu_n = d->dwcu_cap = 0;

	for (i = 0; i < d->dwc_cap; i++)
		if (d->dwc[i].addr != UINT64_MAX)
			free(d->dwc[i].frames);
	free(d->dwc);
	d->dwc = NULL;
	d->dwc_cap = d->dwc_n = 0;
	if (d->dw)
		dwarf_end(d->dw);
	d->dw = NULL;
	if (d->dw_fd >= 0)
		close(d->dw_fd);
	d->dw_fd = -1;
}

static int open_dwarf(struct fk_dso *d)
{
	if (d->dw_tried)
		return d->dw ? 0 : -1;
	d->dw_tried = 1;
	if (!d->dwarf_path)
		return -1;
	if (d->s->cfg.guard_links) {
		long uid;
		d->dw_fd = fk_sym_open_guarded(d->dwarf_path, &uid);
	} else {
		d->dw_fd = open(d->dwarf_path, O_RDONLY | O_CLOEXEC);
	}
	if (d->dw_fd < 0)
		return -1;
	d->dw = dwarf_begin(d->dw_fd, DWARF_C_READ);
	return d->dw ? 0 : -1;
}

static int off_to_vaddr(const struct fk_dso *d, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++)
		if (off >= d->segs[i].offset && off - d->segs[i].offset < d->segs[i].filesz) {
			*vaddr = off - d->segs[i].offset + d->segs[i].vaddr;
			return 0;
		}
	return -1;
}

static const char *die_name(struct fk_dso *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (n)
		return fk_sym_demangle(d->s, n, 0);
	n = dwarf_diename(die);
	return n ? n : "??";
}

/* The name of fn, or of the last subprogram after it with the same range:
 * the assembler (gas) gives each alias of an assembly function a DIE of its
 * own, and addr2line, which perf runs, names the function by the last of
 * them.  Only DIEs without a declaration line (the assembler's) are
 * compared. */
static const char *last_alias(struct fk_dso *d, Dwarf_Die *fn)
{
	Dwarf_Addr lo, hi, l2, h2;
	Dwarf_Die sib = *fn, best = *fn;

	if (dwarf_hasattr(fn, DW_AT_decl_line) || dwarf_lowpc(fn, &lo) != 0 ||
	    dwarf_highpc(fn, &hi) != 0)
		return die_name(d, fn);
	while (dwarf_siblingof(&sib, &sib) == 0)
		if (dwarf_tag(&sib) == DW_TAG_subprogram && !dwarf_hasattr(&sib, DW_AT_decl_line) &&
		    dwarf_lowpc(&sib, &l2) == 0 && dwarf_highpc(&sib, &h2) == 0 && l2 == lo && h2 == hi)
			best = sib;
	return die_name(d, &best);
}

static void call_site(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, const char **file, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &w) == 0 && files && w < nfiles)
		*file = dwarf_filesrc(files, w, NULL, NULL);
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &w) == 0)
		*line = (unsigned)w;
}

/* The tags of the scopes dwarf_getscopes descends into (libdw's
 * classify_die: match, match_inline and walk). */
static int is_scope(int tag)
{
	switch (tag) {
	case DW_TAG_module:
	case DW_TAG_lexical_block:
	case DW_TAG_with_stmt:
	case DW_TAG_catch_block:
	case DW_TAG_try_block:
	case DW_TAG_entry_point:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram:
	case DW_TAG_namespace:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
		return 1;
	}
	return 0;
}

/* Index the children of parent (the unit's DIE for -1) that have
 * addresses, and theirs; returns the first one's index, -1 if none, -2 when
 * out of memory. */
static int32_t index_children(struct fk_dw_cu *c, Dwarf_Die *die, int32_t parent, unsigned depth)
{
	Dwarf_Die child;
	int32_t first = -1, last = -1;

	if (depth > MAX_DEPTH || dwarf_child(die, &child) != 0)
		return -1;
	do {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t o = 0;
		size_t r = c->nrg;
		int32_t k;

		while ((o = dwarf_ranges(&child, o, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (c->nrg == c->caprg &&
			    fk_vector_grow((void **)&c->rg, &c->caprg, c->nrg + 1, sizeof *c->rg, realloc) < 0)
				return -2;
			c->rg[c->nrg].lo = lo;
			c->rg[c->nrg++].hi = hi;
		}
		if (c->nrg == r) /* no addresses: dwarf_getscopes prunes it */
			continue;
		if (c->n == c->cap &&
		    fk_vector_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v, realloc) < 0)
			return -2;
		k = (int32_t)c->n++;
		c->v[k] = (struct dw_node){ .die = child, .r = (uint32_t)r, .nr = (uint32_t)(c->nrg - r),
		                            .parent = parent, .child = -1, .next = -1 };
		if (last >= 0)
			c->v[last].next = k;
		else
			first = k;
		last = k;
		if (is_scope(dwarf_tag(&child)) && dwarf_haschildren(&child) > 0) {
			int32_t ch = index_children(c, &child, k, depth + 1);
			if (ch == -2)
				return -2;
			c->v[k].child = ch;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return first;
}

/* The index of the unit cu, made the first time; NULL when out of memory. */
static struct fk_dw_cu *cu_index(struct fk_dso *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t lo = 0, hi = d->dwcu_n;
	struct fk_dw_cu *c;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->dwcu[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->dwcu_n && d->dwcu[lo].off == off)
		return &d->dwcu[lo];
	if (d->dwcu_n == d->dwcu_cap &&
	    fk_vector_grow((void **)&d->dwcu, &d->dwcu_cap, d->dwcu_n + 1, sizeof *d->dwcu, realloc) < 0)
		return NULL;
	c = &d->dwcu[lo];
	memmove(c + 1, c, (d->dwcu_n - lo) * sizeof *c);
	d->dwcu_n++;
	*c = (struct fk_dw_cu){ .off = off };
	if ((c->first = index_children(c, cu, -1, 0)) == -2) {
		cu_free(c);
		memmove(c, c + 1, (--d->dwcu_n - lo) * sizeof *c);
		return NULL;
	}
	return c;
}

static int node_has(const struct fk_dw_cu *c, const struct dw_node *nd, uint64_t pc)
{
	for (uint32_t i = nd->r; i < nd->r + nd->nr; i++)
		if (pc >= c->rg[i].lo && pc < c->rg[i].hi)
			return 1;
	return 0;
}

/* The innermost DIE whose ranges hold pc, as dwarf_getscopes finds it: the
 * first child (in DIE order) that holds it, then the first of its children,
 * down to one that has none or is no scope; -1 when no child of the unit
 * holds it (dwarf_getscopes finds no scope). */
static int32_t innermost(const struct fk_dw_cu *c, uint64_t pc)
{
	int32_t at = -1, k = c->first;

	while (k >= 0) {
		if (!node_has(c, &c->v[k], pc)) {
			k = c->v[k].next;
			continue;
		}
		at = k;
		k = c->v[k].child;
	}
	return at;
}

/* Fill e for the address at vaddr. */
static int resolve(struct fk_dso *d, uint64_t vaddr, struct fk_dw_entry *e)
{
	Dwarf_Die cu;
	Dwarf_Line *ln;
	Dwarf_Files *files = NULL;
	struct fk_dw_cu *c;
	size_t nfiles = 0;
	int32_t k;
	const char *file;
	unsigned line;

	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return 0;
	if ((ln = dwarf_getsrc_die(&cu, vaddr))) {
		int l = 0;

		e->addr_file = dwarf_linesrc(ln, NULL, NULL);
		dwarf_lineno(ln, &l);
		e->addr_line = (unsigned)l;
	}
	e->fn_file = e->addr_file;
	e->fn_line = e->addr_line;
	if (!d->s->cfg.inline_frames)
		return 0;
	if (!(c = cu_index(d, &cu)))
		return -1;
	/* the innermost DIE and its parents: the concrete scopes (the
	 * functions it was inlined into, as addr2line -i names them) */
	if ((k = innermost(c, vaddr)) < 0)
		return 0;
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	e->frames = calloc(MAX_INLINE, sizeof(*e->frames));
	if (!e->frames)
		return -1;
	file = e->addr_file;
	line = e->addr_line;
	for (; k >= 0 && e->n < MAX_INLINE; k = c->v[k].parent) {
		Dwarf_Die *die = &c->v[k].die;
		int tag = dwarf_tag(die);

		if (tag == DW_TAG_subprogram) {
			e->fn_name = last_alias(d, die);
			break;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		e->frames[e->n] = (struct fk_sym_frame){ .name = die_name(d, die), .file = file, .line = line };
		if (!e->frames[e->n].name)
			return -1;
		e->n++;
		call_site(die, files, nfiles, &file, &line);
	}
	e->fn_file = file;
	e->fn_line = line;
	return 0;
}

static size_t hash_addr(uint64_t a)
{
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdULL;
	a ^= a >> 33;
	return (size_t)a;
}

static struct fk_dw_entry *cache_slot(struct fk_dso *d, uint64_t off, int *found)
{
	size_t j;

	if ((d->dwc_n + 1) * 2 > d->dwc_cap) {
		size_t cap = d->dwc_cap ? d->dwc_cap * 2 : 1024, i;
		struct fk_dw_entry *v = malloc(cap * sizeof(*v));

		if (!v)
			return NULL;
		for (i = 0; i < cap; i++)
			v[i].addr = UINT64_MAX;
		for (i = 0; i < d->dwc_cap; i++) {
			if (d->dwc[i].addr == UINT64_MAX)
				continue;
			for (j = hash_addr(d->dwc[i].addr) & (cap - 1); v[j].addr != UINT64_MAX; j = (j + 1) & (cap - 1))
				;
			v[j] = d->dwc[i];
		}
		free(d->dwc);
		d->dwc = v;
		d->dwc_cap = cap;
	}
	for (j = hash_addr(off) & (d->dwc_cap - 1); d->dwc[j].addr != UINT64_MAX; j = (j + 1) & (d->dwc_cap - 1))
		if (d->dwc[j].addr == off) {
			*found = 1;
			return &d->dwc[j];
		}
	*found = 0;
	return &d->dwc[j];
}

int fk_dwarf_frames(struct fk_dso *d, uint64_t off, const struct fk_sym *sym, struct fk_sym_result *out)
{
	struct fk_dw_entry *e = NULL;
	int found = 0, srcline = d->s->cfg.srcline;
	unsigned k = 0, i;
	uint64_t vaddr;

	if (open_dwarf(d) == 0 && off != UINT64_MAX && off_to_vaddr(d, off, &vaddr) == 0) {
		e = cache_slot(d, off, &found);
		if (!e)
			return -1;
		if (!found) {
			*e = (struct fk_dw_entry){ .addr = off };
			d->dwc_n++;
			if (resolve(d, vaddr, e) < 0)
				return -1;
		}
	}
	if (e && d->s->cfg.inline_frames)
		for (i = 0; i < e->n; i++, k++) {
			out->frames[k] = e->frames[i];
			if (!srcline) {
				out->frames[k].file = NULL;
				out->frames[k].line = 0;
			}
		}
	out->frames[k] = (struct fk_sym_frame){ .name = sym->name, .offset = off - sym->start };
	/* perf's new_inline_sym: the outermost DWARF function names the frame,
	 * the ELF symbol only where the names are the same; where DWARF names
	 * none, addr2line's choice from the symbol table does (a2l.c) */
	if (d->s->cfg.inline_frames && d->s->cfg.dwarf_names) {
		const char *fn = e ? e->fn_name : NULL;

		if (!fn && d->a2l && off != UINT64_MAX && off_to_vaddr(d, off, &vaddr) == 0)
			fn = fk_a2l_name(d, vaddr);
		if (fn && strcmp(fn, sym->name) != 0) {
			out->frames[k].name = fn;
			out->frames[k].inlined = 1;
		}
	}
	if (e && srcline) {
		out->frames[k].file = d->s->cfg.inline_frames ? e->fn_file : e->addr_file;
		out->frames[k].line = d->s->cfg.inline_frames ? e->fn_line : e->addr_line;
	}
	out->n = k + 1;
	return 0;
}
