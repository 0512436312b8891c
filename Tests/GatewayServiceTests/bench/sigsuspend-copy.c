// valgrind 3.19 writes into the signal mask a program passes to sigsuspend (it removes its own
// signal from it); libdispatch's main thread passes a mask in read-only memory, and valgrind
// crashes. Preloaded under valgrind, this passes a copy.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
int sigsuspend(const sigset_t *mask) {
    static int (*next)(const sigset_t *);
    if (!next) next = (int (*)(const sigset_t *))dlsym(RTLD_NEXT, "sigsuspend");
    sigset_t copy = *mask;
    return next(&copy);
}
