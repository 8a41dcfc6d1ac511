// Package docs_test checks the documentation against the repository: every
// link between pages leads to a page and a heading that exist, and every
// repository path a page names exists, so that docs follow the code when
// files move. (The commands the pages show are run by host/e2e's
// TestDocCommands.)
package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the repository root, seen from this package's directory.
const root = ".."

// pages returns the documentation pages, relative to root: README.md,
// docs/*.md and the Markdown files of examples/.
func pages(t *testing.T) []string {
	t.Helper()
	out := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "examples/*.md", "examples/*/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	sort.Strings(out)
	return out
}

func read(t *testing.T, page string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

var (
	fenceRE   = regexp.MustCompile("(?ms)^ *```.*?^ *```[^\\n]*$")
	headingRE = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#*$`)
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// prose is text with its fenced blocks blanked out (a "# comment" in a
// shell block is no heading).
func prose(text string) string {
	return fenceRE.ReplaceAllStringFunc(text, func(s string) string {
		return strings.Repeat("\n", strings.Count(s, "\n"))
	})
}

// anchors returns the anchors GitHub gives the headings of text: lower
// case, punctuation but '-' and '_' dropped, spaces as '-', "-1", "-2"
// for repeats.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, m := range headingRE.FindAllStringSubmatch(prose(text), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '§' && r != '…' && r != '—':
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+string(rune('0'+n))] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestDocLinks: every relative link of every page leads to a file of the
// repository and, with a #fragment, to a heading of that page. When the
// README's body moved into docs/, its links to its own sections
// (#sandbox, #threat-model) had to become links across pages; this keeps
// them from breaking silently again.
func TestDocLinks(t *testing.T) {
	for _, page := range pages(t) {
		text := read(t, page)
		for _, m := range linkRE.FindAllStringSubmatch(prose(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s: link %q: %v", page, target, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: a fragment of a file that is not Markdown", page, target)
				continue
			}
			if !anchors(read(t, dest))[frag] {
				t.Errorf("%s: link %q: %s has no heading #%s", page, target, dest, frag)
			}
		}
	}
}

// repoPathRE matches what reads as a path in this repository: a top-level
// directory of it, a slash, and more, not preceded by a character that
// would make it part of another path (bin/plugins/..., ~/rb/...).
var repoPathRE = regexp.MustCompile(`(?:^|[^\w/.~$-])((?:host|sdk|internal|plugins|scenarios|examples|docs|testdata|cmd|\.ci)/[\w./-]*[\w/])`)

// TestDocPaths: every repository path a page names (host/engine/engine.go,
// scenarios/two_arm.yaml, internal/wire/framevectors_test.go) exists.
// docs/step-socket.md once cited a test file after it had moved. Paths
// with a pattern in them (plugins/{ts,klucb}, *_amd64.s) and Go import
// paths are not checked.
func TestDocPaths(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		for i, line := range strings.Split(read(t, page), "\n") {
			for _, m := range repoPathRE.FindAllStringSubmatchIndex(line, -1) {
				p := line[m[2]:m[3]]
				rest := line[m[3]:]
				if r := strings.TrimLeft(rest, "-_."); strings.HasPrefix(rest, "{") || strings.HasPrefix(r, "*") || strings.HasPrefix(rest, "…") || strings.HasPrefix(rest, "...") {
					continue // a pattern, not a path
				}
				if i := strings.LastIndex(p, "."); i > strings.LastIndex(p, "/") && i+1 < len(p) && p[i+1] >= 'A' && p[i+1] <= 'Z' {
					p = p[:i] // internal/client.NewLocal: a package and one of its names
				}
				if m[2] > 0 && strings.HasSuffix(line[:m[2]], "regretbench/") {
					continue // github.com/regretbench/regretbench/sdk: an import path
				}
				p = strings.TrimSuffix(strings.TrimRight(p, "."), "/")
				checked++
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
					t.Errorf("%s:%d: names %s, which does not exist", page, i+1, p)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d paths found in the docs: the pattern no longer matches them", checked)
	}
}
