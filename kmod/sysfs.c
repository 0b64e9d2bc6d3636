// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/probecache: control, last_error, version, nr_probes and
 * nr_armed. The probes themselves are listed in /proc/probecache_probes
 * (listing.c).
 * Layout: include/uapi/linux/probecache.h.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "pc.h"

static struct kobject *pc_root_kobj;

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", PROBECACHE_VERSION);
}

static ssize_t nr_probes_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(pc_nr_probes));
}

static ssize_t nr_armed_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&pc_nr_armed));
}

static ssize_t last_error_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return pc_last_error_show(buf);
}

static struct kobj_attribute pc_attr_version = __ATTR_RO(version);
static struct kobj_attribute pc_attr_nr_probes = __ATTR_RO(nr_probes);
static struct kobj_attribute pc_attr_nr_armed = __ATTR_RO(nr_armed);
static struct kobj_attribute pc_attr_last_error = __ATTR_RO_MODE(last_error, 0400);

static struct attribute *pc_root_attrs[] = {
	&pc_attr_version.attr,
	&pc_attr_nr_probes.attr,
	&pc_attr_nr_armed.attr,
	&pc_attr_last_error.attr,
	NULL,
};

static const struct attribute_group pc_root_group = {
	.attrs = pc_root_attrs,
};

/* A bin attribute: no PAGE_SIZE cap per write(), kernfs hands us chunks. */
static ssize_t control_write(struct file *file, struct kobject *kobj,
			     pc_bin_attr_const struct bin_attribute *attr,
			     char *buf, loff_t off,
			     size_t count)
{
	return pc_control_write(file, buf, off, count);
}

static struct bin_attribute pc_attr_control = {
	.attr = { .name = "control", .mode = 0200 },
	.size = 0,
	.write = control_write,
};

int pc_sysfs_init(void)
{
	int ret;

	pc_root_kobj = kobject_create_and_add("probecache", kernel_kobj);
	if (!pc_root_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(pc_root_kobj, &pc_root_group);
	if (ret)
		goto err_root;
	ret = sysfs_create_bin_file(pc_root_kobj, &pc_attr_control);
	if (ret)
		goto err_group;
	return 0;

err_group:
	sysfs_remove_group(pc_root_kobj, &pc_root_group);
err_root:
	kobject_put(pc_root_kobj);
	return ret;
}

/* First step of unload: waits for writers in flight, refuses new ones. */
void pc_sysfs_remove_control(void)
{
	sysfs_remove_bin_file(pc_root_kobj, &pc_attr_control);
}

void pc_sysfs_exit(void)
{
	sysfs_remove_group(pc_root_kobj, &pc_root_group);
	kobject_put(pc_root_kobj);
}
