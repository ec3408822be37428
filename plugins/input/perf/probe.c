/*
 * Detection and shard boundaries of perf script text.
 *
 * The probe classifies every complete line of the window on its own
 * (headers: "comm pid ... time: ... event:"; frames: "  addr sym (module)";
 * blank and '#' lines are not judged) and decides from what most of it
 * says: a real capture with an empty line inside a stack, or one odd line,
 * is still perf, while text whose judged lines are mostly neither is not.
 * A header of a comm and a number alone ("--- heapz 1 ---") counts only
 * when what follows it is a record's: a frame, a header or a blank line.
 */
#include <string.h>

#include "../../lib/perfscript/lines.h"
#include "../common/probe.h"
#include "probe.h"

struct tally {
	unsigned headers, timed, frames, other;
	bool perf_comment;
};

static bool is_perf_comment(const char *p, size_t n)
{
	return (n >= 10 && memcmp(p, "# ========", 10) == 0) ||
	       (n >= 13 && memcmp(p, "# captured on", 13) == 0) ||
	       (n >= 9 && memcmp(p, "# cmdline", 9) == 0);
}

/* A header, with a time or an event after the pid field? */
static int header_kind(const char *s, size_t n)
{
	struct header hd;
	size_t after = perf_match_header(s, n, &hd);
	if (!after)
		return 0;
	perf_match_event(s, n, after, &hd);
	return hd.has_time || hd.event ? 2 : 1;
}

static bool blank(const char *p, size_t n)
{
	while (n && is_ws((unsigned char)*p))
		p++, n--;
	return n == 0;
}

static bool hex_lead(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && ((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
		i++;
	return i > 0 && i < n && p[i] == ' ';
}

enum kind { K_HEADER, K_WEAK, K_FRAME, K_OTHER };

/* What one line is: a header (K_WEAK when it has neither time nor event
 * after the pid field: only the comm and a number), a frame or other. */
static enum kind judge(const char *p, size_t n, bool idle)
{
	struct fline f;
	const char *s = p;
	size_t sn = n;
	int k;

	while (sn && is_ws((unsigned char)*s))
		s++, sn--;
	if (!is_ws((unsigned char)p[0]) || idle) {
		/* perf pads a short comm with blanks: a record's first line
		 * may be indented */
		if ((k = header_kind(s, sn)) > 0 && (k == 2 || !is_ws((unsigned char)p[0])))
			return k == 2 ? K_HEADER : K_WEAK;
	}
	/* perf script indents a frame line or (old versions) starts it with
	 * the address: "(ms)" ending a table's heading is no frame */
	if ((is_ws((unsigned char)p[0]) || hex_lead(p, n)) && perf_match_frame(p, n, &f))
		return K_FRAME;
	return K_OTHER;
}

static void tally_header(struct tally *t, bool timed)
{
	t->headers++;
	t->timed += timed;
}

int fk_perf_probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	struct tally t = { 0 };
	const char *p;
	size_t n;
	unsigned judged;
	bool idle = true, weak = false;

	if (len >= 8 && memcmp(buf, "PERFILE2", 8) == 0)
		return 50; /* a perf.data file: parse() explains what to do */
	while (probe_line(&win, &p, &n)) {
		enum kind k;

		if (memchr(p, '\0', n))
			return 0;
		if (p[0] == '#') {
			t.perf_comment |= is_perf_comment(p, n);
			continue;
		}
		if (blank(p, n)) {
			/* blanks only: not judged; an empty line ends a record */
			if (weak)
				tally_header(&t, false);
			weak = false;
			idle = n == 0;
			continue;
		}
		k = judge(p, n, idle);
		idle = false;
		/* A header without time or event is a record's only when what
		 * follows it is one (its frames, the next header, a blank
		 * line): followed by other text, it is a line of that text
		 * ("--- heapz 1 ---", then "format = java"). */
		if (weak && k != K_OTHER)
			tally_header(&t, false);
		else if (weak)
			t.other++;
		weak = k == K_WEAK;
		if (k == K_HEADER)
			tally_header(&t, true);
		else if (k == K_FRAME)
			t.frames++;
		else if (k == K_OTHER)
			t.other++;
	}
	if (weak)
		tally_header(&t, false); /* the window's last complete line */
	judged = t.headers + t.frames + t.other;
	if (t.headers == 0)
		return t.perf_comment ? 40 : 0;
	if (t.frames > 0) {
		/* stacks: most judged lines must be headers or frames */
		if (t.other * 10 <= judged)
			return 90;
		return t.other * 3 <= judged && (t.frames >= t.headers || t.timed == t.headers) ? 70 : 0;
	}
	/* records without stacks (perf record without -g) */
	if (t.perf_comment)
		return 80;
	return t.headers >= 3 && t.timed == t.headers && t.other == 0 ? 30 : 0;
}

/* Shards (--shard K/N) start after an empty line: records are separated
 * by one, and a record never contains one. */
ssize_t fk_perf_sync(const unsigned char *buf, size_t len, int eof)
{
	for (size_t i = 0; i + 1 < len; i++) {
		const unsigned char *q = memchr(buf + i, '\n', len - 1 - i);
		if (!q)
			break;
		i = (size_t)(q - buf);
		if (buf[i + 1] == '\n')
			return (ssize_t)(i + 2);
		if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n')
			return (ssize_t)(i + 3);
	}
	return eof ? (ssize_t)len : 0;
}
