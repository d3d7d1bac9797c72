# The one place the target kernels are pinned. Everything else derives from these.
#
# Debian bookworm's two kernels, by series: 6.1, its own (the default), and
# 6.12, the newer one it ships from bookworm-security. Per series S:
# KVER_S, the kernel release (the guest kernel's `uname -r`), and KPKG_S,
# the version of its linux-image/linux-headers packages.
KSERIES       := 6.1 6.12
KVER_6.1      := 6.1.0-57-amd64
KPKG_6.1      := 6.1.192-3
KVER_6.12     := 6.12.118+deb12-amd64
KPKG_6.12     := 6.12.118-1~deb12u1

# KSEL picks the series a target builds for and boots: `make module
# KSEL=6.12`, `make test-bed KSEL=6.12` (make modules: every series).
KDEFAULT      := $(firstword $(KSERIES))
KSEL          ?= $(KDEFAULT)
ifeq ($(filter $(KSEL),$(KSERIES)),)
$(error KSEL=$(KSEL): not one of the pinned kernel series $(KSERIES))
endif
KVER          := $(KVER_$(KSEL))
KPKG_VERSION  := $(KPKG_$(KSEL))

# Paths shared by every fragment.
TOP           := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CACHE         := $(TOP)/.cache
BUILD         := $(TOP)/build
RESULTS       := $(CACHE)/results
TALLY         := $(TOP)/selftests/lib/tally
# The unpacked guest kernel of series S (image, and for 6.12 its headers).
kdir           = $(CACHE)/kernel/$(KVER_$(1))
GUEST_KDIR    := $(call kdir,$(KSEL))
# The default series' headers are installed with apt; 6.12's are unpacked
# beside its image, since its header package depends on the image package
# and apt would install the guest kernel on the host.
khdr           = $(if $(filter $(KDEFAULT),$(1)),,$(call kdir,$(1)))/usr/src/linux-headers-$(KVER_$(1))
KHEADERS      := $(call khdr,$(KSEL))
# Where the module of series S is built: the default's in kernel/ (where
# users find it), any other's in a tree of links to the sources.
kmoddir        = $(if $(filter $(KDEFAULT),$(1)),$(TOP)/kernel,$(BUILD)/kernel-$(1))
KMOD_DIR      := $(call kmoddir,$(KSEL))
