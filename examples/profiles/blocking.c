/*
 * blocking: a program whose threads spend their time in different places,
 * on and off the CPU, for the hot/cold example (conf/hotcold-perf.yaml).
 *   crunch   - pure CPU work
 *   doze     - sleeps in short naps
 *   listen   - waits on a pipe that `talk` feeds after each fsync
 *   talk     - writes a byte, fsyncs it, then pokes the pipe
 * Build: gcc -O1 -g -fno-omit-frame-pointer -pthread -o blocking blocking.c
 * Run:   ./blocking SECONDS
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static volatile unsigned long acc;

__attribute__((noinline)) static void crunch_block(void)
{
	for (volatile int i = 0; i < 1000000; i++)
		acc += (unsigned long)i * 7;
}

__attribute__((noinline)) static void *crunch(void *arg)
{
	for (;;)
		crunch_block();
	return arg;
}

__attribute__((noinline)) static void take_nap(void)
{
	struct timespec ts = { 0, 3 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void *doze(void *arg)
{
	for (;;)
		take_nap();
	return arg;
}

__attribute__((noinline)) static void await_byte(void)
{
	char c;
	if (read(pipefd[0], &c, 1) < 0)
		exit(1);
}

__attribute__((noinline)) static void *listen_pipe(void *arg)
{
	for (;;)
		await_byte();
	return arg;
}

__attribute__((noinline)) static void flush_byte(int fd)
{
	if (write(fd, "x", 1) < 0)
		exit(1);
	fsync(fd);
}

__attribute__((noinline)) static void *talk(void *arg)
{
	int fd = open("blocking.out", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	for (;;) {
		flush_byte(fd);
		if (write(pipefd[1], "y", 1) < 0)
			exit(1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = { crunch, doze, listen_pipe, talk };
	pthread_t t[4];

	if (pipe(pipefd))
		return 1;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, fn[i], NULL);
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 2);
	unlink("blocking.out");
	return 0;
}
