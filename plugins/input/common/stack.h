/*
 * The record buffer the aggregation-format input plugins (dtrace, stap,
 * ljp) share, and the small helpers every input plugin here uses: a
 * record's frames are collected leaf first as they are read, then pushed
 * root first (instruments keeps its call tree's path in one, root first,
 * and pushes it itself).  Names are copied into one growing text buffer (grown with
 * lib/vector's fk_vector_grow, like every array here); ';' becomes
 * ':' on the way in.  Header-only, so each plugin module stays
 * self-contained.
 */
#ifndef FK_INPUT_STACK_H
#define FK_INPUT_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "vector/fkvector.h"

struct frame {
	size_t off, len;   /* into stack.text */
	int annot;
	uint64_t line;
};

struct stack {
	const struct fk_host *h;
	char *text;
	size_t len, cap;
	struct frame *v;
	size_t n, cap_v;
	struct fk_frameref *refs;
	size_t cap_refs;
};

/* A reference to the frame name s (n bytes), its other fields zero. */
static inline struct fk_frameref frame_ref(const char *s, size_t n)
{
	struct fk_frameref r;

	memset(&r, 0, sizeof r);
	r.name = s;
	r.len = n;
	return r;
}

/* Copy name (len bytes) to the end (at used) of the growing text buffer
 * *text of *cap bytes, ';' made ':' (';' separates frames in folded text).
 * The caller counts the bytes into used. */
static inline int text_add(const struct fk_host *h, char **text, size_t *cap, size_t used,
                           const char *name, size_t len)
{
	if (fk_vector_grow((void **)text, cap, used + len, 1, h->realloc) < 0)
		return FK_ERR_NOMEM;
	memcpy(*text + used, name, len);
	for (size_t i = 0; i < len; i++)
		if ((*text)[used + i] == ';')
			(*text)[used + i] = ':';
	return 0;
}

static inline int stack_add(struct stack *s, const char *name, size_t len, int annot, uint64_t line)
{
	if (text_add(s->h, &s->text, &s->cap, s->len, name, len) < 0 ||
	    fk_vector_grow((void **)&s->v, &s->cap_v, s->n + 1, sizeof *s->v, s->h->realloc) < 0)
		return FK_ERR_NOMEM;
	s->v[s->n].off = s->len;
	s->v[s->n].len = len;
	s->v[s->n].annot = annot;
	s->v[s->n].line = line;
	s->len += len;
	s->n++;
	return 0;
}

static inline int stack_push(struct stack *s, struct fk_sink *sink, double count)
{
	struct fk_sample smp;

	if (fk_vector_grow((void **)&s->refs, &s->cap_refs, s->n, sizeof *s->refs,
	    s->h->realloc) < 0)
		return FK_ERR_NOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const struct frame *f = &s->v[s->n - 1 - i];
		s->refs[i] = frame_ref(s->text + f->off, f->len);
		s->refs[i].annot = f->annot;
	}
	memset(&smp, 0, sizeof smp);
	smp.frames = s->refs;
	smp.nframes = s->n;
	smp.weight[0] = count;
	s->n = s->len = 0;
	return s->h->push(sink, &smp, NULL);
}

/* Give up the record being read (a truncated or unusable one): each line
 * it came from is counted as skipped, once, and the buffer emptied. */
static inline void stack_skip_lines(struct stack *s, struct fk_input *in)
{
	for (size_t i = 0; i < s->n; i++)
		if (i == 0 || s->v[i].line != s->v[i - 1].line)
			s->h->input_skip(in, s->v[i].line);
	s->n = s->len = 0;
}

/* The end of every parse: an allocation failure is reported once, at the
 * line the parser reached (other errors were reported where they arose).
 * Returns rc. */
static inline int report_nomem(const struct fk_host *h, struct fk_input *in, int rc)
{
	if (rc == FK_ERR_NOMEM)
		h->input_error(in, h->input_lineno(in), "out of memory");
	return rc;
}

static inline void stack_free(struct stack *s)
{
	s->h->free(s->text);
	s->h->free(s->v);
	s->h->free(s->refs);
}

/* The end of a parse into s alone: report_nomem(rc), s freed; returns rc. */
static inline int stack_finish(struct stack *s, struct fk_input *in, int rc)
{
	report_nomem(s->h, in, rc);
	stack_free(s);
	return rc;
}

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A count line: optional blanks, digits, optional blanks.  *count gets the
 * value (exact up to 2^53). */
static inline int count_line(const char *s, size_t n, double *count)
{
	size_t i = 0, d;
	char buf[64];

	while (i < n && is_space(s[i]))
		i++;
	d = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (i == d)
		return 0;
	for (size_t j = i; j < n; j++)
		if (!is_space(s[j]))
			return 0;
	if (i - d >= sizeof buf)
		return -1;
	memcpy(buf, s + d, i - d);
	buf[i - d] = '\0';
	*count = strtod(buf, NULL);
	return 1;
}

/* The line that ends a record of the count formats (dtrace, stap): when
 * line ln is a count, the record read so far is pushed with it (a count
 * with no stack, or one of 64 digits or more, is skipped, its record too)
 * and 1 returned; 0 when the line is not a count; a negative status when
 * the push failed. */
static inline int stack_count_line(struct stack *s, struct fk_input *in, struct fk_sink *sink,
                                   const char *line, size_t len, uint64_t ln)
{
	double count;
	int cl = count_line(line, len, &count);

	if (cl == 0)
		return 0;
	if (cl < 0) /* a count of 64 digits or more: the record is unusable */
		stack_skip_lines(s, in);
	if (cl < 0 || s->n == 0) {
		s->h->input_skip(in, ln);
		return 1;
	}
	cl = stack_push(s, sink, count);
	return cl < 0 ? cl : 1;
}

/* The end of a parse of the count formats, where r is getline's last
 * status and rc the loop's: a record the input ends before its count
 * (truncated) has its lines counted as skipped, not guessed at; then
 * stack_finish.  Returns the parse's status. */
static inline int stack_count_end(struct stack *s, struct fk_input *in, int r, int rc)
{
	if (rc == 0 && r < 0)
		rc = r;
	else if (rc == 0)
		stack_skip_lines(s, in);
	return stack_finish(s, in, rc);
}

#endif
