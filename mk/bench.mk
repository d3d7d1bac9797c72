# mk/bench.mk: metaroce against rdma_rxe with perftest in the two-VM bed.
#
#   make bench-verbs   bandwidth 64 B..1 MiB (write/send/read), message rate,
#                      latency -> selftests/results/verbs.md + verbs.png
#   make bench-loss    goodput under netem loss / reorder / duplication
#                      -> selftests/results/loss.md + loss.png
#   make bench-loss-targets  metaroce at 0/1/10% loss run back to back
#                      (REPS=5) -> selftests/results/loss-targets.md
#   make bench-loss-alternate  the same targets with the loss switched every
#                      PERIOD s within one connection (REPS=2)
#                      -> selftests/results/loss-alternate.md
#   make bench-cpu     guest CPU per GiB and per million messages, both
#                      guests: metaroce, rxe, kernel TCP (iperf3) (REPS=3)
#                      -> selftests/results/cpu.md + cpu.png; PROFILE=1
#                      also samples both guests with perf around each run
#                      -> selftests/results/cpu-profile.md (where it went)
#   make bench-tail    ib_write_lat 4 KiB latency percentiles at 0/1/10% loss
#                      on both links (REPS=3, NLAT=2000): metaroce, metaroce
#                      without the answer timeout, rxe
#                      -> selftests/results/tail.md
#   make bench-readsplit  ib_read_lat (4 KiB, NLAT=1000) with the net
#                      tracepoints on in both guests: a READ round trip
#                      split into the requester's and the responder's turns,
#                      the macvlan and qdisc, and the way between the
#                      guests, metaroce and rxe (REPS=3)
#                      -> selftests/results/read-latency.md
#   make bench-telemetry  ib_write_bw/ib_send_bw 64 KiB with metaroce-top
#                      attached in both guests and without, alternating
#                      (REPS=3): the telemetry's cost in goodput
#                      -> selftests/results/telemetry-overhead.md
#   make bench-nvmeof  NVMe over Fabrics (fio on nvme-rdma/nvmet-rdma), IOPS
#                      and MiB/s -> selftests/results/nvmeof.md (REPS=3,
#                      RUNTIME=20 s per fio run)
#   make bench-multipath  one connection over the bed's ECMP fabric (4 links
#                      rate-limited to RATE=5 Mbit/s each, ECN-marking): healthy,
#                      a lossy link, a marked link, a black-holed link; per-path
#                      timelines -> selftests/results/multipath.md + PNGs
#                      (REPS=3, ~30 min; BENCH_QUICK=1: one repeat of two cells)
#   make bench-planes  one connection over 1 and 2 planes (2 direct links,
#                      each rate-limited to RATE=10 Mbit/s, ECN-marking), and
#                      plane 1 cut mid-transfer: goodput, recovery time
#                      -> selftests/results/planes.md + planes.png
#                      (REPS=3, ~10 min; BENCH_QUICK=1: one repeat)
#   make bench-scale   the data-centre simulator, no bed (see below)
#                      -> selftests/results/scale.md + scale-*.png
#
# Uses the bed that is up (and leaves it up); otherwise boots one with
# BENCH_BED_ARGS (jumbo frames, as RoCE fabrics run) and takes it down
# afterwards. Variables: REPS=3, BENCH_QUICK=1 (0: every loss rate
# and both sizes; slow), TMO=60 (s per perftest run); N64/N4K/N64K/N1M and
# NLAT set the iterations. Raw lines stay in .cache/bench/<mode>.raw.

BENCH := $(TOP)/selftests/bench/bench
BENCH_BED_ARGS ?= --mtu 9000
# Ethernet's MTU: with jumbo frames at the few Mbit/s the guests' CPUs
# leave room for, a packet takes 13 ms a link and a path carries one per
# round trip (simulator: 0.67 of 4R at 5 Mbit/s where 1500 keeps 0.89)
MULTIPATH_BED_ARGS ?= --fabric ecmp --links 4 --mtu 1500

.PHONY: bench-verbs bench-loss bench-loss-targets bench-loss-alternate \
	bench-tail bench-cpu bench-telemetry bench-readsplit bench-nvmeof bench-multipath \
	bench-planes

# bench_run MODE[,BED ARGS]
define bench_run
	@if $(BED) status | grep -q '^a: running'; then \
		BED=$(BED) TOP=$(TOP) $(BENCH) $(1); \
	else \
		$(BED) up $(or $(2),$(BENCH_BED_ARGS)) && rc=0 && \
		{ BED=$(BED) TOP=$(TOP) $(BENCH) $(1) || rc=$$?; }; \
		$(BED) down; exit $$rc; \
	fi
endef

bench-verbs: deps-check module userspace
	$(call bench_run,verbs)

bench-loss: deps-check module userspace
	$(call bench_run,loss)

bench-loss-targets: deps-check module userspace
	$(call bench_run,targets)

bench-loss-alternate: deps-check module userspace
	$(call bench_run,alternate)

bench-tail: deps-check module userspace
	$(call bench_run,tail)

bench-cpu: deps-check module userspace
	$(call bench_run,cpu)

bench-telemetry: deps-check module userspace
	$(call bench_run,telemetry)

bench-readsplit: deps-check module userspace
	$(call bench_run,readsplit)

bench-nvmeof: deps-check module userspace
	$(call bench_run,nvmeof)

bench-multipath: deps-check module userspace
	$(call bench_run,multipath,$(MULTIPATH_BED_ARGS))

PLANES_BED_ARGS ?= --links 2
bench-planes: deps-check module userspace
	$(call bench_run,planes,$(PLANES_BED_ARGS))

# bench-scale: the data-centre simulator (userspace/sim, issue 35), no bed:
# 64 hosts at 8 planes and 1, metaroce / RoCE-style / ideal under loss, a
# failed spine link, incast, 64 -> 1024 hosts; JOBS runs in parallel
# -> selftests/results/scale.md + scale-*.png (BENCH_QUICK=1: a small sweep)
.PHONY: bench-scale
bench-scale: userspace
	@SIM=$(US_BUILD)/sim/mrc-scale TOP=$(TOP) JOBS=$(or $(JOBS),2) \
		$(TOP)/selftests/bench/scale
