/*
 * A libfksym for tests only (tests/perf-data.mk): every lookup is
 * unresolved, as `perf script --symfs EMPTY --kallsyms EMPTY` leaves them,
 * so that perf-data's reader (records, order, threads, maps, the text)
 * is compared with perf script before and without the real library.
 * Never linked into the installed plugin.
 */
#include <stdlib.h>
#include <string.h>

#include "../../plugins/lib/symbolize/symbolize.h"

struct fk_dso {
	struct fk_dso *next;
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
	(void)pid;
	return new_dso(s);
}

int fk_sym_lookup(struct fk_dso *d, uint64_t addr, struct fk_sym_result *out)
{
	(void)d, (void)addr;
	memset(out, 0, sizeof *out);
	return 0;
}

int fk_sym_kernel_reloc(struct fk_dso *k, const char *ref_name, uint64_t recorded_addr)
{
	(void)k, (void)ref_name, (void)recorded_addr;
	return 0;
}
