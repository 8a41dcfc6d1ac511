package flagconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// newTree returns a command tree shaped like bench's: a root with the
// persistent --config and --plugin-dir, a run with flags of one value and
// repeatable ones, a report whose --title only it has, a conform whose
// --seed is command-line only, and a plugins with no flags. Each command
// binds prefix in its PersistentPreRunE and records the config path and
// error in *cfg and *err.
func newTree(prefix string, cfg *string, bindErr *error) *cobra.Command {
	root := &cobra.Command{
		Use:           "bench",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			*cfg, *bindErr = Bind(cmd, prefix)
			return *bindErr
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	pf := root.PersistentFlags()
	pf.String("config", "", "")
	pf.StringArray("plugin-dir", nil, "")
	pf.SetAnnotation("plugin-dir", NoSplit, []string{"true"})
	noop := func(*cobra.Command, []string) error { return nil }

	run := &cobra.Command{Use: "run", RunE: noop}
	fs := run.Flags()
	fs.Int("runs", 0, "")
	fs.Int("horizon", 0, "")
	fs.Duration("step-timeout", 0, "")
	fs.BoolP("quiet", "q", false, "")
	fs.String("at", "", "")
	fs.String("seed", "", "")
	fs.StringArray("policy", nil, "")
	fs.StringArray("with", nil, "")
	fs.SetAnnotation("with", NoSplit, []string{"true"})

	report := &cobra.Command{Use: "report", RunE: noop}
	report.Flags().String("title", "", "")

	conform := &cobra.Command{Use: "conform", RunE: noop}
	conform.Flags().String("seed", "", "")
	conform.Flags().SetAnnotation("seed", CommandLineOnly, []string{"true"})
	conform.Flags().StringSlice("rule", nil, "")

	root.AddCommand(run, report, conform, &cobra.Command{Use: "plugins", RunE: noop})
	return root
}

// bind runs args through newTree and returns the flags of the command run
// (a repeatable flag's values joined by "|"), the config path Bind
// returned and its error.
func bind(t *testing.T, prefix string, args ...string) (map[string]string, string, error) {
	t.Helper()
	var cfg string
	var err error
	root := newTree(prefix, &cfg, &err)
	root.SetArgs(args)
	cmd, execErr := root.ExecuteC()
	if execErr != nil && execErr != err { //nolint:errorlint // the very error Bind returned
		t.Fatalf("%v: not an error of Bind: %v", args, execErr)
	}
	got := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if s, ok := f.Value.(pflag.SliceValue); ok {
			got[f.Name] = strings.Join(s.GetSlice(), "|")
		} else {
			got[f.Name] = f.Value.String()
		}
	})
	return got, cfg, err
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBindConfigKeys: a key of the config file must set a flag of the
// command run, or of another command of the tree (ignored then: one file
// may serve several commands). A typo, a key of no command, a shorthand, a
// list for a flag of one value, a mapping, two spellings of one key and
// --config or --help themselves are refused, naming the file, the key,
// its line (YAML) and the flag meant.
func TestBindConfigKeys(t *testing.T) {
	t.Parallel()
	run := []string{"run"}
	for _, tc := range []struct {
		name, file, content string
		args                []string
		want                string // after "config PATH"; "" when accepted
	}{
		{"underscore", "c.yaml", "runs: 2\nstep_timeout: 1s\n", run,
			`: unknown key "step_timeout" (line 2): no bench command has a flag --step_timeout; did you mean --step-timeout?`},
		{"typo", "c.yaml", "horizn: 10\n", run, `: unknown key "horizn" (line 1): no bench command has a flag --horizn; did you mean --horizon?`},
		{"swap", "c.yaml", "hroizon: 10\n", run, `: unknown key "hroizon" (line 1): no bench command has a flag --hroizon; did you mean --horizon?`},
		{"no such flag", "c.yaml", "frobnicate: 1\n", run, `: unknown key "frobnicate" (line 1): no bench command has a flag --frobnicate`},
		{"shorthand", "c.yaml", "q: true\n", run, `: unknown key "q" (line 1): no bench command has a flag --q; did you mean --quiet (keys are flag names, not shorthands)?`},
		{"another command's typo", "c.yaml", "titel: Mine\n", []string{"plugins"},
			`: unknown key "titel" (line 1): no bench command has a flag --titel; did you mean --title (a flag of bench report)?`},
		{"a list for a string", "c.yaml", "at: [10, 20]\n", run, `: key "at" (line 1): a list ([10 20]), but --at takes one value (only the last element was used)`},
		{"a list for an int", "c.yaml", "runs: [1, 2]\n", run, `: key "runs" (line 1): a list ([1 2]), but --runs takes one value (only the last element was used)`},
		{"an aliased list", "c.yaml", "x: &l [1, 2]\nruns: *l\n", run, `: unknown key "x" (line 1): no bench command has a flag --x`},
		{"a mapping", "c.yaml", "seed: {value: 3}\n", run, `: key "seed" (line 1): a mapping (map[value:3]), but --seed takes a value`},
		{"a mapping for a list flag", "c.yaml", "policy: {a: 1}\n", run, `: key "policy" (line 1): a mapping (map[a:1]), but --policy takes a value`},
		{"two spellings", "c.yaml", "runs: 2\nRuns: 3\n", run, `: key "Runs" (line 2) repeats key "runs" (line 1): keys are case-insensitive`},
		{"config in a config", "c.yaml", "config: other.yaml\n", run, `: key "config" (line 1): --config cannot be set in a config file`},
		{"help in a config", "c.yaml", "HELP: true\n", run, `: key "HELP" (line 1): --help cannot be set in a config file`},
		{"JSON", "c.json", `{"runs": 2, "step_timeout": "1s"}`, run, `: unknown key "step_timeout": no bench command has a flag --step_timeout; did you mean --step-timeout?`},
		{"JSON list", "c.json", `{"at": [1, 2]}`, run, `: key "at": a list ([1 2]), but --at takes one value (only the last element was used)`},
		{"invalid YAML", "c.yaml", "runs: [\n", run, `: invalid YAML: yaml: line 1: did not find expected node content`},
		{"unsupported type", "c.txt", "runs: 2\n", run, `: unsupported config type "txt": the file name must end in one of .`},
		{"another command's flag", "c.yaml", "title: Mine\nrule: [handshake]\n", run, ""},
		{"a list for a list flag", "c.yaml", "policy: [TS]\nwith: ['ts@X']\nplugin-dir: [/a]\n", run, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := writeFile(t, tc.file, tc.content)
			_, gotCfg, err := bind(t, "FCKEYS", append(tc.args, "--config", cfg)...)
			if tc.want == "" {
				if err != nil || gotCfg != cfg {
					t.Errorf("Bind = %q, %v; want %q, nil", gotCfg, err, cfg)
				}
				return
			}
			if want := "config " + cfg + tc.want; err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want %q", err, want)
			}
			if gotCfg != "" {
				t.Errorf("config path %q returned with an error", gotCfg)
			}
		})
	}
}

// TestBindSpecialFiles: what is not a regular file (a FIFO, which would
// block forever; /dev/zero, read until out of memory), a file over the
// size bound and YAML nested or aliased beyond the bounds are refused at
// once, naming the file.
func TestBindSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "c.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "z.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	var bomb strings.Builder
	bomb.WriteString("runs: 3\nx0: &x0 [a, a, a, a, a, a, a, a, a]\n")
	for i := 1; i < 20; i++ {
		fmt.Fprintf(&bomb, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 9), ", "))
	}
	for _, tc := range []struct {
		name, path string
		want       string
		is         error
	}{
		{"fifo", fifo, ": not a regular file (a named pipe (FIFO))", safeio.ErrNotRegular},
		{"device", zero, ": not a regular file (a character device)", safeio.ErrNotRegular},
		{"too large", writeFile(t, "big.yaml", "runs: 3\n#"+strings.Repeat("x", maxConfigSize)+"\n"), "", safeio.ErrTooLarge},
		{"too deep", writeFile(t, "deep.yaml", "runs: 3\nx: "+strings.Repeat("{a: ", 2000)+"1"+strings.Repeat("}", 2000)+"\n"),
			": nested more than 16 levels deep (line 2)", nil},
		{"nested, not too deep", writeFile(t, "d.yaml", "x: "+strings.Repeat("{a: ", 8)+"1"+strings.Repeat("}", 8)+"\n"),
			`: unknown key "x" (line 1)`, nil},
		{"alias bomb", writeFile(t, "bomb.yaml", bomb.String()), ": more than 10000 values once aliases are expanded", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := bind(t, "FCFILES", "run", "--config", tc.path)
			if err == nil {
				t.Fatal("accepted")
			}
			if want := "config " + tc.path + tc.want; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %v, want %q", err, want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}

// TestBindFills: the command line beats PREFIX_<FLAG>, which beats the
// config file, which beats the default. A variable of a repeatable flag is
// split on commas (each value trimmed), except for a flag annotated
// NoSplit (--with specs and --plugin-dir directories hold commas); a
// config file gives a list. A flag annotated CommandLineOnly is set by
// neither. PREFIX_CONFIG names the file when --config does not. A value
// the flag refuses is an error naming the flag, the variable and the
// value.
func TestBindFills(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		env    map[string]string
		config string            // the file's content, "" for none
		want   map[string]string // flag → value (repeatable: joined by "|")
		err    string            // a prefix of the error, "" for none
	}{
		{name: "defaults", args: []string{"run"}, want: map[string]string{"runs": "0", "policy": "", "config": ""}},
		{name: "env", args: []string{"run"}, env: map[string]string{"FCFILL_RUNS": "7", "FCFILL_STEP_TIMEOUT": "90s", "FCFILL_QUIET": "true"},
			want: map[string]string{"runs": "7", "step-timeout": "1m30s", "quiet": "true"}},
		{name: "command line beats env", args: []string{"run", "--runs", "3"}, env: map[string]string{"FCFILL_RUNS": "7"}, want: map[string]string{"runs": "3"}},
		{name: "config", args: []string{"run"}, config: "runs: 5\nhorizon: 40\nstep-timeout: 2s\n",
			want: map[string]string{"runs": "5", "horizon": "40", "step-timeout": "2s"}},
		{name: "env beats config", args: []string{"run"}, env: map[string]string{"FCFILL_RUNS": "7"}, config: "runs: 5\nhorizon: 40\n",
			want: map[string]string{"runs": "7", "horizon": "40"}},
		{name: "command line beats config", args: []string{"run", "--horizon", "9"}, config: "horizon: 40\n", want: map[string]string{"horizon": "9"}},
		{name: "comma split", args: []string{"run"}, env: map[string]string{"FCFILL_POLICY": "TS, KL-UCB"}, want: map[string]string{"policy": "TS|KL-UCB"}},
		{name: "comma split of a slice", args: []string{"conform"}, env: map[string]string{"FCFILL_RULE": "handshake,describe"}, want: map[string]string{"rule": "handshake|describe"}},
		{name: "with is not split", args: []string{"run"}, env: map[string]string{"FCFILL_WITH": "ts:c=1,d=2@X"}, want: map[string]string{"with": "ts:c=1,d=2@X"}},
		{name: "plugin-dir is not split", args: []string{"run"}, env: map[string]string{"FCFILL_PLUGIN_DIR": "/env/plugins,a"}, want: map[string]string{"plugin-dir": "/env/plugins,a"}},
		{name: "lists from the config", args: []string{"run"}, config: "with: ['ts:c=1,d=2@X', 'klucb@K']\npolicy: [TS, X]\nplugin-dir: [/a, /b]\n",
			want: map[string]string{"with": "ts:c=1,d=2@X|klucb@K", "policy": "TS|X", "plugin-dir": "/a|/b"}},
		{name: "a string for a list flag in the config", args: []string{"run"}, config: "policy: TS,X\n", want: map[string]string{"policy": "TS|X"}},
		{name: "command line only", args: []string{"conform"}, env: map[string]string{"FCFILL_SEED": "4"}, config: "seed: 5\n", want: map[string]string{"seed": ""}},
		{name: "the same name elsewhere", args: []string{"run"}, env: map[string]string{"FCFILL_SEED": "4"}, want: map[string]string{"seed": "4"}},
		{name: "PREFIX_CONFIG", args: []string{"run"}, env: map[string]string{"FCFILL_CONFIG": "from env"}, config: "runs: 5\n", want: map[string]string{"runs": "5"}},
		{name: "bad value from env", args: []string{"run"}, env: map[string]string{"FCFILL_RUNS": "many"},
			err: `--runs from FCFILL_RUNS or the config file (many): invalid argument "many" for "--runs" flag`},
		{name: "bad value from config", args: []string{"run"}, config: "step-timeout: soon\n",
			err: `--step-timeout from FCFILL_STEP_TIMEOUT or the config file (soon): invalid argument "soon" for "--step-timeout" flag`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			var cfg string
			if tc.config != "" {
				cfg = writeFile(t, "c.yaml", tc.config)
				if tc.env["FCFILL_CONFIG"] == "" {
					args = append(args, "--config", cfg)
				}
			}
			for k, v := range tc.env {
				if k == "FCFILL_CONFIG" {
					v = cfg
				}
				t.Setenv(k, v)
			}
			got, gotCfg, err := bind(t, "FCFILL", args...)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if gotCfg != cfg {
				t.Errorf("config path %q, want %q", gotCfg, cfg)
			}
			for name, w := range tc.want {
				if got[name] != w {
					t.Errorf("--%s = %q, want %q", name, got[name], w)
				}
			}
		})
	}
}

// TestEditDistance: insertions, deletions, substitutions and swaps of
// adjacent bytes each cost 1 (optimal string alignment).
func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"runs", "runs", 0},
		{"", "abc", 3},
		{"horizn", "horizon", 1},
		{"titel", "title", 1},
		{"step-timeot", "step-timeout", 1},
		{"runs", "jobs", 3},
		{"ca", "abc", 3}, // optimal string alignment, not Damerau's 2
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := editDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}
