/*
 * Filter plugin "strip-hex": every "0x" followed by hex digits in a frame
 * name becomes "0x...", as difffolded.pl -s rewrites its stacks
 * (s/0x[0-9a-fA-F]+/0x.../g), so frames that differ only by an address
 * become one frame and their stacks are summed.
 *
 * The rewrite is on bytes, leftmost first, a match never overlapping the
 * last: "0x0x1" is "0x...x1", "00x1f" is "00x...", "0x" without a digit
 * and "0X1f" stay.  A match cannot span a ';', so doing it frame by frame
 * gives difffolded.pl's stacks; an annotation suffix ("_[k]") holds no
 * hex digit after "0x", so renaming the display name is the same too.
 *
 * Speed: a per-frame filter, so the engine asks once per distinct frame,
 * and the inputs keep parsing on every thread.  `flamekit diff -s` and a
 * job's `diff: {strip-hex: true}` add it to each side's filters.
 */
#include <stdbool.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "vector/fkvector.h"

struct state {
	const struct fk_host *h;
	char *buf;        /* the rewritten name */
	size_t cap;
};

static int create(const struct fk_host *h, const void *opts, const char *where, void **state)
{
	struct state *s;

	(void)opts;
	(void)where;
	if (!(s = h->alloc(sizeof *s)))
		return FK_ERR_NOMEM;
	memset(s, 0, sizeof *s);
	s->h = h;
	*state = s;
	return 0;
}

static void destroy(void *state)
{
	struct state *s = state;

	if (!s)
		return;
	s->h->free(s->buf);
	s->h->free(s);
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Where the next match in name[i..n) starts, n when there is none. */
static size_t next_match(const char *name, size_t i, size_t n)
{
	for (; i + 2 < n; i++)
		if (name[i] == '0' && name[i + 1] == 'x' && is_hex(name[i + 2]))
			return i;
	return n;
}

static int frame(void *state, struct fk_frame_edit *e)
{
	struct state *s = state;
	const struct fk_host *h = s->h;
	size_t n, i, m, o = 0;
	const char *name = h->fe_name(e, &n);
	int rc;

	if ((m = next_match(name, 0, n)) == n)
		return 0;
	/* each match, 3 bytes at least, grows by 2 at most */
	if ((rc = fk_vector_grow((void **)&s->buf, &s->cap, n + n / 3 * 2, 1, h->realloc)) < 0)
		goto nomem;
	for (i = 0; m < n; m = next_match(name, i, n)) {
		memcpy(s->buf + o, name + i, m - i);
		o += m - i;
		memcpy(s->buf + o, "0x...", 5);
		o += 5;
		for (i = m + 2; i < n && is_hex(name[i]); i++)
			;
	}
	memcpy(s->buf + o, name + i, n - i);
	o += n - i;
	if ((rc = h->fe_rename(e, s->buf, o)) < 0)
		goto nomem;
	return 0;
nomem:
	h->log(FK_LOG_ERROR, "out of memory");
	return FK_ERR_NOMEM;
}

static struct fk_filter_plugin plugin = {
	.h = {
		.name = "strip-hex",
		.version = "1.0",
		.description = "rewrite 0x<hex> to 0x... in frame names (difffolded.pl -s)",
	},
	.create = create,
	.frame = frame,
	.destroy = destroy,
};

FLAMEKIT_REGISTER_FILTER(plugin)
