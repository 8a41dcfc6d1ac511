package dataset

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// want is every shipped dataset as its original source describes it (the
// UCI or StatLog documentation, scikit-learn's and mlbench's manuals):
// rows, features of the source, classes; then what the conversion makes
// of it: features after one-hot encoding, how many of them are constant;
// and two golden SHA-256 digests: of the embedded file, and of the
// standardised matrix (X's float64 bits, little-endian, row by row). A
// digest that changes means the data, or Standardize's arithmetic,
// changed: redo docs/datasets.md's table and say why in the commit.
var want = []struct {
	name                  string
	rows, source, classes int
	features, constant    int
	fileSHA, standardSHA  string
}{
	{"breast_cancer", 569, 30, 2, 30, 0,
		"4cdb2b85714e12595e566176acee7e3e5a7de0021009c8428a2313660eaea900",
		"2d05022a09664922654ffcb11d398f2623746f69b3c0e1cde03bd2f7ad9072e3"},
	{"credit_g", 1000, 20, 2, 59, 0,
		"97cb6ca10186df82f6939e5ff9bfd596e0dd145eec034ff2e2df4780f00d79f6",
		"2ff12f46bdac1f16527f5b97d8f2960ff64bca247404f6c03019a89a89356ea5"},
	{"digits", 1797, 64, 10, 64, 3,
		"80f850b3526401951958fc56f9bb161478668aaffbe8d1b05c85d3b75068ae1d",
		"dddd7515d18f8dfd1b0dff6b52dd0e469a7ebf6c872b4b994bbcbc7452d80829"},
	{"dna", 3186, 180, 3, 180, 0,
		"866d7742dc557fa2b19181355890a79ba0420c083249a3fad8a49c15a2ec94ca",
		"4f89514c3d07d12a29a133a0d116c312e86dc5387447c86385955f1b8b3a4e71"},
	{"glass", 214, 9, 6, 9, 0,
		"10d0b18b353392f11145bb346ee31462c2a5c3df4fda337c6669448eb610595b",
		"145ed3a9b294d83e7943eae92ba86d13a60f90bb15c74e7b384679102af3bbaa"},
	{"ionosphere", 351, 34, 2, 34, 1,
		"726df67679c589734665587d6a71bb54fa91c154adb9f543a833fb3e6e558541",
		"0ccb26b8d93f8e46e3e5c3067ee2b584e4b5d3aec006698f983ab73a9d155293"},
	{"iris", 150, 4, 3, 4, 0,
		"eb7f912b12d01dab68956c03daf3ddf38c87edad6a40e0e9b31a1f61e40926d8",
		"67f16a34b2297915271d8967cf4408f8051498afff296fa8f9f36f4ff8988617"},
	{"letter", 20000, 16, 26, 16, 0,
		"2d3c0f5bcb82261a58060c47d4babf919f8a316cd6533f30202b5335f7aa6cff",
		"6f42c27ebcb7494ac10935e35b1257946887b6422ed6bbe65a37a9d0cc78043f"},
	{"pima", 768, 8, 2, 8, 0,
		"4fef5fc87dcd8b70c1be07fed942240bef2c4cf842b276a15d1cdac35294bf7c",
		"533b636f9d79ffc56ec96a9e6980e90dcf781c3164a0c6ec2d2429afd6a5fcfa"},
	{"satimage", 6435, 36, 6, 36, 0,
		"53bde87d0591d22d86f1b0b9794e6cfb27fc3aec7bb4cbd85470767db40a537e",
		"246974a9de54633a50e6fbd275d82dba20d5e42f71ba65f7e583a107c9ebefd1"},
	{"segment", 2310, 19, 7, 19, 1,
		"d8d2d7830d4eaad896e068ba459e35c10fb9866527dd2f6f559f3195d9a058bf",
		"bcf87782d590d0559ba29c6638a598930dfe36c0801632d9659de4bf50b8b472"},
	{"shuttle", 58000, 9, 7, 9, 0,
		"eab90b0705831bcbd0786a5ab442aac0c35a923550a4e6fa1f21ffc1bd7c4a8e",
		"e641e71b8303db217eeff5f45b2b1eea172425a541442da423884b4c55c90da3"},
	{"sonar", 208, 60, 2, 60, 0,
		"666aba3225a1624df1fbf8e5421ed07beb69f0513dd4190e788b4b9e68096842",
		"22d6b48b2f2c0439b2521d8170cce0fdf1f21bad77d53ca57f740b469ddf8476"},
	{"soybean", 683, 35, 19, 132, 0,
		"03c5fec75976e18191924248fd9c881d7d02550a3c7637bc674286a879fa9043",
		"6b4df4b3b4a4f604accac99ce50435aea1b99ab62e77b1df7f24c492a1c59cb8"},
	{"vehicle", 846, 18, 4, 18, 0,
		"02af428dbefa90802f9e10b7cf48e7f15aa22d3af3e2f82a1047659554726619",
		"7c87afaa09d7b42ed7d1762cade5ffdcca65d581533107dbacf59ded6574cb11"},
	{"votes", 435, 16, 2, 48, 0,
		"d7269d78a633624916e43f922c68fc6ebfc6774c4b12beea56ad48ceddcfe833",
		"cb1fc75c3982a042e99234f1daf8dd9fc5991eaec5a05a15793a43fd8b4624c7"},
	{"vowel", 990, 10, 11, 24, 0,
		"136d237d93c128d2af84db05f3e2046ca5714ed96d604a59c1604ed869ad965c",
		"bbdd258fd3592c26422dad38a244508a2fbd47a252410ee87a6c71a6cd218a59"},
	{"wine", 178, 13, 3, 13, 0,
		"2a93216a5f771a3fa78473f87f506378f5a52efa34788ddab485d4e99a1fc745",
		"d7f713b79c8aa9e6e5a8452681aaf68ab2fcc7fd28ea9b6e18294d670697ada8"},
	{"zoo", 101, 16, 7, 16, 0,
		"cc945ef0d7af929c3eec2814d9128c182c53a77d20f2a29291b4dee679e75c5d",
		"3fa5a28bab496b6cff5860ca5ee01bda403f4e7732c2d26e31b9723e2e3f509e"},
}

func load(t *testing.T, name string) *Dataset {
	t.Helper()
	d, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNames: Names lists exactly the embedded files and this test's
// table, sorted, and Infos agrees; so a file added without its Info and
// test row (or the reverse) fails here.
func TestNames(t *testing.T) {
	names := Names()
	if !sort.StringsAreSorted(names) {
		t.Errorf("Names() = %v, not sorted", names)
	}
	var inTable, inInfos, embedded []string
	for _, w := range want {
		inTable = append(inTable, w.name)
	}
	for _, in := range Infos() {
		inInfos = append(inInfos, in.Name)
	}
	m, err := fs.Glob(files, "data/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m {
		embedded = append(embedded, strings.TrimSuffix(strings.TrimPrefix(p, "data/"), ".csv.gz"))
	}
	for what, got := range map[string][]string{"this test's table": inTable, "Infos": inInfos, "the embedded files": embedded} {
		if !reflect.DeepEqual(got, names) {
			t.Errorf("Names() = %v, %s has %v", names, what, got)
		}
	}
	if len(names) < 10 {
		t.Errorf("%d datasets ship, want at least 10", len(names))
	}
}

// TestCounts: every dataset loads, with the rows, features and classes of
// its original source (the features counted before one-hot encoding by
// their names' prefix before "="), and the counts its Info declares.
func TestCounts(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			d := load(t, w.name)
			if d.N != w.rows || d.D != w.features || d.K != w.classes {
				t.Errorf("N, D, K = %d, %d, %d; want %d, %d, %d", d.N, d.D, d.K, w.rows, w.features, w.classes)
			}
			if len(d.X) != d.N*d.D || len(d.Y) != d.N || len(d.Classes) != d.K || len(d.Features) != d.D {
				t.Errorf("len X, Y, Classes, Features = %d, %d, %d, %d; want %d, %d, %d, %d",
					len(d.X), len(d.Y), len(d.Classes), len(d.Features), d.N*d.D, d.N, d.K, d.D)
			}
			source := map[string]bool{}
			for _, f := range d.Features {
				base, _, _ := strings.Cut(f, "=")
				source[base] = true
			}
			if len(source) != w.source {
				t.Errorf("%d source features, want %d", len(source), w.source)
			}
			in, ok := Lookup(w.name)
			if !ok {
				t.Fatalf("no Info for %s", w.name)
			}
			if in.Rows != d.N || in.Features != d.D || in.Classes != d.K {
				t.Errorf("Info says %d x %d, %d classes; the file has %d x %d, %d", in.Rows, in.Features, in.Classes, d.N, d.D, d.K)
			}
			if in.Package == "" || in.File == "" || in.Source == "" || in.License == "" || in.OpenMLNote == "" {
				t.Errorf("Info %+v lacks provenance", in)
			}
		})
	}
}

// TestLabels: every label is in [0, K), every class has a row, and the
// class names are distinct.
func TestLabels(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			d := load(t, w.name)
			count := make([]int, d.K)
			for i, y := range d.Y {
				if y < 0 || y >= d.K {
					t.Fatalf("row %d: label %d outside [0, %d)", i, y, d.K)
				}
				count[y]++
			}
			seen := map[string]bool{}
			for k, c := range count {
				if c == 0 {
					t.Errorf("class %d (%s) has no row", k, d.Classes[k])
				}
				if seen[d.Classes[k]] {
					t.Errorf("class name %q twice", d.Classes[k])
				}
				seen[d.Classes[k]] = true
			}
		})
	}
}

// TestOneHot: the encoding the package doc states. The columns of a
// categorical feature with three or more levels ("f=a", "f=b", ...) hold
// exactly one 1 per row (a missing value is a level of its own, so never
// none); a lone "f=b" column and every feature of a boolean source are 0
// or 1.
func TestOneHot(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			d := load(t, w.name)
			groups := map[string][]int{}
			for j, f := range d.Features {
				if base, _, ok := strings.Cut(f, "="); ok {
					groups[base] = append(groups[base], j)
				}
			}
			for base, cols := range groups {
				for i := 0; i < d.N; i++ {
					ones := 0
					for _, j := range cols {
						switch x := d.X[i*d.D+j]; x {
						case 1:
							ones++
						case 0:
						default:
							t.Fatalf("row %d, %s: %v, not 0 or 1", i, d.Features[j], x)
						}
					}
					if len(cols) > 1 && ones != 1 {
						t.Fatalf("row %d, feature %s: %d of its %d one-hot columns set, want 1", i, base, ones, len(cols))
					}
				}
			}
		})
	}
}

// TestStandardize: after Standardize, each feature has mean 0 and
// variance 1 over the rows (to 1e-9, recomputed here in another order,
// with compensated sums), and a feature that was constant is 0 in every
// row; the number of constant features is the table's.
func TestStandardize(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			raw := load(t, w.name)
			d := load(t, w.name)
			d.Standardize()
			if !d.Standardized {
				t.Error("Standardized not set")
			}
			constant := 0
			for j := 0; j < d.D; j++ {
				isConst := true
				for i := 1; i < d.N; i++ {
					isConst = isConst && raw.X[i*d.D+j] == raw.X[j]
				}
				if isConst {
					constant++
					for i := 0; i < d.N; i++ {
						if x := d.X[i*d.D+j]; x != 0 {
							t.Fatalf("constant feature %s: row %d is %v after Standardize, want 0", d.Features[j], i, x)
						}
					}
					continue
				}
				var s, s2 kahan
				for i := d.N - 1; i >= 0; i-- { // the other order
					x := d.X[i*d.D+j]
					s.add(x)
					s2.add(x * x)
				}
				mean := s.sum / float64(d.N)
				variance := s2.sum/float64(d.N) - mean*mean
				if math.Abs(mean) > 1e-9 || math.Abs(variance-1) > 1e-9 {
					t.Errorf("feature %s: mean %g, variance %g after Standardize, want 0 and 1", d.Features[j], mean, variance)
				}
			}
			if constant != w.constant {
				t.Errorf("%d constant features, want %d", constant, w.constant)
			}
		})
	}
}

// kahan is a compensated sum, so that TestStandardize checks
// Standardize's plain sums with a more accurate one.
type kahan struct{ sum, c float64 }

func (k *kahan) add(x float64) {
	y := x - k.c
	t := k.sum + y
	k.c = (t - k.sum) - y
	k.sum = t
}

// TestStandardizeByHand: Standardize on a small dataset, against values
// computed by hand: the column 1, 2, 3, 4 has mean 2.5 and population
// variance 1.25; the constant column becomes 0; a second call changes
// nothing; a dataset of no rows is left as it is.
func TestStandardizeByHand(t *testing.T) {
	(&Dataset{D: 2}).Standardize()

	d := &Dataset{N: 4, D: 2, K: 1, X: []float64{1, 7, 2, 7, 3, 7, 4, 7}, Y: []int{0, 0, 0, 0}}
	d.Standardize()
	sd := math.Sqrt(1.25)
	wantX := []float64{-1.5 / sd, 0, -0.5 / sd, 0, 0.5 / sd, 0, 1.5 / sd, 0}
	if !reflect.DeepEqual(d.X, wantX) {
		t.Errorf("X = %v, want %v", d.X, wantX)
	}
	d.Standardize()
	if !reflect.DeepEqual(d.X, wantX) {
		t.Errorf("a second Standardize changed X to %v", d.X)
	}
}

func digest(x []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range x {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestGolden: the SHA-256 of each embedded file and of its standardised
// matrix are the table's, so that a silent change of the data, of the
// parser or of Standardize's arithmetic (on any platform: CI runs this)
// fails here.
func TestGolden(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			raw, err := File(w.name)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			if got := hex.EncodeToString(sum[:]); got != w.fileSHA {
				t.Errorf("data/%s.csv.gz has SHA-256 %s, want %s", w.name, got, w.fileSHA)
			}
			d := load(t, w.name)
			d.Standardize()
			if got := digest(d.X); got != w.standardSHA {
				t.Errorf("standardised X has SHA-256 %s, want %s", got, w.standardSHA)
			}
		})
	}
}

// TestDeterministic: two loads are equal bit for bit, raw and
// standardised, and share no memory (a caller may change its copy).
func TestDeterministic(t *testing.T) {
	for _, w := range want {
		t.Run(w.name, func(t *testing.T) {
			a, b := load(t, w.name), load(t, w.name)
			if !reflect.DeepEqual(a, b) || digest(a.X) != digest(b.X) {
				t.Fatal("two loads differ")
			}
			x0 := a.X[0]
			a.X[0] = x0 + 1
			if b.X[0] != x0 {
				t.Fatal("two loads share X")
			}
			a.X[0] = x0
			a.Standardize()
			b.Standardize()
			if digest(a.X) != digest(b.X) {
				t.Fatal("two standardisations differ")
			}
		})
	}
}

// TestRow: Row(i) is row i of X, and appending to it cannot overwrite
// row i+1.
func TestRow(t *testing.T) {
	d := load(t, "iris")
	r := d.Row(1)
	if !reflect.DeepEqual(r, d.X[4:8]) {
		t.Errorf("Row(1) = %v, want %v", r, d.X[4:8])
	}
	_ = append(r, -1)
	if d.X[8] == -1 {
		t.Error("appending to Row(1) overwrote row 2")
	}
}

// TestUnknown: a name that does not ship is an error that names it and
// wraps ErrUnknown.
func TestUnknown(t *testing.T) {
	for _, name := range []string{"", "nope", "../dataset", "iris.csv.gz", "Iris"} {
		_, err := Load(name)
		if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "known: [breast_cancer") {
			t.Errorf("Load(%q) = %v, want ErrUnknown listing the datasets", name, err)
		}
		if _, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found one", name)
		}
	}
}

func gz(t *testing.T, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestParseRefuses: a malformed file is refused with the line at fault,
// never loaded in part.
func TestParseRefuses(t *testing.T) {
	const head = "classes,a,b\nlabel,x,y\n"
	for _, c := range []struct{ name, text, err string }{
		{"no classes line", "label,x\n0,1\n", "line 1"},
		{"no label line", "classes,a\n0,1\n", "line 2"},
		{"label too big", head + "2,1,1\n", `line 3: label "2"`},
		{"negative label", head + "0,1,1\n-1,1,1\n", `line 4: label "-1"`},
		{"label not a number", head + "a,1,1\n", `line 3: label "a"`},
		{"too few fields", head + "0,1\n", "line 3: 2 fields, want 3"},
		{"too many fields", head + "0,1,2,3\n", "line 3: 4 fields, want 3"},
		{"not a number", head + "0,1,x\n", `feature y: "x"`},
		{"NaN", head + "0,NaN,1\n", `feature x: "NaN"`},
		{"infinity", head + "0,1,+Inf\n", `feature y: "+Inf"`},
		{"no rows", head, "no rows"},
		{"a class without rows", head + "0,1,1\n", "class 1 (b) has no row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := parse("test", gz(t, c.text))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parse = %v, %v; want an error with %q", d, err, c.err)
			}
		})
	}
	if _, err := parse("test", []byte("not gzip")); err == nil {
		t.Error("a file that is not gzip parsed")
	}
	d, err := parse("test", gz(t, head+"1,0.5,-2\n0,1e-3,3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.X, []float64{0.5, -2, 0.001, 3}) || !reflect.DeepEqual(d.Y, []int{1, 0}) {
		t.Errorf("parse = %+v", d)
	}
}
