/*
 * --wakeups: the chain stack of a wait, in bcc offwaketime's folded
 * format: the blocked thread's stack root first, "--", then the waker's
 * stack leaf first, ending in the waker's comm frame, so that the two
 * leaves meet at "--" and a flame graph puts the waker's root on top
 * (`flamekit graph --colors=chain` colours the two halves apart).
 *
 * The pairing itself (which wakeup belongs to which wait, across
 * segments) is offcpu.c's: this file only joins two stacks.
 */
#include "internal.h"

static const char SEP[] = "--";

/* Append frame f of src (its name and module) to out. */
static int put_frame(const struct fk_host *h, struct stack *out, const struct stack *src,
                     const struct frame *f)
{
	size_t off = out->names_len, moff = out->mods_len;
	struct frame *nf;

	if (perf_stack_put(h, out, src->names + f->off, f->len) < 0 ||
	    perf_stack_frame(h, out, off, f->len, f->annot) < 0)
		return FK_ERR_NOMEM;
	if (!f->mod_len)
		return 0;
	if (perf_grow(h, (void **)&out->mods, &out->mods_cap, moff + f->mod_len, 1) < 0)
		return FK_ERR_NOMEM;
	memcpy(out->mods + moff, src->mods + f->mod_off, f->mod_len);
	out->mods_len += f->mod_len;
	nf = &out->fr[out->n - 1];
	nf->mod_off = (uint32_t)moff;
	nf->mod_len = f->mod_len;
	return 0;
}

int perf_chain_build(const struct fk_host *h, struct stack *out, const struct stack *target,
                     const struct stack *waker)
{
	out->names_len = out->mods_len = 0;
	out->n = 0;
	if (target->n == 0)
		return 0;
	/* A struct stack is pushed as fr[0], fr[n-1] .. fr[1]: the comm frame,
	 * then from the root.  So the chain is held as: the target's comm
	 * frame; the waker's comm frame (the top of the graph); the waker's
	 * frames root to leaf; "--"; the target's frames leaf to root. */
	if (put_frame(h, out, target, &target->fr[0]) < 0)
		return FK_ERR_NOMEM;
	if (waker->n && put_frame(h, out, waker, &waker->fr[0]) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = waker->n; i-- > 1;)
		if (put_frame(h, out, waker, &waker->fr[i]) < 0)
			return FK_ERR_NOMEM;
	if (perf_stack_put(h, out, SEP, sizeof SEP - 1) < 0 ||
	    perf_stack_frame(h, out, out->names_len - (sizeof SEP - 1), sizeof SEP - 1,
	                     FK_ANNOT_NONE) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 1; i < target->n; i++)
		if (put_frame(h, out, target, &target->fr[i]) < 0)
			return FK_ERR_NOMEM;
	return 0;
}
