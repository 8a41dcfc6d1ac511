// Package roundslog is the rounds log of a contextual run (bench run
// --rounds-log FILE): one record per policy, replication and round, with
// the context's identity, the arm played, the probability the policy
// reported for it, the reward and the oracle's expected reward, so that a
// run can serve as logged data for off-policy evaluation (package
// offpolicy) and its regret can be recomputed from the log alone.
//
// # The file
//
// A gzip-compressed CSV file with a header line (Header) and one line per
// record, whose fields are:
//
//   - policy: the policy's label (CSV-quoted when it needs to be);
//   - replication: the global replication index, from 0;
//   - t: the round, from 1;
//   - row: on a dataset, the row shown, as its index (from 0) in the
//     dataset's own order (a shipped dataset's file order, a private
//     file's data lines in order), so that its features and label can be
//     joined back; -1 for a synthetic model, whose context is a fresh
//     draw identified by (replication, t) and not kept;
//   - arm: the arm the policy played, in the plugin's labelling;
//   - class: the same arm in the environment's labelling: on a dataset the
//     index of its class (the dataset's label), which is arm itself
//     unless the run was sealed (--seed random), where each replication
//     relabels the classes by a secret permutation sigma and class is
//     sigma⁻¹(arm); on a synthetic model, arm;
//   - prob: the probability the policy reported it gave that arm, empty
//     when it reported none;
//   - reward: the reward drawn;
//   - regret: the round's regret, the oracle's expected reward minus that
//     of the arm played, the value the results' regret sums;
//   - oracle: the expected reward of the best arm for the round's context
//     (1 on a dataset), so that the played arm's expected reward is
//     oracle - regret.
//
// Numbers are written in Go's shortest form that reads back to the same
// float64 ('g', -1); pandas reads them exactly with
// float_precision="round_trip".
//
// The records are ordered by policy (the scenario's order), replication
// and round, and the file is the same bytes whatever the batch size, the
// cores and the jobs: it is a sequence of gzip members (RFC 1952 allows
// several; gzip, zcat, pandas, R and Go's gzip.Reader read them as one
// stream), the header in one, then each policy's replication's rounds in
// members of BlockRounds rounds, each compressed on its own, so that
// every member depends only on its records. A shard's log (--shard)
// holds the records of its replications, the same as the unsharded log's
// records of those replications.
//
// # Cost
//
// A Spool keeps in memory BlockRounds rounds of the replications of each
// session in play (48 bytes a record: 48 KiB a replication) and writes
// each block compressed to a temporary file beside the log as soon as it
// is complete; Spool.Write then concatenates the members in order, with
// no decompression. docs/contextual.md gives the size and time at full
// scale.
package roundslog

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
)

// Header is the log's first line (without its newline).
const Header = "policy,replication,t,row,arm,class,prob,reward,regret,oracle"

// BlockRounds is how many rounds of one replication one gzip member holds:
// fixed, so that the file does not depend on how the run was split.
const BlockRounds = 1024

// Record is one round of one replication of one policy, as the file has
// it (the package doc says what each field is).
type Record struct {
	Policy      string
	Replication uint64
	T           int
	Row         int // -1 for a synthetic model
	Arm, Class  int
	Prob        float64 // NaN when the policy reported none
	Reward      float64
	Regret      float64
	Oracle      float64
}

// Entry is what the engine logs of one replication in one round: a Record
// without its policy, replication and round, which the Session knows.
type Entry struct {
	Row, Arm, Class int32
	Prob            float64 // 0 or NaN when the policy reported none
	Reward, Regret  float64
	Oracle          float64
}

// appendEntry appends e's fields, each after a comma, and a newline.
func appendEntry(b []byte, e *Entry) []byte {
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.Row), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.Arm), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(e.Class), 10)
	b = append(b, ',')
	if e.Prob != 0 && !math.IsNaN(e.Prob) {
		b = strconv.AppendFloat(b, e.Prob, 'g', -1, 64)
	}
	for _, v := range [3]float64{e.Reward, e.Regret, e.Oracle} {
		b = append(b, ',')
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, '\n')
}

// quote returns s as one CSV field, quoted when encoding/csv would.
func quote(s string) string {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{s})
	w.Flush()
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
