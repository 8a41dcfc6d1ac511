// Package board runs a leaderboard whose rows anyone can check: a board
// is a directory; a round commits to a secret seed before any submission
// runs and reveals it after; each submission runs under the strict
// sandbox with that seed and an audit, by bench itself in a subprocess;
// each run is recorded as an in-toto attestation signed with the board's
// key (package attest) and appended to a transparency log with signed
// checkpoints (package tlog); and Verify checks a row: its signature,
// its place in the log, the files it names, the seed, and with a rerun
// that the results come out bit for bit the same.
//
// A board's directory:
//
//	board.json            the suite, the limits and the board's public key
//	round.json            the seed's commitment and when it was made; the seed once revealed
//	suite/NAME.yaml       the suite's scenarios, as given at init
//	log/                  the transparency log (package tlog): the attestations
//	runs/N/plugin/        submission N's plugin, as submitted
//	runs/N/scenarios/     the scenarios it ran (the suite's, with its plugin as the one policy)
//	runs/N/results/       its results files, moved here at the reveal
//	private/key           the signing key (mode 0600); never published
//	private/seed          the round's seed (mode 0600) until the reveal
//	private/results/N/    submission N's results files until the reveal: they hold the seed
//	private/jobs/         queued submissions and their jobs' staged outcomes (see Queue)
//
// Everything but private/ may be published at any time.
package board

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/regretbench/regretbench/host/board/attest"
	"github.com/regretbench/regretbench/host/board/tlog"
	"github.com/regretbench/regretbench/internal/seed"
	"github.com/regretbench/regretbench/scenarios"
)

// Schema identifies version 1 of board.json.
const Schema = "regretbench/board/v1"

// Predicate types of the board's attestations.
const (
	// PredicateRun is a submission's recorded run (RunPredicate).
	PredicateRun = "urn:regretbench:board:run:v1"
	// PredicateOpen is a round's commitment to its seed (OpenPredicate).
	PredicateOpen = "urn:regretbench:board:open:v1"
)

// Config is board.json.
type Config struct {
	Schema  string          `json:"schema"`
	Name    string          `json:"name"`
	Created string          `json:"created"`
	Suite   []SuiteScenario `json:"suite"`
	// Runs is the replications of every scenario (0: the scenario's).
	Runs int `json:"runs,omitempty"`
	// Horizon overrides every scenario's horizon (0: the scenario's).
	Horizon int `json:"horizon,omitempty"`
	// Public, when not 0, is the public part of every scenario's
	// replications: the first Public, which the board shows during the
	// round through the Ladder; the others, the private part, rank the
	// round after the reveal (see Ladder).
	Public int `json:"public,omitempty"`
	// Margin is the Ladder's: a submitter's public score changes only
	// for one better by more than it.
	Margin float64 `json:"margin,omitempty"`
	// Conform runs bench conform --quick on each submission first; one
	// that fails is recorded as failed and not run.
	Conform bool `json:"conform"`
	// Audit is the replications of each run replayed alone (bench run --audit).
	Audit int `json:"audit"`
	// Limit is the submissions one submitter may make in a round.
	Limit int `json:"limit"`
	// Key is the board's public key, in note's verifier key form.
	Key string `json:"key"`
}

// SuiteScenario is one scenario of a board's suite.
type SuiteScenario struct {
	Name   string `json:"name"`   // its file's base name, without .yaml
	File   string `json:"file"`   // relative to the board: suite/NAME.yaml
	SHA256 string `json:"sha256"` // of the file
}

// Round is round.json.
type Round struct {
	// Commitment is the hex SHA-256 of the seed's text ("0x" and 64 hex
	// digits, as in private/seed): printf %s 0x... | sha256sum.
	Commitment string `json:"commitment"`
	Opened     string `json:"opened"`
	// Index is the log index of the round's open attestation.
	Index    int64  `json:"index"`
	Revealed string `json:"revealed,omitempty"`
	Seed     string `json:"seed,omitempty"`
}

// Board is an open board directory.
type Board struct {
	Dir    string
	Config Config
	Pub    *attest.PublicKey
}

// Path joins elem to the board's directory.
func (b *Board) Path(elem ...string) string {
	return filepath.Join(append([]string{b.Dir}, elem...)...)
}

// Log is the board's transparency log.
func (b *Board) Log() *tlog.Log { return &tlog.Log{Dir: b.Path("log"), Origin: b.Config.Name} }

// InitOptions are the settings of a new board.
type InitOptions struct {
	Name    string
	Suite   []string // shipped scenario names or YAML files
	Runs    int
	Horizon int
	Public  int
	Margin  float64
	Conform bool
	Audit   int
	Limit   int
	KeyFile string // a note private key to use; "" draws one
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Init creates a board in dir, which must not exist or be empty.
func Init(dir string, o InitOptions) (*Board, error) {
	if len(o.Suite) == 0 {
		return nil, errors.New("board init: --suite names no scenario")
	}
	if o.Name == "" {
		o.Name = filepath.Base(filepath.Clean(dir))
	}
	if !nameRE.MatchString(o.Name) {
		return nil, fmt.Errorf("board init: name %q: use letters, digits, '.', '_' and '-'", o.Name)
	}
	if o.Runs < 0 || o.Horizon < 0 || o.Audit < 1 || o.Limit < 1 {
		return nil, fmt.Errorf("board init: --runs and --horizon must be >= 0, --audit and --limit >= 1")
	}
	if o.Public < 0 || o.Margin < 0 || math.IsNaN(o.Margin) || math.IsInf(o.Margin, 0) {
		return nil, fmt.Errorf("board init: --public and --margin must be >= 0")
	}
	if o.Public > 0 && o.Runs <= o.Public {
		return nil, fmt.Errorf("board init: --public %d needs --runs above it: the rest of the replications are the private part", o.Public)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("board init: %s is not empty", dir)
	}
	var key *attest.Key
	var err error
	if o.KeyFile != "" {
		data, rerr := os.ReadFile(o.KeyFile)
		if rerr != nil {
			return nil, fmt.Errorf("board init: --key: %w", rerr)
		}
		if key, err = attest.ParseKey(string(data)); err != nil {
			return nil, fmt.Errorf("board init: --key %s: %w", o.KeyFile, err)
		}
		if key.Signer.Name() != o.Name {
			return nil, fmt.Errorf("board init: --key %s is named %q, the board %q: a checkpoint names its board", o.KeyFile, key.Signer.Name(), o.Name)
		}
	} else if key, err = attest.GenerateKey(o.Name); err != nil {
		return nil, fmt.Errorf("board init: %w", err)
	}
	b := &Board{Dir: dir, Config: Config{
		Schema: Schema, Name: o.Name, Created: now(), Runs: o.Runs, Horizon: o.Horizon,
		Audit: o.Audit, Limit: o.Limit, Key: key.Vkey, Public: o.Public, Margin: o.Margin, Conform: o.Conform,
	}}
	for _, d := range []string{"suite", "log", "runs"} {
		if err := os.MkdirAll(b.Path(d), 0o755); err != nil {
			return nil, fmt.Errorf("board init: %w", err)
		}
	}
	if err := os.MkdirAll(b.Path("private"), 0o700); err != nil {
		return nil, fmt.Errorf("board init: %w", err)
	}
	if err := os.WriteFile(b.Path("private", "key"), []byte(key.Text+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("board init: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range o.Suite {
		data, name, err := readScenario(s)
		if err != nil {
			return nil, fmt.Errorf("board init: --suite %s: %w", s, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("board init: --suite: two scenarios named %s", name)
		}
		seen[name] = true
		file := filepath.Join("suite", name+".yaml")
		if err := os.WriteFile(b.Path(file), data, 0o644); err != nil {
			return nil, fmt.Errorf("board init: %w", err)
		}
		b.Config.Suite = append(b.Config.Suite, SuiteScenario{Name: name, File: filepath.ToSlash(file), SHA256: sum(data)})
	}
	if err := writeJSON(b.Path("board.json"), b.Config); err != nil {
		return nil, fmt.Errorf("board init: %w", err)
	}
	b.Pub, err = attest.ParsePublicKey(key.Vkey)
	return b, err
}

// readScenario reads a shipped scenario by name, or a YAML file.
func readScenario(s string) (data []byte, name string, err error) {
	if !strings.ContainsRune(s, '/') && !strings.HasSuffix(s, ".yaml") && !strings.HasSuffix(s, ".yml") {
		if _, serr := os.Stat(s); serr != nil {
			data, err = fs.ReadFile(scenarios.FS, s+".yaml")
			if err != nil {
				return nil, "", fmt.Errorf("no shipped scenario %q (see 'bench scenarios')", s)
			}
			return data, s, nil
		}
	}
	data, err = os.ReadFile(s)
	if err != nil {
		return nil, "", err
	}
	name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(s), ".yaml"), ".yml")
	if !nameRE.MatchString(name) {
		return nil, "", fmt.Errorf("file name %q: use letters, digits, '.', '_' and '-'", name)
	}
	return data, name, nil
}

// Load opens the board in dir.
func Load(dir string) (*Board, error) {
	b := &Board{Dir: dir}
	if err := readJSON(b.Path("board.json"), &b.Config); err != nil {
		return nil, fmt.Errorf("board %s: %w", dir, err)
	}
	if b.Config.Schema != Schema {
		return nil, fmt.Errorf("board %s: board.json: schema %q, want %q", dir, b.Config.Schema, Schema)
	}
	pub, err := attest.ParsePublicKey(b.Config.Key)
	if err != nil {
		return nil, fmt.Errorf("board %s: board.json: %w", dir, err)
	}
	b.Pub = pub
	return b, nil
}

// key reads the board's private key.
func (b *Board) key() (*attest.Key, error) {
	data, err := os.ReadFile(b.Path("private", "key"))
	if err != nil {
		return nil, fmt.Errorf("board %s: the signing key: %w", b.Dir, err)
	}
	k, err := attest.ParseKey(string(data))
	if err != nil {
		return nil, fmt.Errorf("board %s: private/key: %w", b.Dir, err)
	}
	if k.Vkey != b.Config.Key {
		return nil, fmt.Errorf("board %s: private/key is not the key board.json publishes", b.Dir)
	}
	return k, nil
}

// Round reads round.json; nil when the round is not open.
func (b *Board) Round() (*Round, error) {
	var r Round
	err := readJSON(b.Path("round.json"), &r)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("board %s: %w", b.Dir, err)
	}
	return &r, nil
}

// OpenPredicate is the predicate of a round's open attestation.
type OpenPredicate struct {
	Board      string `json:"board"`
	Commitment string `json:"seed_commitment"`
	Opened     string `json:"opened"`
}

// Open draws the round's secret seed, keeps it in private/seed, and
// publishes its commitment in round.json and in the log, before any
// submission runs.
func (b *Board) Open() (*Round, error) {
	unlock, err := b.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	if r, err := b.Round(); err != nil || r != nil {
		if err == nil {
			err = fmt.Errorf("board %s: the round is already open (since %s)", b.Dir, r.Opened)
		}
		return nil, err
	}
	k, err := b.key()
	if err != nil {
		return nil, err
	}
	s, err := seed.Random()
	if err != nil {
		return nil, fmt.Errorf("board open: %w", err)
	}
	text := s.String()
	if err := os.WriteFile(b.Path("private", "seed"), []byte(text+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("board open: %w", err)
	}
	r := &Round{Commitment: Commit(text), Opened: now()}
	env, err := attest.Sign(k, []attest.Subject{{Name: "seed-commitment", SHA256: r.Commitment}}, PredicateOpen,
		OpenPredicate{Board: b.Config.Name, Commitment: r.Commitment, Opened: r.Opened})
	if err != nil {
		return nil, err
	}
	if r.Index, err = b.Log().Append(env, k.Signer); err != nil {
		return nil, err
	}
	return r, writeJSON(b.Path("round.json"), r)
}

// Commit is the commitment to a seed's text: its SHA-256, in hex.
func Commit(seedText string) string { return sum([]byte(seedText)) }

// openRound returns the board's round while it takes submissions: open,
// its seed not yet revealed; an error saying which it is not otherwise.
func (b *Board) openRound() (*Round, error) {
	r, err := b.Round()
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("board %s: no round is open: 'bench board open' first", b.Dir)
	}
	if r.Revealed != "" {
		return nil, fmt.Errorf("board %s: the round closed when its seed was revealed (%s)", b.Dir, r.Revealed)
	}
	return r, nil
}

// Reveal publishes the round's seed in round.json, and moves every
// submission's results files, which hold it, to runs/N/results. No
// submission is taken after it.
func (b *Board) Reveal() (*Round, error) {
	unlock, err := b.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	r, err := b.openRound()
	if err != nil {
		return nil, err
	}
	if pend, err := b.queued(); err != nil || len(pend) > 0 {
		if err == nil {
			err = fmt.Errorf("board %s: %d queued submissions (%s) are not collected: run their jobs and 'bench board collect' before the reveal (after it, the seed is public)", b.Dir, len(pend), numbers(pend))
		}
		return nil, err
	}
	text, err := b.secret()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(b.Path("private", "results"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("board reveal: %w", err)
	}
	for _, e := range ents {
		if err := os.Rename(b.Path("private", "results", e.Name()), b.Path("runs", e.Name(), "results")); err != nil {
			return nil, fmt.Errorf("board reveal: %w", err)
		}
	}
	r.Seed, r.Revealed = text, now()
	if err := writeJSON(b.Path("round.json"), r); err != nil {
		return nil, err
	}
	return r, nil
}

// secret reads the round's seed from private/seed.
func (b *Board) secret() (string, error) {
	data, err := os.ReadFile(b.Path("private", "seed"))
	if err != nil {
		return "", fmt.Errorf("board %s: the round's seed: %w", b.Dir, err)
	}
	text := strings.TrimSpace(string(data))
	if _, err := seed.Parse(text); err != nil {
		return "", fmt.Errorf("board %s: private/seed: %w", b.Dir, err)
	}
	return text, nil
}

// lock takes the board's lock file, so that two commands do not append
// to its log at once. A lock left by a command that was killed is removed
// by hand; the error says so.
func (b *Board) lock() (func(), error) {
	p := b.Path(".lock")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("board %s is busy: another bench board command holds %s (remove it if none runs)", b.Dir, p)
		}
		return nil, fmt.Errorf("board %s: %w", b.Dir, err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	f.Close()
	return func() { os.Remove(p) }, nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

func sumFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return sum(data), nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
