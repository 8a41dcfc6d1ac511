package scenario

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/sdk"
)

// internalRef matches a reference to this project's issues or pull
// requests ("issue 19", "#19", "PR 3"), which mean nothing to a user.
var internalRef = regexp.MustCompile(`(?i)\b(issue|pr|pull request|ticket)s?\s*#?\d|#\d`)

func TestShippedScenariosParse(t *testing.T) {
	want := []string{
		"changing_abrupt", "changing_drift", "changing_garivier_moulines", "changing_random",
		"contextual_credit_g", "contextual_credit_g_cost", "contextual_digits", "contextual_dna", "contextual_glass", "contextual_ionosphere",
		"contextual_iris", "contextual_letter", "contextual_linear", "contextual_logistic", "contextual_pima",
		"contextual_satimage", "contextual_segment", "contextual_sonar", "contextual_vehicle", "contextual_vowel",
		"contextual_wine",
		"delayed_ten_arm", "delayed_two_arm",
		"failure_mode", "movielens", "obd", "quick",
		"remaxgrad_robust_failure_mode", "remaxgrad_robust_two_arm",
		"remaxgrad_ten_arm", "remaxgrad_three_arm", "remaxgrad_two_arm",
		"ten_arm", "three_arm", "two_arm",
	}
	if got := Shipped(); !slices.Equal(got, want) {
		t.Fatalf("Shipped() = %v, want %v", got, want)
	}
	seeds := map[seed.Seed]string{}
	for _, name := range want {
		s, err := Named(name)
		if err != nil {
			t.Errorf("Named(%q): %v", name, err)
			continue
		}
		if s.Name != name {
			t.Errorf("%s: name key %q differs from the file name", name, s.Name)
		}
		if s.Source != "embedded:"+name {
			t.Errorf("%s: Source = %q", name, s.Source)
		}
		if s.Description == "" || strings.Contains(s.Description, "\n") {
			t.Errorf("%s: want a one-line description, got %q", name, s.Description)
		}
		// A description is copied into every results file and report: it
		// describes the experiment, not this project's issue tracker.
		if internalRef.MatchString(s.Description) {
			t.Errorf("%s: description %q refers to an internal issue; describe the experiment instead", name, s.Description)
		}
		// The paper's instances are Gaussian; the changing_* ones follow
		// the non-stationary literature's Bernoulli instances.
		gaussianOnly := !strings.HasPrefix(name, "changing_")
		if contextual := strings.HasPrefix(name, "contextual_"); contextual != s.Contextual() {
			t.Errorf("%s: contextual %v", name, s.Contextual())
		} else if contextual {
			// No forced rounds; a dataset's horizon at most its rows and
			// at least the 120 rounds the shipped-results test plays.
			if s.InitPulls != 0 || (s.Context.IsDataset() && (s.Horizon > s.Context.Rows() || s.Context.Rows() < 120)) {
				t.Errorf("%s: init_pulls %d, horizon %d, rows %d", name, s.InitPulls, s.Horizon, s.Context.Rows())
			}
		} else if s.InitPulls != 1 || (gaussianOnly && s.Family() != sdk.Gaussian) || !s.Environment.IsNoiseKnown() {
			t.Errorf("%s: init_pulls %d, family %q, noise known %v", name, s.InitPulls, s.Family(), s.Environment.IsNoiseKnown())
		}
		// The remaxgrad_* sweeps share the seed of their base instance on
		// purpose: with common random numbers their ReMax, TS and KL-UCB
		// rows are then bit-identical to the base scenario's, so `bench
		// paper` runs each of those policies once; remaxgrad_robust_* and
		// delayed_* run the first replications of theirs. A *_cost
		// scenario shares its dataset's scenario's seed: the same rows in
		// the same order, so the two are paired. Other scenarios have
		// seeds of their own.
		key := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(name, "remaxgrad_"), "robust_"), "delayed_")
		key = strings.TrimSuffix(key, "_cost")
		if other, dup := seeds[s.Seed]; dup && other != key {
			t.Errorf("%s and %s share seed %v", name, other, s.Seed)
		}
		seeds[s.Seed] = key
		if got := s.Checkpoints[len(s.Checkpoints)-1]; got != s.Horizon {
			t.Errorf("%s: last checkpoint %d, want horizon %d", name, got, s.Horizon)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: Validate after Parse: %v", name, err)
		}
	}
}

// wantSetting is the paper's setting of one shipped scenario.
type wantSetting struct {
	means   []float64
	noise   float64
	horizon int
	runs    int
	labels  []string
}

func TestShippedSettings(t *testing.T) {
	base := []string{"ReMax", "TS", "KL-UCB"}
	grad := []string{"ReMax", "ReMaxGrad M=2", "ReMaxGrad M=3", "ReMaxGrad M=4", "TS", "KL-UCB"}
	two := []float64{0.9, 0.8}
	three := []float64{0.05, 0.02, 0.01}
	ten := []float64{0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.01, 0.01, 0.01, 0.01}
	for name, w := range map[string]wantSetting{
		"two_arm":             {two, 0.15, 20000, 1000, base},
		"three_arm":           {three, 0.02, 20000, 1000, base},
		"ten_arm":             {ten, 0.05, 20000, 1000, base},
		"remaxgrad_two_arm":   {two, 0.15, 20000, 1000, grad},
		"remaxgrad_three_arm": {three, 0.02, 20000, 1000, grad},
		"remaxgrad_ten_arm":   {ten, 0.05, 20000, 1000, grad},
		"failure_mode": {[]float64{1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 20000, 1000,
			[]string{"ReMax", "ReMax c2=2", "ReMax c2=3", "ReMax c2=4", "TS", "KL-UCB"}},
		"remaxgrad_robust_two_arm": {two, 0.15, 20000, 200, []string{"ReMax",
			"ReMaxGrad M=2", "ReMaxGrad M=3", "ReMaxGrad M=4",
			"ReMaxGrad M=2 robust", "ReMaxGrad M=3 robust", "ReMaxGrad M=4 robust"}},
		"remaxgrad_robust_failure_mode": {[]float64{1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, 20000, 100,
			[]string{"ReMax", "ReMaxGrad M=2", "ReMaxGrad M=2 robust"}},
		"quick":     {[]float64{0.5, 0.4}, 0.2, 2000, 100, []string{"TS", "KL-UCB"}},
		"obd":       {nil, 1, 3000, 100, base},
		"movielens": {nil, 1, 10000, 100, base},
	} {
		s, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		if w.means != nil && !slices.Equal(s.Environment.Means, w.means) {
			t.Errorf("%s: means %v, want %v", name, s.Environment.Means, w.means)
		}
		if s.Environment.NoiseSD != w.noise || s.Horizon != w.horizon || s.Runs != w.runs {
			t.Errorf("%s: noise_sd %v horizon %d runs %d, want %v %d %d",
				name, s.Environment.NoiseSD, s.Horizon, s.Runs, w.noise, w.horizon, w.runs)
		}
		var labels []string
		for _, p := range s.Policies {
			labels = append(labels, p.Label)
		}
		if !slices.Equal(labels, w.labels) {
			t.Errorf("%s: labels %q, want %q", name, labels, w.labels)
		}
	}
}

func TestShippedParams(t *testing.T) {
	fm, err := Named("failure_mode")
	if err != nil {
		t.Fatal(err)
	}
	if len(fm.Policies) != 6 {
		t.Fatalf("failure_mode: %d policies, want 6", len(fm.Policies))
	}
	for i, c2 := range []int64{2, 3, 4} {
		p := fm.Policies[i+1]
		if p.Plugin != "remax" || len(p.Params) != 1 {
			t.Errorf("failure_mode policy %d: %+v", i+1, p)
			continue
		}
		got, err := params.Coerce(sdk.Float, p.Params["variance_inflation"])
		if err != nil || got != float64(c2) {
			t.Errorf("failure_mode %s: variance_inflation = %#v (%v), want %d", p.Label, p.Params["variance_inflation"], err, c2)
		}
	}
	for _, name := range []string{"remaxgrad_two_arm", "remaxgrad_three_arm", "remaxgrad_ten_arm"} {
		s, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []int64{2, 3, 4} {
			p := s.Policies[i+1]
			got, err := params.Coerce(sdk.Int, p.Params["m"])
			if p.Plugin != "remaxgrad" || err != nil || got != m {
				t.Errorf("%s policy %d: plugin %q m = %#v, want remaxgrad m=%d", name, i+1, p.Plugin, p.Params["m"], m)
			}
		}
	}
	// remaxgrad_robust_*: the first replications of their base scenario
	// (same seed and instance), exact ReMax first, then each ReMaxGrad
	// policy with the m and variant its label names.
	for name, base := range map[string]string{"remaxgrad_robust_two_arm": "two_arm", "remaxgrad_robust_failure_mode": "failure_mode"} {
		s, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Named(base)
		if err != nil {
			t.Fatal(err)
		}
		if s.Seed != b.Seed || !slices.Equal(s.Environment.Means, b.Environment.Means) || s.Runs > b.Runs {
			t.Errorf("%s: seed %v, means %v, %d runs; want the first runs of %s (seed %v, means %v)",
				name, s.Seed, s.Environment.Means, s.Runs, base, b.Seed, b.Environment.Means)
		}
		if p := s.Policies[0]; p.Plugin != "remax" || len(p.Params) != 0 {
			t.Errorf("%s policy 1: %+v, want exact ReMax with its defaults", name, p)
		}
		for i, p := range s.Policies[1:] {
			m, err := params.Coerce(sdk.Int, p.Params["m"])
			variant, _ := p.Params["variant"].(string)
			want := fmt.Sprintf("ReMaxGrad M=%d", m)
			if variant == "robust" {
				want += " robust"
			}
			if p.Plugin != "remaxgrad" || err != nil || (variant != "paper" && variant != "robust") || p.Label != want {
				t.Errorf("%s policy %d: %+v; want remaxgrad, label %q matching its m and variant", name, i+2, p, want)
			}
		}
	}
}

func TestShippedRealData(t *testing.T) {
	obd, err := Named("obd")
	if err != nil {
		t.Fatal(err)
	}
	raw := obd.Environment.Means
	if len(raw) != 80 || obd.K() != 80 {
		t.Fatalf("obd: %d arms, want 80", len(raw))
	}
	if i := argmax(raw); i != 61 || raw[i] != 0.0059725 {
		t.Errorf("obd: max CTR %v at %d, want 0.0059725 at 61", raw[i], i)
	}
	// Spot checks of the paper's table, row-major: first, last, row starts.
	for i, v := range map[int]float64{0: 0.0029265, 7: 0.0052780, 8: 0.0037272, 40: 0.0026211, 79: 0.0056697} {
		if raw[i] != v {
			t.Errorf("obd: CTR[%d] = %v, want %v", i, raw[i], v)
		}
	}
	scale := math.Sqrt(1000) / 0.057774753125
	if math.Abs(obd.Environment.Scale-scale) > 1e-12*scale {
		t.Errorf("obd: scale %v, want %v", obd.Environment.Scale, scale)
	}
	tm := obd.TrueMeans()
	if math.Abs(tm[61]-0.0059725*scale) > 1e-12 || raw[61] != 0.0059725 {
		t.Errorf("obd: TrueMeans[61] = %v, want %v (and Means untouched)", tm[61], 0.0059725*scale)
	}

	ml, err := Named("movielens")
	if err != nil {
		t.Fatal(err)
	}
	m := ml.Environment.Means
	if len(m) != 31 {
		t.Fatalf("movielens: %d arms, want 31", len(m))
	}
	if i := argmax(m); i != 21 || m[i] != 0.91091 {
		t.Errorf("movielens: max %v at %d, want 0.91091 at 21", m[i], i)
	}
	if m[0] != 0.86074 || m[30] != 0.90499 || ml.Environment.Scale != 0 || !slices.Equal(ml.TrueMeans(), m) {
		t.Errorf("movielens: means[0]=%v means[30]=%v scale=%v", m[0], m[30], ml.Environment.Scale)
	}
}

func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// valid is a minimal valid scenario; the malformed cases edit it.
const valid = `name: t
environment:
  means: [0.9, 0.8]
  noise_sd: 0.15
horizon: 100
runs: 10
seed: 3
policies:
  - {plugin: ts, label: TS}
  - {plugin: klucb, label: KL-UCB}
`

func TestParseDefaults(t *testing.T) {
	s, err := Parse("dir/mini.yml", []byte(strings.Replace(valid, "name: t\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mini" || s.InitPulls != 1 || s.Environment.Family != "gaussian" ||
		s.Environment.NoiseKnown == nil || !*s.Environment.NoiseKnown || s.Seed != seed.Int(3) {
		t.Errorf("defaults: %+v", s)
	}
	if !slices.Equal(s.Checkpoints, DefaultCheckpoints(100)) {
		t.Errorf("checkpoints %v, want the default", s.Checkpoints)
	}
	s, err = Parse("x.yaml", []byte(`
environment: {family: bernoulli, means: [0.5, 0.25, 1], noise_known: false}
horizon: 2.0e3
runs: 1
seed: 18446744073709551615
init_pulls: 2
checkpoints: [10, 100]
policies:
  - plugin: remax
    params: {variance_inflation: 2.5, flag: true, mode: fast, n: 3}
    sha256: `+strings.Repeat("AB", 32)+`
`))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Policies[0]
	if p.Label != "remax" || p.SHA256 != strings.Repeat("ab", 32) {
		t.Errorf("label %q sha256 %q", p.Label, p.SHA256)
	}
	wantParams := map[string]any{"variance_inflation": 2.5, "flag": true, "mode": "fast", "n": int64(3)}
	if !reflect.DeepEqual(p.Params, wantParams) {
		t.Errorf("params %#v, want %#v", p.Params, wantParams)
	}
	if s.Horizon != 2000 || s.Seed != seed.Int(math.MaxUint64) || s.InitPulls != 2 || s.Environment.IsNoiseKnown() ||
		s.Family() != sdk.Bernoulli || !slices.Equal(s.Checkpoints, []int{10, 100, 2000}) {
		t.Errorf("got %+v", s)
	}
}

func TestMalformed(t *testing.T) {
	repl := func(old, new string) string {
		if !strings.Contains(valid, old) {
			panic("test bug: " + old)
		}
		return strings.Replace(valid, old, new, 1)
	}
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"yaml syntax", repl("means: [0.9, 0.8]", "means: [0.9, 0.8"), []string{"scenario bad.yaml: invalid YAML: line"}},
		{"yaml tab indent", "horizon: 1\n\truns: 2\n", []string{"invalid YAML: line 2"}},
		{"duplicate key", valid + "runs: 5\n", []string{"runs: duplicate key (also line 6) (line 11)"}},
		{"duplicate key case", valid + "Runs: 5\n", []string{`unknown key "Runs": keys are case-sensitive; did you mean "runs"? (line 11)`}},
		{"dotted key", valid + "a.b: 1\n", []string{`unknown key "a.b" (valid keys: name,`, "(line 11)"}},
		{"upper-case key", repl("means:", "Means:"), []string{`unknown key "environment.Means": keys are case-sensitive; did you mean "means"? (line 3)`}},
		{"upper-case top key", repl("horizon:", "Horizon:"), []string{`unknown key "Horizon": keys are case-sensitive; did you mean "horizon"? (line 5)`}},
		{"upper-case policy key", repl("label: TS", "Label: TS"), []string{`unknown key "policies[0].Label": keys are case-sensitive; did you mean "label"? (line 9)`}},
		{"upper-case param name", repl("label: TS}", "label: TS, params: {Variance_Inflation: 2}}"), []string{`policies[0].params.Variance_Inflation: invalid parameter name "Variance_Inflation" (parameter names are lower_snake_case) (line 9)`}},
		{"duplicate key later", valid + "horizon: 7\n", []string{"horizon: duplicate key (also line 5) (line 11)"}},
		{"non-string key", valid + "1: x\n", []string{`key "1" is not a string (line 11)`}},
		{"int into string", repl("label: TS", "label: 5"), []string{`policies[0].label: expected string, got int 5 (line 9)`}},
		{"list into int", repl("horizon: 100", "horizon: [1]"), []string{`horizon: expected int, got a list (line 5)`}},
		{"top level list", "- 1\n- 2\n", []string{"top level must be a mapping"}},
		{"empty file", "", []string{"empty file"}},
		{"unknown top key", valid + "horizn: 3\n", []string{`scenario bad.yaml: unknown key "horizn" (valid keys: name, description,`, "line 11"}},
		{"unknown environment key", repl("noise_sd:", "noisesd:"), []string{`unknown key "environment.noisesd"`, "noise_sd", "line 4"}},
		{"unknown policy key", repl("label: TS", "lable: TS"), []string{`unknown key "policies[0].lable"`, "line 9"}},
		{"horizon string", repl("horizon: 100", `horizon: "100"`), []string{`horizon: expected int, got string "100" (line 5)`}},
		{"horizon fraction", repl("horizon: 100", "horizon: 100.5"), []string{"horizon: expected int, got number 100.5"}},
		{"means string", repl("[0.9, 0.8]", `"0.9, 0.8"`), []string{"environment.means: expected a list, got string"}},
		{"mean string", repl("[0.9, 0.8]", `[0.9, high]`), []string{`environment.means[1]: expected number, got string "high"`}},
		{"init_pulls bool", valid + "init_pulls: true\n", []string{"init_pulls: expected int, got bool true"}},
		{"seed negative", repl("seed: 3", "seed: -3"), []string{"seed: expected non-negative int, got -3"}},
		{"seed overflow", repl("seed: 3", "seed: 18446744073709551616"), []string{"seed: expected non-negative int, got number 1.8446744073709552e+19", "or a secret seed (0x followed by 64 hex digits) (line 7)"}},
		{"seed fraction", repl("seed: 3", "seed: 1.5"), []string{"seed: expected non-negative int, got number 1.5"}},
		{"seed list", repl("seed: 3", "seed: [1]"), []string{"seed: expected a non-negative int or a secret seed (0x followed by 64 hex digits), got a list (line 7)"}},
		{"seed secret 63 digits", repl("seed: 3", "seed: 0x"+strings.Repeat("ab", 31)+"c"), []string{"seed: invalid seed: 0x followed by 63 hex digits; a secret seed has exactly 64 (line 7)"}},
		{"seed secret 65 digits", repl("seed: 3", "seed: 0x"+strings.Repeat("ab", 32)+"c"), []string{"seed: invalid seed: 0x followed by 65 hex digits"}},
		{"seed secret bad digit", repl("seed: 3", "seed: 0x"+strings.Repeat("ab", 31)+"zz"), []string{"seed: invalid seed: 0x...: 'z' at position 63 after 0x is not a hex digit (a secret seed is 0x followed by 64 hex digits) (line 7)"}},
		{"seed quoted short hex", repl("seed: 3", `seed: "0x2a"`), []string{"seed: invalid seed: 0x followed by 2 hex digits; a secret seed has exactly 64 (for the integer seed 42, write it in decimal)"}},
		{"seed string", repl("seed: 3", `seed: random`), []string{`seed: invalid seed: "random": 'r' is not a digit`}},
		{"environment scalar", repl("environment:\n  means: [0.9, 0.8]\n  noise_sd: 0.15\n", "environment: 5\n"), []string{"environment: expected a mapping, got int"}},
		{"noise_known string", repl("noise_sd: 0.15", "noise_sd: 0.15\n  noise_known: yes"), []string{`environment.noise_known: expected bool (true or false), got string "yes"`}},
		{"mean NaN", repl("[0.9, 0.8]", "[0.9, .nan]"), []string{"environment.means[1]: must be finite, got NaN"}},
		{"mean Inf", repl("[0.9, 0.8]", "[-.inf, 0.8]"), []string{"environment.means[0]: must be finite, got -Inf"}},
		{"scaled mean Inf", repl("[0.9, 0.8]", "[0.9, 8]\n  scale: 1e308"), []string{"environment.means[1]: 8 * scale 1e+308 is not finite"}},
		{"scale zero", repl("noise_sd: 0.15", "noise_sd: 0.15\n  scale: 0"), []string{"environment.scale: must be > 0"}},
		{"scale negative", repl("noise_sd: 0.15", "noise_sd: 0.15\n  scale: -2"), []string{"environment.scale: must be a finite number > 0, got -2"}},
		{"means empty", repl("[0.9, 0.8]", "[]"), []string{"environment.means: empty; need at least two arms"}},
		{"means missing", repl("  means: [0.9, 0.8]\n", ""), []string{"environment.means: required"}},
		{"environment missing", repl("environment:\n  means: [0.9, 0.8]\n  noise_sd: 0.15\n", ""), []string{"environment: required"}},
		{"one arm", repl("[0.9, 0.8]", "[0.9]"), []string{"environment.means: one arm; need at least two"}},
		{"unknown family", repl("noise_sd: 0.15", "noise_sd: 0.15\n  family: poisson"), []string{`environment.family: unknown family "poisson"`}},
		{"bernoulli mean > 1", repl("means: [0.9, 0.8]\n  noise_sd: 0.15", "family: bernoulli\n  means: [0.9, 1.2]"), []string{"environment.means[1]: 1.2 is outside [0, 1]", "(line 4)"}},
		{"bernoulli with noise", repl("means:", "family: bernoulli\n  means:"), []string{"environment.noise_sd: must be absent for a bernoulli environment"}},
		{"noise_sd zero", repl("noise_sd: 0.15", "noise_sd: 0"), []string{"environment.noise_sd: must be > 0"}},
		{"noise_sd missing", repl("  noise_sd: 0.15\n", ""), []string{"environment.noise_sd: must be > 0 (required for a gaussian environment)"}},
		{"noise_sd negative", repl("noise_sd: 0.15", "noise_sd: -1"), []string{"environment.noise_sd: must be > 0, got -1"}},
		{"noise_sd inf", repl("noise_sd: 0.15", "noise_sd: .inf"), []string{"environment.noise_sd: must be finite"}},
		{"checkpoints x runs too many", repl("runs: 10", "runs: 200000"), []string{"checkpoints: 30 checkpoints x 200000 runs = 6000000 per-replication values per metric, more than the 4000000"}},
		{"noise_sd overflows", repl("noise_sd: 0.15", "noise_sd: 1e300"), []string{"environment.noise_sd: too large", "horizon <= 1e+300"}},
		{"mean overflows", repl("means: [0.9, 0.8]", "means: [1e308, 0]"), []string{"environment.means: too large: rewards reach about 1e+308"}},
		{"mean squares overflow", repl("means: [0.9, 0.8]", "means: [1e150, 0]"), []string{"environment.means: too large"}},
		{"scaled mean overflows", repl("noise_sd: 0.15", "noise_sd: 0.15\n  scale: 1e150"), []string{"environment.means: too large"}},
		{"horizon < K*init_pulls", repl("horizon: 100", "horizon: 5\ninit_pulls: 3"), []string{"horizon: 5 is less than the 6 forced initial rounds (2 arms x init_pulls 3)"}},
		{"horizon zero", repl("horizon: 100", "horizon: 0"), []string{"horizon: must be >= 1, got 0"}},
		{"horizon too large", repl("horizon: 100", "horizon: 1e9"), []string{"horizon: 1000000000 exceeds the maximum 100000000"}},
		{"horizon missing", repl("horizon: 100\n", ""), []string{"scenario bad.yaml: horizon: required"}},
		{"init_pulls zero", valid + "init_pulls: 0\n", []string{"init_pulls: must be >= 1, got 0"}},
		{"runs zero", repl("runs: 10", "runs: 0"), []string{"runs: must be >= 1, got 0 (line 6)"}},
		{"runs 10^9", repl("runs: 10", "runs: 1000000000"), []string{"runs: 1000000000 exceeds the maximum 1000000"}},
		{"runs missing", repl("runs: 10\n", ""), []string{"runs: required"}},
		{"no policies", repl("  - {plugin: ts, label: TS}\n  - {plugin: klucb, label: KL-UCB}\n", "  []\n"), []string{"policies: at least one policy is required"}},
		{"policies missing", repl("policies:\n  - {plugin: ts, label: TS}\n  - {plugin: klucb, label: KL-UCB}\n", ""), []string{"policies: required"}},
		{"duplicate labels", valid + "  - {plugin: remax, label: TS}\n", []string{`policies[2].label: duplicate label "TS" (also policies[0])`, "line 11"}},
		{"duplicate default labels", valid + "  - {plugin: remax}\n  - {plugin: remax}\n", []string{`policies[3].label: duplicate label "remax" (also policies[2])`}},
		{"empty plugin", repl("plugin: ts,", `plugin: "",`), []string{"policies[0].plugin: required"}},
		{"bad plugin name", repl("plugin: ts,", "plugin: ../ts,"), []string{`policies[0].plugin: invalid plugin name "../ts"`}},
		{"label spaces", repl("label: TS", `label: " TS"`), []string{`policies[0].label: " TS" has leading or trailing spaces`}},
		{"bad sha256", repl("label: TS}", "label: TS, sha256: abc123}"), []string{"policies[0].sha256: want 64 hex digits", "got 6 characters"}},
		{"bad color", repl("label: TS}", `label: TS, color: "blue"}`), []string{`policies[0].color: "blue" is not a colour: want "#RRGGBB"`, "line "}},
		{"short color", repl("label: TS}", `label: TS, color: "#07B"}`), []string{`policies[0].color: "#07B" is not a colour`}},
		{"non-hex sha256", repl("label: TS}", "label: TS, sha256: "+strings.Repeat("g", 64)+"}"), []string{"policies[0].sha256: want 64 hex digits"}},
		{"param list", repl("label: TS}", "label: TS, params: {m: [1, 2]}}"), []string{"policies[0].params.m: expected a number, bool or string, got a list"}},
		{"param name", repl("label: TS}", "label: TS, params: {var-infl: 2}}"), []string{`policies[0].params.var-infl: invalid parameter name "var-infl" (parameter names are lower_snake_case)`}},
		{"params not a map", repl("label: TS}", "label: TS, params: 3}"), []string{"policies[0].params: expected a mapping, got int"}},
		{"checkpoints decreasing", valid + "checkpoints: [10, 5, 100]\n", []string{"checkpoints[1]: 5 is not greater than checkpoints[0] = 10"}},
		{"checkpoints zero", valid + "checkpoints: [0, 10]\n", []string{"checkpoints[0]: 0 is outside [1, horizon 100]"}},
		{"checkpoints beyond horizon", valid + "checkpoints: [10, 200]\n", []string{"checkpoints[1]: 200 is outside [1, horizon 100]", "line 11"}},
		{"checkpoints not a list", valid + "checkpoints: 10\n", []string{"checkpoints: expected a list, got int"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("bad.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("no error; got %+v", s)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n\t%v\nlacks %q", err, w)
				}
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "scenario bad.yaml: ") {
					t.Errorf("error line %q does not name the source", line)
				}
			}
			var se *Error
			if !errors.As(err, &se) || se.Source != "bad.yaml" {
				t.Errorf("error %v is not a *scenario.Error for bad.yaml", err)
			}
		})
	}
}

func TestNamedUnknown(t *testing.T) {
	for _, name := range []string{"nope", "", "../two_arm", "two_arm/x"} {
		_, err := Named(name)
		if err == nil {
			t.Fatalf("Named(%q): no error", name)
		}
		for _, shipped := range Shipped() {
			if !strings.Contains(err.Error(), shipped) {
				t.Errorf("Named(%q): error %q does not list %q", name, err, shipped)
			}
		}
	}
	if s, err := Named("two_arm.yaml"); err != nil || s.Name != "two_arm" {
		t.Errorf(`Named("two_arm.yaml") = %v, %v`, s, err)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(file, []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(file)
	if err != nil || s.Source != file || s.Name != "t" {
		t.Fatalf("Resolve(%s) = %+v, %v", file, s, err)
	}
	if s, err := Resolve("quick"); err != nil || s.Source != "embedded:quick" {
		t.Errorf(`Resolve("quick") = %+v, %v`, s, err)
	}
	if _, err := Resolve(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml: no such file") {
		t.Errorf("missing file: %v", err)
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error %v is not ErrNotExist", err)
	}
	if _, err := Resolve("nope.yml"); err == nil || !strings.Contains(err.Error(), "scenario nope.yml:") {
		t.Errorf(".yml is a path: %v", err)
	}
	if _, err := Resolve("nope"); err == nil || !strings.Contains(err.Error(), "shipped scenarios: changing_abrupt") {
		t.Errorf("unknown name: %v", err)
	}
	// A file in the working directory wins over a shipped name.
	t.Chdir(dir)
	if err := os.WriteFile("quick", []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Resolve("quick"); err != nil || s.Source != "quick" || s.Name != "t" {
		t.Errorf("existing file quick: %+v, %v", s, err)
	}
}

func TestDefaultCheckpoints(t *testing.T) {
	for _, T := range []int{1, 2, 3, 4, 5, 29, 30, 31, 100, 1000, 3000, 10000, 20000, 1e6, 1e8} {
		cp := DefaultCheckpoints(T)
		if len(cp) == 0 || cp[0] != 1 || cp[len(cp)-1] != T {
			t.Errorf("T=%d: %v does not run from 1 to T", T, cp)
			continue
		}
		for i := 1; i < len(cp); i++ {
			if cp[i] <= cp[i-1] {
				t.Errorf("T=%d: not strictly increasing at %d: %v", T, i, cp)
			}
		}
		if want := min(T, DefaultCheckpointCount); len(cp) != want {
			t.Errorf("T=%d: %d checkpoints, want %d", T, len(cp), want)
		}
		if !slices.Equal(cp, DefaultCheckpoints(T)) {
			t.Errorf("T=%d: not deterministic", T)
		}
	}
	// Log spacing: for T=20000 the ratio between neighbours settles near
	// 20000^(1/29) ~ 1.41.
	cp := DefaultCheckpoints(20000)
	for i := 15; i < len(cp); i++ {
		r := float64(cp[i]) / float64(cp[i-1])
		if r < 1.3 || r > 1.5 {
			t.Errorf("T=20000: ratio %v between %d and %d is not log-spaced: %v", r, cp[i-1], cp[i], cp)
		}
	}
	if DefaultCheckpoints(0) != nil {
		t.Error("T=0: want nil")
	}
	if got := DefaultCheckpoints(5); !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
		t.Errorf("T=5: %v", got)
	}
}

func TestSelect(t *testing.T) {
	s, err := Named("failure_mode")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Select([]string{"KL-UCB", "ReMax c2=3", "ReMax"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.Policies {
		got = append(got, p.Label)
	}
	if want := []string{"ReMax", "ReMax c2=3", "KL-UCB"}; !slices.Equal(got, want) {
		t.Errorf("Select kept %q, want %q (scenario order)", got, want)
	}
	err = s.Select([]string{"TS"})
	if err == nil || !strings.Contains(err.Error(), `no policy labelled "TS" (labels: "ReMax", "ReMax c2=3", "KL-UCB")`) {
		t.Errorf("unknown label: %v", err)
	}
	if len(s.Policies) != 3 {
		t.Errorf("a failed Select changed the policies: %d left", len(s.Policies))
	}
	if err := s.Select(nil); err != nil || len(s.Policies) != 3 {
		t.Errorf("Select(nil): %v, %d policies", err, len(s.Policies))
	}
}

func TestSetHorizon(t *testing.T) {
	s, err := Named("quick")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHorizon(500); err != nil || !slices.Equal(s.Checkpoints, DefaultCheckpoints(500)) {
		t.Errorf("defaulted checkpoints: %v, %v", err, s.Checkpoints)
	}
	s, err = Parse("x.yaml", []byte(valid+"checkpoints: [10, 50]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHorizon(40); err != nil || !slices.Equal(s.Checkpoints, []int{10, 40}) {
		t.Errorf("explicit checkpoints: %v, %v", err, s.Checkpoints)
	}
	if err := s.SetHorizon(1); err == nil || !strings.Contains(err.Error(), "horizon: 1 is less than the 2 forced initial rounds") {
		t.Errorf("SetHorizon(1): %v", err)
	}
}

func TestYAMLRoundTrip(t *testing.T) {
	for _, name := range Shipped() {
		s, err := Named(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse("embedded:"+name, out)
		if err != nil {
			t.Fatalf("%s: reparsing YAML():\n%s\n%v", name, out, err)
		}
		back.defaultCheckpoints = s.defaultCheckpoints
		if !reflect.DeepEqual(normParams(back), normParams(s)) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", name, back, s)
		}
	}
}

// normParams converts integer params to float64 so that int from the
// original YAML compares equal to whatever the encoder round-trips.
func normParams(s *Scenario) *Scenario {
	c := *s
	c.Policies = slices.Clone(s.Policies)
	for i, p := range c.Policies {
		if p.Params == nil {
			continue
		}
		m := map[string]any{}
		for k, v := range p.Params {
			if f, err := params.Coerce(sdk.Float, v); err == nil {
				v = f
			}
			m[k] = v
		}
		c.Policies[i].Params = m
	}
	return &c
}

// TestParseMergeAndNull: merge keys (<<) and null values decode as they
// did when files went through viper and mapstructure: a merged mapping
// supplies the keys the mapping does not write itself, and a null value
// is an absent key, defaults included.
func TestParseMergeAndNull(t *testing.T) {
	_, err := Parse("m.yaml", []byte(strings.Replace(valid, "environment:\n",
		"x: &e {means: [1, 2], noise_sd: 3}\nenvironment:\n  <<: *e\n", 1)))
	if err == nil || !strings.Contains(err.Error(), `unknown key "x"`) {
		t.Fatalf("an anchor under an unknown key: %v", err)
	}
	merged := strings.Replace(valid, "policies:\n  - {plugin: ts, label: TS}\n",
		"policies:\n  - &p {plugin: ts, label: TS, params: {m: 2}}\n  - {<<: *p, label: TS2}\n", 1)
	s, err := Parse("m.yaml", []byte(merged))
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Policies[1]; p.Plugin != "ts" || p.Label != "TS2" || p.Params["m"] != int64(2) {
		t.Errorf("merged policy: %+v, want plugin ts, label TS2 (written wins), params m=2", p)
	}
	s, err = Parse("n.yaml", []byte(valid+"init_pulls: ~\ncheckpoints: ~\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.InitPulls != 1 || !slices.Equal(s.Checkpoints, DefaultCheckpoints(100)) {
		t.Errorf("null init_pulls and checkpoints: %d, %v; want the defaults", s.InitPulls, s.Checkpoints)
	}
	for _, c := range []struct{ yaml, want string }{
		{strings.Replace(valid, "horizon: 100", "horizon: ~", 1), "horizon: required"},
		{valid + "feedback: ~\n", "feedback: empty; give {delay: D}"},
		{valid + "feedback: {}\n", "feedback: empty; give {delay: D}"},
		{strings.Replace(valid, "label: TS}", "label: TS, feedback: {}}", 1), "policies[0].feedback: empty; give {delay: D}"},
	} {
		if _, err := Parse("n.yaml", []byte(c.yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
	}
}

// TestSecretSeed: a scenario file may hold a secret seed, "0x" and 64 hex
// digits, plain or quoted, in either case; it prints (YAML) as the
// lower-case string and reads back as the same secret. A YAML integer
// keeps the meaning it always had, hex included (0x2a is 42), and
// integers print as integers.
func TestSecretSeed(t *testing.T) {
	const digits = "0123456789abcdef00112233445566778899aabbccddeeff0f1e2d3c4b5a6978"
	want, err := seed.Parse("0x" + digits)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, line string
		want       seed.Seed
	}{
		{"plain", "seed: 0x" + digits, want},
		{"quoted", `seed: "0x` + digits + `"`, want},
		{"upper case", "seed: 0X" + strings.ToUpper(digits), want},
		{"integer", "seed: 42", seed.Int(42)},
		{"YAML hex integer", "seed: 0x2a", seed.Int(42)},
		{"quoted integer", `seed: "42"`, seed.Int(42)},
		{"largest integer", "seed: 18446744073709551615", seed.Int(math.MaxUint64)},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(strings.Replace(valid, "seed: 3", c.line, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if s.Seed != c.want {
				t.Fatalf("seed %v, want %v", s.Seed, c.want)
			}
			out, err := s.YAML()
			if err != nil {
				t.Fatal(err)
			}
			wantLine := "seed: " + c.want.String() // a secret needs no quotes: YAML reads 64 hex digits as a string
			if !strings.Contains(string(out), "\n"+wantLine+"\n") {
				t.Errorf("YAML() lacks %q:\n%s", wantLine, out)
			}
			back, err := Parse("back.yaml", out)
			if err != nil || back.Seed != c.want {
				t.Errorf("YAML() reads back as seed %v, %v; want %v", back.Seed, err, c.want)
			}
		})
	}
}
