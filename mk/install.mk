# install / uninstall / dkms-install, included by the top-level Makefile
# (paths relative to the top directory). Variables it honours:
#   PREFIX (/usr/local), DESTDIR, BINDIR, MANDIR, BASHCOMPDIR, INCLUDEDIR, DATADIR, SYSCONFDIR (/etc),
#   UNITDIR (/lib/systemd/system), MODULE_KO and CLI (set by the Makefile),
#   INSTALL_MODULE=1 to also copy MODULE_KO to /lib/modules/KVER/updates,
#   DKMS (dkms), DKMS_ARGS (extra options, e.g. -k KVER).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share/probecache
SYSCONFDIR ?= /etc
UNITDIR ?= /lib/systemd/system
MODULE_KO ?= kmod/probecache.ko
CLI ?= user/probecache-resolve
KVER ?= $(shell uname -r)
DKMS ?= dkms
DKMS_ARGS ?=
INSTALL ?= install

PC_VERSION := $(shell sed -n 's/^\#define PROBECACHE_VERSION[^"]*"\(.*\)"/\1/p' \
		include/uapi/linux/probecache.h)
PC_DKMS_SRC = $(DESTDIR)/usr/src/probecache-$(PC_VERSION)
PC_SDT_FILES := $(wildcard sdt/*.args)
# preload, follow: enabled by the package; metrics (service + timer): by the administrator
PC_UNITS := probecache-preload.service probecache-follow.service \
	probecache-metrics.service probecache-metrics.timer

$(CLI):
	$(MAKE) -C $(dir $(CLI))

install: $(CLI)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(SYSCONFDIR)/probecache/preload.d
	$(INSTALL) -m 0755 $(CLI) $(DESTDIR)$(BINDIR)/probecache-resolve
	$(INSTALL) -m 0644 Documentation/probecache-resolve.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 completion/probecache-resolve $(DESTDIR)$(BASHCOMPDIR)/probecache-resolve
	$(INSTALL) -m 0644 include/uapi/linux/probecache.h $(DESTDIR)$(INCLUDEDIR)/linux/
	@# the shape of every --json document (outside doc/: dh_compress would gzip it)
	$(INSTALL) -m 0644 Documentation/probecache-resolve.schema.json $(DESTDIR)$(DATADIR)/
	@# names and types of the SDT providers' arguments (sdt/README.md), found by the CLI
	@# in BINDIR/../share/probecache/sdt
	$(INSTALL) -d $(DESTDIR)$(DATADIR)/sdt
	$(INSTALL) -m 0644 $(PC_SDT_FILES) $(DESTDIR)$(DATADIR)/sdt/
	for u in $(PC_UNITS); do \
		sed 's|@BINDIR@|$(BINDIR)|g' systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	@# Never overwrite an administrator's config.
	[ -e $(DESTDIR)$(SYSCONFDIR)/probecache/preload.conf ] || \
		$(INSTALL) -m 0644 etc/preload.conf $(DESTDIR)$(SYSCONFDIR)/probecache/preload.conf
	if [ "$(INSTALL_MODULE)" = 1 ]; then \
		$(INSTALL) -d $(DESTDIR)/lib/modules/$(KVER)/updates && \
		$(INSTALL) -m 0644 $(MODULE_KO) $(DESTDIR)/lib/modules/$(KVER)/updates/ && \
		{ [ -n "$(DESTDIR)" ] || depmod -a $(KVER); }; \
	fi

# The config stays if it differs from the sample (an administrator edited it).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/probecache-resolve \
		$(DESTDIR)$(MANDIR)/man1/probecache-resolve.1 \
		$(DESTDIR)$(BASHCOMPDIR)/probecache-resolve \
		$(DESTDIR)$(INCLUDEDIR)/linux/probecache.h \
		$(DESTDIR)$(DATADIR)/probecache-resolve.schema.json \
		$(addprefix $(DESTDIR)$(DATADIR)/sdt/,$(notdir $(PC_SDT_FILES))) \
		$(addprefix $(DESTDIR)$(UNITDIR)/,$(PC_UNITS))
	if cmp -s etc/preload.conf $(DESTDIR)$(SYSCONFDIR)/probecache/preload.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/probecache/preload.conf; fi
	-rmdir $(DESTDIR)$(SYSCONFDIR)/probecache/preload.d $(DESTDIR)$(SYSCONFDIR)/probecache \
		$(DESTDIR)$(DATADIR)/sdt $(DESTDIR)$(DATADIR) \
		2>/dev/null
	if [ -e $(DESTDIR)/lib/modules/$(KVER)/updates/probecache.ko ]; then \
		rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/probecache.ko; \
		[ -n "$(DESTDIR)" ] || depmod -a $(KVER); fi

# Source tree for DKMS, then add/build/install (AUTOINSTALL rebuilds it for new kernels).
dkms-src:
	rm -rf $(PC_DKMS_SRC)
	$(INSTALL) -d $(PC_DKMS_SRC)
	cp -a kmod common include dkms.conf $(PC_DKMS_SRC)/
	find $(PC_DKMS_SRC) \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name '*.symvers' -o -name '*.order' \) -delete

dkms-install: dkms-src
	$(DKMS) add $(DKMS_ARGS) -m probecache -v $(PC_VERSION) || \
		$(DKMS) status -m probecache -v $(PC_VERSION) | grep -q .
	$(DKMS) build $(DKMS_ARGS) -m probecache -v $(PC_VERSION)
	$(DKMS) install $(DKMS_ARGS) -m probecache -v $(PC_VERSION) --force

dkms-uninstall:
	-$(DKMS) remove -m probecache -v $(PC_VERSION) --all
	rm -rf $(PC_DKMS_SRC)

.PHONY: install uninstall dkms-src dkms-install dkms-uninstall
