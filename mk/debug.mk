# mk/debug.mk: the bed on a debug guest kernel (KASAN, KFENCE, lockdep,
# debugobjects, kmemleak, soft-lockup and hung-task panics).
#
#   make debug-kernel   build the debug kernel unless this machine has it
#                       (selftests/lib/debug-kernel: Debian's linux-source and
#                       config trimmed to the bed, selftests/lib/debug.config
#                       over it; cached in $(METAROCE_CACHE)/debug-kernel-<key>,
#                       the first build takes about 2 h on 2 busy cores)
#   make module-debug   metaroce.ko for it, in build/kernel-debug/ (kernel/
#                       keeps the module of the stock kernel)
#   make test-debug     every bed case, and the long cases DEBUG_LONG names,
#                       on the debug kernel; fails on any kernel report or
#                       kmemleak leak. Variables: BED_CASES, BED_UP_ARGS,
#                       DEBUG_LONG (default: selftests/long/*fuzz*.sh, the long
#                       fuzzers), as for test-bed
#   make test-debug-detectors   each check must fail a run: provoke a
#                       WARNING, a lockdep report, a leak, a use-after-free, a
#                       soft lockup and a hung task (selftests/debug-detectors)
#   make bed-up BED_UP_ARGS="--kernel debug"   a debug bed to work in

DEBUG_KERNEL   := $(TOP)/selftests/lib/debug-kernel
KMOD_DEBUG_DIR := $(BUILD)/kernel-debug
DEBUG_LONG     ?= $(TOP)/selftests/long/*fuzz*.sh
# Last: cases whose upstream kernel report (selftests/lib/known-kernel-reports)
# turns lockdep off for the rest of the boot; every other case runs with it.
DEBUG_LAST     := $(TOP)/selftests/cases/65-nvmeof.sh
DEBUG_CASES     = $(or $(BED_CASES),$(filter-out $(DEBUG_LAST),$(wildcard $(TOP)/selftests/cases/*.sh)) \
		  $(wildcard $(DEBUG_LONG)) $(DEBUG_LAST))

.PHONY: debug-kernel module-debug test-debug test-debug-detectors

debug-kernel: deps-check
	@$(DEBUG_KERNEL) build >/dev/null

# Kbuild writes its objects beside the sources, so the debug build gets a
# tree of links to the sources (only them: a link to an object of the stock
# build would be written through) and builds there. With debug info (the
# kernel has none), so a report's "func+0x1a3/0x5c0 [metaroce]" maps to a
# line: gdb build/kernel-debug/metaroce.ko -ex 'list *(func+0x1a3)'.
module-debug: debug-kernel
	@set -e; cd $(TOP)/kernel; \
	find . \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) ! -name '*.mod.c' | \
	while read -r f; do \
		mkdir -p $(KMOD_DEBUG_DIR)/$${f%/*}; \
		ln -sfn $(TOP)/kernel/$$f $(KMOD_DEBUG_DIR)/$$f; \
	done; \
	find $(KMOD_DEBUG_DIR) -xtype l -delete
	@$(MAKE) --no-print-directory -C $$($(DEBUG_KERNEL) dir)/build M=$(KMOD_DEBUG_DIR) \
		CONFIG_METAROCE=m W=1 KCFLAGS=-g -j2 modules

test-debug: deps-check module-debug userspace
	@mkdir -p $(RESULTS)
	@RESULTS=$(RESULTS) BED_SUITE=debug BED_UP_ARGS="--kernel debug $(BED_UP_ARGS)" \
		$(TOP)/selftests/run-bed $(DEBUG_CASES)

test-debug-detectors: deps-check module-debug userspace
	@mkdir -p $(RESULTS)
	@RESULTS=$(RESULTS) BED_UP_ARGS="$(BED_UP_ARGS)" $(TOP)/selftests/debug-detectors
