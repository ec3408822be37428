/* The --leak uprobe fixture's workload (leak-uprobe.txt): 8 allocations kept
 * by grow(), 64 malloc/free pairs by churn(), then 4 of the 8 freed.
 * Build: cc -O0 -g -fno-omit-frame-pointer mallocs.c; see tests/perf-pairing.sh. */
#include <stdlib.h>
static void *keep[8];
static void __attribute__((noinline)) grow(int i) { keep[i] = malloc(100 + 1000 * i); }
static void __attribute__((noinline)) churn(void) { for (int i = 0; i < 8; i++) free(malloc(50)); }
int main(void) { for (int i = 0; i < 8; i++) { grow(i); churn(); } for (int i = 0; i < 4; i++) free(keep[i]); return 0; }
