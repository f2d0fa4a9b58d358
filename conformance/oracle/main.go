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

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

type op struct {
	name     string
	label    string // how the run names the op's cases (default: name)
	gen      func(gen) map[string]any
	prepare  func([]byte) ([]byte, error) // optional: the input both sides see
	upstream func([]byte) (map[string]any, error)
	timed    func([][]byte) (timedStages, error) // optional: upstream's stages, timed (timing.go)
	module   string                              // "kruise" or "jobset": answered by that helper, not k8s.io/kubernetes
}

var ops = []op{
	{name: "podFailurePolicy", gen: gen.podFailurePolicy, upstream: upstreamPodFailurePolicy, timed: timedPFP},
	{name: "containerRestart", gen: gen.containerRestart, upstream: upstreamContainerRestart, timed: timedContainerRestart},
	{name: "containerRestartable", gen: gen.containerRestartable, upstream: upstreamContainerRestartable},
	{name: "matchRestartRule", gen: gen.matchRestartRule, upstream: upstreamMatchRestartRule},
	{name: "statusTransition", gen: gen.statusTransition, upstream: upstreamStatusTransition},
	{name: "validate", label: "validate(Pod)", gen: gen.validatePod, prepare: prepareValidate, upstream: upstreamValidate, timed: timedValidate},
	{name: "validate", label: "validate(Pod scheduling)", gen: gen.validatePodScheduling, upstream: upstreamValidate},
	{name: "validate", label: "validate(Pod DNS and identity)", gen: gen.validatePodDNS, upstream: upstreamValidate},
	{name: "validate", label: "validate(Pod volumes)", gen: gen.validatePodVolumes, prepare: prepareValidate, upstream: upstreamValidateMessages},
	{name: "validate", label: "validate(Pod env)", gen: gen.validatePodEnv, prepare: prepareValidate, upstream: upstreamValidateMessages},
	{name: "validate", label: "validate(Pod probes)", gen: gen.validatePodProbes, prepare: prepareValidate, upstream: upstreamValidate},
	{name: "validate", label: "validate(Pod resources)", gen: gen.validatePodResources, prepare: prepareValidate, upstream: upstreamValidateMessages},
	{name: "validate", label: "validate(Pod security)", gen: gen.validatePodSecurity, prepare: preparePodSecurity, upstream: upstreamValidateMessages},
	{name: "validate", label: "validate(Job)", gen: gen.validateJob, prepare: prepareValidate, upstream: upstreamValidateJobMessages, timed: timedValidate},
	{name: "validate", label: "validate(workloads)", gen: gen.validateWorkload, prepare: prepareWorkload, upstream: upstreamWorkload},
	{name: "validate", label: "validate(workload specs)", gen: gen.validateWorkloadSpec, upstream: upstreamWorkload},
	{name: "validate", label: "validate(strict decoding)", gen: gen.validateStrict, upstream: upstreamStrict},
	{name: "validate", label: "validate(decoding)", gen: gen.validateDecoding, upstream: upstreamDecoding},
	{name: "validate", label: "validate(ObjectMeta)", gen: gen.validateObjectMeta, prepare: prepareObjectMeta, upstream: upstreamObjectMeta},
	{name: "validate", label: "validate(crdSchema)", gen: gen.validateCRDSchema, upstream: upstreamCRDSchema},
	{name: "validate", label: "validate(CustomResourceDefinition)", gen: gen.validateCRD, upstream: upstreamCRD},
	{name: "validate", label: "validate(Service)", gen: gen.validateService, upstream: upstreamService},
	{name: "validate", label: "validate(ConfigMap and Secret)", gen: gen.validateConfigMapOrSecret, upstream: upstreamConfigMapOrSecret},
	{name: "validate", label: "validate(PersistentVolumeClaim)", gen: gen.validatePVC, upstream: upstreamPVC},
	{name: "validate", label: "validate(PersistentVolume)", gen: gen.validatePV, upstream: upstreamPV},
	{name: "validate", label: "validate(CEL)", gen: gen.validateCEL, upstream: upstreamCEL},
	{name: "validate", label: "validate(PodDisruptionBudget)", gen: gen.validatePDB, upstream: upstreamPDB},
	{name: "validate", label: "validate(PriorityClass)", gen: gen.validatePriorityClass, upstream: upstreamPriorityClass},
	{name: "validate", label: "validate(Namespace)", gen: gen.validateNamespace, upstream: upstreamNamespace},
	{name: "validate", label: "validate(Lease)", gen: gen.validateLease, upstream: upstreamLease},
	{name: "validate", label: "validate(ResourceQuota)", gen: gen.validateResourceQuota, upstream: upstreamResourceQuota},
	{name: "validate", label: "validate(LimitRange)", gen: gen.validateLimitRange, upstream: upstreamLimitRange},
	{name: "validate", label: "validate(RBAC)", gen: gen.validateRBAC, upstream: upstreamRBAC},
	{name: "validate", label: "validate(NetworkPolicy)", gen: gen.validateNetworkPolicy, upstream: upstreamNetworkPolicy},
	{name: "validate", label: "validate(Ingress)", gen: gen.validateIngress, upstream: upstreamIngress},
	{name: "validate", label: "validate(HorizontalPodAutoscaler)", gen: gen.validateHPA, upstream: upstreamHPA},
	{name: "validate", label: "validate(StorageClass)", gen: gen.validateStorageClass, upstream: upstreamStorageClass},
	{name: "validate", label: "validate(ServiceAccount)", gen: gen.validateServiceAccount, upstream: upstreamServiceAccount},
	{name: "validate", label: "validate(CSIDriver)", gen: gen.validateCSIDriver, upstream: upstreamCSIDriver},
	{name: "validate", label: "validate(RuntimeClass)", gen: gen.validateRuntimeClass, upstream: upstreamRuntimeClass},
	{name: "validate", label: "validate(WebhookConfiguration)", gen: gen.validateWebhookConfiguration, upstream: upstreamWebhookConfiguration},
	{name: "validate", label: "validate(ValidatingAdmissionPolicy)", gen: gen.validateAdmissionPolicy, upstream: upstreamAdmissionPolicy},
	{name: "validate", label: "validate(MutatingAdmissionPolicy)", gen: gen.validateMutatingAdmissionPolicy, upstream: upstreamMutatingAdmissionPolicy},
	{name: "backoff", label: "backoff(job.getRemainingTime)", gen: gen.jobBackoffRemaining, upstream: upstreamJobBackoff},
	{name: "backoff", label: "backoff(job.getRemainingTimePerIndex)", gen: gen.jobBackoffPerIndex, upstream: upstreamJobBackoff},
	{name: "backoff", label: "backoff(job.getFinishedTime)", gen: gen.jobFinishedTime, upstream: upstreamJobBackoff},
	{name: "backoff", label: "backoff(kubelet)", gen: gen.kubeletBackoff, upstream: upstreamKubeletBackoff},
	{name: "validate", label: "validate(JobSet webhook)", gen: gen.validateJobSet, upstream: jobsetValidateExpect, module: "jobset"},
	{name: "jobsetFailurePolicy", gen: gen.jobsetFailurePolicy, upstream: jobsetExpect("failurePolicy"), module: "jobset"},
	{name: "jobsetFailurePolicy", label: "jobsetFailurePolicy(RE2 patterns)", gen: gen.jobsetPatterns, upstream: jobsetExpect("failurePolicy"), module: "jobset"},
	{name: "crrValidate", gen: gen.crr, upstream: upstreamCRR, module: "kruise"},
	// Appended last: a leg's random stream follows its place in this table.
	{name: "validate", label: "validate(Endpoints)", gen: gen.validateEndpoints, upstream: upstreamEndpoints},
}

var (
	flagN      = flag.Int("n", 2000, "cases per op")
	flagSeed   = flag.Uint64("seed", 1, "random seed (the same seed gives the same cases)")
	flagRK     = flag.String("restartkit", "restartkit", "the restartkit CLI")
	flagOps    = flag.String("ops", "", "comma-separated ops to run (default: all)")
	flagOut    = flag.String("out", "", "write each minimised disagreement as a vector (JSON lines) to this file")
	flagDump   = flag.String("dump", "", "write every generated case as a vector (JSON lines) to this file")
	flagTiming = flag.Bool("timing", true, "time upstream and restartkit on the generated inputs")
	flagExpect = flag.String("expect", "", "instead of a run: read vectors (JSON lines: id, op, a leg's label in \"leg\", input) from this file and print each with upstream's `expect` for the linked release")
)

// k8sModule is the pinned k8s.io/kubernetes version, read from the build (go.mod is the one
// place it is written).
func k8sModule() string { return moduleVersion("k8s.io/kubernetes") }

// moduleVersion is the version of a dependency as the build recorded it.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
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
		args = append(args, "--timing", "--stages")
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

// skipReasons counts why generated inputs were skipped (printed to standard error at the end).
var skipReasons = map[string]int{}

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
	exp, err := callUpstream(o, input)
	if err != nil {
		skipReasons[err.Error()]++
		return vcase{}, false
	}
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return vcase{}, false
	}
	in["kubernetesVersion"] = minorVersion(version)
	source := "differential vs upstream k8s.io/kubernetes " + version
	switch o.module {
	case "kruise":
		source = "differential vs upstream " + kruiseModule()
	case "jobset":
		source = "differential vs upstream sigs.k8s.io/jobset " + jobsetModule()
	}
	return vcase{
		vector: map[string]any{
			"id": id, "op": o.name, "input": in, "expect": exp,
			"source": source,
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

// callUpstream: upstream's answer; a panic in upstream's code (e.g. validateSuccessPolicyRule
// dereferencing the nil completions of an Indexed Job) becomes a skip reason, as the API server
// answers such a request with an internal error rather than a validation result.
func callUpstream(o op, input []byte) (exp map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			exp, err = nil, fmt.Errorf("upstream panicked: %v", r)
		}
	}()
	return o.upstream(input)
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func main() {
	flag.Parse()
	// Upstream's code logs through klog (older releases at verbosity 0 in the Job controller's
	// hot path): the run's own output is its report. ORACLE_KLOG=<verbosity> shows it on
	// standard error, to follow what the controllers do in a scenario.
	if v := os.Getenv("ORACLE_KLOG"); v != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", v)
	} else {
		klog.SetLogger(logr.Discard())
	}
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
	if *flagExpect != "" {
		if err := writeExpectations(*flagExpect, version); err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		return
	}
	fmt.Printf("oracle: upstream k8s.io/kubernetes %s, sigs.k8s.io/jobset %s (restartkit kubernetesVersion %s), %d cases per op, seed %d\n",
		version, jobsetModule(), minorVersion(version), *flagN, *flagSeed)
	total, disagreements := 0, 0
	for oi, o := range ops {
		if len(want) > 0 && !want[o.name] && !want[o.label] {
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
	if len(want) == 0 || want["yaml"] {
		n, d, err := runYAML(*flagN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if len(want) == 0 || want["reading"] {
		n, d, err := runReading(*flagN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if (*flagTimelineN > 0 || *flagTimelineJobSetN > 0 || *flagTimelineNodeLossN > 0 || *flagTimelineFile != "") && (len(want) == 0 || want["timeline"]) {
		n, d, err := runTimeline(*flagTimelineN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if (*flagPodN > 0 || *flagPodFile != "") && (len(want) == 0 || want["timeline"] || want["timeline-pod"]) {
		n, d, err := runPodTimeline(*flagPodN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if *flagExplainJobSetN > 0 && (len(want) == 0 || want["explain"]) {
		n, d, err := runExplainJobSet(*flagExplainJobSetN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if *flagExplainJobN > 0 && (len(want) == 0 || want["explain"]) {
		n, d, err := runExplainJob(*flagExplainJobN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	if *flagExplainPodN > 0 && (len(want) == 0 || want["explain"]) {
		n, d, err := runExplainPod(*flagExplainPodN, *flagSeed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "oracle:", err)
			os.Exit(2)
		}
		total += n
		disagreements += d
	}
	for r, n := range skipReasons {
		fmt.Fprintf(os.Stderr, "skipped %d: %s\n", n, r)
	}
	fmt.Printf("%d cases, %d disagreements\n", total, disagreements)
	if disagreements > 0 {
		os.Exit(1)
	}
}

// perInput runs f (one pass over n inputs) for at least 300 ms and 3 passes: ns per input.
// restartkit's stages are timed the same way (cli/src/stages.rs).
func perInput(n int, f func()) float64 {
	reps := 0
	start := time.Now()
	for time.Since(start) < 300*time.Millisecond || reps < 3 {
		f()
		reps++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(reps*n)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// report prints, per stage, upstream's and restartkit's time per input and their ratio
// (upstream ÷ restartkit: above 1, restartkit is faster).
func report(o op, label string, inputs [][]byte, tline string) {
	st, err := o.timed(inputs)
	if err != nil || st.n == 0 {
		return
	}
	upDecide := perInput(st.n, st.decide)
	upDecode := perInput(len(inputs), st.decodeDecide)
	rk := map[string]float64{}
	var rkN int
	var rkTotal float64
	for _, l := range strings.Split(tline, "\n") {
		l = strings.TrimSpace(l)
		if name, rest, ok := strings.Cut(strings.TrimPrefix(l, "stage "), ": "); ok && strings.HasPrefix(l, "stage ") {
			var n int
			var ns float64
			if _, err := fmt.Sscanf(rest, "%d inputs, %f ns/input", &n, &ns); err == nil {
				rk[name] = ns
			}
		}
		fmt.Sscanf(l, "timing: %d requests, %f ns", &rkN, &rkTotal)
	}
	fmt.Printf("  speed %s (load %s; ns per input; ratio = upstream ÷ restartkit):\n", label, loadAvg())
	row := func(stage, up, rkName string, upNs, rkNs float64) {
		if rkNs <= 0 {
			fmt.Printf("    %-34s upstream %-24s %9.1f   restartkit gave no figure\n", stage, up, upNs)
			return
		}
		fmt.Printf("    %-34s upstream %-24s %9.1f   restartkit %-26s %9.1f   %6.2fx\n", stage, up, upNs, rkName, rkNs, upNs/rkNs)
	}
	switch o.name {
	case "containerRestart":
		row("decide, decoded input", st.decideName, "matcher (bool)", upDecide, rk["matcher"])
		row("decide, decoded input", st.decideName, "op (explained, +clone)", upDecide, rk["decide"])
		row("decide, decoded input", st.decideName, "compiled", upDecide, rk["compiled"])
		if c := rk["input clone (inside decide)"]; c > 0 {
			fmt.Printf("    (of restartkit's op: %.0f ns cloning the input it consumes, %.0f ns resolving kubernetesVersion and featureGates)\n", c, rk["gate resolution (inside decide)"])
		}
	case "validate":
		row("decide, decoded input", st.decideName, "validate_value (JSON tree)", upDecide, rk["decide"])
		row("decide, typed input", st.decideName, "validate_pod/job (typed)", upDecide, rk["typed"])
	default:
		row("decide, decoded input", st.decideName, "op (explained)", upDecide, rk["decide"])
		row("decide, decoded input", st.decideName, "compiled", upDecide, rk["compiled"])
	}
	row("decode+decide, JSON text in", "decode+"+st.decideName, "parse+decode+op", upDecode, rk["decode+decide"])
	if rkN > 0 {
		row("JSON text in, restartkit JSON out", "decode+"+st.decideName, "batch request", upDecode, rkTotal/float64(rkN))
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// writeExpectations: hand-written vectors get their `expect` from upstream, for the release
// linked (their input's kubernetesVersion is set to its minor): how conformance/vectors/minors.json
// is made.
func writeExpectations(path, version string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var v struct {
			ID    string          `json:"id"`
			Op    string          `json:"op"`
			Leg   string          `json:"leg"`
			Note  string          `json:"note"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		var o *op
		for k := range ops {
			if (v.Leg != "" && ops[k].label == v.Leg) || (v.Leg == "" && ops[k].label == "" && ops[k].name == v.Op) {
				o = &ops[k]
				break
			}
		}
		if o == nil {
			return fmt.Errorf("%s:%d: no leg %q", path, i+1, v.Leg)
		}
		// Gates the release does not know are dropped, as the generators drop them.
		var in map[string]any
		if err := json.Unmarshal(v.Input, &in); err != nil {
			return fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		if fg, ok := in["featureGates"].(map[string]any); ok {
			gates := map[string]bool{}
			for k, x := range fg {
				gates[k], _ = x.(bool)
			}
			in["featureGates"] = gatesOf(gates)
		}
		raw := mustJSON(in)
		if o.prepare != nil {
			if raw, err = o.prepare(raw); err != nil {
				return fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
		}
		c, ok := makeCase(*o, v.ID, raw, version)
		if !ok {
			return fmt.Errorf("%s:%d: upstream cannot take the input", path, i+1)
		}
		if v.Note != "" {
			c.vector["note"] = v.Note
		}
		fmt.Println(string(mustJSON(c.vector)))
	}
	return nil
}
