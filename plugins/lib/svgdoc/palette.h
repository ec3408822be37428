/*
 * Frame colours, computed as flamegraph.pl computes them so a graph drawn by
 * flamekit has the same colours as one drawn by flamegraph.pl: the same
 * palettes, the same name-based choices (java, js, perl, chain), the same
 * per-name values.  Only --random differs (flamegraph.pl draws from Perl's
 * rand(), seeded from the clock; we draw from the same generator with a fixed
 * seed so the output is reproducible).
 */
#ifndef FK_SVGDOC_PALETTE_H
#define FK_SVGDOC_PALETTE_H

#include <stddef.h>
#include <stdint.h>

/* Perl's drand48 (FreeBSD's generator, which perl >= 5.20 uses everywhere). */
struct pal_rand {
	uint64_t x;
};
void pal_srand(struct pal_rand *r, uint32_t seed);
double pal_rand01(struct pal_rand *r);

/* true when `name` is a palette color() knows (hot, mem, ..., orange). */
int pal_known(const char *name);

/*
 * Colour of frame `name` (full name, annotation suffix included, `len`
 * bytes) in palette `type`.  hash: --hash (flamegraph.pl's namehash);
 * rnd non-NULL: --random, drawing three numbers from it; otherwise the
 * name-seeded value flamegraph.pl uses by default.  Writes "rgb(r,g,b)".
 */
void pal_colour(const char *type, int hash, struct pal_rand *rnd, const char *name, size_t len,
                char out[32]);

/* The palette of a frame above a "--" separator under --colors=chain: the
 * waker stack, which flamegraph.pl renames NAME_[w] and draws aqua, with
 * colour values computed from that annotated name. */
#define PAL_CHAIN_WAKER "chain:waker"

/* Differential colour: white, red (grew) or blue (shrank), as color_scale(). */
void pal_scale(double value, double max, int negate, char out[32]);

/* true when fill ("rgb(r,g,b)") is dark enough that a white label contrasts
 * more with it than a black one (WCAG relative luminance below 0.179). */
int pal_dark(const char *fill);

/*
 * Decode one UTF-8 character from s[0..len).  Returns its length (>= 1) and
 * stores the code point, or -1 in *cp when the bytes are not valid UTF-8
 * (overlong, surrogate, truncated, > U+10FFFF); the length is then 1.
 */
size_t pal_utf8(const unsigned char *s, size_t len, int32_t *cp);

#endif
