// SPDX-License-Identifier: GPL-2.0
/*
 * Loading probecache.ko through libkmod (the load and unload commands are
 * cmd/load.c).
 *
 * The kernel's own refusal (init_module errno) is terse, so before and
 * after the insert we look at what usually explains it: the module's
 * vermagic against the running release, the kernel config for
 * CONFIG_UPROBES, and the lockdown mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libkmod.h>
#include <linux/probecache.h>

#include "kload.h"
#include "pc.h"

bool pc_module_loaded(void)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/control", pc_sysfs_dir());
	return access(p, F_OK) == 0;
}

/* Grep an open kernel config for CONFIG_UPROBES: 1 set, 0 not set. */
static int config_has_uprobes(FILE *f)
{
	char line[256];

	while (fgets(line, sizeof(line), f))
		if (!strcmp(line, "CONFIG_UPROBES=y\n"))
			return 1;
	return 0;
}

/* The same for a plain config file: a regular file of at most PC_CONF_MAX bytes. */
static int config_file_has_uprobes(const char *path)
{
	char *buf;
	size_t len;
	FILE *f;
	int ret = pc_read_file(path, 0, PC_CONF_MAX, &buf, &len);

	if (ret == -ENOENT)
		return ret;
	if (ret) {
		pc_warn("load: %s: %s, not read", path, pc_file_strerror(ret));
		return -ENOENT;
	}
	f = fmemopen(buf, len, "r");
	ret = f ? config_has_uprobes(f) : -ENOMEM;
	if (f)
		fclose(f);
	free(buf);
	return ret;
}

/*
 * 1 if the running kernel has CONFIG_UPROBES, 0 if its config says no,
 * -ENOENT if no config can be found (then the insert decides). @src gets
 * the file that was read. $PROBECACHE_KCONFIG names a plain config file.
 */
static int kernel_has_uprobes(const char *release, char *src, size_t srclen)
{
	const char *env = getenv("PROBECACHE_KCONFIG");
	FILE *f;
	int ret;

	if (env && *env)
		snprintf(src, srclen, "%s", env);
	else
		snprintf(src, srclen, "/boot/config-%s", release);
	ret = config_file_has_uprobes(src);
	if (ret != -ENOENT || (env && *env))
		return ret;
	snprintf(src, srclen, "/proc/config.gz");
	if (access(src, R_OK))
		return -ENOENT;
	f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
	if (!f)
		return -ENOENT;
	ret = config_has_uprobes(f);
	if (pclose(f) != 0 && ret == 0)
		return -ENOENT;	/* no gzip: unknown, not "absent" */
	return ret;
}

/* modinfo value of @key (e.g. "vermagic") into @buf; -ENOENT if absent. */
static int module_info(struct kmod_module *mod, const char *key, char *buf, size_t len)
{
	struct kmod_list *list = NULL, *l;
	int ret = -ENOENT;

	if (kmod_module_get_info(mod, &list) < 0)
		return -ENOENT;
	kmod_list_foreach(l, list) {
		if (strcmp(kmod_module_info_get_key(l), key))
			continue;
		snprintf(buf, len, "%s", kmod_module_info_get_value(l));
		ret = 0;
		break;
	}
	kmod_module_info_free_list(list);
	return ret;
}

/*
 * The kernel compares the whole vermagic string; its first word is the
 * release the module was built for. Refuse early with both names shown.
 */
static int check_vermagic(struct kmod_module *mod, const char *path, const char *release)
{
	char vm[256];
	size_t n;

	if (module_info(mod, "vermagic", vm, sizeof(vm))) {
		pc_err("load: %s: no vermagic in .modinfo: not a kernel module", path);
		return -ENOEXEC;
	}
	vm[strcspn(vm, "\n")] = '\0';
	while ((n = strlen(vm)) && vm[n - 1] == ' ')
		vm[n - 1] = '\0';
	n = strcspn(vm, " ");
	if (n == strlen(release) && !strncmp(vm, release, n))
		return 0;
	pc_err("load: %s: built for another kernel: vermagic '%s', running kernel is %s",
	       path, vm, release);
	return -ENOEXEC;
}

static void explain_eperm(const char *path)
{
	char mode[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (f) {
		if (!fgets(mode, sizeof(mode), f))
			mode[0] = '\0';
		fclose(f);
		mode[strcspn(mode, "\n")] = '\0';
	}
	if (strstr(mode, "[integrity]") || strstr(mode, "[confidentiality]"))
		pc_err("load: %s: refused by kernel lockdown (/sys/kernel/security/lockdown: %s): "
		       "the module must be signed with a key the kernel trusts", path, mode);
	else
		pc_err("load: %s: operation not permitted: loading modules needs CAP_SYS_MODULE, "
		       "and kernel.modules_disabled must be 0 (lockdown: %s)",
		       path, mode[0] ? mode : "not available");
}

static void explain_insert_error(int err, const char *path, const char *options,
				 const char *release)
{
	char src[256];

	switch (err) {
	case -ENOEXEC:
		pc_err("load: %s: built for another kernel: vermagic or module_layout version "
		       "does not match %s (rebuild against its headers, e.g. via dkms)",
		       path, release);
		break;
	case -EINVAL:
		pc_err("load: %s: invalid argument: a parameter in '%s' was refused, or a symbol "
		       "version (modversions) does not match %s; see dmesg",
		       path, options ? options : "", release);
		break;
	case -ENOENT:
		if (kernel_has_uprobes(release, src, sizeof(src)) == 0)
			pc_err("load: %s: unknown symbol: kernel %s has no CONFIG_UPROBES (%s)",
			       path, release, src);
		else
			pc_err("load: %s: unknown symbol (e.g. uprobe_register): kernel %s lacks "
			       "CONFIG_UPROBES or the module was built for another kernel; see dmesg",
			       path, release);
		break;
	case -EPERM:
	case -EACCES:
	case -EKEYREJECTED:
		explain_eperm(path);
		break;
	default:
		pc_err("load: %s: %s", path, strerror(-err));
	}
}

/* The installed module, found through modules.dep like modprobe does. */
static int lookup_installed(struct kmod_ctx *ctx, const char *release, struct kmod_module **out)
{
	struct kmod_list *list = NULL;
	int ret;

	ret = kmod_module_new_from_lookup(ctx, PC_MODNAME, &list);
	if (ret < 0 || !list) {
		pc_err("load: module %s not found in /lib/modules/%s/modules.dep: install it "
		       "(make dkms-install) or name it with --module FILE.ko", PC_MODNAME, release);
		return -ENOENT;
	}
	*out = kmod_module_ref(kmod_module_get_module(list));
	kmod_module_unref_list(list);
	if (!kmod_module_get_path(*out)) {
		pc_err("load: module %s has no file in /lib/modules/%s: install it "
		       "(make dkms-install) or name it with --module FILE.ko", PC_MODNAME, release);
		kmod_module_unref(*out);
		return -ENOENT;
	}
	return 0;
}

static int open_module(struct kmod_ctx *ctx, const char *path, const char *release,
		       struct kmod_module **mod)
{
	int ret;

	if (!path)
		return lookup_installed(ctx, release, mod);
	if (access(path, R_OK)) {
		ret = -errno;
		pc_err("load: %s: %s", path, strerror(errno));
		return ret;
	}
	ret = kmod_module_new_from_path(ctx, path, mod);
	if (ret < 0)
		pc_err("load: %s: not a loadable module: %s", path, strerror(-ret));
	return ret;
}

static int already_loaded(struct kmod_module *mod)
{
	int st = kmod_module_get_initstate(mod);

	return pc_module_loaded() || st == KMOD_MODULE_LIVE || st == KMOD_MODULE_COMING;
}

static int insert(struct kmod_module *mod, const char *options, const char *release)
{
	const char *path = kmod_module_get_path(mod);
	char src[256];
	int ret;

	if (kernel_has_uprobes(release, src, sizeof(src)) == 0) {
		pc_err("load: kernel %s has no CONFIG_UPROBES (%s): probecache needs uprobes",
		       release, src);
		return -ENOTSUP;
	}
	ret = check_vermagic(mod, path, release);
	if (ret)
		return ret;
	ret = kmod_module_insert_module(mod, 0, options);
	if (ret == -EEXIST)
		return -EEXIST;
	if (ret < 0) {
		explain_insert_error(ret, path, options, release);
		return ret;
	}
	pc_info("load: %s loaded%s%s", path, options ? " with " : "", options ? options : "");
	return 0;
}

int pc_module_load(const char *path, const char *options)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	struct utsname u;
	int ret;

	if (pc_module_loaded())
		return -EEXIST;	/* however it got there: no need to find a file */
	uname(&u);
	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		pc_err("load: cannot initialise libkmod");
		return -ENOMEM;
	}
	ret = open_module(ctx, path, u.release, &mod);
	if (ret)
		goto out;
	if (already_loaded(mod))
		ret = -EEXIST;
	else
		ret = insert(mod, options, u.release);
	kmod_module_unref(mod);
out:
	kmod_unref(ctx);
	return ret;
}
