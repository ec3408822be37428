#define _GNU_SOURCE /* pthread_setname_np */
/* The --wakeups fixture's workload: a writer thread feeds a reader thread
 * through a pipe, a byte every 2 ms, so the reader blocks in read() and is
 * woken by the writer's write().  Build: cc -O0 -g -pthread pipepair.c */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
static int fds[2];
static void nap(long ms) { struct timespec t = { ms / 1000, (ms % 1000) * 1000000L }; nanosleep(&t, 0); }
static void __attribute__((noinline)) writer_send(char c) { (void)!write(fds[1], &c, 1); }
static void *writer(void *a) { (void)a; for (int i = 0; i < 20; i++) { nap(2); writer_send('x'); } close(fds[1]); return 0; }
static void __attribute__((noinline)) reader_wait(char *c) { (void)!read(fds[0], c, 1); }
static void *reader(void *a) { char c = 0; (void)a; for (int i = 0; i < 20; i++) reader_wait(&c); return 0; }
int main(void)
{
	pthread_t r, w;
	if (pipe(fds) < 0)
		return 1;
	pthread_create(&r, 0, reader, 0);
	pthread_setname_np(r, "reader");
	pthread_create(&w, 0, writer, 0);
	pthread_setname_np(w, "writer");
	pthread_join(w, 0);
	pthread_join(r, 0);
	return 0;
}
