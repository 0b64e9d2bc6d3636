// SPDX-License-Identifier: GPL-2.0
/*
 * probecache.ko: verified uprobes behind /sys/kernel/probecache.
 * A uprobe is only armed on, and only written into, a file whose build-id
 * is the one its offset was computed for.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "pc.h"

unsigned int pc_max_probes = 16384;
module_param_named(max_probes, pc_max_probes, uint, 0444);
MODULE_PARM_DESC(max_probes, "Most probes registered at once (default 16384)");

unsigned int pc_max_args = 16;
module_param_named(max_args, pc_max_args, uint, 0444);
MODULE_PARM_DESC(max_args, "Most fetch args per probe, <= 16 (default 16)");

unsigned int pc_max_line = PROBECACHE_LINE_MAX - 1;
module_param_named(max_line, pc_max_line, uint, 0444);
MODULE_PARM_DESC(max_line, "Longest control line in bytes without its newline, < PAGE_SIZE (default 4095)");

unsigned int pc_max_sites_per_owner = 16;
module_param_named(max_sites_per_owner, pc_max_sites_per_owner, uint, 0644);
MODULE_PARM_DESC(max_sites_per_owner, "Most sites of one probe in files of one owner other than root (default 16)");

bool pc_follow_remote;
module_param_named(follow_remote, pc_follow_remote, bool, 0644);
MODULE_PARM_DESC(follow_remote, "Accept sites on FUSE and network filesystems, whose server can stall their reads (default: no)");

bool pc_public_probes;
module_param_named(public_probes, pc_public_probes, bool, 0444);
MODULE_PARM_DESC(public_probes, "Let every user read /proc/probecache_probes (default: root only)");

static int pc_check_params(void)
{
	if (pc_max_args > PROBECACHE_MAX_ARGS) {
		pr_err("max_args=%u: at most %d\n", pc_max_args,
		       PROBECACHE_MAX_ARGS);
		return -EINVAL;
	}
	/* A longer line could never fit in one kernfs chunk. */
	if (!pc_max_line || pc_max_line >= PAGE_SIZE) {
		pr_err("max_line=%u: must be 1..%lu\n", pc_max_line,
		       PAGE_SIZE - 1);
		return -EINVAL;
	}
	if (!pc_max_probes) {
		pr_err("max_probes=0: must be at least 1\n");
		return -EINVAL;
	}
	return 0;
}

static int __init pc_init(void)
{
	int ret;

	ret = pc_check_params();
	if (ret)
		return ret;
	ret = pc_probe_init();
	if (ret)
		return ret;
	ret = pc_sysfs_init();
	if (ret)
		goto err_probe;
	ret = pc_listing_init();
	if (ret)
		goto err_sysfs;
	return 0;

err_sysfs:
	pc_sysfs_exit();
	pc_last_error_exit();
err_probe:
	pc_probe_exit();
	return ret;
}

static void __exit pc_exit(void)
{
	struct pc_err err = {};

	pc_listing_exit();
	pc_sysfs_remove_control();
	pc_control_exit();
	/* Each probe holds a module reference: none is left. */
	WARN(pc_probe_clear(&err), "%s\n", err.why);
	pc_probe_exit();
	pc_sysfs_exit();
	pc_last_error_exit();
}

module_init(pc_init);
module_exit(pc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Verified user-space probes behind /sys/kernel/probecache");
MODULE_VERSION(PROBECACHE_VERSION);
