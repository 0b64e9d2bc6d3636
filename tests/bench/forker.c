// SPDX-License-Identifier: GPL-2.0
/*
 * forker N [LIB...]: dlopen each LIB, then fork N children that sleep until
 * killed; print their pids, one a line, then wait for stdin to close and kill
 * them. For tests/bench/sites.sh: many processes with as many executable
 * mappings as a real service has, at the cost of one address space (COW).
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pid_t *pids = calloc(n > 0 ? n : 1, sizeof(*pids));
	char c;

	for (int i = 2; i < argc; i++)
		if (!dlopen(argv[i], RTLD_NOW))
			fprintf(stderr, "forker: %s\n", dlerror());
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlive the bench */
			for (;;)
				pause();
		}
		if (pids[i] < 0) {
			perror("forker: fork");
			n = i;
			break;
		}
		printf("%d\n", (int)pids[i]);
	}
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	for (int i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	return 0;
}
