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

# Host build + test tools, and the binaries the bed copies into the guests.
DEPS_PKGS := \
	build-essential bc bison flex libelf-dev libssl-dev kmod cpio gzip xz-utils \
	dwarves pkg-config git python3 \
	clang llvm lld libbpf-dev bpftool \
	cmake ninja-build ccache libgtest-dev googletest libbenchmark-dev \
	libnl-3-dev libnl-route-3-dev \
	qemu-system-x86 busybox-static socat \
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev \
	perftest rdmacm-utils nvme-cli nfs-kernel-server nfs-common fio iproute2 tcpdump tshark strace ethtool gnuplot-nox \
	prometheus curl iperf3 \
	dkms dh-dkms debhelper lintian \
	linux-headers-$(KVER_$(KDEFAULT)) $(foreach s,$(KSERIES),linux-source-$(s))

# Per kernel series S (mk/config.mk): the image package and, for all but
# the default series, the header packages unpacked beside it (KHEADERS).
kimg_pkg       = linux-image-$(KVER_$(1))-unsigned
kabi           = $(patsubst %-amd64,%,$(KVER_$(1)))
khdr_pkgs      = $(if $(filter $(KDEFAULT),$(1)),,linux-headers-$(KVER_$(1)) \
		 linux-headers-$(call kabi,$(1))-common linux-kbuild-$(call kabi,$(1)))
kdebs          = $(foreach p,$(call kimg_pkg,$(1)) $(call khdr_pkgs,$(1)),$(p)=$(KPKG_$(1)))
ksrc_dir       = $(CACHE)/linux-source-$(1)
ksrc_tar       = /usr/src/linux-source-$(1).tar.xz
kimg_stamp     = $(call kdir,$(1))/.done
ksrc_stamp     = $(CACHE)/.src-$(1)-done
# The uncompressed ELF kernel: the bed boots it directly (PVH entry, no
# decompression under TCG), and BPF CO-RE can read the guest's BTF from it.
kvmlinux       = $(call kdir,$(1))/boot/vmlinux-$(KVER_$(1))

DEPS_STAMP    := $(CACHE)/.deps-done
GUEST_VMLINUX := $(call kvmlinux,$(KSEL))
DEPS_STAMPS   := $(DEPS_STAMP) $(foreach s,$(KSERIES),$(call kimg_stamp,$(s)) \
		 $(call ksrc_stamp,$(s)) $(call kvmlinux,$(s)))

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

# The guest kernel of series $(1): the stock Debian image, never installed
# on the host, with its headers where they are not installed (the header
# package's Makefile includes its -common twin by absolute path: pointed
# at the unpacked one).
define deps_kimage
	@if [ ! -f $(call kimg_stamp,$(1)) ]; then \
		set -e; mkdir -p $(CACHE)/debs; \
		for p in $(call kdebs,$(1)); do \
			ls $(CACHE)/debs/$${p%%=*}_$${p#*=}_*.deb >/dev/null 2>&1 && continue; \
			echo "deps: downloading $$p"; \
			(cd $(CACHE)/debs && $(APT_RETRY) \
				apt-get download -q -o APT::Sandbox::User=root $$p); \
		done; \
		rm -rf $(call kdir,$(1)) && mkdir -p $(call kdir,$(1)); \
		for p in $(call kdebs,$(1)); do \
			dpkg-deb -x $(CACHE)/debs/$${p%%=*}_$${p#*=}_*.deb $(call kdir,$(1)); \
		done; \
		$(if $(call khdr_pkgs,$(1)),sed -i 's|^include /usr/src/|include $(call kdir,$(1))/usr/src/|' \
			$(call khdr,$(1))/Makefile;) \
		depmod -b $(call kdir,$(1)) $(KVER_$(1)); \
		touch $(call kimg_stamp,$(1)); \
	fi
endef

# linux-source of series $(1) for KUnit and checkpatch, unpacked once into
# the cache. A tree that is already there is kept as it is (KUnit links our
# driver into it).
define deps_source
	@if [ ! -f $(call ksrc_stamp,$(1)) ]; then \
		set -e; \
		if [ ! -f $(call ksrc_dir,$(1))/Makefile ]; then \
			echo "deps: unpacking $(call ksrc_tar,$(1))"; \
			tar -xf $(call ksrc_tar,$(1)) -C $(CACHE); \
		fi; \
		touch $(call ksrc_stamp,$(1)); \
	fi
endef

# extract-vmlinux of the default series' source reads any series' image.
define deps_vmlinux
	@if [ ! -f $(call kvmlinux,$(1)) ]; then \
		set -e; \
		sh $(call ksrc_dir,$(KDEFAULT))/scripts/extract-vmlinux \
			$(call kdir,$(1))/boot/vmlinuz-$(KVER_$(1)) > $(call kvmlinux,$(1)).tmp; \
		mv $(call kvmlinux,$(1)).tmp $(call kvmlinux,$(1)); \
	fi
endef

define nl


endef

deps:
	$(deps_packages)
	$(foreach s,$(KSERIES),$(call deps_kimage,$(s))$(nl))
	$(foreach s,$(KSERIES),$(call deps_source,$(s))$(nl))
	$(foreach s,$(KSERIES),$(call deps_vmlinux,$(s))$(nl))

deps-check: $(DEPS_STAMPS)

$(DEPS_STAMP): mk/deps.mk mk/config.mk
	$(deps_packages)

define deps_series_rules
$(call kimg_stamp,$(1)): | $(DEPS_STAMP)
	$$(call deps_kimage,$(1))

$(call ksrc_stamp,$(1)): | $(DEPS_STAMP)
	$$(call deps_source,$(1))

$(call kvmlinux,$(1)): | $(call kimg_stamp,$(1)) $(call ksrc_stamp,$(KDEFAULT))
	$$(call deps_vmlinux,$(1))
endef
$(foreach s,$(KSERIES),$(eval $(call deps_series_rules,$(s))))
