# Userspace: provider (C), tools and tests (C++20), built with CMake.
US_BUILD      := $(BUILD)/userspace
US_BUILD_SAN  := $(BUILD)/userspace-san

.PHONY: userspace userspace-san
userspace: deps-check
	@cmake -S userspace -B $(US_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(US_BUILD) -j2

userspace-san: deps-check
	@cmake -S userspace -B $(US_BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DMRC_SANITIZE=ON \
		-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	@cmake --build $(US_BUILD_SAN) -j2

# ---- core tests (owned by the core/tests area) ----
# test-unit: the GoogleTest suite (unit + property tests) in the normal and in
# the ASan+UBSan build, then every fuzz target for FUZZ_SECONDS with its
# committed corpus. One result line per test case in $(RESULTS)/unit.results.
FUZZ_SECONDS    ?= 20
# the property tests' size: 1 = about 1.2M simulated data packets (+ ACKs)
PROP_SCALE      ?= 2
PROP_SCALE_SAN  ?= 0.15
PROP_SCALE_LONG ?= 20
UNIT_LOGS       := $(RESULTS)/unit-logs
US_TESTS        := $(TOP)/userspace/tests

.PHONY: test-unit test-unit-long bench-core
test-unit: userspace userspace-san
	@mkdir -p $(RESULTS) $(UNIT_LOGS)
	@: > $(RESULTS)/unit.results
	@echo "test-unit: core_tests"
	@MRC_PROP_SCALE=$(PROP_SCALE) $(US_TESTS)/run-gtest unit $(UNIT_LOGS)/core_tests.log \
		$(US_BUILD)/tests/core_tests >> $(RESULTS)/unit.results || true
	@echo "test-unit: core_tests under ASan+UBSan"
	@MRC_PROP_SCALE=$(PROP_SCALE_SAN) $(US_TESTS)/run-gtest unit-san $(UNIT_LOGS)/core_tests-san.log \
		$(US_BUILD_SAN)/tests/core_tests >> $(RESULTS)/unit.results || true
	@echo "test-unit: provider host checks (normal and ASan+UBSan)"
	@$(TOP)/userspace/provider/tests/run-ctest unit $(UNIT_LOGS)/provider.log \
		$(US_BUILD) >> $(RESULTS)/unit.results || true
	@$(TOP)/userspace/provider/tests/run-ctest unit-san $(UNIT_LOGS)/provider-san.log \
		$(US_BUILD_SAN) >> $(RESULTS)/unit.results || true
	@echo "test-unit: telemetry_tests (metaroce-top --json, metaroce-exporter's page, promtool)"
	@$(US_TESTS)/run-gtest telemetry $(UNIT_LOGS)/telemetry_tests.log \
		$(US_BUILD)/tools/metaroce-top/telemetry_tests >> $(RESULTS)/unit.results || true
	@echo "test-unit: the Wireshark dissector (golden captures, fuzzed datagrams)"
	@$(TOP)/userspace/tools/wireshark/test-dissector $(US_BUILD) $(UNIT_LOGS) \
		>> $(RESULTS)/unit.results || true
	@echo "test-unit: the bed's filter of known kernel reports"
	@$(TOP)/selftests/lib/kernel-log-filter-test >> $(RESULTS)/unit.results || true
	@fz=$$(ls $(US_BUILD_SAN)/tests/*_fuzz 2>/dev/null); \
	if [ -n "$$fz" ]; then \
		echo "test-unit: fuzzing $$(echo $$fz | wc -w) target(s), $(FUZZ_SECONDS) s each"; \
		$(US_TESTS)/run-fuzz $(FUZZ_SECONDS) $(UNIT_LOGS) $$fz >> $(RESULTS)/unit.results || true; \
	fi
	@grep '^fail' $(RESULTS)/unit.results | sed 's/^/  /' || true
	@[ -n "$(TALLY_SKIP)" ] || $(TALLY) $(RESULTS)/unit.results

# test-unit-long: the property tests at PROP_SCALE_LONG (the top Makefile's
# test-long calls it), with their own results file.
test-unit-long: userspace
	@mkdir -p $(RESULTS) $(UNIT_LOGS)
	@MRC_PROP_SCALE=$(PROP_SCALE_LONG) $(US_TESTS)/run-gtest unit-long $(UNIT_LOGS)/core_tests-long.log \
		$(US_BUILD)/tests/core_tests --gtest_filter='ConnProperty.*' > $(RESULTS)/unit-long.results || true
	@[ -n "$(TALLY_SKIP)" ] || $(TALLY) $(RESULTS)/unit-long.results

# bench-core: per-packet cost of the core (Google Benchmark), as a table.
bench-core: userspace
	@mkdir -p $(TOP)/selftests/results
	@$(US_BUILD)/tests/bench_core --benchmark_min_time=0.5 \
		--benchmark_out=$(BUILD)/bench-core.json --benchmark_out_format=json
	@python3 $(US_TESTS)/bench-table $(BUILD)/bench-core.json > $(TOP)/selftests/results/core.md
	@cat $(TOP)/selftests/results/core.md
