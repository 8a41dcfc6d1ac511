// Package registry finds plugin executables: a scenario's `plugin: NAME` is
// the file bench-plugin-NAME in the first directory of the plugin search
// path (Path) that holds one. ShebangWarnings says why a script found
// there will not start (bench conform).
//
// The search path is every --plugin-dir, in order, then the entries of
// BENCH_PLUGIN_PATH, then the shipped plugins beside bench (Beside), which
// are always found last: a user's own directory adds plugins to the
// shipped ones, and a plugin of theirs named like a shipped one shadows
// it.
package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

// Prefix is the file-name prefix of plugin executables; it keeps `bench
// plugins` from running unrelated files.
const Prefix = "bench-plugin-"

// EnvPath names the environment variable of extra plugin directories,
// colon-separated (filepath.ListSeparator), searched after every
// --plugin-dir and before the shipped plugins.
const EnvPath = "BENCH_PLUGIN_PATH"

// Origin says how a directory came into the search path.
type Origin string

// The origins of the search path's directories, in the order searched.
const (
	// FromFlag is a --plugin-dir (or BENCH_PLUGIN_DIR, or the config
	// file's plugin-dir): a directory that must exist.
	FromFlag Origin = "--plugin-dir"
	// FromEnv is an entry of BENCH_PLUGIN_PATH; one that does not exist
	// is skipped, as PATH's are.
	FromEnv Origin = EnvPath
	// Shipped is where the shipped plugins are, beside bench; one that
	// does not exist is skipped.
	Shipped Origin = "beside bench"
)

// Dir is a plugin directory.
type Dir struct {
	Path string
	// Origin is how the directory came into the search path; "" for a
	// directory on its own, which must exist.
	Origin Origin
}

// optional reports whether a directory that does not exist is skipped
// rather than an error.
func (d Dir) optional() bool { return d.Origin == FromEnv || d.Origin == Shipped }

// String is the directory as messages name it: its path, and its origin
// in parentheses when it has one.
func (d Dir) String() string {
	if d.Origin == "" {
		return d.Path
	}
	return d.Path + " (" + string(d.Origin) + ")"
}

// Find returns the executable of plugin name, as an absolute path, or an
// error saying where it looked and what it found there. Whatever the
// directory holds under the plugin's file name, except a directory, is
// returned without being opened, a dangling symbolic link and a FIFO
// included: Check then says what is wrong with it, so that such a file
// fails its own policies and `bench plugins` lists it as FAILED.
func (d Dir) Find(name string) (string, error) {
	return Path{d}.Find(name)
}

// lookup returns the absolute path of bench-plugin-name in d, "" when d
// holds none; an error only when d is a directory that must exist and
// cannot be read.
func (d Dir) lookup(name string) (string, error) {
	p := filepath.Join(d.Path, Prefix+name)
	st, err := os.Lstat(p)
	if err == nil && !st.IsDir() {
		// Absolute, so that exec never looks a bare name up in PATH (a
		// relative --plugin-dir . would give "bench-plugin-NAME").
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
		return p, nil
	}
	if !d.optional() {
		if _, err := d.Names(); err != nil {
			return "", fmt.Errorf("plugin directory %s: %w", d, err)
		}
	}
	return "", nil
}

// Path is the plugin search path: its directories are searched in order,
// and the first that holds bench-plugin-NAME gives plugin NAME.
type Path []Dir

// NewPath returns the search path: flagDirs (every --plugin-dir) in
// order, then the entries of env (BENCH_PLUGIN_PATH's value,
// colon-separated; empty entries are skipped), then the shipped plugins'
// directories (Beside). A directory already in the path is left out the
// second time, so that a --plugin-dir naming bin/plugins does not report
// every shipped plugin as found twice.
func NewPath(flagDirs []string, env string) Path {
	var p Path
	for _, d := range flagDirs {
		p = p.add(Dir{Path: d, Origin: FromFlag})
	}
	for _, d := range filepath.SplitList(env) {
		if d != "" {
			p = p.add(Dir{Path: d, Origin: FromEnv})
		}
	}
	for _, d := range Beside() {
		p = p.add(d)
	}
	return p
}

// add appends d unless the path holds the same directory already, named
// alike once cleaned and made absolute, or the very same directory by
// another name (a symbolic link).
func (p Path) add(d Dir) Path {
	abs, err := filepath.Abs(d.Path)
	if err != nil {
		abs = filepath.Clean(d.Path)
	}
	st, serr := os.Stat(d.Path)
	for _, e := range p {
		if ea, err := filepath.Abs(e.Path); err == nil && ea == abs {
			return p
		}
		if serr == nil {
			if est, err := os.Stat(e.Path); err == nil && os.SameFile(st, est) {
				return p
			}
		}
	}
	return append(p, d)
}

// Find returns the executable of plugin name from the first directory of
// the path that holds bench-plugin-NAME, as an absolute path, or an error
// naming every directory searched and the plugins found there. A
// --plugin-dir that cannot be read is an error, before any later
// directory is searched: a mistyped directory must not let a shipped
// plugin of the same name run in place of the user's. Whatever a
// directory holds under the plugin's file name, except a directory, is
// returned without being opened, a dangling symbolic link and a FIFO
// included: Check then says what is wrong with it, so that such a file
// fails its own policies and `bench plugins` lists it as FAILED.
func (p Path) Find(name string) (string, error) {
	for _, d := range p {
		found, err := d.lookup(name)
		if err != nil {
			return "", fmt.Errorf("plugin %q: %w", name, err)
		}
		if found != "" {
			return found, nil
		}
	}
	var dirs []string
	for _, d := range p {
		dirs = append(dirs, d.String())
	}
	where := "in " + strings.Join(dirs, ", ")
	if len(p) > 1 {
		where = "in the plugin search path: " + strings.Join(dirs, "; ")
	}
	var found []string
	for _, pl := range p.List().Plugins {
		found = append(found, pl.Name)
	}
	return "", &NotFoundError{Name: name, Where: where, Found: found}
}

// NotFoundError is a plugin name that no directory of a search path
// holds (Find): the name, where it was looked for, and the names found
// there. Its text says how to add a directory in the search path's
// terms; a command line says it in its own (Text).
type NotFoundError struct {
	Name  string
	Where string   // "in DIR", or "in the plugin search path: DIR; DIR"
	Found []string // the plugins the search path holds
}

func (e *NotFoundError) Error() string { return e.Text("a plugin directory or " + EnvPath) }

// Text is the error's text, with add saying how to add a directory to
// the search path (a command line's flag and variable).
func (e *NotFoundError) Text(add string) string {
	if len(e.Found) == 0 {
		return fmt.Sprintf("plugin %q: no %s%s %s, which holds no plugins (build them with `make build`, or add %s)", e.Name, Prefix, e.Name, e.Where, add)
	}
	return fmt.Sprintf("plugin %q: no %s%s %s; found: %s (add %s)", e.Name, Prefix, e.Name, e.Where, strings.Join(e.Found, ", "), add)
}

// Found is one plugin executable of the search path.
type Found struct {
	// Path is the executable, absolute.
	Path string
	// Dir is the directory of the search path it is in.
	Dir Dir
}

// Plugin is a plugin name of the search path: the executable Find returns
// for it, and those of the same name in later directories, which it
// shadows.
type Plugin struct {
	Name string
	Found
	Shadowed []Found
}

// DirState is what one directory of the search path holds.
type DirState struct {
	Dir
	// Names are the plugins it holds, sorted, shadowed ones included.
	Names []string
	// Err is why it could not be read; for a directory that may be
	// missing (FromEnv, Shipped), errors.Is(Err, fs.ErrNotExist) is no
	// fault.
	Err error
}

// Listing is what the search path holds.
type Listing struct {
	// Dirs are the path's directories, in order.
	Dirs []DirState
	// Plugins are every name found, sorted, each with the executable
	// Find returns for it.
	Plugins []Plugin
}

// List reads every directory of the path and returns what each holds and,
// per plugin name, where Find finds it and what it shadows.
func (p Path) List() Listing {
	var l Listing
	byName := map[string]int{}
	for _, d := range p {
		names, err := d.Names()
		l.Dirs = append(l.Dirs, DirState{Dir: d, Names: names, Err: err})
		for _, n := range names {
			f := Found{Path: filepath.Join(d.Path, Prefix+n), Dir: d}
			if abs, err := filepath.Abs(f.Path); err == nil {
				f.Path = abs
			}
			if i, ok := byName[n]; ok {
				l.Plugins[i].Shadowed = append(l.Plugins[i].Shadowed, f)
				continue
			}
			byName[n] = len(l.Plugins)
			l.Plugins = append(l.Plugins, Plugin{Name: n, Found: f})
		}
	}
	slices.SortFunc(l.Plugins, func(a, b Plugin) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// Lookup returns plugin name as List lists it: the executable Find
// returns for it and those of the same name it shadows; false when the
// path holds none.
func (p Path) Lookup(name string) (Plugin, bool) {
	for _, pl := range p.List().Plugins {
		if pl.Name == name {
			return pl, true
		}
	}
	return Plugin{}, false
}

// ShadowWarnings returns one line per executable that pl shadows, for
// bench run and bench gate to state (bench plugins lists them too): the
// path that runs, the path it shadows ("the shipped" one when that is
// beside bench), and whether their SHA-256s differ, which says that
// another program runs than the one shadowed. A file that cannot be
// hashed is said so.
func (pl Plugin) ShadowWarnings() []string {
	var out []string
	won, werr := SHA256(pl.Path)
	for _, s := range pl.Shadowed {
		what := ""
		if s.Dir.Origin == Shipped {
			what = "the shipped "
		}
		sum, err := SHA256(s.Path)
		var digests string
		switch {
		case werr != nil || err != nil:
			digests = "their SHA-256s cannot be compared: " + errors.Join(werr, err).Error()
		case sum == won:
			digests = "the same SHA-256 " + won[:12]
		default:
			digests = fmt.Sprintf("their SHA-256s differ: %s runs, not %s", won[:12], sum[:12])
		}
		out = append(out, fmt.Sprintf("plugin %q: %s (%s) runs, and shadows %s%s (%s): %s", pl.Name, pl.Path, pl.Dir.Origin, what, s.Path, s.Dir.Origin, digests))
	}
	return out
}

// FlagErr returns the error of the first --plugin-dir (FromFlag) that
// could not be read, naming it: such a directory must exist, while a
// BENCH_PLUGIN_PATH entry or a shipped directory is skipped. Nil when
// every one was read.
func (l Listing) FlagErr() error {
	for _, d := range l.Dirs {
		if d.Err != nil && d.Origin == FromFlag {
			return fmt.Errorf("plugin directory %s: %w", d.Path, d.Err)
		}
	}
	return nil
}

// ErrNotExecutable matches (errors.Is) the errors of Check and SHA256 for
// a plugin path that is not a regular executable file.
var ErrNotExecutable = errors.New("not a regular executable file")

// notExecutable is a plugin path that is not a regular executable file,
// and what it is instead.
type notExecutable struct{ path, what string }

func (e *notExecutable) Error() string        { return "plugin " + e.path + ": " + e.what }
func (e *notExecutable) Is(target error) bool { return target == ErrNotExecutable }

// Check refuses a plugin path that is not a regular executable file once
// its symbolic links are resolved, from the file's metadata alone: nothing
// is opened, so that a FIFO (whose open blocks until a writer comes) or a
// link to /dev/zero (which never ends) cannot hang bench. The error names
// the path and what it is: "a named pipe (FIFO)", "a symbolic link to
// /dev/zero, a character device", "a dangling symbolic link to TARGET",
// "a symbolic link loop", or a file without an exec bit.
func Check(path string) error {
	var link string // the target when path is a symbolic link
	if lst, err := os.Lstat(path); err != nil {
		return fmt.Errorf("plugin %s: %w", path, bareErr(err))
	} else if lst.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(path); err != nil {
			return fmt.Errorf("plugin %s: a symbolic link that cannot be read: %w", path, bareErr(err))
		}
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return &notExecutable{path, "a symbolic link loop (to " + link + ")"}
	case errors.Is(err, fs.ErrNotExist) && link != "":
		return &notExecutable{path, "a dangling symbolic link to " + link + " (which does not exist)"}
	case err != nil:
		return fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	what := safeio.Kind(st.Mode())
	if link != "" {
		what = "a symbolic link to " + link + ", " + what
	}
	switch {
	case !st.Mode().IsRegular():
		return &notExecutable{path, what + ", not a regular executable file"}
	case st.Mode()&0o111 == 0:
		return &notExecutable{path, fmt.Sprintf("not an executable file (mode %v; chmod +x it)", st.Mode())}
	}
	return nil
}

// bareErr drops the *fs.PathError wrapper, whose path the message names
// already.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// Names lists the plugin names in the directory, sorted.
func (d Dir) Names() ([]string, error) {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if n, ok := strings.CutPrefix(e.Name(), Prefix); ok && !e.IsDir() && n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SHA256 returns the hex SHA-256 of the plugin executable at path. What
// Check refuses is refused before it is opened, and the file is opened
// without blocking and checked again once open, so that a FIFO swapped in
// meanwhile is refused rather than waited on. A file already hashed by
// this process, unchanged since (the same file, size, modification and
// status-change times), is not read again.
func SHA256(path string) (string, error) {
	if err := Check(path); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	if !st.Mode().IsRegular() {
		return "", &notExecutable{path, safeio.Kind(st.Mode()) + ", not a regular executable file"}
	}
	key, keyed := fileKey(st)
	if keyed {
		if sum, ok := sums.Load(key); ok {
			return sum.(string), nil
		}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("plugin %s: %w", path, bareErr(err))
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if keyed {
		sums.Store(key, sum)
	}
	return sum, nil
}

// sums memoizes SHA256 for the life of the process, by fileKey: every
// policy's launch records its plugin's hash, and a run of many policies of
// one plugin (bench paper, a test suite running bench in process) hashed
// the same 20-40 MB executable again each time.
var sums sync.Map

// Beside returns the directories of the shipped plugins, beside the
// running executable (its symbolic links resolved): plugins/ there, the
// layout of `make build` (bin/bench, bin/plugins/), then that directory
// itself, the layout of `go install .../cmd/...` and `make install`
// (GOBIN/bench, GOBIN/bench-plugin-NAME).
func Beside() []Dir {
	exe, err := os.Executable()
	if err != nil {
		return []Dir{{Path: "plugins", Origin: Shipped}}
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	dir := filepath.Dir(exe)
	return []Dir{{Path: filepath.Join(dir, "plugins"), Origin: Shipped}, {Path: dir, Origin: Shipped}}
}
