package remaxgrad

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// paperDigest plays the default (paper) policy on K arms with M draws for
// 400 rounds and hashes every arm and diagnostic.
func paperDigest(t *testing.T, k int, values map[string]any) string {
	t.Helper()
	arms, diags := play(t, session(t, k, values), 5, 11, 400)
	h := sha256.New()
	var b [8]byte
	for i, a := range arms {
		binary.LittleEndian.PutUint64(b[:], uint64(a))
		h.Write(b[:])
		if i < len(diags) {
			for _, x := range diags[i] {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
				h.Write(b[:])
			}
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// TestPaperVariantUnchanged: the paper variant, the default, plays the
// same arms with the same diagnostics as before the robust variant was
// added (the digests were computed on the commit before it), so shipped
// results do not move.
func TestPaperVariantUnchanged(t *testing.T) {
	for _, c := range []struct {
		k    int
		m    int64
		want string
	}{
		{2, 2, "4869e463841b7fec"}, {3, 3, "ec6ac071f3b53a82"}, {10, 2, "af17bdd518fd5ec2"},
		{10, 4, "5623bc86086d377c"}, {20, 2, "56bd8350eeacbe82"},
	} {
		if got := paperDigest(t, c.k, map[string]any{"m": c.m}); got != c.want {
			t.Errorf("K=%d M=%d default: digest %s, want %s (the paper variant changed)", c.k, c.m, got, c.want)
		}
		if got := paperDigest(t, c.k, map[string]any{"m": c.m, "variant": "paper"}); got != c.want {
			t.Errorf("K=%d M=%d variant paper: digest %s, want %s", c.k, c.m, got, c.want)
		}
		// The robust variant's parameters do not touch the paper variant.
		if got := paperDigest(t, c.k, map[string]any{"m": c.m, "tv_tol": 0.5, "logit_floor": 3.0}); got != c.want {
			t.Errorf("K=%d M=%d robust-only params: digest %s, want %s", c.k, c.m, got, c.want)
		}
	}
}
