/* bus_guard.c - SIGBUS inside a guarded mapping reads zeros instead. */
#include "sampler/bus_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define GUARDS 16

struct guard {
	_Atomic uintptr_t base;		/* 0: free; published last */
	size_t len;
	volatile sig_atomic_t *faulted;
};

static struct guard guards[GUARDS];
static struct sigaction previous;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	uintptr_t at = (uintptr_t)si->si_addr;

	for (int i = 0; i < GUARDS; i++) {
		uintptr_t base = atomic_load(&guards[i].base);

		if (!base || at - base >= guards[i].len)
			continue;
		/*
		 * Anonymous zero pages over the whole mapping; the load that
		 * faulted runs again and reads 0.  mmap is a plain system
		 * call on Linux, safe here though POSIX does not list it.
		 */
		mmap((void *)base, guards[i].len, PROT_READ,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		*guards[i].faulted = 1;
		return;
	}
	if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, context);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	/* Not ours: die of it as if nobody had caught it. */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &previous);
}

int bus_guard_add(const void *base, size_t len, volatile sig_atomic_t *faulted)
{
	int rc = -ENOSPC;

	pthread_once(&installed, install);
	pthread_mutex_lock(&lock);
	for (int i = 0; i < GUARDS; i++) {
		if (atomic_load(&guards[i].base))
			continue;
		guards[i].len = len;
		guards[i].faulted = faulted;
		atomic_store(&guards[i].base, (uintptr_t)base);
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

void bus_guard_remove(const void *base)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < GUARDS; i++)
		if (atomic_load(&guards[i].base) == (uintptr_t)base)
			atomic_store(&guards[i].base, 0);
	pthread_mutex_unlock(&lock);
}
