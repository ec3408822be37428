/* The --leak fixture's workload: pipes and eventfds made and closed, so
 * the kernel kmallocs and kfrees on the program's behalf; two pipes are
 * left open, for the kernel to free at exit.
 * Build: cc -O0 -g kmalloc.c */
#include <sys/eventfd.h>
#include <unistd.h>
int main(void)
{
	int keep[2][2];
	for (int i = 0; i < 4; i++) {
		int p[2], e = eventfd(0, 0);
		if (pipe(p) < 0)
			return 1;
		close(p[0]);
		close(p[1]);
		if (e >= 0)
			close(e);
	}
	for (int i = 0; i < 2; i++)
		if (pipe(keep[i]) < 0)
			return 1;
	return 0;
}
