// Command trainer-oracle: differential testing of restartkit's Kubeflow Trainer model against
// the trainer's own Go code (github.com/kubeflow/trainer/v2 at the version in go.mod).
//
// It lives in its own Go module because the trainer pins its own Kubernetes release (k8s.io/api
// v0.36; its generated OpenAPI names corev1.PodStatusResult, which k8s.io/api v0.37 removed, so
// it does not build at the main oracle's pins).
//
// For every generated runtime and TrainJob it computes upstream's answer (upstream.go): the CRD
// admission and webhook verdicts of both, and the objects runtime/core NewObjects builds; then
// it asks restartkit (`restartkit batch`: a `validate` of the runtime and a `resolve` of the
// TrainJob) and compares the verdicts (field, error type, detail) and the JobSet field by field
// (both as the API server stores them: decoded into the JobSet's Go type and encoded again),
// the side objects by kind and name and their modelled fields. It prints each disagreement and
// `N cases, M disagreements`, and exits 1 when M > 0. With -published it first checks the
// trainer's published TrainJobs and runtimes of the real-world corpus the same way (published.go).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	jobsetv1alpha2 "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

var (
	flagN    = flag.Int("n", 2000, "TrainJob/runtime pairs")
	flagSeed = flag.Uint64("seed", 1, "random seed (the same seed gives the same cases)")
	flagRK   = flag.String("restartkit", "restartkit", "the restartkit CLI")
	flagCRDs = flag.String("crds", "", "the trainer's CRD directory (manifests/base/crds of the trainer module); default: found with `go list`")
	flagOut  = flag.String("out", "", "write each disagreement (case and both answers) as a JSON line to this file")
	flagShow = flag.Int("show", 5, "disagreements printed in full")
	flagPub  = flag.String("published", "", "conformance/realworld: also check the trainer's published TrainJobs and runtimes listed in its INDEX.json")
)

var addrRE = regexp.MustCompile(`0x[0-9a-f]+`)

var crds = map[string]*crdSchema{}

func trainerModule() (version, dir string) {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/kubeflow/trainer/v2" {
				version = d.Version
			}
		}
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kubeflow/trainer/v2").Output()
	if err == nil {
		dir = strings.TrimSpace(string(out))
	}
	return version, dir
}

type rkDiag struct {
	Field    string `json:"field"`
	Type     string `json:"type"`
	Message  string `json:"message"`
	Detail   string `json:"detail"`
	Origin   string `json:"origin"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
}

type rkResponse struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Errors []rkDiag        `json:"errors"`
}

func runBatch(lines [][]byte) ([]rkResponse, error) {
	cmd := exec.Command(*flagRK, "batch")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<20)
		for _, l := range lines {
			w.Write(l)
			w.WriteByte('\n')
		}
		w.Flush()
		stdin.Close()
	}()
	var out []rkResponse
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r rkResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("restartkit batch printed %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("restartkit batch: %v: %s", err, stderr.String())
	}
	if len(out) != len(lines) {
		return nil, fmt.Errorf("restartkit batch answered %d of %d requests", len(out), len(lines))
	}
	return out, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// rkVerdicts: restartkit's admission errors (the API server's and the trainer webhook's), as
// the comparison reads them.
func rkVerdicts(ds []rkDiag, skip func(rkDiag) bool) []verdict {
	out := []verdict{}
	for _, d := range ds {
		if d.Origin != "kube-apiserver" && d.Origin != "trainer-webhook" {
			continue
		}
		if skip(d) {
			continue
		}
		v := verdict{Field: d.Field, Type: d.Type, Detail: d.Detail}
		if d.Type == "" {
			v = verdict{Detail: d.Message}
		}
		out = append(out, v)
	}
	return out
}

func sortVerdicts(v []verdict) []verdict {
	sort.Slice(v, func(i, j int) bool {
		a, b := v[i], v[j]
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.Detail < b.Detail
	})
	return v
}

// sameVerdicts: equal multisets; a plain message (no type) of restartkit's may add words to
// upstream's (its explanation after it).
func sameVerdicts(up, rk []verdict) bool {
	up, rk = sortVerdicts(up), sortVerdicts(rk)
	if len(up) != len(rk) {
		return false
	}
	used := make([]bool, len(rk))
	for _, u := range up {
		found := false
		for i, r := range rk {
			if used[i] {
				continue
			}
			if u.Type == "" && r.Type == "" && strings.Contains(r.Detail, u.Detail) || u == r {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

type resolved struct {
	TrainJobs []struct {
		JobSet   json.RawMessage                   `json:"jobSet"`
		Objects  []struct{ Object map[string]any } `json:"objects"`
		NotBuilt *rkDiag                           `json:"notBuilt"`
	} `json:"trainJobs"`
	Errors []rkDiag `json:"errors"`
}

// firstDiff: the first path where two JSON values differ.
func firstDiff(path string, a, b any) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if d := firstDiff(path+"."+k, am[k], bm[k]); d != "" {
				return d
			}
		}
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i]); d != "" {
				return d
			}
		}
	}
	return fmt.Sprintf("%s: upstream %s, restartkit %s", path, mustJSON(a), mustJSON(b))
}

func normalizeRK(raw json.RawMessage) (map[string]any, error) {
	var js jobsetv1alpha2.JobSet
	if err := json.Unmarshal(raw, &js); err != nil {
		return nil, err
	}
	// restartkit writes a Pod spec's containers as [] when it has none, Go's type as null: the
	// same to the API server.
	for i := range js.Spec.ReplicatedJobs {
		if ps := &js.Spec.ReplicatedJobs[i].Template.Spec.Template.Spec; len(ps.Containers) == 0 {
			ps.Containers = nil
		}
	}
	return normalizeObject(&js)
}

// sideSummary: an object as both sides are compared: kind, name and the fields restartkit
// computes.
func sideSummary(o map[string]any) string {
	kind, _ := o["kind"].(string)
	md, _ := o["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	s := kind + "/" + name
	switch kind {
	case "ConfigMap":
		if d, ok := o["data"].(map[string]any); ok {
			if h, ok := d["hostfile"]; ok {
				s += fmt.Sprintf(" hostfile=%q", h)
			}
		}
	case "PodGroup":
		spec, _ := o["spec"].(map[string]any)
		for _, k := range []string{"minMember", "scheduleTimeoutSeconds", "queue", "priorityClassName", "networkTopology"} {
			if v, ok := spec[k]; ok {
				s += fmt.Sprintf(" %s=%s", k, mustJSON(v))
			}
		}
	}
	return s
}

func sideSet(objs []map[string]any) []string {
	var out []string
	for _, o := range objs {
		out = append(out, sideSummary(o))
	}
	sort.Strings(out)
	return out
}

func isXGBoost(rt map[string]any) bool {
	spec, _ := rt["spec"].(map[string]any)
	ml, _ := spec["mlPolicy"].(map[string]any)
	_, ok := ml["xgboost"]
	return ok
}

func main() {
	flag.Parse()
	// The trainer's code logs through controller-runtime; the oracle reports only its verdicts.
	ctrllog.SetLogger(logr.Discard())
	version, dir := trainerModule()
	crdDir := *flagCRDs
	if crdDir == "" {
		crdDir = dir + "/manifests/base/crds"
	}
	for kind, file := range map[string]string{
		"TrainJob":               "trainer.kubeflow.org_trainjobs.yaml",
		"TrainingRuntime":        "trainer.kubeflow.org_trainingruntimes.yaml",
		"ClusterTrainingRuntime": "trainer.kubeflow.org_clustertrainingruntimes.yaml",
	} {
		c, err := loadCRD(crdDir, file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loading the CRDs:", err)
			os.Exit(2)
		}
		crds[kind] = c
	}
	g := gen{r: rand.New(rand.NewPCG(*flagSeed, 0x7a41))}
	type tcase struct {
		file   string // a published pair's file; "" for a generated one
		rt, tj map[string]any
		up     answer
	}
	var cases []tcase
	var lines [][]byte
	skipped := map[string]int{}
	var pairs []publishedPair
	if *flagPub != "" {
		var err error
		if pairs, err = publishedPairs(*flagPub); err != nil {
			fmt.Fprintln(os.Stderr, "reading the published examples:", err)
			os.Exit(2)
		}
	}
	for i := 0; i < len(pairs)+*flagN; i++ {
		var file string
		var rt, tj map[string]any
		if i < len(pairs) {
			file, rt, tj = pairs[i].file, pairs[i].rt, pairs[i].tj
		} else {
			rt, tj = g.pair()
		}
		up, err := upstream(rt, tj)
		if err != nil {
			if file != "" {
				fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
				os.Exit(2)
			}
			skipped[err.Error()]++
			continue
		}
		cases = append(cases, tcase{file, rt, tj, up})
		lines = append(lines,
			mustJSON(map[string]any{"op": "validate", "input": map[string]any{"object": rt}}),
			mustJSON(map[string]any{"op": "resolve", "input": map[string]any{"trainJob": tj,
				"runtimes": []any{map[string]any{"object": rt, "validated": true}}}}),
		)
	}
	resps, err := runBatch(lines)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var out *os.File
	if *flagOut != "" {
		if out, err = os.Create(*flagOut); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer out.Close()
	}
	disagreements := 0
	counts := map[string]int{}
	for i, c := range cases {
		vr, rr := resps[2*i], resps[2*i+1]
		var problems []string
		// The runtime's admission.
		var vres struct {
			Errors []rkDiag `json:"errors"`
		}
		if vr.Status != "ok" || json.Unmarshal(vr.Result, &vres) != nil {
			problems = append(problems, fmt.Sprintf("validate(runtime) failed: %s", mustJSON(vr.Errors)))
		} else {
			rk := rkVerdicts(vres.Errors, func(d rkDiag) bool {
				return strings.HasPrefix(d.Message, "the JobSet the trainer builds")
			})
			if !sameVerdicts(c.up.RuntimeErrors, rk) {
				problems = append(problems, fmt.Sprintf("runtime verdicts: upstream %s, restartkit %s", mustJSON(sortVerdicts(c.up.RuntimeErrors)), mustJSON(sortVerdicts(rk))))
			}
		}
		var res resolved
		if rr.Status != "ok" || json.Unmarshal(rr.Result, &res) != nil || len(res.TrainJobs) != 1 {
			problems = append(problems, fmt.Sprintf("resolve failed: %s", mustJSON(rr.Errors)))
		} else {
			tjr := res.TrainJobs[0]
			rk := rkVerdicts(res.Errors, func(d rkDiag) bool { return strings.HasPrefix(d.Message, "JobSet \"") })
			if !sameVerdicts(c.up.TrainJobErrors, rk) {
				problems = append(problems, fmt.Sprintf("TrainJob verdicts: upstream %s, restartkit %s", mustJSON(sortVerdicts(c.up.TrainJobErrors)), mustJSON(sortVerdicts(rk))))
			}
			built := len(tjr.JobSet) > 0 && string(tjr.JobSet) != "null"
			switch {
			case c.up.RuntimeRefused:
				counts["runtime refused"]++
			case c.up.Built:
				counts["built"]++
				if !built {
					problems = append(problems, fmt.Sprintf("upstream builds a JobSet, restartkit does not: %s", mustJSON(tjr.NotBuilt)))
					break
				}
				mine, err := normalizeRK(tjr.JobSet)
				if err != nil {
					problems = append(problems, "restartkit's JobSet does not decode: "+err.Error())
					break
				}
				theirs := c.up.JobSet
				if isXGBoost(c.rt) {
					sortEnvByName(theirs)
					sortEnvByName(mine)
				}
				if d := firstDiff("jobSet", theirs, mine); d != "" {
					problems = append(problems, d)
				}
				var objs []map[string]any
				for _, o := range tjr.Objects {
					objs = append(objs, o.Object)
				}
				if a, b := sideSet(c.up.Objects), sideSet(objs); !reflect.DeepEqual(a, b) {
					problems = append(problems, fmt.Sprintf("side objects: upstream %q, restartkit %q", a, b))
				}
			case c.up.BuildError != "":
				counts["build error"]++
				if built || tjr.NotBuilt == nil || tjr.NotBuilt.Origin != "trainer-controller" || !strings.Contains(tjr.NotBuilt.Message, c.up.BuildError) {
					problems = append(problems, fmt.Sprintf("upstream's controller fails with %q; restartkit: built=%v, %s", c.up.BuildError, built, mustJSON(tjr.NotBuilt)))
				}
			case c.up.NotBuilt != "":
				counts["another manager"]++
				if built {
					problems = append(problems, "upstream builds nothing ("+c.up.NotBuilt+"), restartkit builds a JobSet")
				}
			default:
				counts["refused"]++
				if built {
					problems = append(problems, "upstream refuses the TrainJob, restartkit builds a JobSet")
				}
			}
		}
		if len(problems) == 0 {
			continue
		}
		disagreements++
		if disagreements <= *flagShow {
			fmt.Printf("DISAGREE case %d %s:\n  runtime:  %s\n  trainJob: %s\n", i, c.file, mustJSON(c.rt), mustJSON(c.tj))
			for _, p := range problems {
				fmt.Printf("  - %s\n", p)
			}
		}
		if out != nil {
			out.Write(mustJSON(map[string]any{"case": i, "file": c.file, "runtime": c.rt, "trainJob": c.tj, "upstream": c.up, "problems": problems}))
			out.Write([]byte("\n"))
		}
	}
	for reason, n := range skipped {
		fmt.Fprintf(os.Stderr, "skipped %d: %s\n", n, reason)
	}
	if len(pairs) > 0 {
		fmt.Printf("published: %d pairs from %s, each case before the generated ones\n", len(pairs), *flagPub)
	}
	fmt.Printf("trainer (github.com/kubeflow/trainer/v2 %s): %d cases (%d built, %d build errors, %d TrainJobs refused, %d another manager, %d runtimes refused), %d disagreements\n",
		version, len(cases), counts["built"], counts["build error"], counts["refused"], counts["another manager"], counts["runtime refused"], disagreements)
	if disagreements > 0 {
		os.Exit(1)
	}
}
