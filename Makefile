# probecache: top-level build.
#   make                  module (for KVER/KDIR) and probecache-resolve
#   make check            host unit + fuzz + host suites, then the VM suites on every kernel
#                         of Documentation/testing.md "Kernels", sysboot and kasan
#   make check-vm KERNEL=NAME                one kernel's VM suite (tests/vm/kernel.sh names)
#   make demo             setup if needed, build, boot the VM, resolve/arm/fire real SDT probes
#   make bench            benchmarks (printed, not asserted)
#   make stress MINUTES=N the randomized lifecycle test for N minutes (KERNEL=, SEED=)
#   make deb              probecache-dkms + probecache-tools .debs into build/deb/
#   make check-sdt-data   sdt/*.args against the signatures of Debian's -dev packages
#   make check-sdt-vm     Debian's ruby, php and OpenJDK traced by their SDT names (6.1 VM)

# The running kernel's headers if present, else the project's default test kernel.
KVER ?= $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KVER)/build),)
KVER := $(shell tests/vm/kernel.sh 6.1 2>/dev/null | cut -d' ' -f3)
KDIR ?= /usr/src/linux-headers-$(KVER)
else
KDIR ?= /lib/modules/$(KVER)/build
endif

MODULE_KO := kmod/probecache.ko
CLI := user/probecache-resolve
KERNEL ?= 6.1

all: module user

module:
	$(MAKE) -C kmod KDIR=$(KDIR)

user:
	$(MAKE) -C user

# The fixtures without the DKMS-built modules (tests/fixtures/ops_dkms.mk): those need
# every kernel's headers and the bullseye/trixie chroots, and only the VM scripts 60-load
# and 61-dkms use them; tests/vm/run.sh builds the ones its selected scripts need.
fixtures:
	$(MAKE) -C tests/fixtures OPS_DKMS_FOR=

setup:
	scripts/setup.sh

# As root, make sure every package is there first (a no-op in 30 ms when it is).
# The DKMS-built modules (tests/fixtures/ops_dkms.mk) are left to the VM suites that run
# 60-load or 61-dkms, each building its own kernel's and the host's (tests/vm/run.sh):
# made here, those of kernels in chroots would debootstrap a fresh machine's chroots
# before any suite runs, instead of in run-all's background.
check: ensure-setup
	$(MAKE) user fixtures
	tests/run-all.sh

ensure-setup:
	@if [ "$$(id -u)" = 0 ]; then scripts/setup.sh; fi

check-unit:
	tests/run-all.sh unit fuzz

# The provider files against postgresql-server-dev-15's probes.h, php8.2-dev's
# zend_dtrace_gen.h and libpython3.11-dev's pydtrace.h (sdt/README.md).
check-sdt-data:
	tests/sdt/check-data.py

check-vm: user fixtures
	tests/run-all.sh vm:$(KERNEL)

# Debian's ruby3.1, php8.2 and OpenJDK 17 from their disk image (tests/vm/sdtimage.sh
# langs), traced through the provider files' names in the 6.1 VM: the scripts of
# tests/vm/sdt, not run by make check (which runs python3.11 and postgres,
# tests/vm/t/39-resolve-sdt-apps.sh).
check-sdt-vm: user fixtures
	VM_TESTDIR=$(CURDIR)/tests/vm/sdt tests/run-all.sh vm:6.1

# The planted use-after-free must make the harness fail with a KASAN report.
check-kasan: user fixtures
	tests/run-all.sh kasan

# make stress MINUTES=N [KERNEL=debug] [SEED=S]: the randomized lifecycle test
# (tests/vm/t/22-kmod-stress.sh) for N minutes in one VM; it prints its seed.
stress: user fixtures
	PC_STRESS_SECONDS=$$(($(MINUTES) * 60)) PC_STRESS_SEED=$(SEED) \
		VM_TESTS='22*' tests/run-all.sh vm:$(KERNEL)

# make fuzz-long MINUTES=N: every fuzzer N minutes, new coverage merged into the seeds.
fuzz-long:
	$(MAKE) -C tests/fuzz fuzz-long MINUTES=$(MINUTES)

debug-kernel:
	tests/vm/debug-kernel.sh

demo:
	scripts/demo.sh

bench: user fixtures
	scripts/bench.sh

# dpkg-buildpackage writes its results next to the source tree: build a copy of the
# checkout (tracked and new files, not ignored ones) in build/deb/ so they land there.
deb:
	rm -rf build/deb && mkdir -p build/deb/src
	{ git ls-files -co --exclude-standard 2>/dev/null || \
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print; } | \
		tar -cf - -T - | tar -xf - -C build/deb/src
	cd build/deb/src && dpkg-buildpackage -us -uc -b
	rm -rf build/deb/src
	@ls build/deb/*.deb

clean:
	$(MAKE) -C kmod KDIR=$(KDIR) clean || true
	$(MAKE) -C user clean
	$(MAKE) -C tests/fixtures clean
	$(MAKE) -C tests/unit clean
	-$(MAKE) -C tests/fuzz clean
	rm -rf build

-include mk/install.mk

.PHONY: all module user fixtures setup check check-unit check-vm check-kasan debug-kernel \
	demo bench deb clean ensure-setup stress check-sdt-data check-sdt-vm
