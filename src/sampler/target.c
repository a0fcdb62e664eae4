/* target.c - attaching to and launching the sampled process. */
#include "sampler/target.h"
#include "text_safe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool target_exists(pid_t pid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	return stat(path, &st) == 0;
}

bool target_gone(pid_t pid)
{
	char path[64], *stat, *paren;
	bool gone;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = st_read_file(path, NULL);
	/*
	 * Only "no such file" means gone: out of descriptors (EMFILE) or
	 * memory says nothing about the target, so ask kill() instead.
	 */
	if (!stat && errno != ENOENT && errno != ESRCH)
		return kill(pid, 0) < 0 && errno == ESRCH;
	if (!stat)
		return true;
	/* The state follows the last ')': the command name may hold one. */
	paren = strrchr(stat, ')');
	gone = !paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
	free(stat);
	return gone;
}

void target_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], *s;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	s = st_read_file(path, NULL);
	snprintf(buf, len, "%s", s ? s : "?");
	buf[strcspn(buf, "\n")] = '\0';
	st_text_safe(buf);
	free(s);
}

int target_attach(struct st_target *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->go_fd = t->err_fd = -1;
	t->exit_status = -1;
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		st_error("no process with id %d; check the id with ps or pgrep", (int)pid);
		return -ESRCH;
	}
	if (!target_exists(pid)) {
		st_error("process %d is not visible in /proc; is /proc mounted "
			 "from this PID namespace?", (int)pid);
		return -ENOENT;
	}
	target_comm(pid, t->comm, sizeof(t->comm));
	/* proc(5)'s flags, field 9: PF_KTHREAD.  It would run with no samples, silently. */
	if (st_proc_stat_field(pid, 9) > 0 && (st_proc_stat_field(pid, 9) & 0x00200000)) {
		st_error("process %d (%s) is a kernel thread: it has no program of its own "
			 "to sample; shimtop -a shows the kernel's work, its threads' included",
			 (int)pid, t->comm);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * In the child: its output to out_fd; its input nothing where the UI
 * reads the terminal (no_input), else shimtop's own (a batch run's
 * `shimtop -b -- sqlite3 t.db < work.sql` gives the query its input).
 */
static bool take_output(int out_fd, bool no_input)
{
	int null;

	if (no_input) {
		null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, STDIN_FILENO) != STDIN_FILENO)
			return false;
	}
	return out_fd < 0 || (dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO &&
			      dup2(out_fd, STDERR_FILENO) == STDERR_FILENO);
}

int target_launch(struct st_target *t, char *const argv[], int out_fd, bool no_input)
{
	int go[2], err[2];
	pid_t pid, parent = getpid();

	memset(t, 0, sizeof(*t));
	t->exit_status = -1;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;

		st_error("cannot create a pipe: %s", strerror(e));
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		st_error("cannot fork: %s", strerror(e));
		return -e;
	}
	if (pid == 0) {
		char byte;
		int e;

		close(go[1]);
		close(err[0]);
		/*
		 * Never outlive shimtop, even killed by SIGKILL: the kernel
		 * kills us when the forking thread (main, which lives until
		 * exit) is gone.  If it went before prctl, no signal comes.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		/*
		 * A process group of its own, as timeout(1) runs its command:
		 * what the command starts is ended with it (target_stop).
		 */
		if (setpgid(0, 0) < 0 || !take_output(out_fd, no_input))
			_exit(127);
		/* Wait until the events are open, so none of it is missed. */
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	(void)setpgid(pid, pid);	/* here too: whichever runs first */
	t->pid = pid;
	t->launched = true;
	t->go_fd = go[1];
	t->err_fd = err[0];
	snprintf(t->comm, sizeof(t->comm), "%s", st_basename(argv[0]));
	snprintf(t->command, sizeof(t->command), "%s", argv[0]);
	return 0;
}

int target_release(struct st_target *t)
{
	char byte = 1;
	int e = 0;
	ssize_t n;

	if (write(t->go_fd, &byte, 1) != 1) {
		st_error("the launched command died before it could start");
		return -ECHILD;
	}
	close(t->go_fd);
	t->go_fd = -1;
	/* EOF (exec closed the CLOEXEC pipe) means exec worked. */
	do
		n = read(t->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(t->err_fd);
	t->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		st_error("cannot run '%s': %s; check the command name and PATH",
			 t->command, strerror(e));
		waitpid(t->pid, &t->exit_status, 0);
		/* Not -EINVAL even if exec said so: that would read as usage. */
		return e == EINVAL ? -ENOEXEC : -e;
	}
	return 0;
}

bool target_reap(struct st_target *t)
{
	int status;

	if (!t->launched)
		return !target_exists(t->pid);
	if (t->exit_status >= 0)
		return true;
	if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
		t->exit_status = status;
		return true;
	}
	return false;
}

/* Whether the command or anything left in its process group still runs. */
static bool group_runs(struct st_target *t)
{
	return !target_reap(t) || kill(-t->pid, 0) == 0;
}

void target_stop(struct st_target *t)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };

	if (!t->launched || !group_runs(t))
		return;
	/*
	 * The whole group, even when the command itself has ended: its
	 * children (sleep &) would outlive shimtop.  Its id is not taken by
	 * another group while one of it lives.
	 */
	kill(-t->pid, SIGTERM);
	kill(-t->pid, SIGCONT);	/* one stopped (a terminal read) takes it too */
	for (int i = 0; i < 100 && group_runs(t); i++)
		nanosleep(&pause, NULL);
	if (group_runs(t)) {
		kill(-t->pid, SIGKILL);
		if (t->exit_status < 0)
			waitpid(t->pid, &t->exit_status, 0);
	}
}

int target_list_threads(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	*n = 0;
	*tids = NULL;
	ST_GROW(*tids, cap, 16);
	while ((de = readdir(d))) {
		long tid = strtol(de->d_name, NULL, 10);

		if (tid <= 0)
			continue;
		ST_GROW(*tids, cap, *n + 1);
		(*tids)[(*n)++] = (pid_t)tid;
	}
	closedir(d);
	return 0;
}

int target_list_processes(bool all, uid_t uid, pid_t **pids, size_t *n)
{
	struct dirent *de;
	size_t cap = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return -errno;
	*n = 0;
	*pids = NULL;
	ST_GROW(*pids, cap, 16);
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct stat st;

		if (pid <= 0 || *end)
			continue;
		/* The directory's owner is the process's effective uid. */
		if (!all && (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != uid))
			continue;
		ST_GROW(*pids, cap, *n + 1);
		(*pids)[(*n)++] = (pid_t)pid;
	}
	closedir(d);
	return 0;
}

pid_t target_thread_process(pid_t tid)
{
	char path[64], *status, *tgid;
	long pid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	status = st_read_file(path, NULL);
	if (!status)
		return -ESRCH;
	tgid = strstr(status, "\nTgid:");
	pid = tgid ? strtol(tgid + 6, NULL, 10) : 0;
	free(status);
	return pid > 0 ? (pid_t)pid : -ESRCH;
}

int target_resolve_user(const char *user, uid_t *uid)
{
	struct passwd *pw = getpwnam(user);
	char *end;
	unsigned long v;

	if (pw) {
		*uid = pw->pw_uid;
		return 0;
	}
	errno = 0;
	v = strtoul(user, &end, 10);
	if (!errno && end != user && !*end && user[0] != '-' && v < 0xffffffffu) {
		*uid = (uid_t)v;
		return 0;
	}
	st_error("-u: no user '%s' (give a name from /etc/passwd or a uid); "
		 "see shimtop --help", user);
	return -EINVAL;
}

const char *target_demo_path(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 32);

	if (n > 0) {
		char *slash;

		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "shimtop-demo");
			if (access(path, X_OK) == 0)
				return path;
		}
	}
	snprintf(path, sizeof(path), "%s/shimtop-demo", SHIMTOP_BINDIR);
	return path;
}

int target_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			return -errno;
	}
	return (int)(rl.rlim_cur > INT_MAX ? INT_MAX : rl.rlim_cur);
}
