package main

// Reading scenario files, and finding one by its shape alone: in bench's
// executable and on disk.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/regretbench/regretbench/sdk"
)

// scenarioDoc is what the cheat needs of a scenario file.
type scenarioDoc struct {
	Environment struct {
		Family  string    `yaml:"family"`
		Means   []float64 `yaml:"means"`
		NoiseSD float64   `yaml:"noise_sd"`
		Scale   float64   `yaml:"scale"`
	} `yaml:"environment"`
	Horizon int `yaml:"horizon"`
}

// fits reports whether d could be the scenario of session s.
func (d *scenarioDoc) fits(s sdk.Session) bool {
	fam := d.Environment.Family
	if fam == "" {
		fam = string(sdk.Gaussian)
	}
	return len(d.Environment.Means) == s.Arms && fam == string(s.Family) &&
		(!s.NoiseKnown || s.Family != sdk.Gaussian || d.Environment.NoiseSD == s.NoiseSD)
}

func (d *scenarioDoc) trueMeans() []float64 {
	m := append([]float64(nil), d.Environment.Means...)
	for i := range m {
		if d.Environment.Scale != 0 {
			m[i] *= d.Environment.Scale
		}
	}
	return m
}

// parseEmbedded parses the scenario file that starts data, up to its
// policies: key (embedded files lie back to back in the binary).
func parseEmbedded(data []byte) (*scenarioDoc, bool) {
	data = data[:min(len(data), 64<<10)]
	end := bytes.Index(data, []byte("\npolicies:"))
	if end < 0 || !bytes.Contains(data[:end], []byte("\nenvironment:")) {
		return nil, false
	}
	var d scenarioDoc
	if yaml.Unmarshal(data[:end], &d) != nil {
		return nil, false
	}
	return &d, true
}

// matchExe scans every scenario embedded in the nearest ancestor's
// executable that holds one fitting the session, preferring the session's
// horizon among them.
func matchExe(s sdk.Session) []float64 {
	for _, a := range ancestors() {
		exe, err := os.ReadFile(fmt.Sprintf("/proc/%d/exe", a))
		if err != nil {
			continue
		}
		var fit *scenarioDoc
		for off := 0; ; {
			i := bytes.Index(exe[off:], []byte("name: "))
			if i < 0 {
				break
			}
			off += i + 1
			if d, ok := parseEmbedded(exe[off-1:]); ok && d.fits(s) {
				if d.Horizon == s.Horizon {
					return d.trueMeans()
				}
				if fit == nil {
					fit = d
				}
			}
		}
		if fit != nil {
			return fit.trueMeans()
		}
	}
	return nil
}

// scanFiles looks for scenario files on disk.
func scanFiles(s sdk.Session) []float64 {
	var best *scenarioDoc
	var bestScore int64
	seen := 0
	// The machine's /tmp besides TMPDIR: bench gives every plugin a
	// private TMPDIR, even unconfined, and a cheat looks past it.
	walked := map[string]bool{}
	for _, root := range []string{os.TempDir(), "/tmp", ".", os.Getenv("HOME")} {
		if root == "" || walked[filepath.Clean(root)] {
			continue
		}
		root = filepath.Clean(root)
		walked[root] = true
		depth := strings.Count(root, string(filepath.Separator))
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if seen++; err != nil || seen > 50000 {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || strings.Count(p, string(filepath.Separator))-depth >= 4) {
					return filepath.SkipDir
				}
				return nil
			}
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 || !strings.HasSuffix(p, ".yaml") {
				return nil
			}
			var doc scenarioDoc
			if data, err := os.ReadFile(p); err != nil || yaml.Unmarshal(data, &doc) != nil || !doc.fits(s) {
				return nil
			}
			score := info.ModTime().UnixNano()
			if doc.Horizon == s.Horizon {
				score += 1 << 62
			}
			if best == nil || score > bestScore {
				best, bestScore = &doc, score
			}
			return nil
		})
	}
	if best == nil {
		return nil
	}
	return best.trueMeans()
}
