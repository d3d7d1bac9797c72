// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// mrc_ring_charge: are a process's queue rings charged to its memory
// cgroup? The rings of a CQ and a QP are memory the kernel allocates on
// the process's behalf and maps into it; a process that asks for large
// queues must pay for them (in its cgroup's memory.current, and against
// its memory.max), or any process could pin memory outside every limit.
//
// Run it inside a cgroup of its own with the memory controller on. It
// creates a CQ and an RC QP of ENTRIES entries each (at most what the
// device allows) and compares the growth of its cgroup's memory.current
// with the bytes of the rings it mapped from the device:
//
//   rings   the mapped rings cover at least ENTRIES slots per queue
//   charge  memory.current grew by at least the mapped bytes
//
//   mrc_ring_charge -d DEV [-n ENTRIES]
//
// Output: "ok STEP" / "fail STEP: why" lines and "all steps passed"; exit
// status 0 when every step passed.

#include <unistd.h>

#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "device.h"
#include "report.h"

const char *const mrc_tool::kName = "mrc_ring_charge";

namespace {

using mrc_tool::die;
using mrc_tool::open_device;
using mrc_tool::failures;
using mrc_tool::report;

// memory.current of this process's cgroup (cgroup v2).
std::string memory_current_path()
{
	std::ifstream in("/proc/self/cgroup");
	std::string line;

	while (std::getline(in, line))
		if (line.rfind("0::", 0) == 0)
			return "/sys/fs/cgroup" + line.substr(3) + "/memory.current";
	die("no cgroup v2 line in /proc/self/cgroup");
}

uint64_t read_u64(const std::string &path)
{
	std::ifstream in(path);
	uint64_t v;

	if (!(in >> v))
		die("cannot read %s (memory controller off?)", path.c_str());
	return v;
}

// Bytes this process has mapped from uverbs device files: the rings.
uint64_t mapped_ring_bytes()
{
	std::ifstream in("/proc/self/maps");
	std::string line;
	uint64_t sum = 0;

	while (std::getline(in, line)) {
		if (line.find("/dev/infiniband/uverbs") == std::string::npos)
			continue;
		std::istringstream l(line);
		uint64_t lo, hi;
		char dash;

		if (l >> std::hex >> lo >> dash >> hi && dash == '-')
			sum += hi - lo;
	}
	return sum;
}

}  // namespace

int main(int argc, char **argv)
{
	const char *dev = nullptr;
	int entries = 16384, opt;

	while ((opt = getopt(argc, argv, "d:n:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'n': entries = atoi(optarg); break;
		default: die("usage: %s -d DEV [-n ENTRIES]", argv[0]);
		}
	}
	if (!dev || entries <= 0)
		die("usage: %s -d DEV [-n ENTRIES]", argv[0]);

	std::string current = memory_current_path();
	ibv_context *ctx = open_device(dev);
	ibv_device_attr da{};
	if (ibv_query_device(ctx, &da))
		die("query_device");
	ibv_pd *pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("alloc_pd");
	int cqe = std::min(entries, da.max_cqe);
	int wrs = std::min(entries, da.max_qp_wr);

	uint64_t mapped0 = mapped_ring_bytes();
	uint64_t before = read_u64(current);
	ibv_cq *cq = ibv_create_cq(ctx, cqe, nullptr, nullptr, 0);
	if (!cq)
		die("create_cq %d: %s", cqe, strerror(errno));
	ibv_qp_init_attr ia{};
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.cap.max_send_wr = static_cast<uint32_t>(wrs);
	ia.cap.max_recv_wr = static_cast<uint32_t>(wrs);
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.qp_type = IBV_QPT_RC;
	ibv_qp *qp = ibv_create_qp(pd, &ia);
	if (!qp)
		die("create_qp %d: %s", wrs, strerror(errno));
	uint64_t after = read_u64(current);
	uint64_t mapped = mapped_ring_bytes() - mapped0;
	uint64_t grew = after > before ? after - before : 0;

	// a CQ slot and a receive slot are 32 bytes at least, a send slot 64
	uint64_t least = static_cast<uint64_t>(cqe) * 32 +
			 static_cast<uint64_t>(wrs) * (64 + 32);
	report(mapped >= least, "rings", "CQ of %d, QP of %d + %d WRs: %llu bytes mapped",
	       cqe, wrs, wrs, static_cast<unsigned long long>(mapped));
	report(grew >= mapped, "charge", "memory.current grew by %llu bytes for %llu mapped",
	       static_cast<unsigned long long>(grew),
	       static_cast<unsigned long long>(mapped));

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	printf("%s\n", failures ? "FAILED" : "all steps passed");
	return failures ? 1 : 0;
}
