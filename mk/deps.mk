# mk/deps.mk: everything the build and the tests need, installed idempotently.
#
#   make deps        check every package (about a second when all is present),
#                    install what is missing, fetch and unpack the pinned guest
#                    kernel and the kernel source when their stamps are missing
#   make deps-check  cheap: runs `deps` only when a stamp is missing or older
#                    than this file (so adding a package here re-runs it)
#
# apt-get update runs only when an install or download fails with the current
# package lists, never on a machine that already has everything.

.PHONY: deps deps-check

KSRC_SERIES   := 6.1

# Host build + test tools, and the binaries the bed copies into the guests.
DEPS_PKGS := \
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio gzip xz-utils \
	dwarves pkg-config git python3 \
	clang llvm lld libbpf-dev bpftool \
	cmake ninja-build ccache libgtest-dev googletest libbenchmark-dev \
	libnl-3-dev libnl-route-3-dev \
	qemu-system-x86 busybox-static socat \
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev \
	perftest rdmacm-utils nvme-cli fio iproute2 tcpdump tshark strace ethtool gnuplot-nox \
	prometheus curl iperf3 \
	linux-headers-$(KVER) linux-source-$(KSRC_SERIES)

KIMG_PKG      := linux-image-$(KVER)-unsigned
KIMG_DEB      := $(CACHE)/debs/$(KIMG_PKG)_$(KPKG_VERSION)_amd64.deb
KSRC_DIR      := $(CACHE)/linux-source-$(KSRC_SERIES)
KSRC_TAR      := /usr/src/linux-source-$(KSRC_SERIES).tar.xz

DEPS_STAMP    := $(CACHE)/.deps-done
KIMG_STAMP    := $(GUEST_KDIR)/.done
SRC_STAMP     := $(CACHE)/.src-done
# The uncompressed ELF kernel: the bed boots it directly (PVH entry, no
# decompression under TCG), and BPF CO-RE can read the guest's BTF from it.
GUEST_VMLINUX := $(GUEST_KDIR)/boot/vmlinux-$(KVER)
DEPS_STAMPS   := $(DEPS_STAMP) $(KIMG_STAMP) $(SRC_STAMP) $(GUEST_VMLINUX)

# apt-get with the lists as they are; on failure refresh them once and retry.
APT_RETRY = sh -c '"$$@" || { apt-get update -q && "$$@"; }' apt-retry

define deps_packages
	@missing=$$(dpkg-query -W -f='$${db:Status-Abbrev} $${binary:Package}\n' $(DEPS_PKGS) 2>/dev/null | \
		awk 'BEGIN { for (i = 1; i < ARGC; i++) want[ARGV[i]] = 1; ARGC = 1 } \
		     $$1 == "ii" { sub(/:.*/, "", $$2); delete want[$$2] } \
		     END { for (p in want) print p }' $(DEPS_PKGS)); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		DEBIAN_FRONTEND=noninteractive $(APT_RETRY) \
			apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@mkdir -p $(CACHE) && touch $(DEPS_STAMP)
endef

# The guest kernel: the stock Debian image, never installed on the host.
define deps_kimage
	@if [ ! -f $(KIMG_STAMP) ]; then \
		set -e; mkdir -p $(CACHE)/debs; \
		if [ ! -f $(KIMG_DEB) ]; then \
			echo "deps: downloading $(KIMG_PKG)=$(KPKG_VERSION)"; \
			cd $(CACHE)/debs && $(APT_RETRY) \
				apt-get download -q -o APT::Sandbox::User=root $(KIMG_PKG)=$(KPKG_VERSION); \
		fi; \
		rm -rf $(GUEST_KDIR) && mkdir -p $(GUEST_KDIR); \
		dpkg-deb -x $(KIMG_DEB) $(GUEST_KDIR); \
		depmod -b $(GUEST_KDIR) $(KVER); \
		touch $(KIMG_STAMP); \
	fi
endef

# linux-source for KUnit and checkpatch, unpacked once into the cache. A tree
# that is already there is kept as it is (KUnit links our driver into it).
define deps_source
	@if [ ! -f $(SRC_STAMP) ]; then \
		set -e; \
		if [ ! -f $(KSRC_DIR)/Makefile ]; then \
			echo "deps: unpacking $(KSRC_TAR)"; \
			tar -xf $(KSRC_TAR) -C $(CACHE); \
		fi; \
		touch $(SRC_STAMP); \
	fi
endef

define deps_vmlinux
	@if [ ! -f $(GUEST_VMLINUX) ]; then \
		set -e; \
		sh $(KSRC_DIR)/scripts/extract-vmlinux $(GUEST_KDIR)/boot/vmlinuz-$(KVER) \
			> $(GUEST_VMLINUX).tmp; \
		mv $(GUEST_VMLINUX).tmp $(GUEST_VMLINUX); \
	fi
endef

deps:
	$(deps_packages)
	$(deps_kimage)
	$(deps_source)
	$(deps_vmlinux)

deps-check: $(DEPS_STAMPS)

$(DEPS_STAMP): mk/deps.mk
	$(deps_packages)

$(KIMG_STAMP): | $(DEPS_STAMP)
	$(deps_kimage)

$(SRC_STAMP): | $(DEPS_STAMP)
	$(deps_source)

$(GUEST_VMLINUX): | $(KIMG_STAMP) $(SRC_STAMP)
	$(deps_vmlinux)
