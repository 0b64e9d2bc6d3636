// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/probecache: control, last_error, version, nr_probes and one
 * directory per probe under probes/. Layout: include/uapi/linux/probecache.h.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "pc.h"

static struct kobject *pc_root_kobj;
struct kobject *pc_probes_kobj;

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

#define to_probe(k) container_of(k, struct pc_probe, kobj)

static ssize_t hits_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%llu\n", pc_probe_hits(to_probe(kobj)));
}

/* A defined probe's file is only looked at when armed: say stale early. */
static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	static const char *const names[] = {
		[PC_STATE_DEFINING] = PROBECACHE_STATE_DEFINED,
		[PC_STATE_DEFINED] = PROBECACHE_STATE_DEFINED,
		[PC_STATE_ARMED] = PROBECACHE_STATE_ARMED,
		[PC_STATE_STALE] = PROBECACHE_STATE_STALE,
		[PC_STATE_DELETED] = "deleted",
	};
	struct pc_probe *p = to_probe(kobj);
	int state = atomic_read(&p->state);

	if (state == PC_STATE_DEFINED && pc_ident_changed(&p->ident, p->inode))
		state = PC_STATE_STALE;
	/* Armed once registered: the filter sees "armed" while registering. */
	if (state == PC_STATE_ARMED && !READ_ONCE(p->registered))
		state = PC_STATE_DEFINED;
	return sysfs_emit(buf, "%s\n", names[state]);
}

static ssize_t consumers_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", pc_nr_consumers(to_probe(kobj)));
}

static ssize_t counting_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_probe(kobj)->counting));
}

static ssize_t build_id_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct pc_probe *p = to_probe(kobj);

	return sysfs_emit(buf, "%*phN\n", p->build_id_len, p->build_id);
}

static ssize_t path_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_probe(kobj)->pathname);
}

static ssize_t offset_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "0x%llx\n", to_probe(kobj)->offset);
}

static ssize_t ref_ctr_offset_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%llx\n", to_probe(kobj)->ref_ctr_offset);
}

static ssize_t args_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", to_probe(kobj)->args_text);
}

static ssize_t pid_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", to_probe(kobj)->pid);
}

static ssize_t type_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%c\n", to_probe(kobj)->retprobe ? 'r' : 'p');
}

/*
 * hits, path, args and pid tell what other users' programs do and when:
 * readable by root only, unless public_probes=1 at load.
 */
/*
 * The probe holds its inode: once every name of it is gone (a package
 * upgrade renamed a new file over it) that memory stays pinned until the
 * probe is deleted, and the new file is not probed. Say so.
 */
static ssize_t unlinked_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct pc_probe *p = to_probe(kobj);

	return sysfs_emit(buf, "%d\n", p->inode && !READ_ONCE(p->inode->i_nlink));
}

static struct kobj_attribute pc_attr_hits = __ATTR_RO_MODE(hits, 0400);
static struct kobj_attribute pc_attr_unlinked = __ATTR_RO(unlinked);
static struct kobj_attribute pc_attr_state = __ATTR_RO(state);
static struct kobj_attribute pc_attr_consumers = __ATTR_RO(consumers);
static struct kobj_attribute pc_attr_counting = __ATTR_RO(counting);
static struct kobj_attribute pc_attr_build_id = __ATTR_RO(build_id);
static struct kobj_attribute pc_attr_path = __ATTR_RO_MODE(path, 0400);
static struct kobj_attribute pc_attr_offset = __ATTR_RO(offset);
static struct kobj_attribute pc_attr_ref_ctr_offset = __ATTR_RO(ref_ctr_offset);
static struct kobj_attribute pc_attr_args = __ATTR_RO_MODE(args, 0400);
static struct kobj_attribute pc_attr_pid = __ATTR_RO_MODE(pid, 0400);
static struct kobj_attribute pc_attr_type = __ATTR_RO(type);

static struct attribute *pc_probe_attrs[] = {
	&pc_attr_hits.attr,
	&pc_attr_state.attr,
	&pc_attr_consumers.attr,
	&pc_attr_counting.attr,
	&pc_attr_build_id.attr,
	&pc_attr_path.attr,
	&pc_attr_offset.attr,
	&pc_attr_ref_ctr_offset.attr,
	&pc_attr_args.attr,
	&pc_attr_pid.attr,
	&pc_attr_type.attr,
	&pc_attr_unlinked.attr,
	NULL,
};

static umode_t pc_probe_attr_mode(struct kobject *kobj, struct attribute *attr,
				  int n)
{
	return pc_public_probes ? attr->mode | 0044 : attr->mode;
}

static const struct attribute_group pc_probe_group = {
	.attrs = pc_probe_attrs,
	.is_visible = pc_probe_attr_mode,
};

static const struct attribute_group *pc_probe_groups[] = {
	&pc_probe_group,
	NULL,
};

pc_ktype_const struct kobj_type pc_probe_ktype = {
	.release = pc_probe_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = pc_probe_groups,
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
	pc_probes_kobj = kobject_create_and_add("probes", pc_root_kobj);
	if (!pc_probes_kobj) {
		ret = -ENOMEM;
		goto err_group;
	}
	ret = sysfs_create_bin_file(pc_root_kobj, &pc_attr_control);
	if (ret)
		goto err_probes;
	return 0;

err_probes:
	kobject_put(pc_probes_kobj);
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
	kobject_put(pc_probes_kobj);
	sysfs_remove_group(pc_root_kobj, &pc_root_group);
	kobject_put(pc_root_kobj);
}
