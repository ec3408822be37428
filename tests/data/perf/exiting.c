#include <pthread.h>
#include <unistd.h>
#include <time.h>
static void nap(long ms){ struct timespec t={ms/1000,(ms%1000)*1000000L}; nanosleep(&t,0); }
static void *napper(void *a){ (void)a; nap(3); nap(2); return 0; }
int main(void){ for(int i=0;i<3;i++){ pthread_t t; pthread_create(&t,0,napper,0); pthread_join(t,0);} nap(2); return 0; }
