/*
 * The pprof input's local symbolization (localsym.c): a location without
 * lines, in a mapping the profile has not symbolized, named from the
 * local binary as `go tool pprof -symbolize=local` names it.
 *
 * Ownership: the symbolizer and every name it hands out belong to the
 * struct psym; they stay valid until psym_free().
 */
#ifndef FK_PPROF_LOCALSYM_H
#define FK_PPROF_LOCALSYM_H

#include <stddef.h>
#include <stdint.h>

#include "fk_pprof.h"
#include "symbolize.h"

struct psym;

/* A symbolizer for profile p (read from in): binary_path is pprof's
 * PPROF_BINARY_PATH (directories separated by ':'; NULL: the variable,
 * else $HOME/pprof/binaries), inline_frames adds the functions inlined at
 * an address (DWARF).  0 and *out, or a negative status (reported). */
int psym_new(const struct fk_host *h, struct fk_input *in, const struct fk_pprof_data *p,
             const char *binary_path, int inline_frames, struct psym **out);
/* The frames of the location at address addr in mapping mi (an index of
 * p->mapping), innermost first as libfksym gives them (res->n == 0:
 * not symbolized, for any reason, reported once per file).  0, or
 * FK_ERR_NOMEM. */
int psym_lookup(struct psym *ps, size_t mi, uint64_t addr, struct fk_sym_result *res);
/* Reports what was left unsaid, frees everything. */
void psym_free(struct psym *ps);

#endif
