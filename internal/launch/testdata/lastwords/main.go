// Command lastwords is a plugin that writes a message to stderr and exits
// 1, for internal/client's TestLastWords: before the handshake or after it
// (when a session opens), with or without a final newline. The test
// links it under the names bench-plugin-lastwords-MODE; a plugin receives
// no arguments, so the mode is read from os.Args[0].
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/regretbench/regretbench/sdk"
)

// Message is what every mode writes, before its final newline if any.
const Message = "lastwords: cannot go on"

var mode = strings.TrimPrefix(filepath.Base(os.Args[0]), "bench-plugin-lastwords-")

// say writes the message to os.Stderr, which after the handshake is
// go-plugin's pipe into its stdio stream, and exits 1.
func say() {
	msg := Message + " (" + mode + ")"
	if !strings.HasSuffix(mode, "-nonl") {
		msg += "\n"
	}
	fmt.Fprint(os.Stderr, msg)
	os.Exit(1)
}

func main() {
	if strings.HasPrefix(mode, "before") {
		say()
	}
	sdk.Serve(sdk.Plugin{Name: "lastwords", Version: "0.0.1",
		New: func(sdk.Session, sdk.Replica) (sdk.Policy, error) {
			say()
			return nil, nil
		}})
}
