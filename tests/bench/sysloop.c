// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop MODE N [FILE]: N operations, prints "ns_per_op=X" (tests/bench/follow.sh).
 *   getppid   the null syscall
 *   open      open + close of FILE
 *   mmap      mmap of FILE's first page PROT_READ|PROT_EXEC + munmap: the one
 *             path the mmap watch (perf MMAP2) adds work to
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int op(const char *mode, const char *file, int fd)
{
	void *p;

	if (!strcmp(mode, "getppid"))
		return getppid() > 0 ? 0 : -1;
	if (!strcmp(mode, "open")) {
		fd = open(file, O_RDONLY);
		return fd < 0 ? -1 : close(fd);
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	return p == MAP_FAILED ? -1 : munmap(p, 4096);
}

int main(int argc, char **argv)
{
	const char *file = argc > 3 ? argv[3] : "/proc/self/exe";
	long n = argc > 2 ? atol(argv[2]) : 0;
	int fd = open(file, O_RDONLY);
	double t0;

	if (argc < 3 || n <= 0 || fd < 0) {
		fprintf(stderr, "usage: sysloop getppid|open|mmap N [FILE]\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (op(argv[1], file, fd))
			return perror(argv[1]), 1;
	printf("ns_per_op=%.1f\n", (now_ns() - t0) / n);
	return 0;
}
