// Package latextest compiles LaTeX that bench writes with a real LaTeX
// (pdflatex, with booktabs and siunitx: Debian's texlive-latex-extra and
// texlive-science) in a small wrapper document, and reads the PDF back
// with pdftotext (poppler-utils), so that a test checks that a table
// compiles and shows its numbers, not only how its source looks.
package latextest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Wrapper is the document each body is \input into: the packages bench's
// LaTeX asks for (report.LatexPreamble) and nothing else.
const Wrapper = `\documentclass{article}
\usepackage{booktabs}
\usepackage{siunitx}
\usepackage{graphicx}
\begin{document}
\input{body}
\end{document}
`

// Compile compiles body in Wrapper and returns the PDF's text
// (pdftotext -layout). It skips the test, saying why, when pdflatex or
// pdftotext is not installed, and fails it with LaTeX's log when the
// document does not compile or gives no PDF. Each tool has two minutes.
func Compile(t *testing.T, body string) string {
	t.Helper()
	for _, tool := range []string{"pdflatex", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: texlive-latex-extra texlive-science poppler-utils), so the LaTeX is not compiled", tool)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body.tex"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "doc.tex"), []byte(Wrapper), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pdflatex did not compile the document (within 2 minutes): %v\n%s\nbody:\n%s", err, tail(string(out), 3000), body)
	}
	pdf := filepath.Join(dir, "doc.pdf")
	if st, err := os.Stat(pdf); err != nil || st.Size() == 0 {
		t.Fatalf("pdflatex wrote no PDF: %v\n%s", err, tail(string(out), 3000))
	}
	cmd = exec.CommandContext(ctx, "pdftotext", "-layout", pdf, "-")
	text, err := cmd.Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", pdf, err)
	}
	return string(text)
}

// Contains fails t for each of wants that text lacks, whitespace left
// out of both (a PDF's columns and signs are spaced at will: "1.80± 0.37").
func Contains(t *testing.T, text string, wants ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(text), "")
	for _, w := range wants {
		if !strings.Contains(flat, strings.Join(strings.Fields(w), "")) {
			t.Errorf("the PDF does not show %q; its text:\n%s", w, text)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
