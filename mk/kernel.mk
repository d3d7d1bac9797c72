# mk/kernel.mk: the out-of-tree module, built against the pinned headers.
#
#   make module            metaroce.ko for the default kernel series, in kernel/
#                          (W=1, warnings are errors); KSEL=6.12: for that
#                          series, in build/kernel-6.12/ (mk/config.mk)
#   make modules           the module for every pinned series
#   make module-check      checkpatch --strict on the kernel glue, with the
#                          checkpatch of every pinned series' source
#   make module-clean
#
# kernel/Kbuild lists the objects; kernel/Makefile serves users building
# against their running kernel (make -C kernel). kernel/kcompat.h holds
# every difference between the kernels.

KMOD        := $(KMOD_DIR)/metaroce.ko
KBUILD_ARGS := -C $(KHEADERS) M=$(KMOD_DIR) CONFIG_METAROCE=m W=1
CHECKPATCH   = $(CACHE)/linux-source-$(1)/scripts/checkpatch.pl

.PHONY: module modules module-check module-clean

# Kbuild writes its objects beside the sources, so a build of the module
# anywhere but in kernel/ (another kernel, the debug kernel) gets a tree of
# links to the sources in $(1), and only to them: a link to an object of the
# kernel/ build would be written through.
define kmod_link_tree
	@set -e; cd $(TOP)/kernel; \
	find . \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) ! -name '*.mod.c' | \
	while read -r f; do \
		mkdir -p $(1)/$${f%/*}; \
		ln -sfn $(TOP)/kernel/$$f $(1)/$$f; \
	done; \
	find $(1) -xtype l -delete
endef

module: deps-check
	$(if $(filter-out $(TOP)/kernel,$(KMOD_DIR)),$(call kmod_link_tree,$(KMOD_DIR)))
	@$(MAKE) --no-print-directory $(KBUILD_ARGS) -j2 modules

modules:
	@set -e; for s in $(KSERIES); do $(MAKE) --no-print-directory module KSEL=$$s; done

# The glue and the uAPI header; kernel/core and kernel/tests are checked
# by their owners' targets. kcompat.h exists to test the kernel's version,
# which checkpatch warns about anywhere: waived there, and only there.
KCOMPAT     := $(TOP)/kernel/kcompat.h
module-check:
	@set -e; for s in $(KSERIES); do \
		perl $(call CHECKPATCH,$$s) --no-tree --strict --quiet \
			-f $(filter-out %.mod.c $(KCOMPAT),$(wildcard $(TOP)/kernel/*.[ch])) \
			$(TOP)/kernel/uapi/*.h; \
		perl $(call CHECKPATCH,$$s) --no-tree --strict --quiet \
			--ignore LINUX_VERSION_CODE -f $(KCOMPAT); \
	done

module-clean:
	@$(MAKE) --no-print-directory $(KBUILD_ARGS) clean
