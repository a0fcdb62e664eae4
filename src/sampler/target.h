/*
 * target.h - the process shimtop samples: one already running (-p), or
 * one it launches and holds before exec so sampling starts at its first
 * instruction.
 */
#ifndef SHIMTOP_TARGET_H
#define SHIMTOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define ST_MAX_TARGETS 1024		/* -p, -t and -u: processes or threads */

struct st_target {
	pid_t pid;
	bool launched;		/* we forked it, so we reap and stop it */
	int go_fd;		/* launched: write a byte to let it exec */
	int err_fd;		/* launched: exec's errno arrives here */
	char comm[64];
	char command[256];	/* launched: argv[0] as given */
	int exit_status;	/* launched: wait status once reaped, or -1 */
};

/* Checks that pid exists.  Returns 0, or -errno after a one-line error. */
int target_attach(struct st_target *t, pid_t pid);

/*
 * Forks a child that waits for target_release before exec'ing argv, its
 * stdout and stderr to out_fd (-1: shimtop's), its stdin /dev/null where
 * no_input.  Returns 0, or -errno after a one-line error.
 */
int target_launch(struct st_target *t, char *const argv[], int out_fd, bool no_input);

/*
 * Lets a launched child exec.  Returns 0, or -errno after a
 * one-line error if the command could not be run.
 */
int target_release(struct st_target *t);

/*
 * Ends a launched child and what it started, its process group of its
 * own (SIGTERM, then SIGKILL a second later), and reaps it.
 */
void target_stop(struct st_target *t);

/* Reaps a launched child that has exited; true once it has. */
bool target_reap(struct st_target *t);

bool target_exists(pid_t pid);

/* The process has exited (gone, or a zombie nobody reaped yet). */
bool target_gone(pid_t pid);

/*
 * Raises the soft limit on open files to the hard one: perf events take
 * one descriptor per thread, CPU and event.  Returns the new limit, or
 * -errno.
 */
int target_raise_fd_limit(void);

/* The thread ids under /proc/PID/task; -errno if the process is gone. */
int target_list_threads(pid_t pid, pid_t **tids, size_t *n);

/*
 * The process ids under /proc: every one (all) or those whose owner is
 * uid (shimtop too, as perf top shows perf); -errno if /proc is unreadable.
 */
int target_list_processes(bool all, uid_t uid, pid_t **pids, size_t *n);

/* The process a thread belongs to (its Tgid), or -errno (-ESRCH: none). */
pid_t target_thread_process(pid_t tid);

/* -u's user: a name or a number.  0, or -EINVAL after a one-line error. */
int target_resolve_user(const char *user, uid_t *uid);

/* Reads /proc/PID/comm into buf. */
void target_comm(pid_t pid, char *buf, size_t len);

/*
 * Where to find the bundled demo workload: beside this executable (a
 * build tree), else the install directory.
 */
const char *target_demo_path(void);

#endif
