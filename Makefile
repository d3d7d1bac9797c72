# metaroce: top-level entry points. Each area lives in its own fragment under mk/.
#
#   make            build the module and the userspace (calls `make deps` when needed)
#   make deps       install build/test dependencies and the pinned guest kernel
#   make test       every test but the long ones; ends with "N passed, N failed"
#   make demo       boot the two-VM bed and show metaroce at work
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

all: deps-check module userspace

test: deps-check
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@rc=0; \
	$(MAKE) --no-print-directory test-unit TALLY_SKIP=1 || rc=1; \
	$(MAKE) --no-print-directory test-kunit TALLY_SKIP=1 || rc=1; \
	$(MAKE) --no-print-directory test-bed TALLY_SKIP=1 || rc=1; \
	$(TALLY) $(RESULTS)/*.results || rc=1; \
	exit $$rc

clean:
	rm -rf $(BUILD)
	$(MAKE) -C kernel clean KDIR=$(KHEADERS) || true
