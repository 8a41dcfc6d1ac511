package sdktest_test

import (
	"testing"

	"github.com/regretbench/regretbench/internal/apitest"
)

// TestAuthorAPI: package sdktest exports the kit an author's go test
// needs and nothing of the host (no sandbox, no launching of executables,
// no seeds of bench conform's): its exported names are kept in
// testdata/api.txt, so that one added is a reviewed change of that file.
// Run `go test ./sdk/sdktest -run AuthorAPI -update-api` to accept one.
func TestAuthorAPI(t *testing.T) {
	apitest.Check(t, ".", "github.com/regretbench/regretbench/sdk/sdktest", "testdata/api.txt")
}
