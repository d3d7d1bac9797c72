# mk/kernel.mk: the out-of-tree module, built against the pinned headers.
#
#   make module            kernel/metaroce.ko (W=1, warnings are errors)
#   make module-check      checkpatch --strict on the kernel glue
#   make module-clean
#
# kernel/Kbuild lists the objects; kernel/Makefile serves users building
# against their running kernel (make -C kernel).

KMOD        := $(TOP)/kernel/metaroce.ko
KBUILD_ARGS := -C $(KHEADERS) M=$(TOP)/kernel CONFIG_METAROCE=m W=1
CHECKPATCH  := $(CACHE)/linux-source-6.1/scripts/checkpatch.pl

.PHONY: module module-check module-clean

module: deps-check
	@$(MAKE) --no-print-directory $(KBUILD_ARGS) -j2 modules

# The glue and the uAPI header; kernel/core and kernel/tests are checked
# by their owners' targets.
module-check:
	@perl $(CHECKPATCH) --no-tree --strict --quiet \
		-f $(filter-out %.mod.c,$(wildcard $(TOP)/kernel/*.[ch])) \
		$(TOP)/kernel/uapi/*.h

module-clean:
	@$(MAKE) --no-print-directory $(KBUILD_ARGS) clean
