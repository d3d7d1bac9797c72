# Statistics the bench reports share (selftests/bench/report,
# multipath-report): prepended to their awk programs.

# median(a, n) sorts a[1..n] in place: a[1] and a[n] are then the extremes.
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# two-sided 95% quantile of Student t with df degrees of freedom (to 0.01)
function tq(df,   t) {
	split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23", t, " ")
	if (df <= 10) return t[df] + 0
	return df <= 15 ? 2.15 : df <= 20 ? 2.09 : df <= 30 ? 2.05 : df <= 60 ? 2.01 : 1.98
}
# "gm lo hi n": the geometric mean (three digits, which the verdicts
# compare with a target) of n ratios whose logs sum to s (their
# squares to q) and its 95% confidence interval; the noise of the bed is
# multiplicative, and the interval says whether a cell below a target is
# below it or only noisy
function gm(s, q, n,   m, h) {
	if (n < 2) return "- - - " n
	m = s / n; h = tq(n - 1) * sqrt((q - n * m * m) / (n - 1) / n)
	return sprintf("%.3f %.2f %.2f %d", exp(m), exp(m - h), exp(m + h), n)
}
