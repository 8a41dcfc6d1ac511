package htmlreport_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/compare"
	"github.com/regretbench/regretbench/host/htmlreport"
	"github.com/regretbench/regretbench/host/results"
)

// chromium is Debian's Chromium, which .ci/run installs.
const chromium = "/usr/bin/chromium"

// visit is what a headless Chromium did with one page.
type visit struct {
	dom      string   // the DOM once loaded (--dump-dom)
	console  []string // console messages: errors, CSP violations, logs
	served   []string // requests to the page's own server: "GET /path"
	outbound []string // requests for any other host, as the proxy saw them
}

// load serves page at /report.html from a server on 127.0.0.1 and has
// headless Chromium load it, with every other host sent to a proxy on
// 127.0.0.1 that only records requests (and no name resolving), so that
// nothing leaves the machine and every request the page makes is seen.
func load(t *testing.T, page []byte) visit {
	t.Helper()
	var mu sync.Mutex
	var v visit
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		v.served = append(v.served, r.Method+" "+r.URL.Path)
		mu.Unlock()
		if r.URL.Path != "/report.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()

	proxy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := proxy.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				var head []string
				r := bufio.NewReader(c)
				for len(head) < 50 {
					line, err := r.ReadString('\n')
					line = strings.TrimRight(line, "\r\n")
					if err != nil || line == "" {
						break
					}
					head = append(head, line)
				}
				mu.Lock()
				v.outbound = append(v.outbound, strings.Join(head, " | "))
				mu.Unlock()
				// No answer: the request fails at once.
			}()
		}
	}()

	// A bound on a hung browser, not a timed assertion: Chromium loads a
	// local page in a second or two.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--metrics-recording-only",
		"--user-data-dir="+t.TempDir(),
		"--proxy-server=http://"+proxy.Addr().String(), // loopback bypasses it
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		"--enable-logging=stderr", "--v=0",
		"--window-size=1280,900", "--dump-dom", srv.URL+"/report.html")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	proxy.Close()
	wg.Wait()
	if runErr != nil {
		t.Fatalf("chromium: %v\n%s", runErr, stderr.String())
	}
	v.dom = stdout.String()
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			v.console = append(v.console, line)
		}
	}
	return v
}

// needChromium skips the test under -short, and where Chromium is missing
// unless REGRETBENCH_REQUIRE_BROWSER (set by .ci/run) demands it.
func needChromium(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skips the report in a headless Chromium; go test without -short runs it")
	}
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("REGRETBENCH_REQUIRE_BROWSER") != "" {
			t.Fatalf("REGRETBENCH_REQUIRE_BROWSER is set (as .ci/run sets it) but %s is missing: %v", chromium, err)
		}
		t.Skipf("SKIP browser check: %s not found (apt-get install chromium; .ci/run installs it)", chromium)
	}
}

// TestBrowserHarnessSees: the harness does see what it is meant to catch,
// on a page that has a script error, a missing file and an external image
// (and no Content-Security-Policy), so that a clean result for the report
// means something.
func TestBrowserHarnessSees(t *testing.T) {
	needChromium(t)
	bad := `<!DOCTYPE html><html><head><title>bad</title></head><body><p id="here">x</p>` +
		`<img src="missing.png"><img src="http://example.invalid/x.png"><script>undefinedFn();</script></body></html>`
	v := load(t, []byte(bad))
	if !strings.Contains(v.dom, `id="here"`) {
		t.Errorf("the DOM dump lacks the page:\n%.300s", v.dom)
	}
	if !strings.Contains(strings.Join(v.console, "\n"), "Uncaught ReferenceError") {
		t.Errorf("the script error was not seen; console: %q", v.console)
	}
	if !strings.Contains(strings.Join(v.served, " "), "GET /missing.png") {
		t.Errorf("the request for a relative file was not seen; served: %q", v.served)
	}
	if len(v.outbound) == 0 || !strings.Contains(strings.Join(v.outbound, "\n"), "example.invalid") {
		t.Errorf("the external image request was not seen; outbound: %q", v.outbound)
	}
}

// TestReportInBrowser: a real browser loads the report of two results
// files (one with hostile labels) with no console message at all (no
// error, no Content-Security-Policy violation), requests nothing but the
// page itself, and builds the page: both sections, every figure as SVG.
func TestReportInBrowser(t *testing.T) {
	needChromium(t)
	var files []*results.File
	for _, n := range []string{"small.json", "hostile.json"} {
		f, err := results.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// The comparison section too, as a run with --with writes it.
	if _, err := compare.Attach(files[0], compare.Spec{Policies: []string{"TS"}, Baselines: []string{"ReMaxGrad M=2", "KL-UCB, c=0"}}, compare.DefaultOptions); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := htmlreport.Write(&b, files, fixed); err != nil {
		t.Fatal(err)
	}
	v := load(t, []byte(b.String()))
	if len(v.console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(v.console, "\n"))
	}
	if len(v.served) != 1 || v.served[0] != "GET /report.html" {
		t.Errorf("requests to the page's server: %q, want only GET /report.html", v.served)
	}
	for _, r := range v.outbound {
		if strings.Contains(r, "Referer:") || strings.Contains(r, "evil.example") {
			t.Errorf("the page made a request: %s", r)
		}
	}
	if n := len(v.outbound); n > 0 {
		t.Logf("%d background requests of the browser itself went to the recording proxy (none from the page)", n)
	}
	if got := regexp.MustCompile(`<section class="experiment"`).FindAllStringIndex(v.dom, -1); len(got) != 2 {
		t.Errorf("the loaded DOM has %d experiment sections, want 2", len(got))
	}
	if !strings.Contains(v.dom, `id="exp-1-small-comparison-table"`) {
		t.Errorf("the loaded DOM lacks the comparison table")
	}
	if got, want := strings.Count(v.dom, "<svg"), strings.Count(b.String(), "<svg"); got != want || want == 0 {
		t.Errorf("the loaded DOM has %d svg elements, the page %d", got, want)
	}
	if strings.Contains(v.dom, "<script") {
		t.Errorf("a script element appeared in the DOM")
	}
}

// TestHostileReportInBrowser: the page of results files whose names hold
// controls, noncharacters, invalid UTF-8 and markup (hostileFiles) loads
// in a real browser with no console message, and every figure is built
// as SVG.
func TestHostileReportInBrowser(t *testing.T) {
	needChromium(t)
	var b strings.Builder
	if err := htmlreport.Write(&b, hostileFiles(t), fixed); err != nil {
		t.Fatal(err)
	}
	v := load(t, []byte(b.String()))
	if len(v.console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(v.console, "\n"))
	}
	if len(v.served) != 1 || v.served[0] != "GET /report.html" {
		t.Errorf("requests to the page's server: %q, want only GET /report.html", v.served)
	}
	if got, want := strings.Count(v.dom, "<svg"), strings.Count(b.String(), "<svg"); got != want || want == 0 {
		t.Errorf("the loaded DOM has %d svg elements, the page %d", got, want)
	}
	if strings.Contains(v.dom, "<script") {
		t.Errorf("a script element appeared in the DOM")
	}
}
