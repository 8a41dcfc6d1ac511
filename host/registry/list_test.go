package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListingFlagErr: a --plugin-dir that cannot be read is the listing's
// error, naming it; a missing BENCH_PLUGIN_PATH entry or shipped directory
// is not.
func TestListingFlagErr(t *testing.T) {
	ok := t.TempDir()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		path Path
		want string // "": no error
	}{
		{"readable", Path{{Path: ok, Origin: FromFlag}}, ""},
		{"missing optional", Path{{Path: ok, Origin: FromFlag}, {Path: missing, Origin: FromEnv}, {Path: missing, Origin: Shipped}}, ""},
		{"missing flag", Path{{Path: ok, Origin: FromFlag}, {Path: missing, Origin: FromFlag}}, "plugin directory " + missing + ": "},
	} {
		err := tc.path.List().FlagErr()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want %q… wrapping not-exist", tc.name, err, tc.want)
		}
	}
}
