// SPDX-License-Identifier: GPL-2.0-only
/* Running a program (no shell) and waiting for it. */
#include "shared/proc.h"
#include "shared/signals.h"
#include "shared/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_argv(char *const argv[], struct buf *out)
{
	int pfd[2] = { -1, -1 };
	int status;
	pid_t pid;

	if (out && pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid > 0)
		setpgid(pid, pid);
	if (pid < 0) {
		int e = errno;

		if (out) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -e;
	}
	if (pid == 0) {
		setpgid(0, 0); /* a stop of ablab is forwarded to its whole group below */
		signal(SIGPIPE, SIG_DFL); /* ignored by ablab; an ignored signal stays so */
		if (out)
			dup2(pfd[1], 1);
		execvp(argv[0], argv);
		fprintf(stderr, "ablab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		char chunk[4096];
		ssize_t n;

		close(pfd[1]);
		while ((n = read(pfd[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0) {
				if (errno != EINTR)
					break;
				if (stop_requested)
					kill(-pid, SIGTERM);
				continue;
			}
			buf_append(out, chunk, (size_t)n);
		}
		close(pfd[0]);
	}
	if (stop_requested)
		kill(-pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (stop_requested)
			kill(-pid, SIGTERM);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
