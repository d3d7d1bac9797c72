# One run of the multipath benchmark (a file selftests/bench/multipath
# keeps in .cache/bench/multipath/): what it measured.
#
#   awk -v out=summary -f multipath.awk RUN   one line of key=value figures
#   awk -v out=timeline -f multipath.awk RUN  rows "T LINK0..LINKn-1 TOTAL
#        P0..Pm-1" every BIN s: T from the traffic's start, each link's
#        wire rate (this guest's router sending, Mbit/s), the connection's
#        goodput and each path's (metaroce: packets acknowledged once,
#        Mbit/s of payload; rxe: "-"), the path's link in "#" lines
#
# The run's lines, each led by its kind:
#   meta key=value...       cell, dev, q, rate (Mbit/s per link), dur and
#                           margin (perftest -D, -f), payload (bytes a
#                           metaroce packet carries), link (the one the
#                           event hit), cross (Mbit/s of competing traffic)
#   client LINE             perftest's output
#   events E US NAME ARGS   marks of the wall clock (us) around each step
#   links L US ethI TX RX.. the router's byte counters, every few tens of ms
#   paths S US DEV QPN PATH SPORT STATE SRTT CWND TX ACKED LOST LATE RTO CE
#         LOSS_PM MARK_PM MOVES ACK_US ACKS      metaroce-top -r
#   map SPORT LINK          the link each port seen took
#   cross LINE              the competing traffic's receiver table
#   status ok|qperr|timeout|fail
#
# Goodput of a path is its packets acknowledged times the payload: a
# packet declared lost and resent counts once, as the resend (ACKED counts
# packets acknowledged while in flight; the first copy arriving after all
# is LATE, kernel/core/path.c). Between two samples a counter is taken as
# linear in the time of the ACKs that set it.

function kv(s,   i, a) {
	for (i = 2; i <= NF; i++)
		if (split($i, a, "=") == 2)
			meta[a[1]] = a[2]
}

# The value at time t of series s (points st[s, 1..sn[s]], times rising),
# linear between points, flat outside them.
function at(s, t,   lo, hi, mid) {
	if (!sn[s] || t <= st[s, 1])
		return sn[s] ? sv[s, 1] : 0
	if (t >= st[s, sn[s]])
		return sv[s, sn[s]]
	lo = 1; hi = sn[s]
	while (hi - lo > 1) {
		mid = int((lo + hi) / 2)
		if (st[s, mid] <= t) lo = mid; else hi = mid
	}
	if (st[s, hi] == st[s, lo])
		return sv[s, hi]
	return sv[s, lo] + (sv[s, hi] - sv[s, lo]) * (t - st[s, lo]) / (st[s, hi] - st[s, lo])
}

function add(s, t, v) {
	# a sample repeating the last ACK adds nothing
	if (sn[s] && t <= st[s, sn[s]])
		return
	sn[s]++
	st[s, sn[s]] = t
	sv[s, sn[s]] = v
}

# Mbit/s of series s over [a, b] (seconds), times k bytes per unit.
function rate(s, a, b, k) { return b > a ? (at(s, b) - at(s, a)) * k * 8 / (b - a) / 1e6 : 0 }

# goodput of the whole connection over [a, b], Mbit/s
function goodput(a, b,   p, g) {
	g = 0
	for (p = 1; p <= npath; p++)
		g += rate("p" p, a, b, meta["payload"])
	return g
}

function wire(a, b,   l, w) {
	w = 0
	for (l = 0; l < nlink; l++)
		w += rate("l" l, a, b, 1)
	return w
}

# the median of the srtt samples (us) of every path within [a, b]
function srtt_median(a, b,   i, n, v, j, t) {
	n = 0
	for (i = 1; i <= nsr; i++)
		if (srt[i] >= a && srt[i] <= b && srv[i] > 0)
			v[++n] = srv[i]
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
}

# the link path p's port took at time t (its sport then), -1: unknown
function link_at(p, t,   i, s) {
	s = -1
	for (i = 1; i <= psn[p]; i++) {
		if (pst[p, i] > t)
			break
		s = psp[p, i]
	}
	return (s in lmap) ? lmap[s] : -1
}

$1 == "meta" { kv(); next }
$1 == "status" { status = $2; next }
$1 == "client" && $2 == 65536 && NF >= 6 { iters = $3; avg = $5; next }
$1 == "client" && /Completion with error|Failed status|wc status/ { qperr = 1; next }
$1 == "map" { lmap[$2] = $3; next }
# "stat aN link DEV/1 KEY VALUE...": a device's counters in guest a or b
# before (N = 0) and after (1) the run
$1 == "stat" {
	for (i = 5; i < NF; i += 2)
		stat[$2, $i] = $(i + 1)
	next
}
$1 == "cross" && $2 == "total" { cross_rx = $4; next }
$1 == "cross" && $2 == "sport" { cross_bytes += $9; next }
$1 == "events" {
	ev[++nev] = $4
	evt[nev] = $3 / 1e6
	evarg[nev] = $5
	next
}
$1 == "links" {
	t = $3 / 1e6
	for (i = 4; i < NF; i += 3) {
		l = substr($i, 4) + 0
		if (l + 1 > nlink)
			nlink = l + 1
		add("l" l, t, $(i + 1))
	}
	if (!lt0) lt0 = t
	lt1 = t
	next
}
$1 == "paths" {
	k = $5 "/" $6
	if (!(k in pid)) {
		pid[k] = ++npath
		pname[npath] = k
	}
	p = pid[k]
	add("p" p, $20 / 1e6, $12)
	# the port over time, for the path's link
	if (!psn[p] || psp[p, psn[p]] != $7) {
		psn[p]++
		pst[p, psn[p]] = $3 / 1e6
		psp[p, psn[p]] = $7
	}
	srt[++nsr] = $3 / 1e6
	srv[nsr] = $9
	ptx[p] = $11; packed[p] = $12; plost[p] = $13; plate[p] = $14; pmoves[p] = $19
	if (!(p in ptx0)) {
		ptx0[p] = $11; plost0[p] = $13; plate0[p] = $14; pmoves0[p] = $19
	}
	next
}

END {
	R = meta["rate"]
	dur = meta["dur"]; margin = meta["margin"]
	# the traffic's start: the last link sample before the first 64 KiB
	# went out
	for (i = 1; i <= sn["l0"]; i++) {
		tt = st["l0", i]
		tot = 0
		for (l = 0; l < nlink; l++)
			tot += at("l" l, tt) - sv["l" l, 1]
		if (tot >= 65536)
			break
		t0 = tt
	}
	if (!t0) t0 = lt0
	# perftest's measured window, and the run's end
	wa = t0 + margin; wb = t0 + dur - margin
	if (wb > lt1) wb = lt1
	tend = t0 + dur < lt1 ? t0 + dur : lt1
	for (i = 1; i <= nev; i++)
		evtime[ev[i]] = evt[i]

	if (out == "timeline") {
		bin = BIN ? BIN : 0.05
		printf "# t"
		for (l = 0; l < nlink; l++) printf " link%d", l
		printf " total"
		for (p = 1; p <= npath; p++) printf " path%s", pname[p]
		printf "\n# events"
		for (i = 1; i <= nev; i++) if (ev[i] !~ /-done$/) printf " %s=%.3f", ev[i], evt[i] - t0
		printf "\n"
		for (ta = lt0; ta + bin <= lt1; ta += bin) {
			printf "%.3f", ta - t0
			for (l = 0; l < nlink; l++) printf " %.3f", rate("l" l, ta, ta + bin, 1)
			if (npath) printf " %.3f", goodput(ta, ta + bin); else printf " -"
			for (p = 1; p <= npath; p++) printf " %.3f", rate("p" p, ta, ta + bin, meta["payload"])
			printf "\n"
		}
		# each path's link at each sample it moved (for the plot's key)
		for (p = 1; p <= npath; p++)
			for (i = 1; i <= psn[p]; i++)
				printf "# path %s at %.3f port %s link %s\n", pname[p], pst[p, i] - t0, psp[p, i], (psp[p, i] in lmap) ? lmap[psp[p, i]] : "?"
		exit
	}

	st_ = status
	if (st_ == "ok" && qperr) st_ = "qperr"
	gp = iters * 65536 / (dur - 2 * margin) / 1048576
	printf "st=%s gp=%.3f pgp=%s iters=%d", st_, gp, avg + 0, iters
	printf " wa=%.2f wb=%.2f", wa - t0, wb - t0
	w = wire(wa, wb)
	printf " wire=%.3f", w
	for (l = 0; l < nlink; l++) printf " l%d=%.3f", l, rate("l" l, wa, wb, 1)
	# how many links carry R/4 or more at once, on average over the 100 ms
	# of the window (one connection on all four links at once: 4), and
	# for metaroce the share of its goodput its busiest path delivered
	# (four paths alike: 0.25; one path at a time: 1)
	nb = busy_l = top = nt = 0
	for (x = wa; x + 0.1 <= wb; x += 0.1) {
		nb++
		for (l = 0; l < nlink; l++)
			if (rate("l" l, x, x + 0.1, 1) >= (R > 0 ? R : 40) / 4) busy_l++
		gt = npath ? goodput(x, x + 0.1) : 0
		if (gt > 0) {
			m = 0
			for (p = 1; p <= npath; p++)
				if ((y = rate("p" p, x, x + 0.1, meta["payload"])) > m) m = y
			top += m / gt
			nt++
		}
	}
	if (nb) printf " links_busy=%.2f", busy_l / nb
	if (nt) printf " top_path=%.2f", top / nt
	if (npath) {
		printf " tgp=%.3f srtt=%d", goodput(wa, wb), srtt_median(wa, wb)
		sent = lost = late = moves = 0
		for (p = 1; p <= npath; p++) {
			sent += ptx[p] - ptx0[p]; lost += plost[p] - plost0[p]
			late += plate[p] - plate0[p]; moves += pmoves[p] - pmoves0[p]
		}
		printf " sent=%d lost=%d late=%d moves=%d", sent, lost, late, moves
		# how many links the paths used at the window's middle
		delete used
		nused = 0
		for (p = 1; p <= npath; p++) {
			l = link_at(p, (wa + wb) / 2)
			if (l >= 0 && !(l in used)) { used[l] = 1; nused++ }
		}
		printf " links_used=%d", nused
	}
	# the devices' counters that say what went wrong (rxe: retries of the
	# requester a, sequence errors at the responder b)
	n = split("a:sent_pkts a:retransmits a:completer_retry_err a:retry_exceeded_err a:rcvd_seq_err " \
		  "b:out_of_seq_request b:duplicate_request b:ecn_ce_received", keys, " ")
	for (i = 1; i <= n; i++) {
		split(keys[i], kk, ":")
		if ((kk[1] "1", kk[2]) in stat)
			printf " %s_%s=%d", kk[1], kk[2], stat[kk[1] "1", kk[2]] - stat[kk[1] "0", kk[2]]
	}
	L = meta["link"]
	if (L != "" && L >= 0) {
		printf " L=%d", L
		if ("event" in evtime) {
			te = evtime["event"]
			# what link L and the connection carried in the second
			# before the event, and in the measured window after it
			printf " te=%.2f lL_before=%.3f lL_after=%.3f", te - t0,
				rate("l" L, te - 1, te, 1), rate("l" L, wa, wb, 1)
			if (npath) {
				# the connection's share of link L: its paths on
				# L, before and after
				gb = ga = 0
				for (p = 1; p <= npath; p++) {
					if (link_at(p, te - 0.5) == L) gb += rate("p" p, te - 1, te, meta["payload"])
					if (link_at(p, (wa + wb) / 2) == L) ga += rate("p" p, wa, wb, meta["payload"])
				}
				printf " mL_before=%.3f mL_after=%.3f", gb, ga
			}
		}
		if (meta["cross"] > 0 && ("event" in evtime) && ("stop" in evtime))
			printf " cross_rx=%d cross_wire=%.3f", cross_rx,
				(cross_bytes + 42 * cross_rx) * 8 / (evtime["stop"] - evtime["event"]) / 1e6
		if (("blackhole" in evtime)) {
			tb = evtime["blackhole"]
			tr = evtime["repair"]
			printf " tb=%.3f tr=%.3f", tb - t0, tr - t0
			rtt = srtt_median(tb - 1, tb)
			printf " srtt_before=%d", rtt
			need = 0.7 * 3 * R
			# recovery: the first moment from tb on after which the
			# goodput (rxe: wire rate) of the next half second reaches
			# 0.7 of the other links' capacity (a whole half second:
			# one lucky 100 ms of ACKs arriving in a bunch is no
			# recovery)
			rec = -1
			for (x = tb; x + 0.5 <= tr; x += 0.01) {
				g = npath ? goodput(x, x + 0.5) : wire(x, x + 0.5)
				if (g >= need) { rec = x - tb; break }
			}
			printf " rec_ms=%d", rec < 0 ? -1 : rec * 1000 + 0.5
			g0 = npath ? goodput(tb - 1, tb) : wire(tb - 1, tb)
			g1 = npath ? goodput(tb, tb + 0.1) : wire(tb, tb + 0.1)
			g2 = npath ? goodput(tb + 0.1, tb + 0.6) : wire(tb + 0.1, tb + 0.6)
			g3 = npath ? goodput(tb + 0.1, tr) : wire(tb + 0.1, tr)
			printf " g_before=%.3f g_0_100=%.3f g_100_600=%.3f g_hole=%.3f", g0, g1, g2, g3
			# the link back in use: the first 100 ms from the repair
			# on in which it carries a quarter of its rate
			use = -1
			for (x = tr; x + 0.1 <= tend; x += 0.01)
				if (rate("l" L, x, x + 0.1, 1) >= R / 4) { use = x - tr; break }
			printf " use_ms=%d lL_repaired=%.3f", use < 0 ? -1 : use * 1000 + 0.5,
				rate("l" L, tr + 1, lt1, 1)
			printf " g_repaired=%.3f", npath ? goodput(tr + 1, lt1) : wire(tr + 1, lt1)
		}
	}
	printf "\n"
}
