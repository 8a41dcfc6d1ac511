package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/regretbench/regretbench/host/board"
)

// newCmdBoard returns bench board and its subcommands: a leaderboard in a
// directory, whose rows are signed and logged (package board), and bench
// verify, which checks them.
func newCmdBoard(f *factory) []*cobra.Command {
	b := &cobra.Command{
		Use:   "board",
		Short: "Run a leaderboard whose every row anyone can verify (see docs/board-organisers.md)",
		Long: `bench board runs a leaderboard in a directory: a suite of scenarios, a
round whose secret seed is committed to before any submission runs and
revealed after, submissions run under the strict sandbox with an audit,
and each run recorded as a signed in-toto attestation in a transparency
log. 'bench verify' checks a row.

  bench board init DIR --suite quick --runs 100   create a board (and its key)
  bench board open DIR                            commit to the round's seed
  bench board submit DIR --submitter ME PLUGIN    run and record a submission
  bench board queue DIR --submitter ME PLUGIN     queue a submission, to run as a job
  bench board jobs DIR                            the queued submissions (--array: Slurm's)
  bench board submit DIR --job N                  run queued submission N (an array task)
  bench board collect DIR                         log the jobs' outcomes, in submission order
  bench board reveal DIR                          close the round, publish the seed
  bench board status DIR                          the standings (--markdown: a table)
  bench board html DIR                            the static page, DIR/index.html
  bench verify DIR/log/entries/00000001.json      check a row`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	b.AddCommand(newCmdBoardInit(f), newCmdBoardOpen(f), newCmdBoardSubmit(f),
		newCmdBoardQueue(f), newCmdBoardJobs(f), newCmdBoardCollect(f),
		newCmdBoardReveal(f), newCmdBoardStatus(f), newCmdBoardHTML(f))
	return []*cobra.Command{b, newCmdVerify(f)}
}

func newCmdBoardInit(f *factory) *cobra.Command {
	var o board.InitOptions
	cmd := &cobra.Command{
		Use:   "init DIR",
		Short: "Create a board: its suite, limits and signing key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var suite []string
			for _, s := range o.Suite {
				suite = append(suite, strings.Split(s, ",")...)
			}
			o.Suite = suite
			b, err := board.Init(args[0], o)
			if err != nil {
				return withCode(ExitInput, err)
			}
			fmt.Fprintf(f.stdout, "board %s created in %s\npublic key: %s\n", b.Config.Name, b.Dir, b.Config.Key)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&o.Suite, "suite", nil, "the suite's scenarios: shipped names or YAML files (repeatable, or comma-separated)")
	fs.StringVar(&o.Name, "name", "", "the board's name, which its checkpoints and key carry (default: DIR's base name)")
	fs.IntVar(&o.Runs, "runs", 0, "replications of every scenario (0: each scenario's own)")
	fs.IntVar(&o.Horizon, "horizon", 0, "horizon of every scenario (0: each scenario's own)")
	fs.IntVar(&o.Public, "public", 0, "the public part: the first N replications of every scenario, shown during the round through the Ladder; the rest, the private part, rank the round after the reveal (needs --runs above N; 0: no split)")
	fs.Float64Var(&o.Margin, "margin", 0, "the Ladder's margin: a submitter's public score changes only for one lower by more than it, shown rounded to a multiple of it")
	fs.BoolVar(&o.Conform, "conform", true, "check each submission with 'bench conform --quick' under the strict sandbox first; one that fails is recorded as failed, with the check's verdict, and not run")
	fs.IntVar(&o.Audit, "audit", 3, "replications of each run replayed alone (bench run --audit)")
	fs.IntVar(&o.Limit, "limit", 3, "submissions one submitter may make in a round")
	fs.StringVar(&o.KeyFile, "key", "", "use this signing key (a golang.org/x/mod/sumdb/note private key named as the board) instead of drawing one; it is never printed")
	return cmd
}

func loadBoard(dir string) (*board.Board, error) {
	b, err := board.Load(dir)
	if err != nil {
		return nil, withCode(ExitInput, err)
	}
	return b, nil
}

func newCmdBoardOpen(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "open DIR",
		Short: "Open the round: draw its secret seed and publish only its SHA-256 commitment",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			r, err := b.Open()
			if err != nil {
				return err
			}
			fmt.Fprintf(f.stdout, "round open at %s; seed commitment sha256:%s (log record %d)\n", r.Opened, r.Commitment, r.Index)
			return nil
		},
	}
}

func newCmdBoardSubmit(f *factory) *cobra.Command {
	var submitter string
	job := -1
	cmd := &cobra.Command{
		Use:   "submit DIR PLUGIN... | submit DIR --job N",
		Short: "Run submissions (a plugin executable, or a directory with one and its files) on the suite and record them",
		Long: `bench board submit runs each submission on the board's whole suite, with
the round's seed, under the strict sandbox and with an audit, each
scenario by bench run in a process of its own, and records the run as a
signed attestation in the board's log. A submission that fails (does not
start, crashes, fails the audit) is recorded as failed, with the reason;
the command then exits 3. A submitter over the board's limit is refused
(exit 2).

With --job N it runs submission N of the queue ('bench board queue') as
one job of many (a Slurm array task: --job "$SLURM_ARRAY_TASK_ID") and
stages its outcome for 'bench board collect', taking no lock: jobs of one
board may run at once on machines that share its directory. It exits 0
when the outcome is staged, a failed run's included (the failure is the
row's, not the job's), and when an earlier attempt staged it already.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if job >= 0 {
				return cobra.ExactArgs(1)(cmd, args)
			}
			return cobra.MinimumNArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			bench, err := os.Executable()
			if err != nil {
				return fmt.Errorf("board submit: finding bench: %w", err)
			}
			o := board.SubmitOptions{Bench: bench, Submitter: submitter, Stderr: f.stderr}
			if job >= 0 {
				if submitter != "" {
					return withCode(ExitInput, errors.New("board submit --job: the queue names the submitter; drop --submitter"))
				}
				p, err := b.RunJob(cmd.Context(), job, o)
				var staged *board.StagedError
				if errors.As(err, &staged) {
					fmt.Fprintf(f.stdout, "submission %d: staged already\n", job)
					return nil
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(f.stdout, "submission %d (%q by %q): %s", p.Submission, p.Plugin, p.Submitter, p.Outcome)
				if p.Reason != "" {
					fmt.Fprintf(f.stdout, ": %q", p.Reason)
				}
				fmt.Fprintf(f.stdout, " (staged for log record %d)\n", p.LogIndex)
				return nil
			}
			failed := false
			for _, path := range args[1:] {
				p, err := b.Submit(cmd.Context(), path, o)
				var limit *board.LimitError
				if errors.As(err, &limit) {
					return withCode(ExitInput, err)
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(f.stdout, "submission %d (%q by %q): %s", p.Submission, p.Plugin, p.Submitter, p.Outcome)
				if p.Reason != "" {
					fmt.Fprintf(f.stdout, ": %q", p.Reason)
					failed = true
				}
				fmt.Fprintf(f.stdout, " (log record %d)\n", p.LogIndex)
			}
			if failed {
				return withCode(ExitPolicy, errors.New("board submit: a submission failed; it is recorded with its reason"))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&submitter, "submitter", "", "who submits (counted against the board's limit)")
	cmd.Flags().IntVar(&job, "job", -1, "run queued submission N as one job of an array and stage its outcome for 'bench board collect' (N: its number, as 'bench board jobs' lists it)")
	return cmd
}

func newCmdBoardQueue(f *factory) *cobra.Command {
	var submitter string
	cmd := &cobra.Command{
		Use:   "queue DIR PLUGIN...",
		Short: "Queue submissions, to run as jobs ('bench board submit --job N'), without running them",
		Long: `bench board queue takes each submission as 'bench board submit' does (the
submitter's limit, a copy of its files, the submission time) and gives it
its number and its log record, but does not run it: each runs later as a
job of its own ('bench board submit DIR --job N', an element of a Slurm
array or a Kubernetes Indexed Job), and 'bench board collect' logs the
outcomes in submission order. See docs/board-organisers.md.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			for _, path := range args[1:] {
				p, err := b.Queue(path, submitter)
				var limit *board.LimitError
				if errors.As(err, &limit) {
					return withCode(ExitInput, err)
				}
				if err != nil {
					return err
				}
				fmt.Fprintf(f.stdout, "submission %d (%q by %q): queued for log record %d\n", p.Submission, p.Plugin, p.Submitter, p.LogIndex)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&submitter, "submitter", "", "who submits (counted against the board's limit)")
	return cmd
}

func newCmdBoardJobs(f *factory) *cobra.Command {
	var array, asJSON bool
	cmd := &cobra.Command{
		Use:   "jobs DIR",
		Short: "List the queued submissions not yet collected, and whether each job's outcome is staged",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			jobs, err := b.Jobs()
			if err != nil {
				return err
			}
			if array {
				fmt.Fprintln(f.stdout, board.ArraySpec(jobs))
				return nil
			}
			if asJSON {
				ns := []int{}
				for _, j := range jobs {
					if !j.Staged {
						ns = append(ns, j.Run.Submission)
					}
				}
				data, err := json.Marshal(ns)
				if err != nil {
					return err
				}
				fmt.Fprintln(f.stdout, string(data))
				return nil
			}
			for _, j := range jobs {
				state := "queued"
				if j.Staged {
					state = "staged"
				}
				fmt.Fprintf(f.stdout, "%d\t%s\t%q by %q, submitted %s\n", j.Run.Submission, state, j.Run.Plugin, j.Run.Submitter, j.Run.Submitted)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&array, "array", false, "print only the numbers of the jobs not staged, as Slurm's --array takes them (1-3,5); an empty line for none")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print only the numbers of the jobs not staged, as a JSON array (a CI matrix: [1,2,3])")
	return cmd
}

func newCmdBoardCollect(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "collect DIR",
		Short: "Log the jobs' staged outcomes, in submission order, each checked first",
		Long: `bench board collect appends the outcomes that 'bench board submit --job'
staged to the board's log, in submission order (so the log is the same
whatever order the jobs finished in), each after checking its signature,
that it is the queued submission's, and the SHA-256 of every file it
names. It stops at the first submission whose job has not staged an
outcome yet, and then exits 1 naming those that wait; run it again when
they are done. An outcome that does not check is not logged (exit 1,
naming what does not match).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			done, waiting, err := b.Collect()
			for _, p := range done {
				fmt.Fprintf(f.stdout, "submission %d (%q by %q): %s (log record %d)\n", p.Submission, p.Plugin, p.Submitter, p.Outcome, p.LogIndex)
			}
			if err != nil {
				return err
			}
			if len(waiting) > 0 {
				var n []string
				for _, p := range waiting {
					n = append(n, fmt.Sprint(p.Submission))
				}
				return withCode(ExitFailure, fmt.Errorf("board collect: %d submissions wait for their jobs (%s): run 'bench board submit %s --job N' for each, then collect again", len(waiting), strings.Join(n, ", "), args[0]))
			}
			return nil
		},
	}
}

func newCmdBoardReveal(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "reveal DIR",
		Short: "Close the round: publish its seed and the results files",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			r, err := b.Reveal()
			if err != nil {
				return err
			}
			fmt.Fprintf(f.stdout, "round closed at %s; seed %s (sha256:%s)\n", r.Revealed, r.Seed, r.Commitment)
			return nil
		},
	}
}

func newCmdBoardStatus(f *factory) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "status DIR",
		Short: "Print the board's round and standings",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			if markdown {
				return b.Markdown(f.stdout, func(i int64) string { return fmt.Sprintf("log/entries/%08d.json", i) })
			}
			return b.Status(f.stdout)
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the standings as a markdown table (links relative to the board's directory)")
	return cmd
}

func newCmdBoardHTML(f *factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "html DIR",
		Short: "Write the board's static page (default DIR/index.html, beside the log its rows link to)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := loadBoard(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = b.DefaultHTML()
			}
			if err := b.WriteHTML(out); err != nil {
				return err
			}
			fmt.Fprintf(f.stdout, "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the page here (its links to the attestations are relative to the board's directory)")
	return cmd
}

func newCmdVerify(f *factory) *cobra.Command {
	var o board.VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify ROW...",
		Short: "Check rows of a board: signature, log inclusion, files, seed; --rerun runs them again",
		Long: `bench verify checks a board's rows. ROW is a log entry
(DIR/log/entries/N.json), DIR:N, or a board directory (every row). It
checks the log's checkpoints (signed by the board's key in board.json,
each consistent with the last) and the row's inclusion in the last one,
the attestation's signature, the files it names (the plugin's, the
scenarios', the results'), the sandbox and audit the results record, and
the revealed seed against its commitment. With --rerun it runs each
scenario again with the revealed seed and checks that the results are
bit for bit the same. Each failure names what does not match; exit 1.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Key != "" && !strings.Contains(o.Key, "+") {
				data, err := os.ReadFile(o.Key)
				if err != nil {
					return withCode(ExitInput, fmt.Errorf("verify: --key: %w", err))
				}
				o.Key = string(data)
			}
			if o.Rerun {
				bench, err := os.Executable()
				if err != nil {
					return fmt.Errorf("verify: finding bench: %w", err)
				}
				o.Bench, o.Stderr = bench, f.stderr
			}
			bad := 0
			for _, arg := range args {
				dir, index, all, err := board.ParseRow(arg)
				if err != nil {
					return withCode(ExitInput, fmt.Errorf("verify %s: %w", arg, err))
				}
				b, err := loadBoard(dir)
				if err != nil {
					return err
				}
				indexes := []int64{index}
				if all {
					n, err := b.Log().Size()
					if err != nil {
						return err
					}
					indexes = indexes[:0]
					for i := int64(0); i < n; i++ {
						indexes = append(indexes, i)
					}
				}
				for _, i := range indexes {
					r := b.Verify(cmd.Context(), i, o)
					what := fmt.Sprintf("%s record %d", filepath.Clean(dir), i)
					if r.Run != nil {
						what += fmt.Sprintf(" (submission %d, %q by %q)", r.Run.Submission, r.Run.Plugin, r.Run.Submitter)
					} else if r.Kind == board.PredicateOpen {
						what += " (the round's seed commitment)"
					}
					if r.OK() {
						fmt.Fprintf(f.stdout, "%s: verified\n", what)
					} else {
						bad++
						fmt.Fprintf(f.stdout, "%s: FAILED\n", what)
						for _, p := range r.Problems {
							fmt.Fprintf(f.stdout, "  %s\n", p)
						}
					}
					for _, n := range r.Notes {
						fmt.Fprintf(f.stdout, "  note: %s\n", n)
					}
				}
			}
			if bad > 0 {
				return withCode(ExitFailure, fmt.Errorf("verify: %d record(s) failed", bad))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.Rerun, "rerun", false, "run each scenario of a row again with the revealed seed and compare the results bit for bit")
	cmd.Flags().StringVar(&o.Key, "key", "", "the board's public key (NAME+HASH+BASE64, as 'bench board init' prints it), or a file holding it, obtained apart from the board: board.json's must be it (default: board.json's is trusted)")
	cmd.Flags().StringVar(&o.Checkpoint, "checkpoint", "", "a checkpoint of the board saved earlier (log/checkpoint): the log must extend it")
	return cmd
}
