# mk/bed.mk: the two-VM QEMU bed (selftests/bed) and what runs on it.
#
#   make test-bed        build, boot the bed, run selftests/cases/*.sh, check both
#                        kernel logs, take the bed down. Variables:
#                          BED_REUSE=1          use the bed already up, leave it up
#                          BED_CASES="selftests/cases/10-link-add-show.sh ..."
#                          BED_UP_ARGS="--links 4 --mtu 9000"
#                        (a case with a "# bed: OPTIONS" line gets a bed of
#                        its own, one boot per distinct OPTIONS: run-bed)
#                          BED_CASE_TIMEOUT=300 (s per case)
#   make test-bed-long   the same for selftests/long/*.sh (part of make test-long)
#   make test-soak       selftests/soak: SOAK_REPS repetitions of the rping,
#                        perftest and pingpong cases (BED_CASES to choose),
#                        each on a freshly booted bed (SOAK_REBOOT=0: one
#                        bed), every failure's evidence kept in .cache/soak
#                        (part of make test-long)
#   KSEL=6.12            any of these on that kernel series (mk/config.mk):
#                        its module and Debian kernel, results apart
#                        (bed-6.12.results)
#   make bed-up          boot the bed (BED_UP_ARGS) and leave it up
#   make bed-shell       interactive shell in guest a (VM=b for b)
#   make bed-status / bed-down
#   make demo            boot, load metaroce, show the devices; leaves the bed up

BED          := $(TOP)/selftests/bed
BED_CASES    ?=
BED_UP_ARGS  ?=
VM           ?= a

# The bed reads the pinned kernel from here (it derives it itself when run alone).
export KVER GUEST_KDIR

# A series other than the default boots its own kernel (first, so that a
# --kernel in BED_UP_ARGS still wins), and its results are kept apart.
BED_KSEL     := $(if $(filter-out $(KDEFAULT),$(KSEL)),-$(KSEL))
BED_UP       := $(if $(BED_KSEL),--kernel $(KSEL)) $(BED_UP_ARGS)

.PHONY: test-bed test-bed-long test-soak bed-up bed-down bed-shell bed-status demo

test-bed: deps-check module userspace
	@mkdir -p $(RESULTS)
	@RESULTS=$(RESULTS) BED_SUITE=bed$(BED_KSEL) BED_UP_ARGS="$(BED_UP)" \
		$(TOP)/selftests/run-bed $(BED_CASES)

# The bed cases too long for CI (make test-long), results in bed-long.results.
test-bed-long: deps-check module userspace
	@mkdir -p $(RESULTS)
	@RESULTS=$(RESULTS) BED_SUITE=bed-long$(BED_KSEL) BED_UP_ARGS="$(BED_UP)" \
		$(TOP)/selftests/run-bed $(or $(BED_CASES),$(wildcard $(TOP)/selftests/long/*.sh))

# Repetitions of the cases on fresh beds (make test-long), in soak.results.
test-soak: deps-check module userspace
	@mkdir -p $(RESULTS)
	@RESULTS=$(RESULTS) BED_UP_ARGS="$(BED_UP)" $(TOP)/selftests/soak $(BED_CASES)

bed-up: deps-check module userspace
	@$(BED) up $(BED_UP)

bed-down:
	@$(BED) down

bed-status:
	@$(BED) status

bed-shell:
	@$(BED) shell $(VM)

demo: deps-check module userspace
	@BED_UP_ARGS="$(BED_UP)" $(TOP)/selftests/demo
