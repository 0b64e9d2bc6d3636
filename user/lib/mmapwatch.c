// SPDX-License-Identifier: GPL-2.0
/* The mmap watch: see mmapwatch.h. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mmapwatch.h"
#include "pc.h"

/* PERF_RECORD_MMAP2 without sample_id_all: include/uapi/linux/perf_event.h. */
struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

static int open_cpu(int cpu, unsigned int ring)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		/*
		 * Executable mappings only (mmap_data stays 0), in the MMAP2 form;
		 * .mmap too: the kernel counts only it, not mmap2, in nr_mmap_events,
		 * and emits no mmap record at all while that count is 0.
		 */
		.mmap = 1,
		.mmap2 = 1,
		/*
		 * A side-band record like MMAP2 wakes poll() by the byte
		 * watermark alone (wakeup_events counts samples only): a quarter
		 * of the ring, so that a burst of execs costs no wakeup each
		 * (a wakeup per record tripled an exec mmap's cost); the reader
		 * drains on a timer as well (pc_mmapwatch.h), which bounds latency.
		 */
		.watermark = 1,
		.wakeup_watermark = ring / 4,
	};
	int fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int pc_mmapwatch_open(struct pc_mmapwatch *w, unsigned int pages)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t psz = sysconf(_SC_PAGESIZE);
	int fd, ret = 0;

	memset(w, 0, sizeof(*w));
	if (ncpu < 1 || !pages || (pages & (pages - 1)))
		return -EINVAL;
	w->ring_bytes = (1 + pages) * psz;
	w->fds = calloc(ncpu, sizeof(*w->fds));
	w->rings = calloc(ncpu, sizeof(*w->rings));
	if (!w->fds || !w->rings)
		goto err_nomem;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		fd = open_cpu(cpu, w->ring_bytes - psz);
		if (fd == -ENODEV || fd == -EINVAL)
			continue;	/* offline, or not possible */
		if (fd < 0) {
			ret = fd;
			goto err_close;
		}
		w->rings[w->n] = mmap(NULL, w->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (w->rings[w->n] == MAP_FAILED) {
			ret = -errno;
			close(fd);
			goto err_close;
		}
		w->fds[w->n++] = fd;
	}
	if (w->n)
		return 0;
	ret = -ENODEV;
	goto err_close;
err_nomem:
	ret = -ENOMEM;
err_close:
	pc_mmapwatch_close(w);
	return ret;
}

static void deliver(struct pc_mmapwatch *w, const struct perf_event_header *h,
		    pc_mmap_fn fn, void *arg)
{
	const struct mmap2_body *b = (const void *)(h + 1);
	struct pc_mmap_rec r;
	size_t room = h->size - sizeof(*h) - sizeof(*b);

	if (h->type == PERF_RECORD_LOST) {
		if (h->size >= sizeof(*h) + 16)
			w->lost += ((const uint64_t *)(h + 1))[1];
		return;
	}
	if (h->type != PERF_RECORD_MMAP2 || h->size < sizeof(*h) + sizeof(*b))
		return;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
		return;		/* not asked for: the dev/ino form is what we key on */
	w->records++;
	if (!strnlen(b->filename, room) || strnlen(b->filename, room) == room)
		return;		/* no name, or not terminated inside the record */
	r = (struct pc_mmap_rec){
		.pid = b->pid, .start = b->addr, .end = b->addr + b->len,
		.dev = makedev(b->maj, b->min), .ino = b->ino, .gen = b->ino_generation,
		.path = b->filename,
	};
	if (r.ino)
		fn(&r, arg);
}

/* The record at @off of the ring's @size data bytes, copied if it wraps; NULL if bad. */
static const struct perf_event_header *record_at(struct pc_mmapwatch *w, const char *data,
						 uint64_t size, uint64_t off)
{
	const struct perf_event_header *h = (const void *)(data + off);
	struct perf_event_header hc;
	uint64_t first;

	if (off + sizeof(hc) <= size && off + h->size <= size)
		return h->size >= sizeof(hc) ? h : NULL;
	first = size - off;
	for (size_t i = 0; i < sizeof(hc); i++)
		((char *)&hc)[i] = data[(off + i) % size];
	if (hc.size < sizeof(hc) || hc.size > size)
		return NULL;
	if (hc.size > w->copycap) {
		char *c = realloc(w->copy, hc.size);

		if (!c)
			return NULL;
		w->copy = c;
		w->copycap = hc.size;
	}
	memcpy(w->copy, data + off, first < hc.size ? first : hc.size);
	if (first < hc.size)
		memcpy(w->copy + first, data, hc.size - first);
	return (const void *)w->copy;
}

static void drain_one(struct pc_mmapwatch *w, struct perf_event_mmap_page *pg,
		      pc_mmap_fn fn, void *arg)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t size = pg->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	const struct perf_event_header *h;

	while (tail < head) {
		h = record_at(w, data, size, tail % size);
		if (!h) {
			w->lost++;	/* cannot happen with a sane kernel: resync at the head */
			break;
		}
		deliver(w, h, fn, arg);
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

void pc_mmapwatch_drain(struct pc_mmapwatch *w, pc_mmap_fn fn, void *arg)
{
	for (int i = 0; i < w->n; i++)
		drain_one(w, w->rings[i], fn, arg);
}

void pc_mmapwatch_close(struct pc_mmapwatch *w)
{
	for (int i = 0; i < w->n; i++) {
		munmap(w->rings[i], w->ring_bytes);
		close(w->fds[i]);
	}
	free(w->fds);
	free(w->rings);
	free(w->copy);
	memset(w, 0, sizeof(*w));
}
