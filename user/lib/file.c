// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the files the user or the cache directory names (pc.h): no FIFO,
 * device or symlink to /dev/zero may hang the CLI or make it grow without
 * bound. Kept apart from util.c's messages so the fuzzers can link it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pc.h"

int pc_open_regular(const char *path, unsigned int flags, struct stat *st)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd, ret;

	if (flags & PC_RD_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		ret = -errno;
		goto fail;
	}
	if (!S_ISREG(st->st_mode)) {
		ret = S_ISDIR(st->st_mode) ? -EISDIR : -ENODEV;
		goto fail;
	}
	/* Regular files never block; plain reads from here on. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		ret = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return ret;
}

int pc_read_fd(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL, *nb;
	ssize_t r;

	for (;;) {
		if (cap - n < 2) {
			/* never more than @max + 2 bytes: one past the cap tells it is exceeded */
			cap = cap ? 2 * cap : 65536;
			if (cap > max + 2)
				cap = max + 2;
			nb = realloc(b, cap);
			if (!nb)
				goto nomem;
			b = nb;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return -errno;
		}
		if (!r)
			break;
		n += r;
		/* A file that grows while read (or /dev/zero) stops here. */
		if (n > max) {
			free(b);
			return -EFBIG;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
nomem:
	free(b);
	return -ENOMEM;
}

int pc_read_file(const char *path, unsigned int flags, size_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd = pc_open_regular(path, flags, &st);
	int ret;

	if (fd < 0)
		return fd;
	ret = (uint64_t)st.st_size > max ? -EFBIG : pc_read_fd(fd, max, buf, len);
	close(fd);
	return ret;
}

FILE *pc_file_tmp(const char *path, char *tmp, size_t len)
{
	FILE *f;
	int fd, err;

	if ((size_t)snprintf(tmp, len, "%s.tmpXXXXXX", path) >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
	}
	return f;
}

int pc_file_commit(FILE *f, const char *tmp, const char *path, mode_t mode)
{
	int ret = 0;

	if (fflush(f) || (mode && fchmod(fileno(f), mode)) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

const char *pc_file_strerror(int err)
{
	switch (err) {
	case -ENODEV: return "not a regular file";
	case -ELOOP: return "is a symbolic link";
	case -EISDIR: return "is a directory";
	case -EFBIG: return "file too large";
	default: return strerror(-err);
	}
}

char *pc_next_line(char **pos, char *end, bool *newline)
{
	char *line = *pos, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', end - line);
	*newline = nl;
	if (!nl)
		nl = end;	/* pc_read_fd() left a NUL there */
	*nl = '\0';
	*pos = nl + 1;
	return line;
}

size_t pc_count_lines(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

bool pc_same_content(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}
