package results

import (
	"bytes"
	"math"
	"testing"
)

// FuzzDecode: no input makes Decode panic, a file it accepts has finite
// bands, and it encodes to a file Decode accepts again, unchanged. The
// seed corpus lives in testdata/fuzz/FuzzDecode (the merge_* and plot_*
// entries are files that crashed bench merge and bench plot; the shard and
// plot packages fuzz those with this corpus too); run the fuzzer with
//
//	go test -run x -fuzz FuzzDecode -fuzztime 60s ./host/results
func FuzzDecode(f *testing.F) {
	f.Add(encoded(f, validFile()))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			return
		}
		// What merge, gate and plot rely on: an accepted file's bands
		// (mean ± SE) are finite.
		for _, p := range file.Policies {
			for _, name := range []string{"regret", "underestimation", "regret_under", "regret_not_under"} {
				s, _ := p.Metric(name)
				for c := range s.Mean {
					if hi, lo := s.Mean[c]+s.SE[c], s.Mean[c]-s.SE[c]; math.IsInf(hi, 0) || math.IsInf(lo, 0) {
						t.Fatalf("accepted %q with %s mean %v ± %v, which overflows", p.Label, name, s.Mean[c], s.SE[c])
					}
				}
			}
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
