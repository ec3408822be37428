/* The workload of tests/data/perf/weights-*.txt (--weight-field and
 * --series-by-event): CPU time and page faults (`weights spin`), or pipes
 * and files for kernel allocations (`weights alloc`).  Captured as root:
 *   cc -O1 -g -fno-omit-frame-pointer -o weights weights.c
 *   perf record -e cpu-clock/freq=1000,name=cpu-clock/ \
 *       -e page-faults/period=64,name=page-faults/ -g -o s.data ./weights spin
 *   perf script -i s.data > weights-series.txt
 *   perf record -e kmem:kmalloc -g -o k.data ./weights alloc
 *   perf script -i k.data > weights-kmalloc.txt
 *   perf record -e syscalls:sys_enter_mmap -g -o m.data ./weights spin
 *   perf script -i m.data > weights-mmap.txt
 * (A page fault every 64th, named plainly, so that both series have
 * enough records; a plain `-e cpu-clock,page-faults` works the same.) */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile unsigned long sink;

/* CPU only: no page touched */
static __attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}

/* a page fault per page: fresh anonymous memory each round */
static __attribute__((noinline)) void touch(size_t pages)
{
	char *p = mmap(0, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = (char)i;
	munmap(p, pages * 4096);
}

static __attribute__((noinline)) void pipes(int n)
{
	for (int i = 0; i < n; i++) {
		int fd[2];
		if (pipe(fd) == 0) {
			(void)!write(fd[1], "x", 1);
			close(fd[0]);
			close(fd[1]);
		}
	}
}

static __attribute__((noinline)) void files(int n)
{
	for (int i = 0; i < n; i++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "alloc") == 0) {
		pipes(4);
		files(4);
		return 0;
	}
	for (int r = 0; r < 6; r++) {
		spin(2000000);
		touch(512);
	}
	return 0;
}
