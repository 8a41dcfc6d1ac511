package e2e_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginDescribeJSON: every shipped plugin's `describe` writes JSON
// that shows < > & as they are (ts's doc of inflation reads "must be >
// 0", not "must be \u003e 0") and that parses.
func TestPluginDescribeJSON(t *testing.T) {
	t.Parallel()
	for _, name := range shipped {
		t.Run(name, func(t *testing.T) {
			out, err := output(t, exec.Command(filepath.Join(binDir, "plugins", "bench-plugin-"+name), "describe"))
			if err != nil {
				t.Fatalf("bench-plugin-%s describe: %v", name, err)
			}
			noJSONEscapes(t, "bench-plugin-"+name+" describe", out)
			var d map[string]any
			if err := json.Unmarshal(out, &d); err != nil {
				t.Errorf("not JSON: %v\n%s", err, out)
			}
			if name == "ts" && !strings.Contains(string(out), "must be > 0") {
				t.Errorf("ts's describe lacks \"must be > 0\":\n%s", out)
			}
		})
	}
}
