# mk/kunit.mk: KUnit suites of kernel/tests, run inside a User-Mode Linux kernel.
#
#   make test-kunit      build UML with the module built in, run every suite,
#                        write $(RESULTS)/kunit.results and print a tally
#
# The module is built the way it would live upstream: our kernel/ directory is
# linked into the cached linux-source tree as drivers/infiniband/sw/metaroce and
# two hook lines (one Kconfig `source`, one Makefile `obj-`) are added to that
# cached tree. Our sources are never touched. The tree stays at one absolute
# path so ccache (in .cache/ccache) hits; the build dir is .cache/kunit-build, so
# reruns are incremental. Full log of the last run: .cache/kunit.log.

KUNIT_TREE     := $(CACHE)/linux-source-6.1
KUNIT_BUILD    := $(CACHE)/kunit-build
KUNIT_CCACHE   := $(CACHE)/ccache
KUNIT_LOG      := $(CACHE)/kunit.log
KUNIT_RESULTS  := $(RESULTS)/kunit.results
KUNIT_JOBS     ?= 2
KUNIT_TIMEOUT  ?= 600
KUNIT_LINK     := $(KUNIT_TREE)/drivers/infiniband/sw/metaroce
KUNIT_KCONFIG  := $(KUNIT_TREE)/drivers/infiniband/Kconfig
KUNIT_MAKEFILE := $(KUNIT_TREE)/drivers/infiniband/sw/Makefile
KUNIT_HOOK_KC  := source "drivers/infiniband/sw/metaroce/Kconfig"

.PHONY: test-kunit kunit-tree

# Wait for `make deps` to finish unpacking the source (it may run in parallel).
kunit-tree:
	@for i in $$(seq 600); do [ -f $(CACHE)/.src-done ] && break; sleep 1; done; \
	[ -f $(CACHE)/.src-done ] || { echo "kunit: $(KUNIT_TREE) missing: run make deps" >&2; exit 1; }
	@ln -sfn $(TOP)/kernel $(KUNIT_LINK)
	@grep -qxF '$(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG) || \
		sed -i '\|^source "drivers/infiniband/sw/siw/Kconfig"$$|a $(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG)
	@grep -qxF '$(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG) || \
		{ echo "kunit: could not hook $(KUNIT_KCONFIG)" >&2; exit 1; }
	@grep -qF 'metaroce/' $(KUNIT_MAKEFILE) || \
		printf '%s\n' 'obj-$$(CONFIG_METAROCE)		+= metaroce/' >> $(KUNIT_MAKEFILE)

# kunit.py exits non-zero on any failure; the verdict is the results file, so
# the recipe only fails when the converted results hold a failure.
test-kunit: deps-check kunit-tree
	@mkdir -p $(RESULTS) $(KUNIT_CCACHE)
	@rm -f $(KUNIT_BUILD)/test.log
	@echo "kunit: building UML and running kernel/tests (log: $(KUNIT_LOG))"
	@start=$$(date +%s); \
	CCACHE_DIR=$(KUNIT_CCACHE) python3 $(KUNIT_TREE)/tools/testing/kunit/kunit.py run \
		--arch=um --kunitconfig=$(TOP)/kernel/tests --build_dir=$(KUNIT_BUILD) \
		--jobs=$(KUNIT_JOBS) --timeout=$(KUNIT_TIMEOUT) --make_options 'CC=ccache gcc' \
		>$(KUNIT_LOG) 2>&1; \
	rc=$$?; \
	built=; grep -q 'Starting KUnit Kernel' $(KUNIT_LOG) || built=--build-failed; \
	[ -z "$$built" ] || { echo "kunit: build failed; last lines of $(KUNIT_LOG):"; \
		grep -E 'error|Error' $(KUNIT_LOG) | head -20; }; \
	python3 $(TOP)/kernel/tests/ktap2results.py $(KUNIT_BUILD)/test.log \
		$(TOP)/kernel/tests $$built >$(KUNIT_RESULTS) || \
		echo 'fail kunit.results_converter' >>$(KUNIT_RESULTS); \
	echo "kunit: kunit.py exit $$rc after $$(( $$(date +%s) - start )) s"; \
	if [ "$(TALLY_SKIP)" != 1 ]; then $(TALLY) $(KUNIT_RESULTS); \
	else ! grep -q '^fail' $(KUNIT_RESULTS) && grep -q '^ok' $(KUNIT_RESULTS); fi
