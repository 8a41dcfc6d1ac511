package launch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/regretbench/regretbench/internal/client"
	"github.com/regretbench/regretbench/internal/launch"
	"github.com/regretbench/regretbench/internal/testbin"
	"github.com/regretbench/regretbench/sdk"
)

// lastWordsModes are the modes of testdata/lastwords.
var lastWordsModes = []string{"before-nl", "before-nonl", "after-nl", "after-nonl"}

// lastWordsPlugins builds testdata/lastwords into a directory of the
// test's and links it under every mode's name.
func lastWordsPlugins(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "lastwords.bin")
	if err := testbin.Build(dir, testbin.Options{}, testbin.Main{Pkg: "./testdata/lastwords", Name: "lastwords.bin"}); err != nil {
		t.Fatal(err)
	}
	for _, m := range lastWordsModes {
		if err := os.Link(exe, filepath.Join(dir, "bench-plugin-lastwords-"+m)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lastWordsError launches the plugin of mode, describes it and opens a
// session, and returns the error of the step that failed.
func lastWordsError(t *testing.T, dir, mode string) error {
	t.Helper()
	path := filepath.Join(dir, "bench-plugin-lastwords-"+mode)
	// Generous: the plugin must fail by exiting, never by a timeout.
	c, err := launch.Launch(path, launch.Options{StartTimeout: 2 * time.Minute})
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Describe(ctx); err != nil {
		return err
	}
	_, err = c.Open(ctx, &client.OpenRequest{Arms: 2, Horizon: 10, Replications: []uint64{0}, InitPulls: 1, Family: sdk.Gaussian, NoiseSD: 1, NoiseKnown: true})
	return err
}

// TestLastWords: whatever a plugin writes to stderr before it exits is
// quoted in the error, before and after the handshake, with or without a
// final newline, every time: the pipes are read to their end before the
// error is made, and a last line without a newline counts. Before, a Go
// plugin that wrote to stderr after the handshake and exited lost the
// message in 9 runs of 10, and a last line without a newline was never
// quoted.
func TestLastWords(t *testing.T) {
	if testing.Short() {
		t.Skip("launches 80 plugin processes")
	}
	const runs = 20
	dir := lastWordsPlugins(t)
	for _, mode := range lastWordsModes {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			want := "lastwords: cannot go on (" + mode + ")"
			lost := 0
			for range runs {
				err := lastWordsError(t, dir, mode)
				if err == nil {
					t.Fatal("no error")
				}
				if !strings.Contains(err.Error(), want) {
					lost++
					if lost == 1 {
						t.Logf("an error without the message:\n%v", err)
					}
				}
			}
			if lost > 0 {
				t.Errorf("%d errors of %d lack %q", lost, runs, want)
			}
		})
	}
}
