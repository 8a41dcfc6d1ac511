// Package scenarios holds the scenario files shipped with regretbench and
// embeds them into the bench binary, so that `bench --scenario failure_mode`
// works from any directory. Load them through host/scenario (Named, Resolve),
// which also validates them.
//
// A scenario file is YAML (design §8); unknown keys are an error:
//
//	name: two_arm                 # defaults to the file name without .yaml
//	description: one line
//	environment:
//	  family: gaussian            # gaussian (default) | bernoulli
//	  means: [0.9, 0.8]           # at least two arms
//	  noise_sd: 0.15              # gaussian only, > 0
//	  noise_known: true           # default true: noise_sd is sent to the plugins
//	  scale: 1                    # optional: the true means are means * scale
//	  changes:                    # optional, piecewise-stationary: new means from round at on
//	    - {at: 3000, means: [0.8, 0.9]}
//	  # or drift: [{at: 5000, means: [...]}, ...]   means move linearly to each point
//	  # or random_changes: {rate: 0.0005, means: {uniform: [0, 1]}}   Poisson breakpoints
//	horizon: 20000                # rounds T (required)
//	runs: 1000                    # replications (required)
//	seed: 1                       # fixes every reward stream (default 0)
//	init_pulls: 1                 # host-forced pulls per arm, in order (default 1)
//	checkpoints: [100, 1000]      # optional; T is appended; default ~30 log-spaced rounds
//	feedback: {delay: 10}         # optional: {delay: D}, {delay: {geometric: MEAN}} or {batch: B}; default immediate
//	policies:
//	  - {plugin: remax, label: ReMax}
//	  - {plugin: remax, label: "ReMax c2=2", params: {variance_inflation: 2}}
//	  - {plugin: ts, label: TS, sha256: <64 hex digits of bench-plugin-ts>}
//	  - {plugin: ts, label: "TS batch=100", feedback: {batch: 100}}   # a policy's own feedback
//	  - {plugin: ucb1, label: UCB1, color: "#0072B2"}   # its colour in figures (default: the palette's, in order)
//
// A contextual scenario (docs/contextual.md) has a context: block in place
// of environment:, no init_pulls (or 0) and no feedback:
//
//	context:
//	  dataset: letter             # a shipped dataset (host/dataset), or
//	  # dataset_file: mine.csv    # a private CSV file: features, then the integer label
//	  # model: linear_gaussian    # or logistic_bernoulli, with arms:, dim:, per_arm:, noise_sd:
//	  # cost: [[0, 0.2], [1, 0]]  # a dataset's optional cost matrix, cost[class][arm] in [0, 1]
//	horizon: 20000                # at most the dataset's rows
//
// Keys are case-sensitive and lower_snake_case, the keys of params
// included: parameter names are lower_snake_case (m, variance_inflation),
// never camelCase. A key written in another case is refused with the
// lower-case key suggested.
//
// A scenario file is a regular file of at most 1 MiB, nested at most 64
// levels deep and holding at most 250,000 keys and values once its YAML
// aliases are expanded; anything else is refused before it is decoded
// (host/scenario MaxFileSize, MaxDepth, MaxNodes).
//
// The shipped files reproduce the settings of the paper (Tong, Komiyama,
// Nishimori, Parmas, "Finite-Time Regret Analysis of Retry-Aware Bandits",
// arXiv 2605.20854): two_arm, three_arm and ten_arm
// (Synthetic instances), obd and movielens (Real-world datasets),
// failure_mode (Discussion: variance inflation), remaxgrad_* (ReMax with
// larger M), plus quick, a seconds-long smoke test. changing_abrupt,
// changing_garivier_moulines (Garivier and Moulines' abrupt-change
// experiment, reconstructed), changing_drift and changing_random are
// changing environments (docs/changing-environments.md). contextual_*
// are contextual scenarios: fourteen shipped datasets turned into bandits
// as the contextual bandit bake-off does (contextual_credit_g_cost plays
// German credit again with its published cost matrix, on
// contextual_credit_g's seed), and contextual_linear and
// contextual_logistic, synthetic models (docs/contextual.md; bench run
// --suite contextual plays them all). Each has its own seed, but for that one.
package scenarios

import "embed"

// FS holds the shipped scenario files, NAME.yaml at its root.
//
//go:embed *.yaml
var FS embed.FS
