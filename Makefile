# metaroce: top-level entry points. Each area lives in its own fragment under mk/.
#
#   make            build the module (for every pinned kernel) and the userspace
#                   (calls `make deps` when needed)
#   make deps       install build/test dependencies and the pinned guest kernels
#   make test       every test but the long ones: KUnit and the bed on 6.1,
#                   the module and a bed subset on 6.12; ends with
#                   "N passed, N failed"
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

# CI has 60 minutes for a fresh clone, which builds every kernel tree it
# needs. So make test runs KUnit and the whole bed on the default series
# (6.1), and on every other pinned series (6.12) the module's build (W=1) and
# a bed subset that crosses each piece of kernel glue once
# (netdev events, namespaces, the provider's rings, RC/UD, dma-bufs, rdma_cm,
# NVMe-oF, the packages' DKMS build). test-long runs KUnit and every bed case
# there. BED_CASES_<series> overrides a series' subset.
BED_SMOKE     := 00-bed-sanity 10-link-add-show 14-port-follows-netdev 19-rmmod-with-devices \
	20-hostile-datagram 20-netns-delete 31-ring-charge 45-verbs-check 46-ud 54-dmabuf \
	60-rping-verify 65-nvmeof 90-packages
KOTHER        := $(filter-out $(KDEFAULT),$(KSERIES))
$(foreach s,$(KOTHER),$(eval BED_CASES_$(s) ?= $(BED_SMOKE:%=$(TOP)/selftests/cases/%.sh)))

# Each part is timed; the times are printed again just above the closing
# tally, where a log's tail (CI's) shows them.
test: deps-check
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@rc=0; \
	part() { \
		t=$$(date +%s); \
		$(MAKE) --no-print-directory "$$@" TALLY_SKIP=1 || rc=1; \
		echo "test: $${*%%BED_CASES=*} took $$(( $$(date +%s) - t )) s" | tee -a $(RESULTS)/times; \
	}; \
	part test-unit; \
	part test-kunit KSEL=$(KDEFAULT); \
	$(foreach s,$(KSERIES),part test-bed KSEL=$(s) \
		$(if $(BED_CASES_$(s)),BED_CASES="$(BED_CASES_$(s))");) \
	cat $(RESULTS)/times; \
	$(TALLY) $(RESULTS)/*.results || rc=1; \
	exit $$rc

# Runs too long for CI: the property tests at full scale, the bed cases in
# selftests/long/ (if any), the soak (SOAK_REPS fresh-boot repetitions of
# the rping, perftest and pingpong cases; mk/bed.mk), and KUnit and every
# bed case on the other pinned series.
test-long: deps-check
	@mkdir -p $(RESULTS) && rm -f $(RESULTS)/unit-long.results $(RESULTS)/bed-long.results \
		$(RESULTS)/soak.results
	@rc=0; \
	$(MAKE) --no-print-directory test-unit-long TALLY_SKIP=1 || rc=1; \
	if ls $(TOP)/selftests/long/*.sh >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory test-bed-long TALLY_SKIP=1 || rc=1; \
	fi; \
	$(MAKE) --no-print-directory test-soak TALLY_SKIP=1 || rc=1; \
	for s in $(KOTHER); do \
		$(MAKE) --no-print-directory test-kunit KSEL=$$s TALLY_SKIP=1 || rc=1; \
		$(MAKE) --no-print-directory test-bed KSEL=$$s BED_CASES= TALLY_SKIP=1 || rc=1; \
	done; \
	$(TALLY) $(RESULTS)/unit-long.results $(RESULTS)/bed-long.results \
		$(RESULTS)/soak.results $(KOTHER:%=$(RESULTS)/kunit-%.results) \
		$(KOTHER:%=$(RESULTS)/bed-%.results) || rc=1; \
	exit $$rc

clean:
	rm -rf $(BUILD)
	$(MAKE) -C kernel clean KDIR=$(KHEADERS) || true
