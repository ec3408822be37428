/*
 * Input plugin "stap": SystemTap print_stack()/print_ustack() output as
 * aggregated by scripts such as sample-bt, as stackcollapse-stap.pl reads
 * it.  A record is a run of frame lines, leaf first, ended by a line that
 * holds only the count:
 *
 *      0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]
 *      0xffffffff81013236 : cpu_idle+0xb6/0x110 [kernel]
 *     	2404
 *
 * A frame keeps its symbol: the address before " : " goes, and so does a
 * "+0xOFF/0xSIZE [module]" tail.  A frame without an offset keeps its
 * " [module]" suffix, space included, as the Perl script does.
 *
 * Unlike stackcollapse-stap.pl, '%' in a name is kept as is (the script
 * printf's the stack), and only a real "+0x..." offset is stripped: a '+'
 * inside a module path such as [/usr/lib64/libstdc++.so.6] is left alone.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

#include "../common/probe.h"
#include "../common/stack.h"

#include "../common/count_sync.h"

/* One frame of the record being read, in arrival (leaf first) order. */

/* Push the record (frames stored leaf first) root first. */

/* Length of "0x<hex> : " at s, 0 when absent. */
static size_t addr_prefix(const char *s, size_t n)
{
	size_t i = 2;

	if (n < 6 || s[0] != '0' || s[1] != 'x')
		return 0;
	while (i < n && is_hex(s[i]))
		i++;
	if (i == 2 || n - i < 3 || memcmp(s + i, " : ", 3) != 0)
		return 0;
	return i + 3;
}

/* Is s[0..n) "+0x<hex>" or "+0x<hex>/0x<hex>"? */
static bool offset_tail(const char *s, size_t n)
{
	size_t i = 3;

	if (n < 4 || s[0] != '+' || s[1] != '0' || s[2] != 'x')
		return false;
	while (i < n && is_hex(s[i]))
		i++;
	if (i == 3)
		return false;
	if (i == n)
		return true;
	if (s[i] != '/' || n - i < 4 || s[i + 1] != '0' || s[i + 2] != 'x')
		return false;
	for (i += 3; i < n; i++)
		if (!is_hex(s[i]))
			return false;
	return s[n - 1] != 'x';
}

/* The frame's name: symbol only when it has an offset, else the whole text. */
static size_t frame_name(const char *s, size_t n)
{
	size_t m = n, plus;

	/* a " [module]" suffix */
	if (m > 0 && s[m - 1] == ']') {
		for (size_t i = m - 1; i > 0; i--)
			if (s[i] == '[') {
				if (s[i - 1] == ' ')
					m = i - 1;
				break;
			}
	}
	for (plus = m; plus > 0 && s[plus - 1] != '+'; plus--)
		;
	if (plus > 0 && offset_tail(s + plus - 1, m - plus + 1))
		return plus - 1;
	return n;
}

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *op)
{
	struct stack s = { .h = h };
	const char *line;
	size_t len;
	int r, rc = 0;

	(void)op;
	while ((r = h->getline(in, &line, &len)) > 0) {
		uint64_t ln = h->input_lineno(in);
		int cl;
		size_t i = 0, a;

		if ((cl = stack_count_line(&s, in, sink, line, len, ln)) < 0) {
			rc = cl;
			goto out;
		}
		if (cl > 0)
			continue;
		while (i < len && is_space(line[i]))
			i++;
		if (i == len)
			continue;
		line += i;
		len -= i;
		while (len > 0 && is_space(line[len - 1]))
			len--;
		a = addr_prefix(line, len);
		line += a;
		len -= a;
		len = frame_name(line, len);
		rc = len ? stack_add(&s, line, len, FK_ANNOT_NONE, ln)
		         : stack_add(&s, "-", 1, FK_ANNOT_NONE, ln);
		if (rc < 0)
			goto out;
	}
out:
	return stack_count_end(&s, in, r, rc);
}

/* Detection: " 0xADDR : symbol" frame lines and lone counts, nothing else. */
static int probe(const unsigned char *buf, size_t len)
{
	struct probe_window win = { buf, len, 0, 0 };
	const char *s;
	size_t n, frames = 0, counts = 0, other = 0;

	while (probe_line(&win, &s, &n)) {
		size_t k = 0;
		double c;
		if (count_line(s, n, &c) != 0) {
			counts++;
			continue;
		}
		if (probe_ignorable(s, n))
			continue;
		while (k < n && is_space(s[k]))
			k++;
		if (addr_prefix(s + k, n - k) && !memchr(s + k, '\0', n - k))
			frames++;
		else
			other++;
	}
	if (frames > 0 && counts > 0)
		return probe_verdict(90, frames + counts, other);
	if (frames > 0 && counts == 0)
		return probe_verdict(50, frames, other); /* the start of a stack cut by the window */
	return 0;
}

static struct fk_input_plugin plugin = {
	.h = {
		.name = "stap",
		.version = "1.0",
		.description = "SystemTap print_[u]stack() aggregations",
	},
	.probe = probe,
	.sync = count_sync,
	.parse = parse,
	/* a FlameGraph format: names as the stackcollapse script leaves them */
	.demangle = FK_DEMANGLE_NO,
};

FLAMEKIT_REGISTER_INPUT(plugin)
