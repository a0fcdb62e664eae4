/*
 * lazy_lib.h - a library opened the first time one of its functions is
 * needed, not at every start: the dynamic loader's relocations of
 * libcapstone (77,000) and libpfm (41,000) were a third of an idle
 * session's CPU, annotated or not, PMU events or not.
 */
#ifndef SHIMTOP_LAZY_LIB_H
#define SHIMTOP_LAZY_LIB_H

#include <stdbool.h>
#include <stddef.h>

/* One function wanted: its name, and where its address goes. */
struct lazy_fn {
	const char *name;
	void **at;
};

/*
 * soname opened (once: later calls answer as the first did) and each of
 * fns[0..n) resolved; false, with why (one line, naming the library and
 * its Debian package) if the library or a function is missing.  Safe
 * from any thread.
 */
struct lazy_lib {
	const char *soname, *package;
	const struct lazy_fn *fns;
	size_t n;
	/* Filled by the first call: */
	int state;			/* 0 untried, 1 ready, -1 missing */
	char why[160];
};
bool lazy_lib_ready(struct lazy_lib *l);

#endif
