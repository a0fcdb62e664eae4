/* lazy_lib.c - a library opened on first use (see lazy_lib.h). */
#include "lazy_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t opening = PTHREAD_MUTEX_INITIALIZER;

bool lazy_lib_ready(struct lazy_lib *l)
{
	void *h;

	pthread_mutex_lock(&opening);
	if (l->state) {
		pthread_mutex_unlock(&opening);
		return l->state > 0;
	}
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	l->state = h ? 1 : -1;
	if (!h)
		snprintf(l->why, sizeof(l->why), "%s could not be loaded: install %s", l->soname,
			 l->package);
	for (size_t i = 0; h && i < l->n; i++) {
		*l->fns[i].at = dlsym(h, l->fns[i].name);
		if (!*l->fns[i].at) {
			snprintf(l->why, sizeof(l->why), "%s lacks %s: install %s", l->soname,
				 l->fns[i].name, l->package);
			l->state = -1;
		}
	}
	pthread_mutex_unlock(&opening);
	return l->state > 0;
}
