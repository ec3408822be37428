/*
 * A saved stack pushed into a sink: the frames a struct stack holds (the
 * comm frame, then leaf first) as the root-first frame references the
 * host takes.  For scan.c and the pairing modes, which push the stacks
 * they kept; a leaf.
 */
#include "internal.h"

int perf_push_stack(struct pusher *p, const struct stack *st, struct fk_sample *smp, fk_node_t *node)
{
	size_t k = 0;
	int rc;

	if (perf_grow(p->h, (void **)&p->refs, &p->refcap, st->n + 1, sizeof *p->refs) < 0)
		return FK_ERR_NOMEM;
	/* root first: the comm frame, then from the outermost caller */
	for (size_t i = 0; i < st->n; i++) {
		const struct frame *f = &st->fr[i == 0 ? 0 : st->n - i];
		struct fk_frameref *r = &p->refs[k++];
		r->name = st->names + f->off;
		r->len = f->len;
		r->annot = f->annot;
		r->module = f->mod_len ? st->mods + f->mod_off : NULL;
		r->module_len = f->mod_len;
	}
	smp->frames = p->refs;
	smp->nframes = k;
	rc = p->h->push(p->sink, smp, node);
	smp->frames = NULL;
	smp->nframes = 0;
	return rc;
}
