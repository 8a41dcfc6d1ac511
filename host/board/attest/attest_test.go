package attest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/board/attest"
)

// TestSignVerify: an envelope signed with a board's key verifies with its
// public half, read back from the note text it publishes, and yields the
// statement's subjects and predicate; with another key, or a payload
// changed by one byte, it fails with ErrSignature.
func TestSignVerify(t *testing.T) {
	k, err := attest.GenerateKey("board-a")
	if err != nil {
		t.Fatal(err)
	}
	again, err := attest.ParseKey(k.Text)
	if err != nil || again.Vkey != k.Vkey {
		t.Fatalf("the key read back: %v, %v", again, err)
	}
	pub, err := attest.ParsePublicKey(k.Vkey)
	if err != nil {
		t.Fatal(err)
	}
	pred := map[string]any{"outcome": "ok", "n": 3}
	env, err := attest.Sign(k, []attest.Subject{{Name: "plugin/bench-plugin-x", SHA256: strings.Repeat("ab", 32)}}, "urn:test:v1", pred)
	if err != nil {
		t.Fatal(err)
	}
	st, err := attest.Verify(pub, env)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(st.Predicate, &got); err != nil {
		t.Fatal(err)
	}
	if st.PredicateType != "urn:test:v1" || got["outcome"] != "ok" || got["n"] != 3.0 || st.Subjects["plugin/bench-plugin-x"] != strings.Repeat("ab", 32) {
		t.Errorf("statement %+v, predicate %v", st, got)
	}

	other, _ := attest.GenerateKey("board-a")
	opub, _ := attest.ParsePublicKey(other.Vkey)
	if _, err := attest.Verify(opub, env); !errors.Is(err, attest.ErrSignature) {
		t.Errorf("verified with another key: %v", err)
	}
	var e map[string]any
	json.Unmarshal(env, &e)
	p := []byte(e["payload"].(string))
	p[10] ^= 1
	e["payload"] = string(p)
	bad, _ := json.Marshal(e)
	if _, err := attest.Verify(pub, bad); err == nil {
		t.Error("a changed payload verified")
	}
	if _, err := attest.ParseKey(k.Vkey); err == nil {
		t.Error("a public key was taken as a private one")
	}
}
