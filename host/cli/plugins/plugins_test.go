package plugins

import (
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestPluginsOptions: bench plugins' flags, BENCH_* variables and the
// --config file land in its Options; a bad --start-timeout stops it
// before a plugin starts.
func TestPluginsOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdPlugins, []cmdtest.Case[Options]{{
		Name: "defaults",
		Args: []string{"plugins"},
		Check: func(t *testing.T, o *Options, f *cmdutil.Factory) {
			cmdtest.Eq(t, "StartTimeout", o.StartTimeout, cmdutil.DefaultStartTimeout)
			cmdtest.Eq(t, "Sandbox", o.Sandbox, cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"}))
			cmdtest.Eq(t, "PluginDirs", f.PluginDirs, []string(nil))
		},
	}, {
		Name: "flags",
		Args: []string{"--plugin-dir", "/p", "plugins", "--start-timeout", "3s", "--sandbox", "off", "--limit-tasks", "9"},
		Check: func(t *testing.T, o *Options, f *cmdutil.Factory) {
			cmdtest.Eq(t, "StartTimeout", o.StartTimeout, 3*time.Second)
			want := cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "off"})
			want.LimitTasks = "9"
			cmdtest.Eq(t, "Sandbox", o.Sandbox, want)
			cmdtest.Eq(t, "PluginDirs", f.PluginDirs, []string{"/p"})
		},
	}, {
		Name:   "environment and config file",
		Args:   []string{"plugins"},
		Env:    map[string]string{"BENCH_SANDBOX": "strict"},
		Config: "sandbox: off\nsandbox-read: [/opt/data]\n",
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Sandbox", o.Sandbox, cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "strict", Read: []string{"/opt/data"}}))
		},
	},
		{Name: "--start-timeout 0s", Args: []string{"plugins", "--start-timeout", "0s"}, Err: "--start-timeout 0s: must be > 0"},
		{Name: "an argument", Args: []string{"plugins", "extra"}, Err: `unknown command "extra"`},
	})
}
