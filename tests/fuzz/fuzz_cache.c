// SPDX-License-Identifier: GPL-2.0
/*
 * Cache files are read back from disk: any bytes must be refused cleanly or
 * load into a binary that stores and reloads to the same thing.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../user/lib/cache.h"
#include "../../user/lib/pc.h"

/* util.c's message helpers, silenced: corrupt inputs are the common case here */
int pc_verbose;
const char *pc_prog = "fuzz_cache";
void pc_err(const char *fmt, ...) { (void)fmt; }
void pc_warn(const char *fmt, ...) { (void)fmt; }
void pc_debug(const char *fmt, ...) { (void)fmt; }
void pc_info(const char *fmt, ...) { (void)fmt; }

#define BID "abcdef0123456789"

static char dir[64] = "/tmp/pc-fuzz-cache.XXXXXX", sub[80], file[96], lock[80];

static void cleanup(void)
{
	unlink(file);
	unlink(lock);
	rmdir(sub);
	rmdir(dir);
}

static void setup(void)
{
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	snprintf(lock, sizeof(lock), "%s/.lock", dir);
	pc_cache_set_dir(dir);
	snprintf(sub, sizeof(sub), "%s/ab", dir);
	mkdir(sub, 0755);
	snprintf(file, sizeof(file), "%s/ab/cdef0123456789.probes", dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_binary *b = NULL, *again = NULL;
	FILE *f;

	if (!file[0])
		setup();
	f = fopen(file, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (pc_cache_load(BID, &b))
		return 0;
	/* what loads must be storable, and read back the same */
	if (pc_cache_store(b) || pc_cache_load(BID, &again))
		abort();
	if (again->npaths != b->npaths || again->nentries != b->nentries)
		abort();
	for (size_t i = 0; i < b->nentries; i++)
		if (strcmp(again->entries[i].event, b->entries[i].event) ||
		    strcmp(again->entries[i].args, b->entries[i].args) ||
		    again->entries[i].offset != b->entries[i].offset)
			abort();
	pc_binary_free(b);
	pc_binary_free(again);
	return 0;
}
