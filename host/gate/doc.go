// Package gate decides whether a policy regressed between two results files,
// for use in CI (bench gate BASELINE.json CURRENT.json).
//
// # What is compared
//
// For every policy label of the baseline, gate compares the per-replication
// final values (at the horizon T) of one metric, regret by default, in the
// baseline with those in the current file. Lower is better for every metric.
// Write b and c for the baseline and current means, delta = c - b, and
// m = margin * |b| for the margin in the metric's units (margin 5% by
// default; with b = 0 the margin is 0).
//
// # Paired or unpaired
//
// When both files are the same experiment (family, arms, means, noise sd,
// horizon, init_pulls), with the same seed and the same replication indices,
// replication r of both runs faced the same reward streams (common random
// numbers, design §4), so the values are paired by replication and gate
// tests the per-replication differences c_r - b_r. Pairing removes the
// variance the two runs share, which is most of it: a test of the same
// size detects much smaller regressions. Otherwise gate uses Welch's
// unpaired t-test and says so, with the reason, under the table.
//
// # Why a paired t-test and not Wilcoxon signed-rank
//
// The paired test is Student's t on the differences, not the Wilcoxon
// signed-rank test, for four reasons:
//
//   - It tests the mean, which is the quantity the regret tables report and
//     the one the margin is stated in. Wilcoxon tests a shift of the
//     pseudo-median of the differences; regret distributions are right-skewed
//     (a few replications lock onto a wrong arm for a long time) and a change
//     that only makes those rare bad replications worse moves the mean, and
//     the expected regret, while leaving the median alone. A regression gate
//     must see it.
//   - The mean of n independent differences is close to normal by the
//     central limit theorem at the replication counts benchmarks use
//     (n >= 30; CI runs here use hundreds), so the t-test needs no normal
//     data, with one exception regret is prone to: differences so skewed
//     that most samples miss the rare tail that holds their mean. The
//     paired test therefore uses tail-guarded standard errors (TailGuard):
//     each one-sided test's SE is at least twice the one computed from the
//     semi-deviation on the other side. The tests in this package check the
//     false-alarm rate on skewed data at n = 200, and TestBoundaryStudy
//     (docs/sequential-gate.md) on real regret differences. gate warns
//     below 30 replications.
//   - It gives a confidence interval for delta directly, in the metric's
//     units, which is what a reader wants next to a verdict. Wilcoxon's
//     Hodges-Lehmann interval estimates a different quantity.
//   - A margin test (H0: delta <= m) is a shift of the t statistic; a margin
//     on the mean has no clean counterpart in a rank test.
//
// The unpaired fallback is Welch's t for the same reasons, without assuming
// equal variances (a regression often changes the spread as well).
//
// # Verdicts
//
// For each compared policy gate computes two one-sided p-values: p_worse for
// H0: delta <= m against delta > m, and p_better for H0: delta >= -m
// against delta < -m. The p_worse of every comparison in the call form one
// family and are adjusted by Holm's step-down method; the p_better form
// another. So the probability that the call reports any false regression
// is at most alpha (default 0.01), whatever the number of policies, and
// likewise for improvements. The CI is the two-sided (1 - alpha) interval
// of delta for that policy alone; paired, its lower end uses the worse
// test's SE and its upper end the better test's, so it is asymmetric when
// the differences are skewed. The verdict is the first that applies:
//
//   - worse: adjusted p_worse < alpha. This is a regression: the current
//     mean is worse than the baseline's by more than the margin, with
//     statistical significance after the Holm correction.
//   - better: adjusted p_better < alpha.
//   - same: the CI of delta lies within [-m, m]. In particular a file gated
//     against itself is "same" (every difference is 0).
//   - inconclusive: none of these; the data cannot tell whether the change
//     exceeds the margin. More replications narrow the CI.
//
// With no spread in the differences at all (SE 0) delta is known exactly:
// the p-values are 0 or 1 and the CI is the point delta.
//
// Policies that were not compared get these verdicts instead: FAILED (status
// "failed" in the current file), MISSING (in the baseline, not in the current
// file), new (only in the current file) and "no baseline" (failed in the
// baseline). FAILED and MISSING make bench gate exit 3.
//
// The table's p column shows the adjusted p-value of the direction the
// estimate points to: p_better when delta < 0, p_worse otherwise.
package gate
