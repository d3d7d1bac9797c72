# The one place the target kernel is pinned. Everything else derives from these.
# Debian bookworm's 6.1 kernel: ABI 6.1.0-$(KABI_NUM), package version $(KPKG_VERSION).
KABI_NUM      := 57
KPKG_VERSION  := 6.1.192-3
KVER          := 6.1.0-$(KABI_NUM)-amd64

# Paths shared by every fragment.
TOP           := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
CACHE         := $(TOP)/.cache
BUILD         := $(TOP)/build
RESULTS       := $(CACHE)/results
KHEADERS      := /usr/src/linux-headers-$(KVER)
GUEST_KDIR    := $(CACHE)/kernel/$(KVER)
TALLY         := $(TOP)/selftests/lib/tally
