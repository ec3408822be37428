/*
 * A libfksym for tests only (tests/perf-data.mk): every lookup is
 * unresolved, as `perf script --symfs EMPTY --kallsyms EMPTY` leaves them,
 * so that perf-data's reader (records, order, threads, maps, the text)
 * is compared with perf script before and without the real library.
 * But JIT maps: perf script reads /tmp/perf-PID.map whatever --symfs says,
 * and a system-wide capture on a shared machine may hold another user's
 * `node --perf-basic-prof`; their "START SIZE NAME" lines are read here as
 * perf reads them (the last line covering an address wins).
 * Never linked into the installed plugin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../plugins/lib/symbolize/symbolize.h"

struct jsym {
	uint64_t start, size;
	char *name;
};

struct fk_dso {
	struct fk_dso *next;
	struct jsym *syms;
	size_t n;
};

struct fk_symbolizer {
	struct fk_dso *dsos;
};

struct fk_symbolizer *fk_symbolizer_new(const struct fk_sym_config *cfg, const struct fk_host *host)
{
	(void)cfg, (void)host;
	return calloc(1, sizeof(struct fk_symbolizer));
}

void fk_symbolizer_free(struct fk_symbolizer *s)
{
	while (s && s->dsos) {
		struct fk_dso *d = s->dsos;
		s->dsos = d->next;
		for (size_t i = 0; i < d->n; i++)
			free(d->syms[i].name);
		free(d->syms);
		free(d);
	}
	free(s);
}

/* A dso of its own for every call, so the cache never mixes two maps. */
static struct fk_dso *new_dso(struct fk_symbolizer *s)
{
	struct fk_dso *d = calloc(1, sizeof *d);
	if (!d)
		abort(); /* a test helper: out of memory ends the test */
	d->next = s->dsos;
	s->dsos = d;
	return d;
}

struct fk_dso *fk_sym_dso(struct fk_symbolizer *s, const char *path, const unsigned char *build_id,
                          size_t build_id_len)
{
	(void)path, (void)build_id, (void)build_id_len;
	return new_dso(s);
}

struct fk_dso *fk_sym_kernel(struct fk_symbolizer *s, const unsigned char *build_id,
                             size_t build_id_len)
{
	(void)build_id, (void)build_id_len;
	return new_dso(s);
}

struct fk_dso *fk_sym_jitmap(struct fk_symbolizer *s, int pid)
{
	struct fk_dso *d = new_dso(s);
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof path, "/tmp/perf-%d.map", pid);
	if (!(f = fopen(path, "r")))
		return d;
	while (fgets(line, sizeof line, f)) {
		unsigned long long a, z;
		int at = 0;
		struct jsym *nv;
		if (sscanf(line, "%llx %llx %n", &a, &z, &at) < 2 || !at)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (!(nv = realloc(d->syms, (d->n + 1) * sizeof *nv)))
			abort();
		d->syms = nv;
		d->syms[d->n].start = a;
		d->syms[d->n].size = z;
		if (!(d->syms[d->n++].name = strdup(line + at)))
			abort();
	}
	fclose(f);
	return d;
}

int fk_sym_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = d->n; i-- > 0;)
		if (addr >= d->syms[i].start && addr - d->syms[i].start < d->syms[i].size) {
			out->n = 1;
			out->frames[0].name = d->syms[i].name;
			out->frames[0].offset = addr - d->syms[i].start;
			break;
		}
	return 0;
}

int fk_sym_kernel_reloc(struct fk_dso *k, const char *ref_name, uint64_t recorded_addr)
{
	(void)k, (void)ref_name, (void)recorded_addr;
	return 0;
}
