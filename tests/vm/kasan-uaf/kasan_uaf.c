// SPDX-License-Identifier: GPL-2.0
/*
 * Planted use-after-free: a self-test for the VM harness, not for probecache.
 * Loading this module must make KASAN print a report on the console, and the harness
 * must then fail the run. If a run with this module passes, the harness (or the debug
 * kernel's KASAN) is blind and every "clean" debug-kernel result means nothing.
 */
#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

#define KASAN_UAF_SIZE 128

static int __init kasan_uaf_init(void)
{
	u8 *obj;
	u8 val;

	obj = kmalloc(KASAN_UAF_SIZE, GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	memset(obj, 0x5a, KASAN_UAF_SIZE);
	kfree(obj);
	/*
	 * Hide the pointer's provenance so the compiler cannot prove the load is dead or
	 * reuse the value memset() stored; READ_ONCE() forces a real, instrumented load.
	 */
	OPTIMIZER_HIDE_VAR(obj);
	val = READ_ONCE(obj[KASAN_UAF_SIZE / 2]);
	pr_info("kasan_uaf: read 0x%02x from freed object %px\n", val, obj);
	return 0;
}

static void __exit kasan_uaf_exit(void)
{
}

module_init(kasan_uaf_init);
module_exit(kasan_uaf_exit);
MODULE_DESCRIPTION("probecache test harness: deliberate slab use-after-free for KASAN");
MODULE_LICENSE("GPL");
