/* The function addr2line names from an ELF symbol table, where DWARF
 * names none.  perf 6.1 asks addr2line (binutils) for the inline frames of
 * each address of a stack it unwound (append_inlines), and where the
 * answer's function is not perf's own symbol's name, prints the answer in
 * its place, marked inlined (new_inline_sym).  Without DWARF for the
 * address, binutils' bfd names the function from the symbols addr2line
 * reads (slurp_symtab: the static table, else the dynamic one), as
 * elf_find_function and better_fit choose (bfd/elf.c, binutils 2.40): the
 * symbols of the address's section starting at or below it, the nearest
 * start; of several there, in table order, a later one only where the
 * current one falls short of the address and the later one covers more,
 * or both cover it and the later one is a function where the current one
 * is not, typed where it is not, or smaller.  Where perf keeps the global
 * f and addr2line the f.localalias before it in the table, perf prints
 * "f.localalias (inlined)".
 *
 * The candidates are kept sorted by (section, start, table order): a
 * lookup is a binary search and a walk over the symbols of one start. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct fk_a2l_sym {
	uint64_t value, size;             /* st_value; st_size, 1 for 0 (bfd's maybe_function_sym) */
	const char *name;                 /* pool: as in the table, then demangled at first use */
	uint32_t order, sec;              /* index in the table; st_shndx */
	uint8_t func;                     /* STT_FUNC or STT_GNU_IFUNC, not STT_NOTYPE */
	uint8_t shown;                    /* name demangled */
};

struct fk_a2l_sec {
	uint64_t addr, size;
	uint32_t idx;
};

struct fk_a2l {
	struct fk_a2l_sym *v;
	size_t n;
	struct fk_a2l_sec *secs;          /* SHF_ALLOC sections, in header order */
	size_t nsecs;
};

static Elf_Scn *table(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize && sh->sh_size / sh->sh_entsize > 1)
			return scn;
	return NULL;
}

/* bfd's _bfd_elf_maybe_function_sym: 0 for a symbol that names no code. */
static int candidate(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	if (type != STT_NOTYPE && type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	/* annobin's markers: hidden local untyped symbols of no size */
	return !(sym->st_size == 0 && GELF_ST_BIND(sym->st_info) == STB_LOCAL && type == STT_NOTYPE &&
		 GELF_ST_VISIBILITY(sym->st_other) == STV_HIDDEN);
}

#define ORDER(a, b) (((a) > (b)) - ((a) < (b)))

static int by_place(const void *a, const void *b)
{
	const struct fk_a2l_sym *x = a, *y = b;
	int c = ORDER(x->sec, y->sec);

	return c ? c : (c = ORDER(x->value, y->value)) ? c : ORDER(x->order, y->order);
}

static int load(struct fk_symbolizer *s, struct fk_a2l *a, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, nsyms = sh->sh_size / sh->sh_entsize;

	if (!data)
		return 0;
	a->v = calloc(nsyms, sizeof(*a->v));
	if (!a->v)
		return -1;
	for (i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || !candidate(&sym))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		a->v[a->n] = (struct fk_a2l_sym){
			.value = sym.st_value, .size = sym.st_size ? sym.st_size : 1,
			.name = fk_sym_strdup(s, name, strlen(name)), .order = (uint32_t)i,
			.sec = sym.st_shndx, .func = GELF_ST_TYPE(sym.st_info) != STT_NOTYPE,
		};
		if (!a->v[a->n].name)
			return -1;
		a->n++;
	}
	qsort(a->v, a->n, sizeof(*a->v), by_place);
	return 0;
}

static int sections(struct fk_a2l *a, Elf *elf)
{
	size_t n, k = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrnum(elf, &n) != 0 || n == 0)
		return 0;
	if (!(a->secs = calloc(n, sizeof(*a->secs))))
		return -1;
	while ((scn = elf_nextscn(elf, scn)) != NULL && k < n)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_size)
			a->secs[k++] = (struct fk_a2l_sec){ sh.sh_addr, sh.sh_size, (uint32_t)elf_ndxscn(scn) };
	a->nsecs = k;
	return 0;
}

void fk_a2l_free(struct fk_dso *d)
{
	if (!d->a2l)
		return;
	free(d->a2l->v);
	free(d->a2l->secs);
	free(d->a2l);
	d->a2l = NULL;
}

int fk_a2l_load(struct fk_dso *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (d->a2l || !elf)
		return 0;
	if (!(d->a2l = calloc(1, sizeof(*d->a2l))))
		return -1;
	/* slurp_symtab: the static symbols; none, the dynamic ones */
	if (!(scn = table(elf, SHT_SYMTAB, &sh)))
		scn = table(elf, SHT_DYNSYM, &sh);
	if ((scn && load(d->s, d->a2l, elf, scn, &sh) < 0) || sections(d->a2l, elf) < 0) {
		fk_a2l_free(d);
		return -1;
	}
	return 0;
}

/* better_fit, for sym at the same start as the current best. */
static int better(const struct fk_a2l_sym *best, const struct fk_a2l_sym *sym, uint64_t addr)
{
	if (best->value + best->size < addr)
		return sym->size > best->size;
	if (sym->value + sym->size < addr)
		return 0;
	/* functions over the rest; typed over untyped: the same here, as
	 * only untyped symbols are not functions */
	if (best->func != sym->func)
		return sym->func;
	return sym->size < best->size;
}

static struct fk_a2l_sym *in_section(struct fk_a2l *a, uint32_t sec, uint64_t addr)
{
	size_t lo = 0, hi = a->n, i;
	struct fk_a2l_sym *best;

	/* the first candidate past (sec, addr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fk_a2l_sym *m = &a->v[mid];

		if (m->sec < sec || (m->sec == sec && m->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || a->v[lo - 1].sec != sec)
		return NULL;
	for (i = lo - 1; i > 0 && a->v[i - 1].sec == sec && a->v[i - 1].value == a->v[lo - 1].value; i--)
		;
	for (best = &a->v[i++]; i < lo; i++)
		if (better(best, &a->v[i], addr))
			best = &a->v[i];
	return best;
}

const char *fk_a2l_name(struct fk_dso *d, uint64_t vaddr)
{
	struct fk_a2l *a = d->a2l;
	size_t i;

	if (!a)
		return NULL;
	/* find_address_in_section: the first allocated section holding it
	 * where a function is found */
	for (i = 0; i < a->nsecs; i++) {
		struct fk_a2l_sym *sym;

		if (vaddr < a->secs[i].addr || vaddr - a->secs[i].addr >= a->secs[i].size)
			continue;
		if (!(sym = in_section(a, a->secs[i].idx, vaddr)))
			continue;
		/* new_inline_sym demangles addr2line's name as perf's own */
		if (!sym->shown) {
			const char *n = fk_sym_demangle(d->s, sym->name, 0);

			if (n)
				sym->name = n;
			sym->shown = 1;
		}
		return sym->name;
	}
	return NULL;
}
