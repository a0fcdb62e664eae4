/*
 * variable_signal.h - software signals of unmodified programs (--signal
 * NAME): a global variable found by name in the ELF symbol tables of the
 * process's executable and libraries (libelf), placed with the load bias
 * from /proc/PID/maps, and read with process_vm_readv.
 */
#ifndef SHIMTOP_VARIABLE_SIGNAL_H
#define SHIMTOP_VARIABLE_SIGNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct variable_signal {
	char name[64];
	bool is_tag;		/* "NAME:tag": a value, not a counter */
	uint64_t address;	/* in the target */
	size_t size;		/* 1, 2, 4 or 8 bytes */
	char module[PATH_MAX];	/* the file that defines it, whole */
};

/*
 * Parses spec ("NAME" or "NAME:tag") into v->name and v->is_tag;
 * -EINVAL with a message if malformed.
 */
int variable_signal_parse(const char *spec, struct variable_signal *v,
			  char *err, size_t errlen);

/*
 * Finds v->name in pid and fills address, size and module.  Refuses a
 * name that is not found, not a data object, or larger than 8 bytes:
 * -ENOENT (-ESRCH: the process is gone) with a one-line message in err.
 */
int variable_signal_resolve(pid_t pid, struct variable_signal *v, char *err,
			    size_t errlen);

#endif
