/* A small program for callgrind: shared callees reached by several paths
 * (leaf from a, b and mid), so that the call paths must be rebuilt. */
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i * 7u;
}

__attribute__((noinline)) static void mid(int n)
{
	leaf(n * 3);
	for (int i = 0; i < n; i++)
		sink ^= (unsigned long)i;
}

__attribute__((noinline)) static void a(int n)
{
	leaf(n);
	mid(n);
}

__attribute__((noinline)) static void b(int n)
{
	for (int i = 0; i < 3; i++)
		leaf(n * 2);
	mid(n / 2);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	a(n);
	b(n);
	a(n / 4);
	printf("%lu\n", sink);
	return 0;
}
