// Command hog is a plugin that takes what its parameters say, for host/cli's
// limits test (limits_linux_test.go): it plays arm 0, but first, once per
// process, when it opens its first session, it
//
//   - mib: allocates that many MiB and touches every page;
//   - vmib: allocates that many MiB without touching them (address
//     space, not memory);
//   - procs: starts that many child processes (itself, sleeping);
//   - threads: starts that many OS threads, each blocked;
//   - files: opens /dev/null that many times;
//   - disk_mib: writes that many files of 1 MiB in its private directory
//     ($TMPDIR);
//   - disk_files: makes that many empty files there;
//   - file_mib: writes one file of that many MiB there;
//
// then sleeps hold seconds, holding all of it. When the system refuses
// something it says so on stderr, as a real plugin would, and exits 1.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/regretbench/regretbench/sdk"
)

var (
	once sync.Once
	held []any // what it took, kept alive
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hog: "+format+"\n", args...)
	os.Exit(1)
}

func hog(p sdk.Params) {
	if n := p.Int("mib"); n > 0 {
		for i := 0; i < n; i++ {
			b := make([]byte, 1<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = 1
			}
			held = append(held, b)
		}
	}
	if n := p.Int("vmib"); n > 0 {
		held = append(held, make([]byte, n<<20))
	}
	if n := p.Int("procs"); n > 0 {
		self, err := os.Executable()
		if err != nil {
			fail("finding myself: %v", err)
		}
		for i := 0; i < n; i++ {
			c := exec.Command(self)
			c.Env = append(os.Environ(), "HOG_CHILD=1")
			if err := c.Start(); err != nil {
				fail("starting process %d: %v", i+1, err)
			}
			held = append(held, c)
		}
	}
	if n := p.Int("threads"); n > 0 {
		var r [2]int
		if err := syscall.Pipe(r[:]); err != nil {
			fail("pipe: %v", err)
		}
		var started sync.WaitGroup
		for i := 0; i < n; i++ {
			started.Add(1)
			go func() {
				runtime.LockOSThread()
				started.Done()
				var b [1]byte
				syscall.Read(r[0], b[:]) // blocks this thread for good
			}()
		}
		started.Wait()
	}
	if n := p.Int("files"); n > 0 {
		for i := 0; i < n; i++ {
			f, err := os.Open(os.DevNull)
			if err != nil {
				fail("opening file %d: %v", i+1, err)
			}
			held = append(held, f)
		}
	}
	dir := os.TempDir()
	if n := p.Int("disk_mib"); n > 0 {
		b := make([]byte, 1<<20)
		for i := range b {
			b[i] = byte(i)
		}
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("hog-%d", i)), b, 0o600); err != nil {
				fail("writing file %d: %v", i+1, err)
			}
		}
	}
	if n := p.Int("disk_files"); n > 0 {
		for i := 0; i < n; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("empty-%d", i)), nil, 0o600); err != nil {
				fail("making file %d: %v", i+1, err)
			}
		}
	}
	if n := p.Int("file_mib"); n > 0 {
		f, err := os.Create(filepath.Join(dir, "big"))
		if err != nil {
			fail("creating the big file: %v", err)
		}
		b := make([]byte, 1<<20)
		for i := 0; i < n; i++ {
			if _, err := f.Write(b); err != nil {
				fail("writing MiB %d of the big file: %v", i+1, err)
			}
		}
		held = append(held, f)
	}
	if s := p.Int("hold"); s > 0 {
		time.Sleep(time.Duration(s) * time.Second)
	}
}

type policy struct{}

func (policy) Step(st *sdk.BatchStep) error {
	for i := range st.Arms {
		st.Arms[i] = 0
	}
	return nil
}

func intParam(name, doc string) sdk.Param {
	return sdk.Param{Name: name, Type: sdk.Int, Default: int64(0), Min: sdk.Inclusive(0), Doc: doc}
}

func main() {
	if os.Getenv("HOG_CHILD") != "" {
		time.Sleep(time.Hour)
		return
	}
	sdk.Serve(sdk.Plugin{
		Name:    "hog",
		Version: "0.1.0",
		Params: []sdk.Param{
			intParam("mib", "MiB to allocate and touch"),
			intParam("vmib", "MiB to allocate without touching"),
			intParam("procs", "child processes to start"),
			intParam("threads", "OS threads to start"),
			intParam("files", "files to hold open"),
			intParam("disk_mib", "files of 1 MiB to write in the private directory"),
			intParam("disk_files", "empty files to make in the private directory"),
			intParam("file_mib", "MiB to write into one file of the private directory"),
			intParam("hold", "seconds to hold it all before playing"),
		},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			once.Do(func() { hog(s.Params) })
			return policy{}, nil
		},
	})
}
