// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for tests/hostile: cuts the file $PC_SHRINK to 4 KiB right
 * after the $PC_SHRINK_AT-th fstat() of it (default 2), i.e. after a reader
 * has sized (and maybe mapped) it and before it has read it all. A
 * copy+truncate race does this about one run in 40; this does it every time.
 * A reader through mmap then faults past the new end (SIGBUS); a reader
 * through pread sees short reads.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int nstat;

static int is_target(int fd)
{
	const char *p = getenv("PC_SHRINK");
	struct stat a, b;

	/* raw syscalls: the shim must not count its own calls */
	return p && fd >= 0 && !syscall(SYS_fstat, fd, &a) && !syscall(SYS_stat, p, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void maybe_shrink(int fd)
{
	const char *at = getenv("PC_SHRINK_AT");

	if (is_target(fd) && ++nstat == (at ? atoi(at) : 2) && truncate(getenv("PC_SHRINK"), 4096))
		abort();
}

int fstat(int fd, struct stat *st)
{
	int ret = syscall(SYS_fstat, fd, st);

	maybe_shrink(fd);
	return ret;
}

int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}
