package scenario

import (
	"strings"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

// TestFeedbackParse: every form of feedback:, at the scenario and policy
// level, and every malformed value refused with an error naming the field
// and its line.
func TestFeedbackParse(t *testing.T) {
	const head = `
name: fb
environment: {means: [0.9, 0.8], noise_sd: 0.15}
horizon: 100
runs: 2
`
	for _, c := range []struct {
		name, scenario, policy string
		want                   sdk.Feedback
		err                    string
	}{
		{name: "absent", want: sdk.Feedback{}},
		{name: "delay", scenario: "{delay: 10}", want: sdk.Feedback{Kind: sdk.Delay, Delay: 10}},
		{name: "delay 0", scenario: "{delay: 0}", want: sdk.Feedback{Kind: sdk.Delay}},
		{name: "geometric int", scenario: "{delay: {geometric: 5}}", want: sdk.Feedback{Kind: sdk.Geometric, Mean: 5}},
		{name: "geometric float", scenario: "{delay: {geometric: 2.5}}", want: sdk.Feedback{Kind: sdk.Geometric, Mean: 2.5}},
		{name: "batch", scenario: "{batch: 100}", want: sdk.Feedback{Kind: sdk.Batch, Batch: 100}},
		{name: "block style", scenario: "\n  batch: 7", want: sdk.Feedback{Kind: sdk.Batch, Batch: 7}},
		{name: "policy overrides", scenario: "{delay: 3}", policy: "{batch: 4}", want: sdk.Feedback{Kind: sdk.Batch, Batch: 4}},
		{name: "policy only", policy: "{delay: 2}", want: sdk.Feedback{Kind: sdk.Delay, Delay: 2}},

		{name: "negative delay", scenario: "{delay: -1}", err: "feedback.delay: want an int in 0..100000000 (rounds), got -1 (line 6)"},
		{name: "huge delay", scenario: "{delay: 100000001}", err: "feedback.delay: want an int in 0..100000000"},
		{name: "fractional delay", scenario: "{delay: 2.5}", err: "feedback.delay: want an int D >= 0 or {geometric: MEAN}, got number 2.5"},
		{name: "string delay", scenario: `{delay: "10"}`, err: "feedback.delay: want an int D >= 0 or {geometric: MEAN}, got string"},
		{name: "unknown distribution", scenario: "{delay: {poisson: 3}}", err: "feedback.delay.poisson: unknown key (valid keys: geometric)"},
		{name: "empty distribution", scenario: "{delay: {}}", err: "feedback.delay: empty mapping; want {geometric: MEAN}"},
		{name: "negative mean", scenario: "{delay: {geometric: -2}}", err: "feedback.delay.geometric: want a mean delay in [0, 100000000], got -2"},
		{name: "string mean", scenario: "{delay: {geometric: fast}}", err: "feedback.delay.geometric: want a number >= 0 (the mean delay), got string"},
		{name: "zero batch", scenario: "{batch: 0}", err: "feedback.batch: want an int in 1..100000000 (rewards revealed every B rounds), got int 0"},
		{name: "float batch", scenario: "{batch: 1.5}", err: "feedback.batch: want an int in 1..100000000"},
		{name: "both", scenario: "{delay: 1, batch: 2}", err: "feedback: give delay or batch, not both"},
		{name: "empty", scenario: "{}", err: "feedback: empty; give {delay: D}"},
		{name: "unknown key", scenario: "{lag: 3}", err: `unknown key "feedback.lag"`},
		{name: "not a mapping", scenario: "10", err: "feedback"},
		{name: "bad policy feedback", policy: "{batch: -3}", err: "policies[0].feedback.batch: want an int in 1..100000000 (rewards revealed every B rounds), got int -3 (line 8)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := head
			if c.scenario != "" {
				src += "feedback: " + c.scenario + "\n"
			} else {
				src += "\n"
			}
			pol := "  - {plugin: ts, label: TS}\n"
			if c.policy != "" {
				pol = "  - {plugin: ts, label: TS, feedback: " + c.policy + "}\n"
			}
			s, err := Parse("fb.yaml", []byte(src+"policies:\n"+pol))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := s.FeedbackOf(s.Policies[0]); got != c.want {
				t.Errorf("FeedbackOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestFeedbackString: how results files and errors name each mode.
func TestFeedbackString(t *testing.T) {
	for f, want := range map[sdk.Feedback]string{
		{}:                               "immediate",
		{Kind: sdk.Delay, Delay: 10}:     "delay 10",
		{Kind: sdk.Geometric, Mean: 2.5}: "geometric mean 2.5",
		{Kind: sdk.Batch, Batch: 100}:    "batch 100",
	} {
		if got := f.String(); got != want {
			t.Errorf("%+v: %q, want %q", f, got, want)
		}
	}
}
