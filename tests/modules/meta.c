/*
 * Test-only input plugin "meta": folded stacks with the metadata and
 * modules that real profilers give, so filters can be tested without a
 * perf capture.  Each line is
 *     COMM PID TID TIME_NS<TAB>frame[@module];frame[@module] COUNT
 * with "-" for a field the "profiler" did not record.
 */
#include <stdlib.h>
#include <string.h>

#include <flamekit/plugin.h>

static int parse(const struct fk_host *h, struct fk_input *in, struct fk_sink *sink, const void *opts)
{
	struct fk_frameref fr[256];
	const char *line;
	size_t len;
	int r;

	(void)opts;
	while ((r = h->getline(in, &line, &len)) > 0) {
		char buf[4096], *f[4], *stack, *tab, *sp, *p;
		struct fk_sample smp;
		size_t nf = 0;

		if (len == 0 || len >= sizeof buf)
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		tab = strchr(buf, '\t');
		sp = strrchr(buf, ' ');
		if (!tab || !sp || sp < tab)
			return h->input_error(in, h->input_lineno(in), "expected COMM PID TID TIME<TAB>STACK COUNT");
		*tab = '\0';
		*sp = '\0';
		stack = tab + 1;
		p = buf;
		for (int i = 0; i < 4; i++) {
			f[i] = p;
			p = strchr(p, ' ');
			if (p)
				*p++ = '\0';
			else if (i < 3)
				return h->input_error(in, h->input_lineno(in), "four fields before the tab");
		}
		memset(&smp, 0, sizeof smp);
		smp.weight[0] = strtod(sp + 1, NULL);
		if (strcmp(f[0], "-")) {
			smp.flags |= FK_SAMPLE_COMM;
			smp.comm = f[0];
			smp.comm_len = strlen(f[0]);
		}
		if (strcmp(f[1], "-")) {
			smp.flags |= FK_SAMPLE_PID;
			smp.pid = atoi(f[1]);
		}
		if (strcmp(f[2], "-")) {
			smp.flags |= FK_SAMPLE_TID;
			smp.tid = atoi(f[2]);
		}
		if (strcmp(f[3], "-")) {
			smp.flags |= FK_SAMPLE_TIME;
			smp.time_ns = strtoll(f[3], NULL, 10);
		}
		for (char *tok = strtok(stack, ";"); tok && nf < 256; tok = strtok(NULL, ";")) {
			char *at = strchr(tok, '@');
			memset(&fr[nf], 0, sizeof fr[nf]);
			fr[nf].name = tok;
			fr[nf].len = at ? (size_t)(at - tok) : strlen(tok);
			if (at) {
				fr[nf].module = at + 1;
				fr[nf].module_len = strlen(at + 1);
			}
			nf++;
		}
		smp.frames = fr;
		smp.nframes = nf;
		if ((r = h->push(sink, &smp, NULL)) < 0)
			return r;
	}
	return r < 0 ? r : 0;
}

static struct fk_input_plugin plugin = {
	.h = { .name = "meta", .version = "1.0", .description = "test input: stacks with metadata" },
	.parse = parse,
};

FLAMEKIT_REGISTER_INPUT(plugin)
