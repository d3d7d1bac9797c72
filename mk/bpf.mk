# mk/bpf.mk: per-path telemetry, owned by the telemetry area.
#
#   make telemetry        metaroce-top and its BPF object + skeleton
#                         (part of `make userspace` too, when clang,
#                         bpftool and libbpf are there)
#   make telemetry-check  checkpatch --strict on the tracepoint files
#
# bpf/path_telemetry.bpf.c attaches to metaroce:mrc_path_ack (kernel/trace.h);
# both take the record layout from kernel/trace_fields.h.
METAROCE_TOP := $(US_BUILD)/tools/metaroce-top/metaroce-top

.PHONY: telemetry telemetry-check
telemetry: deps-check
	@cmake -S userspace -B $(US_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(US_BUILD) --target metaroce-top -j2

telemetry-check:
	@perl $(CACHE)/linux-source-6.1/scripts/checkpatch.pl --no-tree --strict --quiet \
		-f $(TOP)/kernel/trace.h $(TOP)/kernel/trace.c $(TOP)/kernel/trace_fields.h
