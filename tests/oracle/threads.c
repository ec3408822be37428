/* A multi-threaded program to dump (gdb, eu-stack): three named threads
 * spinning or sleeping in known functions, the main thread joining them.
 * It stops by itself after argv[1] seconds. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile unsigned long sink;

__attribute__((noinline)) static void spin_leaf(void)
{
	while (!stop)
		sink++;
}

__attribute__((noinline)) static void spin_mid(void)
{
	spin_leaf();
}

__attribute__((noinline)) static void nap(void)
{
	while (!stop)
		usleep(1000);
}

static void *spinner(void *arg)
{
	(void)arg;
	spin_mid();
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	nap();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[3];
	int secs = argc > 1 ? atoi(argv[1]) : 5;

	pthread_create(&t[0], NULL, spinner, NULL);
	pthread_setname_np(t[0], "spin-1");
	pthread_create(&t[1], NULL, spinner, NULL);
	pthread_setname_np(t[1], "spin-2");
	pthread_create(&t[2], NULL, sleeper, NULL);
	pthread_setname_np(t[2], "sleeper");
	sleep((unsigned)secs);
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
