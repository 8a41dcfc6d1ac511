package roundslog

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
)

// Level is the gzip compression level of the log's members.
const Level = gzip.DefaultCompression

// Spool collects the rounds of a run's sessions, each in a temporary file
// of its own in one directory, and writes the log once the run is over
// (Write). Its sessions may be played concurrently. An error while
// spooling (a full disk) does not stop the run: the session stops
// writing, and Write returns the error.
type Spool struct {
	dir string

	mu       sync.Mutex
	sessions map[string][]*Session // by policy label
	err      error                 // the first error of any session
	n        int                   // sessions opened, to name their files
}

// NewSpool returns a spool whose temporary files are in a new directory
// in dir (the log's own directory, so that the log and its parts share a
// file system); Remove removes it.
func NewSpool(dir string) (*Spool, error) {
	tmp, err := os.MkdirTemp(dir, ".rounds-log-*")
	if err != nil {
		return nil, err
	}
	return &Spool{dir: tmp, sessions: map[string][]*Session{}}, nil
}

// Remove removes the spool's temporary files.
func (s *Spool) Remove() error { return os.RemoveAll(s.dir) }

func (s *Spool) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// Session is the log of one plugin session: the replications reps of the
// policy label over horizon rounds. The engine calls Round once per round,
// in order, then Close when every round is played, from one goroutine.
type Session struct {
	sp      *Spool
	reps    []uint64
	horizon int
	prefix  []byte // the policy's CSV field

	f     *os.File
	cw    countWriter
	zw    *gzip.Writer
	block []Entry // the rounds t0.. of the block in play, round-major
	t0    int
	// members[i] are the offsets and lengths in f of replication i's
	// members, in order of rounds.
	members [][][2]int64
	line    []byte
	err     error
	done    bool
}

// countWriter counts what it writes through.
type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Session opens the log of a session of policy label playing the
// replications reps for horizon rounds. It never fails: an error is kept
// and returned by Write.
func (s *Spool) Session(label string, reps []uint64, horizon int) *Session {
	s.mu.Lock()
	s.n++
	name := filepath.Join(s.dir, strconv.Itoa(s.n))
	ss := &Session{sp: s, reps: reps, horizon: horizon, prefix: []byte(quote(label)), t0: 1,
		block: make([]Entry, min(BlockRounds, horizon)*len(reps)), members: make([][][2]int64, len(reps))}
	s.sessions[label] = append(s.sessions[label], ss)
	s.mu.Unlock()
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		ss.setErr(err)
		return ss
	}
	ss.f = f
	ss.cw.w = bufio.NewWriterSize(f, 1<<16)
	ss.zw, _ = gzip.NewWriterLevel(io.Discard, Level)
	return ss
}

func (ss *Session) setErr(err error) {
	if ss.err == nil {
		ss.err = err
		ss.sp.fail(fmt.Errorf("spooling the rounds: %w", err))
	}
}

// Round logs round t of the session: e[i] is replication reps[i]'s. The
// rounds come in order, 1 to the horizon.
func (ss *Session) Round(t int, e []Entry) {
	if ss.err != nil {
		return
	}
	n := len(ss.reps)
	copy(ss.block[(t-ss.t0)*n:(t-ss.t0+1)*n], e)
	if t-ss.t0+1 == BlockRounds || t == ss.horizon {
		ss.flush(t)
	}
}

// flush writes the rounds t0..t of every replication, each as one member.
func (ss *Session) flush(t int) {
	n := len(ss.reps)
	for i, rep := range ss.reps {
		b := ss.line[:0]
		for u := ss.t0; u <= t; u++ {
			b = append(b, ss.prefix...)
			b = append(b, ',')
			b = strconv.AppendUint(b, rep, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(u), 10)
			b = appendEntry(b, &ss.block[(u-ss.t0)*n+i])
		}
		ss.line = b
		off := ss.cw.n
		ss.zw.Reset(&ss.cw)
		if _, err := ss.zw.Write(b); err != nil {
			ss.setErr(err)
			return
		}
		if err := ss.zw.Close(); err != nil {
			ss.setErr(err)
			return
		}
		ss.members[i] = append(ss.members[i], [2]int64{off, ss.cw.n - off})
	}
	ss.t0 = t + 1
}

// Close ends a session whose rounds were all played: its records may be
// written.
func (ss *Session) Close() {
	if ss.f == nil {
		return
	}
	if ss.err == nil && ss.t0 <= ss.horizon {
		ss.setErr(fmt.Errorf("session closed after round %d of %d", ss.t0-1, ss.horizon))
	}
	if ss.err == nil {
		if err := ss.cw.w.Flush(); err != nil {
			ss.setErr(err)
		}
	}
	ss.block = nil
	ss.done = ss.err == nil
}

// Abort ends a session that failed: its policy is not written.
func (ss *Session) Abort() {
	ss.block = nil
	if ss.f != nil {
		ss.f.Close()
		ss.f = nil
	}
}

// Write writes the log of the policies labels, in that order, to path,
// replacing it atomically: every round of every replication of their
// sessions, which must all be closed. It returns the first error of any
// session instead, if there was one.
func (s *Spool) Write(path string, labels []string) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	type part struct {
		ss *Session
		i  int
	}
	var order [][]part
	for _, l := range labels {
		var parts []part
		for _, ss := range s.sessions[l] {
			if !ss.done {
				return fmt.Errorf("policy %q: a session of it was not played to the end", l)
			}
			for i := range ss.reps {
				parts = append(parts, part{ss, i})
			}
		}
		slices.SortFunc(parts, func(a, b part) int {
			ra, rb := a.ss.reps[a.i], b.ss.reps[b.i]
			switch {
			case ra < rb:
				return -1
			case ra > rb:
				return 1
			}
			return 0
		})
		for k := 1; k < len(parts); k++ {
			if parts[k].ss.reps[parts[k].i] == parts[k-1].ss.reps[parts[k-1].i] {
				return fmt.Errorf("policy %q: replication %d logged twice", l, parts[k].ss.reps[parts[k].i])
			}
		}
		order = append(order, parts)
	}

	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; refusing to replace it", path)
	}
	tmp, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	zw, _ := gzip.NewWriterLevel(bw, Level)
	if _, err := io.WriteString(zw, Header+"\n"); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	for _, parts := range order {
		for _, p := range parts {
			for _, m := range p.ss.members[p.i] {
				if _, err := io.Copy(bw, io.NewSectionReader(p.ss.f, m[0], m[1])); err != nil {
					return err
				}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// createTemp creates a new file beside base in dir with mode 0666, which
// the kernel reduces by the umask, as a results file gets (os.CreateTemp
// would give 0600).
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", base)
}

// Close closes the spool's files; Remove removes them.
func (s *Spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, list := range s.sessions {
		for _, ss := range list {
			if ss.f != nil {
				errs = append(errs, ss.f.Close())
				ss.f = nil
			}
		}
	}
	return errors.Join(errs...)
}
