/*
 * The folded grammar, owned here and nowhere else: flamegraph.pl's
 * `a;b;c 12` lines.  The folded input plugin, the folded output plugin, the
 * engine and `flamekit merge` all parse and print counts through these, so
 * they agree byte for byte.  A convenience library with no state and no
 * allocation: it links into the engine and into plugins alike.
 *
 * A line's count is -?\d+(\.\d*)? at its very end, after one whitespace
 * character; a second count before that one makes the line differential
 * (baseline first, then current).  flamegraph.pl has no minus sign: flamekit
 * reads one because it prints negative weights (pprof values are int64),
 * and whatever it prints as folded it reads back.  Frames are split on ';' and trailing
 * empty fields are dropped, as Perl's split does.
 */
#ifndef FK_FOLDED_GRAMMAR_H
#define FK_FOLDED_GRAMMAR_H

#include <stddef.h>

/* The count ending s[0..n): its value in *w and the length of what comes
 * before the whitespace that precedes it, or -1 when there is no count. */
long fk_folded_count(const char *s, size_t n, double *w);

/* One line s[0..n), newline excluded: the stack's length (trailing ';'
 * kept), or -1 when the line has no count.  w[0] gets the only count, or
 * the baseline of a differential line and w[1] its current count; w[1] is
 * 0 otherwise.  *two says which. */
long fk_folded_line(const char *s, size_t n, double w[2], int *two);

/* The stack's length without its trailing ';' (empty fields). */
size_t fk_folded_trim(const char *s, size_t n);

/* The frames of stack s[0..n), n from fk_folded_trim: start with *pos = 0;
 * each call returns the next frame's first byte and its length in *len
 * (an empty field between two ';' is a frame of length 0), and NULL when
 * there are no more (at once for n == 0).  Perl's split /;/ gives the
 * same fields. */
const char *fk_folded_next(const char *s, size_t n, size_t *pos, size_t *len);

/* A count as folded output prints it: an integer, exactly (every digit
 * of the double, negative ones with '-'), when it is one below 1e31 in
 * magnitude, else "%.15g".  fk_folded_count reads each integer back as the
 * same double.  Writes at most cap bytes (cap >= 32), no NUL needed;
 * returns the length. */
size_t fk_folded_format(char *buf, size_t cap, double v);

#endif
