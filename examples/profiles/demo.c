/*
 * A tiny program for the flamekit Quick start: three threads with distinct,
 * stable CPU costs, so the flame graph has a known shape.
 *   parser thread:  parse_input -> tokenize (1 unit) -> classify (2 units)
 *   render thread:  render_frame -> draw_shapes (3 units) -> blend (1 unit)
 *   main thread:    compress -> hash_block (2 units)
 * Build: gcc -O1 -g -fno-omit-frame-pointer -pthread -o demo demo.c
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* Each leaf burns its own loop, so its self time is its cost.  Two tricks
 * keep every frame in the stacks perf unwinds through frame pointers: the
 * `sink++` after each call stops calls becoming jumps, and the call through
 * `tick` makes the burners non-leaf functions, which gcc gives a frame
 * pointer (it omits it in leaf functions, hiding their caller). */
static void nothing(void) {}
static void (*volatile tick)(void) = nothing;
#define BURN(units) do { \
		for (unsigned long i = 0; i < (units) * 200000ul; i++) \
			sink += i; \
		tick(); \
	} while (0)

__attribute__((noinline)) static void tokenize(void) { BURN(1); }
__attribute__((noinline)) static void classify(void) { BURN(2); }
__attribute__((noinline)) static void parse_input(void) { tokenize(); classify(); sink++; }
__attribute__((noinline)) static void draw_shapes(void) { BURN(3); }
__attribute__((noinline)) static void blend(void) { BURN(1); }
__attribute__((noinline)) static void render_frame(void) { draw_shapes(); blend(); sink++; }
__attribute__((noinline)) static void hash_block(void) { BURN(2); }
__attribute__((noinline)) static void compress(void) { hash_block(); sink++; }

static double seconds;

static int done(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9 > seconds;
}

static void *parser(void *p)
{
	struct timespec t0;
	(void)p;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done(&t0))
		parse_input();
	return NULL;
}

static void *renderer(void *p)
{
	struct timespec t0;
	(void)p;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done(&t0))
		render_frame();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	struct timespec t0;

	seconds = argc > 1 ? atof(argv[1]) : 2.0;
	pthread_create(&a, NULL, parser, NULL);
	pthread_create(&b, NULL, renderer, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!done(&t0))
		compress();
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
