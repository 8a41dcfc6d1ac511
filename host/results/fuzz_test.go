package results

import (
	"bytes"
	"testing"
)

// FuzzDecode: no input makes Decode panic, and a file it accepts encodes
// to a file it accepts again, unchanged. The seed corpus lives in
// testdata/fuzz/FuzzDecode; run the fuzzer with
//
//	go test -run x -fuzz FuzzDecode -fuzztime 60s ./host/results
func FuzzDecode(f *testing.F) {
	f.Add(encoded(f, validFile()))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := file.Encode(&b); err != nil {
			t.Fatalf("encoding an accepted file: %v", err)
		}
		again, err := Decode(b.Bytes())
		if err != nil {
			t.Fatalf("Decode rejects its own encoding of an accepted file: %v\n%s", err, b.Bytes())
		}
		var b2 bytes.Buffer
		again.Encode(&b2)
		if !bytes.Equal(b.Bytes(), b2.Bytes()) {
			t.Fatalf("encode/decode is not stable:\n%s\nvs\n%s", b.Bytes(), b2.Bytes())
		}
	})
}
