// Package remaxgrad implements ReMaxGrad, the gradient-based ReMax bandit
// policy of the paper's appendix "ReMax with larger M (ReMaxGrad)"
// (Algorithm 2, remax-regret-paper.tex).
//
// ReMax plays I(t) ~ pi_t, where pi_t maximises the ReMax objective
// J_M(pi) = E_theta E_{A_1..A_M iid pi}[max_m theta_{A_m}] (eq. remax-objective)
// under the current posterior. For M > 2 there is no closed form, so
// ReMaxGrad maximises the sample-average objective Jhat_M over S posterior
// samples by at most L Adam steps on softmax logits z (eq. logit-grad),
// stopping early when the simplex KKT gap (eq. kkt-gap) is at most tol. The
// logits are warm-started from the previous round; Adam's moments are reset
// every round.
//
// # Variants
//
// The variant parameter selects the inner loop. "paper" (the default) is
// Algorithm 2 as written. "robust" (Optimizer.runRobust) fixes two failures
// of it that do not depend on the objective but on the scale of its
// gradients, which shrink as the posterior concentrates, and a third that
// is the objective's own:
//
//   - the stop rule gap <= tol is absolute: once the gradients' differences
//     fall below tol, rounds take no step and pi keeps whatever mass the
//     warm start had on worse arms. The robust variant stops after the
//     first step that moves pi by at most tv_tol in total variation, and
//     makes Adam's epsilon relative to the round's gradient range, so that
//     neither depends on the scale of the rewards;
//   - the warm-started logits can drift so far below the top one that the
//     logit gradient pi_i (g_i - <g,pi>) is far below Adam's epsilon: the
//     arm is then never pulled again, whatever its posterior. The robust
//     variant re-centres the logits at the start of every round (top logit
//     0) and floors them at -logit_floor. With the relative epsilon, any
//     floor up to about 15 keeps a floored arm's logit gradient far enough
//     above epsilon for Adam to move it as fast as any other; the default,
//     8, also explores a floored arm at a rate of about e^-8 (3e-4) per
//     round, which the README's measurements chose: a floor of 12 left 10
//     of 1,000 failure_mode replications stuck and one two_arm replication
//     on the worse arm for the whole horizon, 8 left 1 and none;
//   - the ReMax objective itself gives an arm whose posterior mean an
//     unlucky first reward or two put far below the others almost no mass
//     (exact ReMax freezes so in 15 of 1,000 failure_mode replications),
//     and the floor's exploration, about e^-8 per round, is too little to
//     repair its mean within the horizon: 2 of 1,000 stayed stuck (issue
//     26). The robust variant therefore plays, with probability TSShare
//     (0.3, a constant), the best arm of one fresh posterior sample, a
//     Thompson-sampling draw, and otherwise draws from pi: every arm is
//     pulled at least 0.3 times its posterior probability of being the
//     best, the rate at which Thompson sampling repairs an unlucky mean.
//     docs/remaxgrad-robust.md has the diagnosis and the measurements.
//
// # Posterior
//
// Arm i's posterior is N(muhat_i, c2 * sd^2 / N_i) with muhat_i the empirical
// mean of its N_i rewards (the improper-prior posterior of the paper's
// "Experimental protocol notes"), c2 the variance_inflation parameter (the
// c^2 of "Discussion: variance inflation") and sd the reward noise:
// Session.NoiseSD for gaussian rewards, which must then be known, and 0.5 for
// bernoulli rewards, the largest standard deviation a {0,1} reward can have
// (a conservative, mean-free choice).
//
// # Gradient
//
// For one sample theta sorted in decreasing order, theta_(1) >= ... >=
// theta_(K), the objective is
//
//	J(pi) = sum_r theta_(r) [ (1-P_{r-1})^M - (1-P_r)^M ],  P_r = sum_{j<=r} pi_(j),
//
// and its gradient (eq. remax-grad-pi) is
//
//	g_(r) = M sum_{r'=r}^{K-1} (theta_(r') - theta_(r'+1)) (1 - P_{r'})^{M-1}.
//
// Differentiating J term by term confirms the paper's formula as printed: the
// weight of rank r' uses the prefix P_{r'} including pi_(r') itself (j <= r'),
// and the r' = K term vanishes because 1 - P_K = 0; the tests check it
// against finite differences of J. The Optimizer evaluates 1 - P_{r'} as the
// tail sum sum_{j>r'} pi_(j), which is equal on the simplex and free of
// cancellation.
//
// # Diagnostics
//
// After each Select the policy reports (see Diagnostics):
//
//   - kkt_gap: the KKT gap max_i g_i - <g,pi> of the returned pi on that
//     round's samples (eq. kkt-gap); when the loop ran all L steps it is
//     evaluated at the final logits, lazily, only when asked.
//   - adam_steps: the number of Adam updates applied in that round (0..L).
//   - support_size: the number of arms with pi_i > 1e-3. Softmax never yields
//     an exact zero, so a threshold is needed; 1e-3 is well below the 1/K
//     mass of any arm the policy actually explores for K <= 80, and well above
//     the mass of arms whose logits the optimizer is driving to -infinity.
package remaxgrad
