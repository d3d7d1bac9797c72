# mk/pkg.mk: packages for users (issue 36): DKMS and Debian packages.
#
#   make deb          the Debian packages, built from a copy of the tree (PKG_PATHS) in
#                     build/deb/ (dpkg-buildpackage -b -us -uc, then lintian):
#                       metaroce-dkms              module source + dkms.conf,
#                                                  metaroce.service, links.conf,
#                                                  metaroce(7)
#                       metaroce-ibverbs-provider  libmetaroce-rdmav34.so + its
#                                                  driver file
#                       metaroce-tools             metaroce-top, metaroce-exporter,
#                                                  the Wireshark dissector, the
#                                                  verbs checks
#                     Rebuilt only when a file of the tree changed. lintian's
#                     findings: build/deb/lintian.txt (debian/README.lintian).
#   make dkms-src     the DKMS source directory, $(DKMS_DESTDIR)/usr/src/metaroce-<ver>
#                     (debian/rules uses it; DKMS_DESTDIR defaults to build/dkms)
#   make dkms-install as root, without Debian packages: dkms-src into /usr/src,
#                     then dkms add, build and install for the running kernel
#                     (DKMS_KERNEL=... for another one)
#
# The version comes from one place, the file VERSION.

PKG_VERSION   := $(shell cat $(TOP)/VERSION)
DEB_DIR       := $(BUILD)/deb
DEB_SRC       := $(DEB_DIR)/src/metaroce-$(PKG_VERSION)
DEB_STAMP     := $(DEB_DIR)/.built-$(PKG_VERSION)
DKMS_DESTDIR  ?= $(BUILD)/dkms
DKMS_SRC      := $(DKMS_DESTDIR)/usr/src/metaroce-$(PKG_VERSION)
DKMS_KERNEL   ?= $(shell uname -r)
# What the packages are built from, as git sees it (edits not yet committed
# included): a change elsewhere (tests, documents) does not rebuild them.
PKG_PATHS     := Makefile mk VERSION kernel userspace bpf dist debian Documentation/man
PKG_LS         = cd $(TOP) && git ls-files --cached --others --exclude-standard
PKG_FILES      = $(shell $(PKG_LS) -- $(PKG_PATHS) 2>/dev/null)

.PHONY: deb dkms-src dkms-install

deb: $(DEB_STAMP)

# (the file list only when asked for: every other make skips the git call)
$(DEB_STAMP): $(if $(filter deb,$(MAKECMDGOALS)),$(wildcard $(addprefix $(TOP)/,$(PKG_FILES))))
	@rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	@$(PKG_LS) -z -- $(PKG_PATHS) | \
		xargs -0 sh -c 'for f; do [ ! -e "$$f" ] || printf "%s\0" "$$f"; done' sh | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_SRC)
	@$(TOP)/debian/gen-changelog $(PKG_VERSION) > $(DEB_SRC)/debian/changelog
	@echo "deb: dpkg-buildpackage in $(DEB_SRC) (log: $(DEB_DIR)/build.log)"
	@cd $(DEB_SRC) && nice -n 10 dpkg-buildpackage -b -us -uc > $(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	@mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.changes $(DEB_DIR)/src/*.buildinfo $(DEB_DIR)/
	@cd $(DEB_DIR) && nice -n 10 lintian -I -E --pedantic --show-overrides *.changes \
		2>/dev/null | grep -v '^N: ' > lintian.txt; \
		echo "deb: lintian: $$(grep -c '^[EWIPX]: ' lintian.txt) finding(s), \
	$$(grep -c '^[EW]: ' lintian.txt) error(s)/warning(s), $$(grep -c '^O: ' lintian.txt) \
	overridden (debian/README.lintian); see $(DEB_DIR)/lintian.txt"
	@ls $(DEB_DIR)/*.deb
	@touch $@

# kernel/ without the KUnit suites and build products: what DKMS compiles.
dkms-src:
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	@cd $(TOP)/kernel && find . -path ./tests -prune -o -type f \
		\( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name Kconfig \) \
		! -name '*.mod.c' -print | cpio -pdm --quiet $(DKMS_SRC)
	@sed 's/#MODULE_VERSION#/$(PKG_VERSION)/' $(TOP)/kernel/dkms.conf > $(DKMS_SRC)/dkms.conf

dkms-install:
	@$(MAKE) --no-print-directory dkms-src DKMS_DESTDIR=/
	dkms add metaroce/$(PKG_VERSION)
	dkms build metaroce/$(PKG_VERSION) -k $(DKMS_KERNEL)
	dkms install metaroce/$(PKG_VERSION) -k $(DKMS_KERNEL)
