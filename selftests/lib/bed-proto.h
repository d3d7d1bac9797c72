/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire format between the host's bed-client and the guest's bed-agent.
 *
 * The client connects over TCP (QEMU user-mode net, hostfwd on 127.0.0.1,
 * guest side in a private "mgmt" network namespace so the test network stays
 * exactly eth0..ethN-1) and sends one request:
 *
 *   "MRB1" u32 flags, u32 token_len, token, u32 cwd_len, cwd,
 *   u32 nenv, {u32 len, "K=V"}..., u32 argc, {u32 len, arg}...
 *
 * Then both sides exchange frames: u8 type, u32 len (big endian), payload.
 * A zero-length STDIN frame is EOF. EXIT carries the u32 status the shell
 * would report (exit code, or 128 + signal number), and ends the session.
 */
#ifndef BED_PROTO_H
#define BED_PROTO_H

#include <stdint.h>

#define BED_MAGIC "MRB1"

enum bed_flags {
	BED_F_STDIN = 1 << 0,	/* client forwards its stdin */
	BED_F_PTY = 1 << 1,	/* run the command on a pseudo terminal */
};

enum bed_frame {
	BED_STDIN = 0,
	BED_STDOUT = 1,
	BED_STDERR = 2,
	BED_WINSZ = 3,		/* u16 rows, u16 cols */
	BED_EXIT = 4,		/* u32 status */
	BED_ERROR = 5,		/* agent-side failure text; EXIT follows */
};

#define BED_MAX_FIELD (1u << 20)
#define BED_MAX_ARGS 4096

#endif
