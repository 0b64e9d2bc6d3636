/* SPDX-License-Identifier: GPL-2.0 */
/* Loading probecache.ko (libkmod), shared by load and preload; trace only checks it is loaded. */
#ifndef _PC_KLOAD_H
#define _PC_KLOAD_H

#include <stdbool.h>

#define PC_MODNAME	"probecache"	/* the module's name, for libkmod */

/* Is the module's control file present under pc_sysfs_dir()? */
bool pc_module_loaded(void);

/*
 * Load probecache.ko from @path (NULL: the installed one, via modules.dep)
 * with @options ("max_probes=100 max_args=8", may be NULL). Explains every
 * failure (missing, vermagic, lockdown, no CONFIG_UPROBES) on stderr.
 * Returns 0, -EEXIST if it was already loaded (not an error for callers
 * that only need it loaded), or -errno.
 */
int pc_module_load(const char *path, const char *options);

#endif /* _PC_KLOAD_H */
