/* Symbols from one ELF image, as perf 6.1's dso__load_sym and
 * dso__synthesize_plt_symbols read them (tools/perf/util/symbol-elf.c):
 * kept as file offsets (st_value less p_vaddr - p_offset of the PT_LOAD
 * holding it), which is what perf's map__map_ip hands the lookup. */
#define _GNU_SOURCE /* asprintf */
#include <gelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *shdr, size_t *idx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			return NULL;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

int fk_elf_has_section(Elf *elf, const char *name)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = section_by_name(elf, name, &shdr, NULL);

	return scn && shdr.sh_type != SHT_NOBITS;
}

const char *fk_elf_debuglink(Elf *elf)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debuglink", &shdr, NULL);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;

	if (!data || !data->d_buf || data->d_size == 0 || !memchr(data->d_buf, 0, data->d_size))
		return NULL;
	return data->d_buf;
}

int fk_elf_build_id(Elf *elf, unsigned char *out, size_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *data;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
				size_t n = nh.n_descsz < size ? nh.n_descsz : size;

				memcpy(out, (char *)data->d_buf + desc_off, n);
				return (int)n;
			}
		}
	}
	return -1;
}

int fk_elf_segments(struct fk_dso *d, Elf *elf)
{
	size_t n, i, k = 0;
	GElf_Phdr ph;

	if (d->segs || elf_getphdrnum(elf, &n) != 0 || n == 0)
		return 0;
	d->segs = calloc(n, sizeof(*d->segs));
	if (!d->segs)
		return -1;
	for (i = 0; i < n; i++) {
		uint64_t sz;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		sz = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		if (!sz)
			continue;
		d->segs[k++] = (struct fk_seg){ ph.p_vaddr, ph.p_offset, sz };
	}
	d->nsegs = k;
	return 0;
}

/* elf_read_program_header: the PT_LOAD holding vaddr. */
static const struct fk_seg *seg_of_vaddr(const struct fk_dso *d, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < d->nsegs; i++)
		if (vaddr >= d->segs[i].vaddr && vaddr - d->segs[i].vaddr < d->segs[i].filesz)
			return &d->segs[i];
	return NULL;
}

static int is_mapping_symbol(const char *n)
{
	return n[0] == '$' && (n[1] == 'a' || n[1] == 'd' || n[1] == 't' || n[1] == 'x') && n[2] == '\0';
}

static int load_table(struct fk_dso *d, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	GElf_Ehdr eh;
	size_t shstrndx, i, nsyms;
	Elf_Data *data = elf_getdata(scn, NULL);
	int arm;

	if (!data || sh->sh_entsize == 0 || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	arm = eh.e_machine == EM_ARM || eh.e_machine == EM_AARCH64;
	nsyms = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Shdr ssh;
		Elf_Scn *ss;
		const char *name, *secname, *nm;
		int type, is_label;
		const struct fk_seg *seg;

		/* SHN_ABS and other reserved indexes (version definitions are
		 * ABS objects): perf's elf_getscn of them fails; they never
		 * name code */
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_name == 0 || sym.st_shndx == SHN_UNDEF ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		is_label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS;
		if (!is_label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || (arm && is_mapping_symbol(name)))
			continue;
		if (is_label) {
			/* a label counts in a text or data section only */
			if (sym.st_shndx >= SHN_LORESERVE || !(ss = elf_getscn(elf, sym.st_shndx)) ||
			    !gelf_getshdr(ss, &ssh) || !(secname = elf_strptr(elf, shstrndx, ssh.sh_name)) ||
			    (!strstr(secname, "text") && !strstr(secname, "data")))
				continue;
		}
		seg = seg_of_vaddr(d, sym.st_value);
		if (!seg)
			continue;
		nm = fk_sym_strdup(d->s, name, strlen(name));
		if (!nm || fk_symtab_add(&d->syms, sym.st_value - (seg->vaddr - seg->offset), sym.st_size,
					 GELF_ST_BIND(sym.st_info), nm) < 0)
			return -2;
		d->syms.v[d->syms.n - 1].mangled = d->s->cfg.demangle != 0;
	}
	return 0;
}

/* perf 6.1's dso__load_sym: the .symtab, then the same image's .dynsym
 * too (a function only there is named: objcopy --strip-symbol leaves it),
 * each pass fixed up on its own (dso__load_sym_internal); the .dynsym alone
 * when there is no .symtab. */
int fk_elf_load_syms(struct fk_dso *d, Elf *elf, int want_symtab)
{
	GElf_Shdr sh, dsh;
	Elf_Scn *scn = section_by_name(elf, ".symtab", &sh, NULL);
	Elf_Scn *dyn = section_by_name(elf, ".dynsym", &dsh, NULL);

	if (dyn && dsh.sh_type != SHT_DYNSYM)
		dyn = NULL;
	if (!scn || sh.sh_type != SHT_SYMTAB) {
		if (want_symtab || !dyn)
			return -1;
		scn = NULL;
	}
	if (scn) {
		if (load_table(d, elf, scn, &sh) == -2)
			return -2;
		fk_symtab_finish_rb(d->s, &d->syms);
	}
	if (dyn) {
		if (load_table(d, elf, dyn, &dsh) == -2)
			return -2;
		fk_symtab_finish_rb(d->s, &d->syms);
	}
	return 0;
}

/* dso__synthesize_plt_symbols: "name@plt" for each .rela.plt/.rel.plt
 * entry, after .plt's header: perf 6.1's sizes for ARM, AArch64 and SPARC,
 * elsewhere .plt's sh_entsize for both (x86: 16; 0 puts every entry,
 * zero-size, at .plt's start, as perf does).  perf 6.1 knows no .plt.sec
 * (IBT builds: the stubs code calls are there, .plt keeps the lazy-binding
 * halves): the names go on .plt all the same.
 * As perf's dso__load, only when the symbol tables gave a symbol; the
 * entries go into the tree with no fixups, after fixup_end stretched any
 * zero-size symbol before them (_init) over them: the lookup then returns
 * whichever of the two is nearer the tree's root (fk_symtab_insert_rb). */
int fk_elf_load_plt(struct fk_dso *d, Elf *elf)
{
	GElf_Shdr dynsh, relsh, pltsh;
	GElf_Ehdr eh;
	size_t dynidx, i, nrel;
	Elf_Scn *dyn = section_by_name(elf, ".dynsym", &dynsh, &dynidx), *rel, *plt;
	Elf_Data *reldata, *syms;
	uint64_t off, header, entsize, added = 0;
	char buf[1024];

	if (!dyn || d->syms.n == 0)
		return 0;
	rel = section_by_name(elf, ".rela.plt", &relsh, NULL);
	if (!rel)
		rel = section_by_name(elf, ".rel.plt", &relsh, NULL);
	plt = section_by_name(elf, ".plt", &pltsh, NULL);
	if (!rel || !plt || relsh.sh_link != dynidx || relsh.sh_entsize == 0 || relsh.sh_type == SHT_NOBITS)
		return 0;
	reldata = elf_getdata(rel, NULL);
	syms = elf_getdata(dyn, NULL);
	if (!reldata || !syms)
		return 0;
	switch (gelf_getehdr(elf, &eh) ? eh.e_machine : EM_NONE) {
	case EM_ARM:
		header = 20, entsize = 12;
		break;
	case EM_AARCH64:
		header = 32, entsize = 16;
		break;
	case EM_SPARC:
		header = 48, entsize = 12;
		break;
	case EM_SPARCV9:
		header = 128, entsize = 32;
		break;
	default:
		header = entsize = pltsh.sh_entsize;
		break;
	}
	off = pltsh.sh_offset + header;
	nrel = relsh.sh_size / relsh.sh_entsize;
	for (i = 0; i < nrel; i++, off += entsize) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sym;
		size_t symidx;
		const char *name, *dm;

		if (relsh.sh_type == SHT_RELA) {
			if (!gelf_getrela(reldata, (int)i, &ra))
				break;
			symidx = GELF_R_SYM(ra.r_info);
		} else {
			if (!gelf_getrel(reldata, (int)i, &r))
				break;
			symidx = GELF_R_SYM(r.r_info);
		}
		if (!gelf_getsym(syms, (int)symidx, &sym) || !(name = elf_strptr(elf, dynsh.sh_link, sym.st_name)))
			continue;
		dm = fk_sym_demangle(d->s, name, 0);
		if (!dm)
			return -2;
		snprintf(buf, sizeof(buf), "%s@plt", dm);
		dm = fk_sym_strdup(d->s, buf, strlen(buf));
		if (!dm || fk_symtab_add(&d->syms, off, entsize, STB_GLOBAL, dm) < 0)
			return -2;
		added++;
	}
	if (added)
		fk_symtab_insert_rb(d->s, &d->syms);
	return 0;
}

/* .gnu_debugdata: an xz-compressed ELF holding a .symtab (Fedora's
 * MiniDebugInfo).  Its symbols, when no full .symtab was found. */
int fk_elf_load_debugdata(struct fk_dso *d, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debugdata", &sh, NULL);
	Elf_Data *data = scn ? elf_rawdata(scn, NULL) : NULL;
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t cap = 0;
	Elf *mini = NULL;
	int ret = -1;
	lzma_ret lr;

	if (!data || !data->d_buf || data->d_size == 0)
		return -1;
	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return -1;
	strm.next_in = data->d_buf;
	strm.avail_in = data->d_size;
	do {
		if (strm.avail_out == 0) {
			size_t ncap = cap ? cap * 2 : data->d_size * 4 + 4096;
			unsigned char *n;

			if (ncap > (size_t)512 << 20)
				goto out;
			n = realloc(out, ncap);
			if (!n)
				goto out;
			out = n;
			strm.next_out = out + cap;
			strm.avail_out = ncap - cap;
			cap = ncap;
		}
		lr = lzma_code(&strm, LZMA_FINISH);
	} while (lr == LZMA_OK);
	if (lr != LZMA_STREAM_END)
		goto out;
	mini = elf_memory((char *)out, cap - strm.avail_out);
	if (!mini)
		goto out;
	ret = fk_elf_load_syms(d, mini, 1);
out:
	if (mini)
		elf_end(mini);
	lzma_end(&strm);
	free(out);
	return ret;
}
