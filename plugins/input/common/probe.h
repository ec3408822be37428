/*
 * What the input plugins' probes share.  A probe judges a window of text
 * line by line, counting lines of its format ("good") and lines that are
 * not ("other").  Real files have stray lines the parsers skip and count
 * (a truncated record, a tool's comment), so a probe decides from what most
 * of the window says: a few unreadable lines lower its score, so that a
 * format fitting every line still wins, without refusing the file.
 */
#ifndef FK_PROBE_H
#define FK_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* How many lines of the window a probe judges at most. */
#define PROBE_MAX_LINES 400

/* The window a probe reads, line by line (probe_line). */
struct probe_window {
	const unsigned char *buf;
	size_t len;
	size_t pos;     /* where the next line starts */
	size_t lines;   /* lines handed out so far: the current one's number */
};

/* The window's next whole line, without its "\n" or "\r\n": false at the
 * end, at the last line when the window cut it (it is not judged), and
 * after PROBE_MAX_LINES lines. */
static inline bool probe_line(struct probe_window *w, const char **s, size_t *n)
{
	const unsigned char *nl;

	if (w->pos >= w->len || w->lines >= PROBE_MAX_LINES)
		return false;
	if (!(nl = memchr(w->buf + w->pos, '\n', w->len - w->pos)))
		return false;
	*s = (const char *)w->buf + w->pos;
	*n = (size_t)(nl - (w->buf + w->pos));
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	w->pos = (size_t)(nl - w->buf) + 1;
	w->lines++;
	return true;
}

/* probe_line for formats that are text alone: a line holding a NUL byte
 * is counted in *other and passed over. */
static inline bool probe_text_line(struct probe_window *w, const char **s, size_t *n, size_t *other)
{
	while (probe_line(w, s, n)) {
		if (!memchr(*s, '\0', *n))
			return true;
		(*other)++;
	}
	return false;
}

/* Blank lines and comment lines ('#' or '//' first, after blanks) say
 * nothing about the format. */
static inline bool probe_ignorable(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
		k++;
	return k == n || s[k] == '#' || (n - k >= 2 && s[k] == '/' && s[k + 1] == '/');
}

/* The probe's score: `score` when every judged line fits, 10 less when at
 * most one in five does not, 0 when more do or none fits. */
static inline int probe_verdict(int score, size_t good, size_t other)
{
	if (good == 0)
		return 0;
	if (other == 0)
		return score;
	return other * 4 <= good ? score - 10 : 0;
}

#endif
