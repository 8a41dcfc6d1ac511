package board_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/board"
)

// TestRoundTakesSubmissionsOnlyWhileOpen: a submission before the round
// opens, or after its seed is revealed, is refused before anything runs,
// naming why; so is a second reveal.
func TestRoundTakesSubmissionsOnlyWhileOpen(t *testing.T) {
	t.Parallel()
	b, err := board.Init(filepath.Join(t.TempDir(), "b"), board.InitOptions{Name: "t", Suite: []string{"two_arm"}, Runs: 4, Horizon: 100, Audit: 1, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	submit := func() error {
		_, err := b.Submit(context.Background(), filepath.Join(binDir, "bench-plugin-ts"), board.SubmitOptions{Submitter: "alice"})
		return err
	}
	if err := submit(); err == nil || !strings.Contains(err.Error(), "no round is open") {
		t.Errorf("submit before open: %v, want no round is open", err)
	}
	if _, err := b.Reveal(); err == nil || !strings.Contains(err.Error(), "no round is open") {
		t.Errorf("reveal before open: %v, want no round is open", err)
	}
	if _, err := b.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Reveal(); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{"submit": submit(), "second reveal": func() error { _, err := b.Reveal(); return err }()} {
		if err == nil || !strings.Contains(err.Error(), "the round closed when its seed was revealed") {
			t.Errorf("%s after the reveal: %v, want the round closed", what, err)
		}
	}
}
