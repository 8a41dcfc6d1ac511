// Package k8smanifests checks the Kubernetes manifests of this directory
// against the real k8s.io/api types, so that a misspelt or misplaced field
// fails here rather than on a cluster. It is its own module so that the
// repository's root module does not depend on k8s.io/api.
package k8smanifests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// decodeJobs strictly decodes every YAML document of file as a batch/v1 Job,
// as the API server's strict field validation does: an unknown field, a
// field in the wrong case, a duplicate field, or another kind is an error
// naming the file and the document. (encoding/json's DisallowUnknownFields
// is not enough: it matches names case-insensitively and so accepts
// "completionmode".)
func decodeJobs(file string) ([]*batchv1.Job, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	var jobs []*batchv1.Job
	for i, doc := range splitDocuments(data) {
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		var job batchv1.Job
		strict, err := kjson.UnmarshalStrict(js, &job)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		if len(strict) > 0 {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, errors.Join(strict...))
		}
		if job.APIVersion != "batch/v1" || job.Kind != "Job" {
			return nil, fmt.Errorf("%s: document %d: apiVersion %q kind %q, want batch/v1 Job", file, i+1, job.APIVersion, job.Kind)
		}
		jobs = append(jobs, &job)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no YAML document", file)
	}
	return jobs, nil
}

// splitDocuments splits a YAML stream at its "---" lines, dropping
// documents that hold only comments or blank lines.
func splitDocuments(data []byte) [][]byte {
	var docs [][]byte
	for _, doc := range regexp.MustCompile(`(?m)^---[ \t]*$`).Split(string(data), -1) {
		empty := true
		for _, line := range strings.Split(doc, "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
				empty = false
				break
			}
		}
		if !empty {
			docs = append(docs, []byte(doc))
		}
	}
	return docs
}

// oneJob decodes file, which must hold exactly one Job.
func oneJob(t *testing.T, file string) *batchv1.Job {
	t.Helper()
	jobs, err := decodeJobs(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("%s: %d Jobs, want 1", file, len(jobs))
	}
	return jobs[0]
}

// script returns the shell script a single-container Job runs: the
// manifests use command ["/bin/sh", "-c"] and the script as the one arg.
func script(job *batchv1.Job) (string, error) {
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		return "", fmt.Errorf("job %s: %d containers, want 1", job.Name, len(cs))
	}
	c := cs[0]
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
		return "", fmt.Errorf("job %s: container %s: command %q args %q, want [/bin/sh -c] and one script", job.Name, c.Name, c.Command, c.Args)
	}
	return c.Args[0], nil
}

var (
	shardRe    = regexp.MustCompile(`--shard "\$\{JOB_COMPLETION_INDEX\}/(\d+)"`)
	partOutRe  = regexp.MustCompile(`--out "?(/\S+?/part-)\$\{JOB_COMPLETION_INDEX\}(\.json)"?`)
	scenarioRe = regexp.MustCompile(`--scenario (\S+)`)
	mergeRe    = regexp.MustCompile(`bench merge (\S+) --out (\S+)`)
)

// checkShardJob checks the sharding Job's semantics: an Indexed Job whose
// completion count is the shard count of its command, each pod writing its
// own part file to a mounted claim.
func checkShardJob(job *batchv1.Job) error {
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return fmt.Errorf("job %s: spec.completionMode is not Indexed, so pods get no JOB_COMPLETION_INDEX", job.Name)
	}
	if s.Completions == nil {
		return fmt.Errorf("job %s: spec.completions is missing", job.Name)
	}
	cmd, err := script(job)
	if err != nil {
		return err
	}
	m := shardRe.FindStringSubmatch(cmd)
	if m == nil {
		return fmt.Errorf("job %s: command %q has no --shard \"${JOB_COMPLETION_INDEX}/N\"", job.Name, cmd)
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return fmt.Errorf("job %s: --shard count %q: %w", job.Name, m[1], err)
	}
	if int(*s.Completions) != n {
		return fmt.Errorf("job %s: spec.completions %d but the command runs --shard I/%d: shards would be missing or fail", job.Name, *s.Completions, n)
	}
	if s.Parallelism != nil && (*s.Parallelism < 1 || *s.Parallelism > *s.Completions) {
		return fmt.Errorf("job %s: spec.parallelism %d outside 1..completions %d", job.Name, *s.Parallelism, *s.Completions)
	}
	if !partOutRe.MatchString(cmd) {
		return fmt.Errorf("job %s: command %q writes no --out .../part-${JOB_COMPLETION_INDEX}.json", job.Name, cmd)
	}
	if !scenarioRe.MatchString(cmd) {
		return fmt.Errorf("job %s: command %q has no --scenario", job.Name, cmd)
	}
	return checkPod(job)
}

// checkPod checks what any of these Jobs needs: a valid name, a restart
// policy a Job accepts, mounts of declared volumes, and memory limits at
// least the requests.
func checkPod(job *batchv1.Job) error {
	if errs := validation.IsDNS1123Subdomain(job.Name); len(errs) > 0 {
		return fmt.Errorf("job %q: metadata.name: %s", job.Name, strings.Join(errs, "; "))
	}
	// An Indexed Job's pods get the hostname NAME-INDEX, a DNS label.
	if len(job.Name) > validation.DNS1123LabelMaxLength-4 {
		return fmt.Errorf("job %s: metadata.name is %d characters; pod hostnames need it under %d", job.Name, len(job.Name), validation.DNS1123LabelMaxLength-4)
	}
	pod := job.Spec.Template.Spec
	if rp := pod.RestartPolicy; rp != corev1.RestartPolicyNever && rp != corev1.RestartPolicyOnFailure {
		return fmt.Errorf("job %s: spec.template.spec.restartPolicy %q; a Job needs Never or OnFailure", job.Name, rp)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, c := range pod.Containers {
		if c.Image == "" {
			return fmt.Errorf("job %s: container %s: no image", job.Name, c.Name)
		}
		for _, vm := range c.VolumeMounts {
			if _, ok := volumes[vm.Name]; !ok {
				return fmt.Errorf("job %s: container %s: volumeMount %q names no volume of the pod", job.Name, c.Name, vm.Name)
			}
		}
		for name, limit := range c.Resources.Limits {
			if req, ok := c.Resources.Requests[name]; ok && limit.Cmp(req) < 0 {
				return fmt.Errorf("job %s: container %s: limits.%s %s below requests.%s %s", job.Name, c.Name, name, limit.String(), name, req.String())
			}
		}
	}
	return nil
}

// mountedClaim returns the persistent volume claim mounted at the directory
// dir in job's container.
func mountedClaim(job *batchv1.Job, dir string) (string, error) {
	pod := job.Spec.Template.Spec
	for _, vm := range pod.Containers[0].VolumeMounts {
		if path.Clean(vm.MountPath) != path.Clean(dir) {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == vm.Name && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName, nil
			}
		}
	}
	return "", fmt.Errorf("job %s: no persistent volume claim mounted at %s", job.Name, dir)
}

// checkPair checks that the merge Job merges exactly the files the shard
// Job writes, on the same claim, with the same image.
func checkPair(shard, merge *batchv1.Job) error {
	if err := checkPod(merge); err != nil {
		return err
	}
	if merge.Spec.CompletionMode != nil && *merge.Spec.CompletionMode == batchv1.IndexedCompletion {
		return fmt.Errorf("job %s: the merge is Indexed; it must run once", merge.Name)
	}
	shardCmd, err := script(shard)
	if err != nil {
		return err
	}
	mergeCmd, err := script(merge)
	if err != nil {
		return err
	}
	out := partOutRe.FindStringSubmatch(shardCmd)
	if out == nil {
		return fmt.Errorf("job %s: no part file in %q", shard.Name, shardCmd)
	}
	m := mergeRe.FindStringSubmatch(mergeCmd)
	if m == nil {
		return fmt.Errorf("job %s: command %q has no `bench merge GLOB --out FILE`", merge.Name, mergeCmd)
	}
	glob := m[1]
	n := int(*shard.Spec.Completions)
	for i := 0; i < n; i++ {
		part := out[1] + strconv.Itoa(i) + out[2]
		if ok, err := path.Match(glob, part); err != nil || !ok {
			return fmt.Errorf("job %s: merge input %s does not match shard %d's file %s", merge.Name, glob, i, part)
		}
	}
	if ok, _ := path.Match(glob, m[2]); ok {
		return fmt.Errorf("job %s: the merged file %s matches the merge input %s; a rerun would merge it", merge.Name, m[2], glob)
	}
	shardClaim, err := mountedClaim(shard, path.Dir(out[1]))
	if err != nil {
		return err
	}
	mergeClaim, err := mountedClaim(merge, path.Dir(glob))
	if err != nil {
		return err
	}
	if shardClaim != mergeClaim {
		return fmt.Errorf("job %s writes to claim %s but job %s reads claim %s", shard.Name, shardClaim, merge.Name, mergeClaim)
	}
	if a, b := shard.Spec.Template.Spec.Containers[0].Image, merge.Spec.Template.Spec.Containers[0].Image; a != b {
		return fmt.Errorf("job %s runs image %s but job %s runs %s: bench merge refuses other bench versions", shard.Name, a, merge.Name, b)
	}
	return nil
}

// TestShippedManifests decodes job.yaml and merge.yaml strictly and checks
// that they work together.
func TestShippedManifests(t *testing.T) {
	shard := oneJob(t, "job.yaml")
	merge := oneJob(t, "merge.yaml")
	if err := checkShardJob(shard); err != nil {
		t.Error(err)
	}
	if err := checkPair(shard, merge); err != nil {
		t.Error(err)
	}
	if *shard.Spec.Completions != 8 {
		t.Errorf("job.yaml: completions %d; the README says 8", *shard.Spec.Completions)
	}
}

// TestBrokenManifests shows that the checks catch what they are for: each
// testdata/bad file is a shipped manifest with one mistake.
func TestBrokenManifests(t *testing.T) {
	for _, tc := range []struct {
		file, merge string // merge: "" for the shipped merge.yaml
		want        string
	}{
		{file: "unknown_field.yaml", want: `unknown field "spec.completionmode"`},
		{file: "misplaced_field.yaml", want: `unknown field "spec.template.spec.backoffLimit"`},
		{file: "duplicate_field.yaml", want: `key "parallelism" already set in map`},
		{file: "wrong_kind.yaml", want: "kind \"CronJob\", want batch/v1 Job"},
		{file: "bad_quantity.yaml", want: "quantities must match the regular expression"},
		{file: "count_mismatch.yaml", want: "spec.completions 4 but the command runs --shard I/8"},
		{file: "not_indexed.yaml", want: "spec.completionMode is not Indexed"},
		{file: "restart_always.yaml", want: `restartPolicy "Always"`},
		{file: "job.yaml", merge: "merge_other_claim.yaml", want: "but job regretbench-failure-mode-merge reads claim other-claim"},
		{file: "job.yaml", merge: "merge_wrong_glob.yaml", want: "does not match shard 0's file /results/part-0.json"},
	} {
		name := tc.file
		if tc.merge != "" {
			name = tc.merge
		}
		t.Run(name, func(t *testing.T) {
			err := checkFiles(filepath.Join("testdata", "bad", tc.file), tc.merge)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q; want it to contain %q", err, tc.want)
			}
		})
	}
}

// checkFiles runs every check on a shard manifest (testdata/bad/NAME, or
// the shipped job.yaml) and a merge manifest (testdata/bad/NAME, or the
// shipped merge.yaml when mergeFile is "").
func checkFiles(shardFile, mergeFile string) error {
	if filepath.Base(shardFile) == "job.yaml" {
		shardFile = "job.yaml"
	}
	mergePath := "merge.yaml"
	if mergeFile != "" {
		mergePath = filepath.Join("testdata", "bad", mergeFile)
	}
	shards, err := decodeJobs(shardFile)
	if err != nil {
		return err
	}
	merges, err := decodeJobs(mergePath)
	if err != nil {
		return err
	}
	if err := checkShardJob(shards[0]); err != nil {
		return err
	}
	return checkPair(shards[0], merges[0])
}

// TestSplitDocuments covers the multi-document handling decodeJobs relies on.
func TestSplitDocuments(t *testing.T) {
	in := []byte("# head\n---\na: 1\n---   \n# only a comment\n---\nb: 2\n")
	docs := splitDocuments(in)
	if len(docs) != 2 || !bytes.Contains(docs[0], []byte("a: 1")) || !bytes.Contains(docs[1], []byte("b: 2")) {
		t.Fatalf("splitDocuments = %q, want the a and b documents", docs)
	}
}
