package scenario

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/sdk"
)

// MaxDelay bounds a fixed delay, a geometric mean and a batch length: no
// more than the largest horizon.
const MaxDelay = MaxHorizon

// Feedback is a `feedback:` value as written (design §3, §8): how rewards
// reach the policies. Exactly one of Delay and Batch is set:
//
//	feedback: {delay: 10}                 # every reward arrives 10 rounds late
//	feedback: {delay: {geometric: 10}}    # random delays, geometric with mean 10
//	feedback: {batch: 100}                # rewards revealed every 100 rounds
//
// A scenario without `feedback:` has immediate feedback. A policy's own
// `feedback:` replaces the scenario's for that policy.
type Feedback struct {
	// Delay is an int D >= 0, or a mapping {geometric: MEAN}.
	Delay any `yaml:"delay,omitempty"`
	// Batch is an int B >= 1.
	Batch any `yaml:"batch,omitempty"`
}

// feedbackError is a problem with a `feedback:` value: the field under
// the feedback key at fault ("" for the value itself) and what is wrong.
type feedbackError struct {
	field, msg string
}

// Mode returns the feedback mode f declares; nil is immediate feedback.
func (f *Feedback) Mode() (sdk.Feedback, error) {
	m, fe := f.mode()
	if fe != nil {
		return sdk.Feedback{}, fmt.Errorf("feedback%s: %s", fe.field, fe.msg)
	}
	return m, nil
}

func (f *Feedback) mode() (sdk.Feedback, *feedbackError) {
	if f == nil {
		return sdk.Feedback{}, nil
	}
	const forms = "{delay: D}, {delay: {geometric: MEAN}} or {batch: B}"
	switch {
	case f.Delay != nil && f.Batch != nil:
		return sdk.Feedback{}, &feedbackError{"", "give delay or batch, not both (" + forms + ")"}
	case f.Delay == nil && f.Batch == nil:
		return sdk.Feedback{}, &feedbackError{"", "empty; give " + forms}
	case f.Batch != nil:
		b, ok := intValue(f.Batch)
		if !ok || b < 1 || b > MaxDelay {
			return sdk.Feedback{}, &feedbackError{".batch", fmt.Sprintf("want an int in 1..%d (rewards revealed every B rounds), got %s", MaxDelay, describe(f.Batch))}
		}
		return sdk.Feedback{Kind: sdk.Batch, Batch: int(b)}, nil
	}
	if d, ok := intValue(f.Delay); ok {
		if d < 0 || d > MaxDelay {
			return sdk.Feedback{}, &feedbackError{".delay", fmt.Sprintf("want an int in 0..%d (rounds), got %d", MaxDelay, d)}
		}
		return sdk.Feedback{Kind: sdk.Delay, Delay: int(d)}, nil
	}
	m, ok := f.Delay.(map[string]any)
	if !ok {
		return sdk.Feedback{}, &feedbackError{".delay", fmt.Sprintf("want an int D >= 0 or {geometric: MEAN}, got %s", describe(f.Delay))}
	}
	for k := range m {
		if k != "geometric" {
			return sdk.Feedback{}, &feedbackError{".delay." + k, "unknown key (valid keys: geometric)"}
		}
	}
	g, present := m["geometric"]
	if !present {
		return sdk.Feedback{}, &feedbackError{".delay", "empty mapping; want {geometric: MEAN}"}
	}
	var mean float64
	switch x := g.(type) {
	case float64:
		mean = x
	default:
		i, ok := intValue(g)
		if !ok {
			return sdk.Feedback{}, &feedbackError{".delay.geometric", fmt.Sprintf("want a number >= 0 (the mean delay), got %s", describe(g))}
		}
		mean = float64(i)
	}
	if !(mean >= 0 && mean <= MaxDelay) || math.IsNaN(mean) {
		return sdk.Feedback{}, &feedbackError{".delay.geometric", fmt.Sprintf("want a mean delay in [0, %d], got %v", MaxDelay, mean)}
	}
	return sdk.Feedback{Kind: sdk.Geometric, Mean: mean}, nil
}

// intValue returns v as an int64 when it is a YAML integer.
func intValue(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// FeedbackOf returns the feedback mode of policy p: its own `feedback:`
// when it has one, else the scenario's. Validate has checked both.
func (s *Scenario) FeedbackOf(p Policy) sdk.Feedback {
	f := s.Feedback
	if p.Feedback != nil {
		f = p.Feedback
	}
	m, _ := f.Mode()
	return m
}

// checkFeedback reports the problems of every `feedback:` of s.
func (s *Scenario) checkFeedback(bad func(field, format string, args ...any)) {
	if _, fe := s.Feedback.mode(); fe != nil {
		bad("feedback"+fe.field, "%s", fe.msg)
	}
	for i, p := range s.Policies {
		if _, fe := p.Feedback.mode(); fe != nil {
			bad(fmt.Sprintf("policies[%d].feedback%s", i, fe.field), "%s", fe.msg)
		}
	}
}
