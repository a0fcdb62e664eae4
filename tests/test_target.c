/*
 * test_target.c - telling a target that exited from a shimtop that ran
 * out of descriptors: with every descriptor taken, a live process is not
 * "gone" (it once ended sessions early with "target exited"); a missing
 * one is.  The soft limit on open files is raised to the hard one.
 */
#include "check.h"
#include "sampler/target.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

int main(void)
{
	struct rlimit rl, now;
	int fds[4096], n = 0, limit;

	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	/* Raised to the hard limit. */
	now = rl;
	now.rlim_cur = 64 < rl.rlim_max ? 64 : rl.rlim_max;
	CHECK(setrlimit(RLIMIT_NOFILE, &now) == 0);
	limit = target_raise_fd_limit();
	CHECK(getrlimit(RLIMIT_NOFILE, &now) == 0);
	CHECK(now.rlim_cur == rl.rlim_max);
	CHECK(limit > 0 && (rlim_t)limit == (now.rlim_cur > 0x7fffffff ? 0x7fffffff : now.rlim_cur));

	/* Out of descriptors: 128 at most, then take all of them. */
	now.rlim_cur = 128;
	CHECK(setrlimit(RLIMIT_NOFILE, &now) == 0);
	while (n < 4096) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			CHECK(errno == EMFILE);
			break;
		}
		fds[n++] = fd;
	}
	CHECK(n > 0 && n < 128);
	CHECK(!target_gone(getpid()));
	CHECK(!target_gone(getppid()));
	CHECK(target_gone(999999999));
	while (n > 0)
		close(fds[--n]);
	CHECK(!target_gone(getpid()));
	CHECK(target_gone(999999999));
	return check_done("test_target");
}
