/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mmap watch: every executable file mapping any process makes from now
 * on, as the kernel tells perf (PERF_RECORD_MMAP2 of a system-wide dummy
 * software event per CPU, what `perf record -a` uses to know which binary
 * an address belongs to). Issue 27: a copy of a probed binary that a
 * process started, or dlopen'ed, after the define is followed from here.
 *
 * The kernel emits the record from mmap() itself, after the mapping is
 * made, so /proc/PID/maps and map_files already show it when it is read;
 * nothing runs on any other syscall. poll() on the fds wakes only when a
 * ring is a quarter full: drain on a timer too (follow: every 100 ms). Needs CAP_PERFMON (or CAP_SYS_ADMIN,
 * or perf_event_paranoid -1). A ring that overflows reports how many
 * records it lost (pc_mmapwatch.lost): the caller must look again by a
 * sweep. CPUs brought online after the open are not watched.
 */
#ifndef _PC_MMAPWATCH_H
#define _PC_MMAPWATCH_H

#include <stdint.h>
#include <sys/types.h>

/* One executable file mapping. */
struct pc_mmap_rec {
	pid_t pid;		/* thread group, in our pid namespace */
	unsigned long start, end;	/* the mapping's range: map_files' START-END */
	dev_t dev;		/* the inode's superblock, as maps gives it */
	ino_t ino;
	uint64_t gen;		/* i_generation: tells a reused inode number apart */
	const char *path;	/* as the mapping process sees it: valid during the callback */
};

struct pc_mmapwatch {
	int n;			/* CPUs watched */
	int *fds;
	void **rings;
	size_t ring_bytes;	/* each ring's mapping: 1 + 2^k pages */
	uint64_t records;	/* MMAP2 records read */
	uint64_t lost;		/* records the kernel dropped (ring full) */
	char *copy;		/* a record that wraps the ring's end, copied */
	size_t copycap;
};

typedef void (*pc_mmap_fn)(const struct pc_mmap_rec *r, void *arg);

/*
 * Watch every online CPU with rings of @pages data pages (a power of 2).
 * 0, or -errno: -EACCES/-EPERM not privileged, -ENOSYS no perf events.
 */
int pc_mmapwatch_open(struct pc_mmapwatch *w, unsigned int pages);
/* Call @fn for each record waiting in every ring, oldest first per CPU. */
void pc_mmapwatch_drain(struct pc_mmapwatch *w, pc_mmap_fn fn, void *arg);
void pc_mmapwatch_close(struct pc_mmapwatch *w);

#endif /* _PC_MMAPWATCH_H */
