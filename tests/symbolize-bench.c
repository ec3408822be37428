/* libfksym figures for bench/65-symbolize.sh: the time to load a DSO's
 * symbols (a new symbolizer each round) and lookups per second at
 * addresses spread over its text, plain and with --inline --srcline.
 * usage: symbolize-bench FILE [LOOKUPS] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "symbolize.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double run(const char *path, long n, int dwarf, double *load, long *resolved)
{
	struct fk_sym_config cfg = { .demangle = 1, .inline_frames = dwarf, .srcline = dwarf,
				     .buildid_dir = "/nonexistent" };
	struct fk_symbolizer *s = fk_symbolizer_new(&cfg, NULL);
	struct fk_sym_result r;
	struct fk_dso *d;
	uint64_t x = 88172645463325252ULL;
	double t0, t1;
	long i;

	if (!s)
		exit(1);
	t0 = now();
	d = fk_sym_dso(s, path, NULL, 0);
	fk_sym_lookup(d, 0, &r);
	t1 = now();
	*load = t1 - t0;
	*resolved = 0;
	for (i = 0; i < n; i++) {
		/* 4,096 distinct addresses in the first 1.5 MB, as a profile
		 * revisits a hot set: the DWARF cache answers after the first. */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		fk_sym_lookup(d, 0x1000 + (x % 4096) * 373, &r);
		*resolved += r.n > 0;
	}
	t0 = now() - t1;
	fk_symbolizer_free(s);
	return n / t0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 2000000, res;
	double load, best = 1e9, rate;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: symbolize-bench FILE [LOOKUPS]\n");
		return 2;
	}
	for (i = 0; i < 5; i++) {
		run(argv[1], 1, 0, &load, &res);
		if (load < best)
			best = load;
	}
	printf("%s: symbols loaded in %.2f ms (best of 5)\n", argv[1], best * 1e3);
	rate = run(argv[1], n, 0, &load, &res);
	printf("%s: %.1f M lookups/s (%ld of %ld resolved)\n", argv[1], rate / 1e6, res, n);
	rate = run(argv[1], n, 1, &load, &res);
	printf("%s: %.1f M lookups/s with --inline --srcline (first sight of each address included)\n",
	       argv[1], rate / 1e6);
	return 0;
}
