package sdk

import (
	"testing"

	"github.com/regretbench/regretbench/internal/apitest"
)

// TestAuthorAPI: package sdk exports an author's API and nothing else
// (`go doc ./sdk`). Its exported names are kept in testdata/api.txt, so
// that a name added to the package, host machinery above all, is a
// reviewed change of that file; the methods of the internal types it
// aliases (Param is internal/params.Param) count as its own: run `go test ./sdk -run AuthorAPI
// -update-api` to accept one.
func TestAuthorAPI(t *testing.T) {
	apitest.Check(t, ".", "github.com/regretbench/regretbench/sdk", "testdata/api.txt")
}
