// Command oracle: differential testing of restartkit against the upstream Go code.
//
// For every op it generates random inputs, computes upstream's answer with the upstream code
// linked at the versions in go.mod (upstream.go), turns each case into a conformance vector
// {op, input, expect = upstream's answer}, runs the inputs through `restartkit batch` and has
// restartkit's own comparator (the checkVector op, the one the conformance suite uses) judge
// them. Each disagreement is minimised and printed as a vector; the run closes with
// `N cases, M disagreements` and exits 1 when M > 0. It also times upstream's decisions and
// restartkit's batch mode on the same inputs and prints the ratio.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"time"
)

type op struct {
	name     string
	label    string // how the run names the op's cases (default: name)
	gen      func(gen) map[string]any
	prepare  func([]byte) ([]byte, error) // optional: the input both sides see
	upstream func([]byte) (map[string]any, error)
	timed    func([][]byte) (func(), int, error) // optional: upstream's decision on pre-decoded inputs
}

var ops = []op{
	{name: "podFailurePolicy", gen: gen.podFailurePolicy, upstream: upstreamPodFailurePolicy, timed: timedPFP},
	{name: "containerRestart", gen: gen.containerRestart, upstream: upstreamContainerRestart, timed: timedContainerRestart},
	{name: "containerRestartable", gen: gen.containerRestartable, upstream: upstreamContainerRestartable},
	{name: "matchRestartRule", gen: gen.matchRestartRule, upstream: upstreamMatchRestartRule},
	{name: "statusTransition", gen: gen.statusTransition, upstream: upstreamStatusTransition},
	{name: "validate", label: "validate(Pod)", gen: gen.validatePod, prepare: prepareValidate, upstream: upstreamValidate, timed: timedValidate},
	{name: "validate", label: "validate(Job)", gen: gen.validateJob, prepare: prepareValidate, upstream: upstreamValidate, timed: timedValidate},
	{name: "backoff", label: "backoff(job.getRemainingTime)", gen: gen.jobBackoffRemaining, upstream: upstreamJobBackoff},
	{name: "backoff", label: "backoff(job.getRemainingTimePerIndex)", gen: gen.jobBackoffPerIndex, upstream: upstreamJobBackoff},
	{name: "backoff", label: "backoff(job.getFinishedTime)", gen: gen.jobFinishedTime, upstream: upstreamJobBackoff},
}

var (
	flagN      = flag.Int("n", 2000, "cases per op")
	flagSeed   = flag.Uint64("seed", 1, "random seed (the same seed gives the same cases)")
	flagRK     = flag.String("restartkit", "restartkit", "the restartkit CLI")
	flagOps    = flag.String("ops", "", "comma-separated ops to run (default: all)")
	flagOut    = flag.String("out", "", "write each minimised disagreement as a vector (JSON lines) to this file")
	flagDump   = flag.String("dump", "", "write every generated case as a vector (JSON lines) to this file")
	flagTiming = flag.Bool("timing", true, "time upstream and restartkit on the generated inputs")
)

// k8sModule is the pinned k8s.io/kubernetes version, read from the build (go.mod is the one
// place it is written).
func k8sModule() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// minorVersion: "v1.36.3" -> "1.36", the kubernetesVersion restartkit is asked to model.
func minorVersion(v string) string {
	m := regexp.MustCompile(`^v(\d+)\.(\d+)`).FindStringSubmatch(v)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}

type response struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
	Errors json.RawMessage `json:"errors"`
}

// batch runs one `restartkit batch` over the request lines; stderr (timing) is returned too.
func runBatch(lines [][]byte, timing bool) ([]response, string, error) {
	args := []string{"batch"}
	if timing {
		args = append(args, "--timing")
	}
	cmd := exec.Command(*flagRK, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
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
	var out []response
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, "", fmt.Errorf("restartkit batch printed %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	if err := cmd.Wait(); err != nil {
		return nil, "", fmt.Errorf("restartkit batch: %v: %s", err, stderr.String())
	}
	if len(out) != len(lines) {
		return nil, "", fmt.Errorf("restartkit batch answered %d of %d requests", len(out), len(lines))
	}
	return out, stderr.String(), nil
}

type vcase struct {
	vector map[string]any
	input  []byte // restartkit's input (upstream's plus kubernetesVersion)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// makeCase computes upstream's answer for an input and builds the vector; ok=false when upstream
// cannot take the input (it is skipped, and counted).
func makeCase(o op, id string, input []byte, version string) (vcase, bool) {
	exp, err := o.upstream(input)
	if err != nil {
		return vcase{}, false
	}
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return vcase{}, false
	}
	in["kubernetesVersion"] = minorVersion(version)
	return vcase{
		vector: map[string]any{
			"id": id, "op": o.name, "input": in, "expect": exp,
			"source": "differential vs upstream k8s.io/kubernetes " + version,
		},
		input: mustJSON(in),
	}, true
}

// check runs cases through restartkit and its comparator; it returns the failure text per case
// ("" when they agree) and restartkit's timing line.
func check(o op, cases []vcase, timing bool) ([]string, string, error) {
	reqs := make([][]byte, len(cases))
	for i, c := range cases {
		reqs[i] = mustJSON(map[string]any{"op": o.name, "input": json.RawMessage(c.input)})
	}
	resps, tline, err := runBatch(reqs, timing)
	if err != nil {
		return nil, "", err
	}
	for i, c := range cases {
		in := map[string]any{"vector": c.vector, "result": json.RawMessage(orNull(resps[i].Result))}
		if resps[i].Status != "ok" {
			in["errors"] = json.RawMessage(orNull(resps[i].Errors))
		}
		reqs[i] = mustJSON(map[string]any{"op": "checkVector", "input": in})
	}
	verdicts, _, err := runBatch(reqs, false)
	if err != nil {
		return nil, "", err
	}
	out := make([]string, len(cases))
	for i, v := range verdicts {
		var r struct {
			Passed  bool   `json:"passed"`
			Failure string `json:"failure"`
		}
		if v.Status != "ok" || json.Unmarshal(v.Result, &r) != nil {
			out[i] = "checkVector failed: " + string(v.Errors)
			continue
		}
		if !r.Passed {
			out[i] = r.Failure
		}
	}
	return out, tline, nil
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func main() {
	flag.Parse()
	version := k8sModule()
	want := map[string]bool{}
	for _, s := range strings.Split(*flagOps, ",") {
		if s != "" {
			want[s] = true
		}
	}
	var outFile io.Writer
	if *flagOut != "" {
		f, err := os.Create(*flagOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		outFile = f
	}
	var dump io.Writer
	if *flagDump != "" {
		f, err := os.Create(*flagDump)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		dump = f
	}
	skipReasons := map[string]int{}
	fmt.Printf("oracle: upstream k8s.io/kubernetes %s (restartkit kubernetesVersion %s), %d cases per op, seed %d\n",
		version, minorVersion(version), *flagN, *flagSeed)
	total, disagreements := 0, 0
	for oi, o := range ops {
		if len(want) > 0 && !want[o.name] {
			continue
		}
		label := o.name
		if o.label != "" {
			label = o.label
		}
		g := gen{rand.New(rand.NewPCG(*flagSeed, uint64(oi)))}
		var cases []vcase
		var inputs [][]byte
		skipped := 0
		for i := 0; i < *flagN; i++ {
			raw := mustJSON(o.gen(g))
			if o.prepare != nil {
				p, err := o.prepare(raw)
				if err != nil {
					skipReasons[err.Error()]++
					skipped++
					continue
				}
				raw = p
			}
			c, ok := makeCase(o, fmt.Sprintf("diff-%s-%d-%d", label, *flagSeed, i), raw, version)
			if dump != nil && ok {
				dump.Write(append(mustJSON(c.vector), '\n'))
			}
			if !ok {
				skipped++
				continue
			}
			cases = append(cases, c)
			inputs = append(inputs, raw)
		}
		fails, tline, err := check(o, cases, *flagTiming)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		n := 0
		for i, f := range fails {
			if f == "" {
				continue
			}
			n++
			if n > 20 {
				continue // counted; the first 20 are shown minimised
			}
			v := minimise(o, cases[i], version)
			fmt.Printf("DISAGREE %s: %s\n  minimised: %s\n", cases[i].vector["id"], f, mustJSON(v.vector))
			if outFile != nil {
				outFile.Write(append(mustJSON(v.vector), '\n'))
			}
		}
		fmt.Printf("%s: %d cases, %d disagreements", label, len(cases), n)
		if skipped > 0 {
			fmt.Printf(" (%d generated inputs upstream could not take, skipped)", skipped)
		}
		fmt.Println()
		if *flagTiming && o.timed != nil {
			report(o, label, inputs, tline)
		}
		total += len(cases)
		disagreements += n
	}
	for r, n := range skipReasons {
		fmt.Fprintf(os.Stderr, "skipped %d: %s\n", n, r)
	}
	fmt.Printf("%d cases, %d disagreements\n", total, disagreements)
	if disagreements > 0 {
		os.Exit(1)
	}
}

// report prints upstream's time per decision, restartkit's, and their ratio.
func report(o op, label string, inputs [][]byte, tline string) {
	// Decoding counts: restartkit's batch time includes parsing the JSON input, so upstream is
	// also timed with decoding (json.Unmarshal, defaulting, conversion) — the set-up o.timed does.
	decStart := time.Now()
	run, n, err := o.timed(inputs)
	decNs := float64(time.Since(decStart).Nanoseconds())
	if err != nil || n == 0 {
		return
	}
	reps := 0
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond || reps < 3 {
		run()
		reps++
	}
	upNs := float64(time.Since(start).Nanoseconds()) / float64(reps*n)
	upDecNs := decNs/float64(n) + upNs
	var rkN int
	var rkTotal float64
	if _, err := fmt.Sscanf(strings.TrimSpace(lastLine(tline)), "timing: %d requests, %f ns", &rkN, &rkTotal); err != nil || rkN == 0 {
		fmt.Printf("  speed %s: upstream %.0f ns/decision (%.0f ns with JSON decoding); restartkit gave no timing (%q)\n", label, upNs, upDecNs, tline)
		return
	}
	rkNs := rkTotal / float64(rkN)
	fmt.Printf("  speed %s: upstream %.0f ns/decision (%.0f ns with JSON decoding, defaulting and conversion), restartkit batch %.0f ns/request (JSON in and out): %.1fx / %.1fx\n",
		label, upNs, upDecNs, rkNs, upNs/rkNs, upDecNs/rkNs)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
