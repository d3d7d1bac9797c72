# metaroce: top-level entry points. Each area lives in its own fragment under mk/.
#
#   make            build the module (for every pinned kernel) and the userspace
#                   (calls `make deps` when needed)
#   make deps       install build/test dependencies and the pinned guest kernels
#   make test       every test but the long ones, KUnit and the bed on every
#                   pinned kernel (6.1, 6.12); ends with "N passed, N failed"
#   make test-long  the long runs (full-scale property tests, selftests/long/)
#   make demo       boot the two-VM bed and show metaroce at work
#   make test-debug every bed case on the debug guest kernel (mk/debug.mk)
#
# Test results: each suite writes lines "ok <name>" or "fail <name>" into
# $(RESULTS)/<suite>.results; $(TALLY) sums them into the closing line.

include mk/config.mk

.DEFAULT_GOAL := all
.PHONY: all test test-unit test-bed test-kunit test-long demo clean

include mk/deps.mk
include mk/kernel.mk
include mk/userspace.mk
include mk/bed.mk
include mk/kunit.mk
include mk/bench.mk
include mk/bpf.mk
include mk/debug.mk
include mk/pkg.mk

all: deps-check modules userspace

# KUnit and the bed run on every pinned kernel series (mk/config.mk), each
# part timed. BED_CASES_<series> (e.g. BED_CASES_6.12="selftests/cases/4*.sh")
# narrows one series' bed to those cases, should the budget need it.
# CI's 60 minutes: 6.12 skips the long fuzzers, the ECMP group (multipath
# is the core's, the same on both kernels) and the dissector (userspace);
# test-long runs every case on 6.12.
BED_CASES_6.12 ?= $(filter-out %/47-user-fuzz.sh %/48-fabric-ecmp.sh %/49-multipath-fabric.sh \
	%/70-netfuzz.sh %/81-dissector.sh,$(wildcard $(TOP)/selftests/cases/*.sh))

test: deps-check
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@rc=0; \
	part() { \
		t=$$(date +%s); \
		$(MAKE) --no-print-directory "$$@" TALLY_SKIP=1 || rc=1; \
		echo "test: $$* took $$(( $$(date +%s) - t )) s"; \
	}; \
	part test-unit; \
	for s in $(KSERIES); do part test-kunit KSEL=$$s; done; \
	$(foreach s,$(KSERIES),part test-bed KSEL=$(s) \
		$(if $(BED_CASES_$(s)),BED_CASES="$(BED_CASES_$(s))");) \
	$(TALLY) $(RESULTS)/*.results || rc=1; \
	exit $$rc

# Runs too long for CI: the property tests at full scale, the bed cases in
# selftests/long/ (if any), the soak (SOAK_REPS fresh-boot repetitions of
# the rping, perftest and pingpong cases; mk/bed.mk) and every bed case on
# 6.12.
test-long: deps-check
	@mkdir -p $(RESULTS) && rm -f $(RESULTS)/unit-long.results $(RESULTS)/bed-long.results \
		$(RESULTS)/soak.results
	@rc=0; \
	$(MAKE) --no-print-directory test-unit-long TALLY_SKIP=1 || rc=1; \
	if ls $(TOP)/selftests/long/*.sh >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory test-bed-long TALLY_SKIP=1 || rc=1; \
	fi; \
	$(MAKE) --no-print-directory test-soak TALLY_SKIP=1 || rc=1; \
	$(MAKE) --no-print-directory test-bed KSEL=6.12 TALLY_SKIP=1 || rc=1; \
	$(TALLY) $(RESULTS)/unit-long.results $(RESULTS)/bed-long.results \
		$(RESULTS)/soak.results $(RESULTS)/bed-6.12.results || rc=1; \
	exit $$rc

clean:
	rm -rf $(BUILD)
	$(MAKE) -C kernel clean KDIR=$(KHEADERS) || true
