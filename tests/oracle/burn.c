#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_a(void) { for (int i = 0; i < 20000; i++) sink += i * 7; }
__attribute__((noinline)) static void leaf_b(void) { for (int i = 0; i < 40000; i++) sink ^= i * 13; }
__attribute__((noinline)) static void mid(int k) { if (k & 1) leaf_a(); else leaf_b(); }
__attribute__((noinline)) static void top(void) { for (int k = 0; k < 64; k++) mid(k); }
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		top();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("%lu\n", sink);
	return 0;
}
