// Package e2e holds bench's end-to-end tests: the journeys a user takes,
// each through the real bench (in process through cli.Run and cli.ExitCode,
// or as the built executable) and the real plugin executables, over real
// processes, sockets and sandboxes. It has no code of its own; its tests
// are package e2e_test.
//
// One TestMain builds bench and the shipped plugins once
// (internal/testbin, whose cache shares them with the other packages'
// tests), laid out as make build lays them out; fixtures live in
// testdata/ (badplugin, faulty and hog are plugins built on demand;
// pybroken and pydiag Python ones; immediate and shipped.sha256 results
// that guard the shipped scenarios bit for bit). Tests that start their
// own plugins use a plugin directory of their own, so that most run in
// parallel; those that set the environment or look at every plugin
// process do not.
//
// Every wait has a deadline that fails the test naming what it waited
// for: a command run to its end 15 minutes (cmdLimit), an event of a
// running bench 3 minutes (stopLimit), a plugin process to be gone one.
//
// go test -short skips the slow journeys, each saying what it covers;
// host/cli's own tests (flags, usage, output) are in host/cli.
package e2e
