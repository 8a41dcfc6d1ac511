package cli

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/internal/safeio"
)

var profileFile *os.File

func startProfile(cmd *cobra.Command) error {
	path, _ := cmd.Flags().GetString("cpuprofile")
	if path == "" {
		return nil
	}
	if _, err := safeio.CheckOut(path); err != nil { // a FIFO would block os.Create
		return withCode(ExitInput, fmt.Errorf("--cpuprofile %s: %w", path, err))
	}
	f, err := os.Create(path)
	if err != nil {
		return withCode(ExitInput, fmt.Errorf("--cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	profileFile = f
	return nil
}

func stopProfile() {
	if profileFile != nil {
		pprof.StopCPUProfile()
		profileFile.Close()
		profileFile = nil
	}
}
