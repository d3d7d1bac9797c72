/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The fields of the metaroce:mrc_path_ack and mrc_path_state tracepoints
 * (one event class), and of metaroce:mrc_path_rx, written once.
 *
 * trace.h builds the events from this list, and the BPF telemetry program
 * (bpf/path_telemetry.bpf.c) builds its view of the raw record from it, so
 * the two layouts cannot drift apart. The includer defines
 * __field(type, name) and __array(type, name, len) before expanding it.
 * Every field is a plain integer: a classic tracepoint program reads them
 * without BTF of the module.
 */
#ifndef MRC_TRACE_FIELDS_H
#define MRC_TRACE_FIELDS_H

#define MRC_TP_DEV_LEN	16	/* ib device name, truncated */

/*
 * The list is one argument of MRC_TP_LIST() so that it stays a single
 * token sequence wherever it is expanded (TP_STRUCT__entry, a struct).
 */
#define MRC_TP_LIST(...)	__VA_ARGS__

#define MRC_TP_PATH_FIELDS MRC_TP_LIST(			\
	__array(char, dev, MRC_TP_DEV_LEN)			\
	__field(u64, tx_pkts)	/* PSNs sent, resends included */ \
	__field(u64, acked_pkts)				\
	__field(u64, lost_pkts)	/* declared lost: each resent */ \
	__field(u64, late_pkts)	/* ... and acked after all */	\
	__field(u64, rto_fired)				\
	__field(u64, tx_bytes)	/* payload of tx_pkts */	\
	__field(u64, acked_bytes)	/* payload of acked_pkts */ \
	__field(u32, qpn)					\
	__field(u32, srtt_us)	/* 0: no sample yet */		\
	__field(u32, min_rtt_us)				\
	__field(u32, rto_us)					\
	__field(u32, cwnd)	/* path window, bytes */		\
	__field(u32, inflight)	/* path bytes in flight */	\
	__field(u32, conn_cwnd)				\
	__field(u32, ce)	/* peer's CE count, mod 2^32 */	\
	__field(u32, rate_hint)	/* Mbit/s from this ACK, 0: none */ \
	__field(u32, moves)	/* new ports: failures, [PATH-10] */ \
	__field(u32, rtt_us)	/* the newest sample, 0: none */ \
	__field(u32, rtt_samples)	/* a new one when it moves */ \
	__field(u16, loss_pm)	/* lost, per mille, average */	\
	__field(u16, mark_pm)	/* CE-marked, per mille, average */ \
	__field(u16, sport)					\
	__field(u8, path)					\
	__field(u8, state)	/* enum mrc_path_state */	\
	__field(u8, was_state)	/* before the change; ACK: state */ \
	__field(u8, fail_why)	/* enum mrc_path_fail, the last */ \
	__field(u16, was_sport)	/* before the change; ACK: sport */ \
)

/*
 * mrc_path_rx: the receiving end of one of the peer's paths, as an ACK
 * for it is built. Counters are cumulative since the connection began.
 */
#define MRC_TP_RX_FIELDS MRC_TP_LIST(			\
	__array(char, dev, MRC_TP_DEV_LEN)			\
	__field(u64, rx_pkts)	/* new PSNs */			\
	__field(u64, rx_bytes)	/* payload of rx_pkts */	\
	__field(u64, placed_bytes)	/* of it, placed the first time */ \
	__field(u64, dup_pkts)	/* PSNs received before */	\
	__field(u64, dup_bytes)	/* payload of dup_pkts */	\
	__field(u64, late_pkts)	/* new PSNs that filled a hole */ \
	__field(u64, skipped)	/* PSNs jumped over; - late: lost */ \
	__field(u64, slides)	/* holes given up ([REL-5]) */	\
	__field(u64, oow)	/* PSNs refused, too far ahead */ \
	__field(u64, acks)	/* ACKs built for the path */	\
	__field(u32, qpn)					\
	__field(u32, ce)	/* CE-marked arrivals, mod 2^32 */ \
	__field(u32, ack_delay_us)	/* this ACK held its newest */ \
	__field(u32, rate_hint)	/* Mbit/s this ACK offers, 0: none */ \
	__field(u16, span)	/* PSNs from the window base on */ \
	__field(u16, holes)	/* ... of those, missing */	\
	__field(u16, peer_sport)	/* data arrives from; 0: unknown */ \
	__field(u16, ack_sport)	/* this ACK leaves from */	\
	__field(u8, path)	/* the peer's path id */	\
	__field(u8, why)	/* enum mrc_ack_why */		\
)

#endif /* MRC_TRACE_FIELDS_H */
