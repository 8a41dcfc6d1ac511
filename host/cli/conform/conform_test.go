package conform

import (
	"testing"
	"time"

	"github.com/regretbench/regretbench/host/cli/cmdutil"
	"github.com/regretbench/regretbench/host/cli/internal/cmdtest"
)

// TestConformOptions: bench conform's argument and flags land in its
// Options; --seed is the command line's alone (BENCH_SEED and --config
// hold a scenario's); bad timeouts stop it before the plugin starts.
func TestConformOptions(t *testing.T) {
	cmdtest.Run(t, cmdtest.Root, NewCmdConform, []cmdtest.Case[Options]{{
		Name: "defaults",
		Args: []string{"conform", "ts"},
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Target", o.Target, "ts")
			cmdtest.Eq(t, "timeouts", [2]time.Duration{o.StepTimeout, o.StartTimeout}, [2]time.Duration{defaultConformStepTimeout, cmdutil.DefaultStartTimeout})
			cmdtest.Eq(t, "Sandbox", o.Sandbox, cmdtest.LimitDefaults(cmdutil.SandboxOptions{Level: "auto"}))
			cmdtest.Eq(t, "Quick, Verbose", [2]bool{o.Quick, o.Verbose}, [2]bool{false, false})
		},
	}, {
		Name: "flags",
		Args: []string{"conform", "./bench-plugin-x", "--quick", "--rule", "valid-arms,batch-split", "--rule", "close", "--seed", "0x2a",
			"-v", "--step-timeout", "1m", "--start-timeout", "2s", "--sandbox", "strict"},
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Target", o.Target, "./bench-plugin-x")
			cmdtest.Eq(t, "Only", o.Only, []string{"valid-arms", "batch-split", "close"})
			cmdtest.Eq(t, "Seed", o.Seed, "0x2a")
			cmdtest.Eq(t, "Quick, Verbose", [2]bool{o.Quick, o.Verbose}, [2]bool{true, true})
			cmdtest.Eq(t, "timeouts", [2]time.Duration{o.StepTimeout, o.StartTimeout}, [2]time.Duration{time.Minute, 2 * time.Second})
			cmdtest.Eq(t, "Sandbox.Level", o.Sandbox.Level, "strict")
		},
	}, {
		Name:   "seed not from the environment or config",
		Args:   []string{"conform", "ts"},
		Env:    map[string]string{"BENCH_SEED": "7", "BENCH_QUICK": "true"},
		Config: "seed: 9\n",
		Check: func(t *testing.T, o *Options, _ *cmdutil.Factory) {
			cmdtest.Eq(t, "Seed", o.Seed, "")
			cmdtest.Eq(t, "Quick", o.Quick, true)
		},
	},
		{Name: "--step-timeout 0s", Args: []string{"conform", "ts", "--step-timeout", "0s"}, Err: "--step-timeout 0s: must be > 0"},
		{Name: "no plugin", Args: []string{"conform"}, Err: "accepts 1 arg(s), received 0"},
	})
}
