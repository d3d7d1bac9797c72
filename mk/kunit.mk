# mk/kunit.mk: KUnit suites of kernel/tests, run inside a User-Mode Linux kernel.
#
#   make test-kunit      build UML with the module built in, run every suite,
#                        write $(RESULTS)/kunit.results and print a tally
#   make test-kunit KUNIT_FILTER='metaroce_wire*'   only the matching suites
#                        (a kunit.py filter_glob: suite or suite.case)
#   make test-kunit KSEL=6.12   the same on that series' linux-source (its
#                        own tree, build dir, log and kunit-6.12.results)
#
# The module is built the way it would live upstream: our kernel/ directory is
# linked into the cached linux-source tree as drivers/infiniband/sw/metaroce and
# two hook lines (one Kconfig `source`, one Makefile `obj-`) are added to that
# cached tree. Our sources are never touched. The tree stays at one absolute
# path so ccache (KUNIT_CCACHE) hits; the build dir is .cache/kunit-build, so
# reruns are incremental. Full log of the last run: .cache/kunit.log; its raw
# KTAP output: $(RESULTS)/kunit.ktap.

# The default series keeps the plain names; another series' files carry it.
KUNIT_SFX      := $(if $(filter-out $(KDEFAULT),$(KSEL)),-$(KSEL))
KUNIT_TREE     := $(CACHE)/linux-source-$(KSEL)
KUNIT_BUILD    := $(CACHE)/kunit-build$(KUNIT_SFX)
# The compiler cache lives with the debug kernel's, outside the clone, so a
# fresh clone (CI's) on a machine that built once compiles only what changed;
# CCACHE_BASEDIR makes the clone's absolute paths relative, so any clone hits.
KUNIT_CCACHE   := $(or $(METAROCE_CACHE),/var/cache/metaroce)/ccache-kunit
KUNIT_LOG      := $(CACHE)/kunit$(KUNIT_SFX).log
KUNIT_RESULTS  := $(RESULTS)/kunit$(KUNIT_SFX).results
KUNIT_KTAP     := $(RESULTS)/kunit$(KUNIT_SFX).ktap
KUNIT_JOBS     ?= 2
KUNIT_TIMEOUT  ?= 600
KUNIT_FILTER   ?=
KUNIT_LINK     := $(KUNIT_TREE)/drivers/infiniband/sw/metaroce
KUNIT_KCONFIG  := $(KUNIT_TREE)/drivers/infiniband/Kconfig
KUNIT_MAKEFILE := $(KUNIT_TREE)/drivers/infiniband/sw/Makefile
KUNIT_HOOK_KC  := source "drivers/infiniband/sw/metaroce/Kconfig"

.PHONY: test-kunit kunit-tree

# Wait for `make deps` to finish unpacking the source (it may run in parallel).
kunit-tree:
	@for i in $$(seq 600); do [ -f $(CACHE)/.src-$(KSEL)-done ] && break; sleep 1; done; \
	[ -f $(CACHE)/.src-$(KSEL)-done ] || { echo "kunit: $(KUNIT_TREE) missing: run make deps" >&2; exit 1; }
	@# another work tree's sources may have left newer objects behind, which
	@# make would take for up to date: start the module's objects afresh
	@if [ "$$(readlink $(KUNIT_LINK))" != "$(TOP)/kernel" ]; then \
		rm -rf $(KUNIT_BUILD)/drivers/infiniband/sw/metaroce; \
	fi
	@ln -sfn $(TOP)/kernel $(KUNIT_LINK)
	@grep -qxF '$(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG) || \
		sed -i '\|^source "drivers/infiniband/sw/siw/Kconfig"$$|a $(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG)
	@grep -qxF '$(KUNIT_HOOK_KC)' $(KUNIT_KCONFIG) || \
		{ echo "kunit: could not hook $(KUNIT_KCONFIG)" >&2; exit 1; }
	@grep -qF 'metaroce/' $(KUNIT_MAKEFILE) || \
		printf '%s\n' 'obj-$$(CONFIG_METAROCE)		+= metaroce/' >> $(KUNIT_MAKEFILE)

# kunit.py exits non-zero on any failure; the verdict is the results file, so
# the recipe only fails when the converted results hold a failure. One run at
# a time per build dir (flock): parallel `make test`s queue instead of mixing.
test-kunit: deps-check kunit-tree
	@mkdir -p $(RESULTS) $(KUNIT_CCACHE)
	@echo "kunit: building UML and running kernel/tests (log: $(KUNIT_LOG))"
	@start=$$(date +%s); \
	CCACHE_DIR=$(KUNIT_CCACHE) CCACHE_BASEDIR=$(TOP) flock $(KUNIT_BUILD).lock sh -c ' \
		rm -f $(KUNIT_BUILD)/test.log $(KUNIT_KTAP) $(KUNIT_KTAP).build-failed; \
		python3 $(KUNIT_TREE)/tools/testing/kunit/kunit.py run \
			--arch=um --kunitconfig=$(TOP)/kernel/tests \
			--build_dir=$(KUNIT_BUILD) --jobs=$(KUNIT_JOBS) \
			--timeout=$(KUNIT_TIMEOUT) --make_options "CC=ccache gcc" \
			$(if $(KUNIT_FILTER),"$(KUNIT_FILTER)") >$(KUNIT_LOG) 2>&1; \
		rc=$$?; \
		cp $(KUNIT_BUILD)/test.log $(KUNIT_KTAP) 2>/dev/null; \
		grep -q "Starting KUnit Kernel" $(KUNIT_LOG) || \
			grep -E "error|Error" $(KUNIT_LOG) | head -20 >$(KUNIT_KTAP).build-failed; \
		exit $$rc'; \
	rc=$$?; \
	built=; \
	if [ -f $(KUNIT_KTAP).build-failed ]; then \
		built=--build-failed; echo "kunit: build failed; errors in $(KUNIT_LOG):"; \
		cat $(KUNIT_KTAP).build-failed; rm -f $(KUNIT_KTAP).build-failed; \
	fi; \
	python3 $(TOP)/kernel/tests/ktap2results.py $(KUNIT_KTAP) \
		$(TOP)/kernel/tests $$built $(if $(KUNIT_FILTER),--filtered) \
		>$(KUNIT_RESULTS) || \
		echo 'fail kunit.results_converter' >>$(KUNIT_RESULTS); \
	echo "kunit: kunit.py exit $$rc after $$(( $$(date +%s) - start )) s"; \
	if grep -q '^fail' $(KUNIT_RESULTS); then \
		echo "kunit: what failed (from $(KUNIT_LOG)):"; \
		grep -E -A6 '(EXPECTATION|ASSERTION) FAILED' $(KUNIT_LOG) | head -60; \
	fi; \
	if [ "$(TALLY_SKIP)" != 1 ]; then $(TALLY) $(KUNIT_RESULTS); \
	else ! grep -q '^fail' $(KUNIT_RESULTS) && grep -q '^ok' $(KUNIT_RESULTS); fi
