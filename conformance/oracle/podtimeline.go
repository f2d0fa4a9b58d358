package main

// The Pod timeline leg, upstream side: the real kubelet runtime manager
// (k8s.io/kubernetes/pkg/kubelet/kuberuntime's kubeGenericRuntimeManager: computePodActions,
// SyncPod, doBackOff, KillPod) over the fake CRI runtime its unit tests use
// (k8s.io/cri-api/pkg/apis/testing.FakeRuntimeService), with the kubelet's real
// CrashLoopBackOff (flowcontrol.Backoff as NewMainKubelet builds it) and the kubelet's real
// status conversion (Kubelet.generateAPIPodStatus, with the real status and prober managers),
// on a fake clock. What sits above the runtime manager in a kubelet (the pod worker, PLEG,
// Kubelet.SyncPod and SyncTerminatingPod) is restated here in a few lines with their line cites
// (v1.37.2): docs/oracle.md, "Pod timeline: the real kubelet".
//
// Syncs are "ideal": after every change of a container (an exit, a start, a kill, a removal)
// at the same instant, at every back-off expiry the kubelet computes, and at the housekeeping
// instants (every 2 s) at which the back-off's garbage collection drops an entry: what
// restartkit's simulator models (a restart exactly when its back-off expires).

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	noopoteltrace "go.opentelemetry.io/otel/trace/noop"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	apitest "k8s.io/cri-api/pkg/apis/testing"
	"k8s.io/kubernetes/pkg/kubelet"
	kubecontainer "k8s.io/kubernetes/pkg/kubelet/container"
	containertest "k8s.io/kubernetes/pkg/kubelet/container/testing"
	"k8s.io/kubernetes/pkg/kubelet/kuberuntime"
	"k8s.io/kubernetes/pkg/kubelet/prober"
	proberesults "k8s.io/kubernetes/pkg/kubelet/prober/results"
	"k8s.io/kubernetes/pkg/kubelet/status"
	clocktesting "k8s.io/utils/clock/testing"
)

// kgrm stands for upstream's unexported kubeGenericRuntimeManager: the harness holds only a
// pointer to one (podtimeline_1_*.go).
type kgrm struct{}

type noDeletionSafety struct{}

func (noDeletionSafety) PodCouldHaveRunningContainers(*corev1.Pod) bool { return false }

// pendingExit is a scripted exit of one container instance.
type pendingExit struct {
	at   time.Time
	seq  int
	id   string
	code int32
}

// podCRI is the fake CRI runtime with the harness's clock: every timestamp the fake stamps with
// the wall clock is overwritten with the fake clock's time (creation times plus a nanosecond
// sequence, so that instances created at one instant keep their order: GetPodStatus sorts by
// CreatedAt), and every start, stop and removal is reported to the harness.
type podCRI struct {
	*apitest.FakeRuntimeService
	h   *podHarness
	seq int64
	// attempts: the highest attempt created per container name (see CreateContainer).
	attempts map[string]uint32
}

func (r *podCRI) stamp() int64 {
	r.seq++
	return r.h.clk.Now().UnixNano() + r.seq
}

func (r *podCRI) RunPodSandbox(ctx context.Context, cfg *runtimeapi.PodSandboxConfig, handler string) (string, error) {
	id, err := r.FakeRuntimeService.RunPodSandbox(ctx, cfg, handler)
	if err == nil {
		r.Lock()
		r.Sandboxes[id].CreatedAt = r.stamp()
		r.Unlock()
	}
	return id, err
}

// CreateContainer. A container that has no instance left in the runtime (one removed by a
// RestartAllContainers reset) gets its attempt from the Pod's log directory on a node
// (startContainer, kuberuntime_container.go:224-245: calcRestartCountByLogDir = the highest
// N.log + 1; the logs of removed containers stay, kuberuntime_manager.go:1650). The fake
// runtime writes no logs, and the manager's log directory cannot be pointed elsewhere, so the
// attempt is set here as that directory would give it: one past the highest attempt created.
func (r *podCRI) CreateContainer(ctx context.Context, sb string, cfg *runtimeapi.ContainerConfig, sbc *runtimeapi.PodSandboxConfig) (string, error) {
	name := cfg.GetMetadata().GetName()
	r.Lock()
	present := false
	for _, c := range r.Containers {
		if c.SandboxID == sb && c.Metadata.Name == name {
			present = true
		}
	}
	r.Unlock()
	if last, ok := r.attempts[name]; ok && !present && cfg.Metadata.Attempt <= last {
		cfg.Metadata.Attempt = last + 1
		cfg.Annotations["io.kubernetes.container.restartCount"] = strconv.Itoa(int(last + 1))
		cfg.LogPath = fmt.Sprintf("%s/%d.log", name, last+1)
	}
	id, err := r.FakeRuntimeService.CreateContainer(ctx, sb, cfg, sbc)
	if err == nil {
		r.Lock()
		r.Containers[id].CreatedAt = r.stamp()
		r.Unlock()
		if a, ok := r.attempts[name]; !ok || cfg.Metadata.Attempt > a {
			r.attempts[name] = cfg.Metadata.Attempt
		}
	}
	return id, err
}

func (r *podCRI) StartContainer(ctx context.Context, id string) error {
	if err := r.FakeRuntimeService.StartContainer(ctx, id); err != nil {
		return err
	}
	r.Lock()
	c := r.Containers[id]
	c.StartedAt = r.h.clk.Now().UnixNano()
	name, attempt := c.Metadata.Name, c.Metadata.Attempt
	r.Unlock()
	r.h.started(id, name, attempt)
	return nil
}

// StopContainer: the kill completes at once (no SIGTERM handling is modelled); the container
// ends with 137, as one killed by SIGKILL does.
func (r *podCRI) StopContainer(ctx context.Context, id string, timeout int64) error {
	r.Lock()
	c, ok := r.Containers[id]
	wasRunning := ok && c.State == runtimeapi.ContainerState_CONTAINER_RUNNING
	r.Unlock()
	if err := r.FakeRuntimeService.StopContainer(ctx, id, timeout); err != nil {
		return err
	}
	if wasRunning {
		r.Lock()
		c.ExitCode, c.Reason, c.FinishedAt = 137, "Error", r.h.clk.Now().UnixNano()
		name := c.Metadata.Name
		r.Unlock()
		r.h.killed(id, name)
	}
	return nil
}

func (r *podCRI) RemoveContainer(ctx context.Context, id string) error {
	if err := r.FakeRuntimeService.RemoveContainer(ctx, id); err != nil {
		return err
	}
	r.h.dropExits(id)
	r.h.changed = true
	return nil
}

// collectGarbage plays the kubelet's container garbage collection (kuberuntime_gc.go
// evictContainers; --maximum-dead-containers-per-container 1, minimum age 0): of each container's
// instances only the newest two stay (the running one and the last exited one, or the last two
// exited ones: what computePodActions, doBackOff and the status conversion read). The real
// collector runs every minute and keeps one exited instance; the older instances it removes are
// read by nothing that decides a timeline, and without this the fake runtime's map grows with
// every restart. Also drops the fake's call log.
func (r *podCRI) collectGarbage() {
	r.Lock()
	defer r.Unlock()
	r.Called = r.Called[:0]
	byName := map[string][]*apitest.FakeContainer{}
	for _, c := range r.Containers {
		byName[c.Metadata.Name] = append(byName[c.Metadata.Name], c)
	}
	for _, cs := range byName {
		if len(cs) <= 2 {
			continue
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].CreatedAt > cs[j].CreatedAt })
		for _, c := range cs[2:] {
			if c.State != runtimeapi.ContainerState_CONTAINER_RUNNING {
				delete(r.Containers, c.Id)
			}
		}
	}
}

type podHarness struct {
	mu      sync.Mutex
	ctx     context.Context
	clk     *clocktesting.FakeClock
	cri     *podCRI
	rm      *kgrm
	kl      *kubelet.Kubelet
	sm      status.Manager
	reasons *kubelet.ReasonCache
	bo      *flowcontrol.Backoff
	pod     *corev1.Pod
	sc      *podScenario
	cursors map[string]*[2]int
	exits   []pendingExit
	eseq    int
	out     podOutcome
	changed bool
	// backoffSeen: the exited instances whose back-off was reported (one BackOff event each).
	backoffSeen map[string]bool
	phase       corev1.PodPhase
	terminal    bool
	wakeups     []time.Time
	lastGC      time.Time
	lastStatus  *kubecontainer.PodStatus
	// onGap, when set, is called at each instant once its syncs are done, before the clock moves
	// on to the next instant it acts at (`until`: nothing changes before it); the explain leg
	// snapshots the Pod there.
	onGap func(until time.Time)
	// inits: the Pod's init containers that are not sidecars (an unscripted one completes at once).
	inits map[string]bool
}

func (h *podHarness) now() float64 { return h.clk.Now().Sub(tlEpoch).Seconds() }

func (h *podHarness) record(e podEvent) {
	e.T = h.now()
	h.out.Events = append(h.out.Events, e)
}

// started: a container instance runs; its script (restartkit's cursor semantics: the
// scenario's exits in order per container, `times` runs each) says when it ends.
func (h *podHarness) started(id, name string, attempt uint32) {
	h.changed = true
	h.record(podEvent{Event: "Started", Container: name})
	e := h.nextScript(name)
	switch {
	case e != nil:
		h.eseq++
		h.exits = append(h.exits, pendingExit{at: h.clk.Now().Add(time.Duration(e.AfterSeconds * float64(time.Second))), seq: h.eseq, id: id, code: e.ExitCode})
	case h.inits[name]:
		// An init container with no script completes at once (restartkit's rule).
		h.eseq++
		h.exits = append(h.exits, pendingExit{at: h.clk.Now(), seq: h.eseq, id: id, code: 0})
	}
}

// killed: KillPod stops containers from goroutines of its own (killContainersWithSyncResult),
// hence the lock; it waits for them before it returns.
func (h *podHarness) killed(id, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.changed = true
	h.dropExits(id)
	h.record(podEvent{Event: "Killed", Container: name})
}

func (h *podHarness) dropExits(id string) {
	kept := h.exits[:0]
	for _, e := range h.exits {
		if e.id != id {
			kept = append(kept, e)
		}
	}
	h.exits = kept
}

func (h *podHarness) nextScript(ctr string) *tlExit {
	cur := h.cursors[ctr]
	if cur == nil {
		cur = &[2]int{}
		h.cursors[ctr] = cur
	}
	for cur[0] < len(h.sc.Exits) {
		e := &h.sc.Exits[cur[0]]
		if e.Container != "" && e.Container != ctr {
			cur[0]++
			cur[1] = 0
			continue
		}
		if e.Times != nil && cur[1] >= *e.Times {
			cur[0]++
			cur[1] = 0
			continue
		}
		cur[1]++
		return e
	}
	return nil
}

// exit makes a scripted exit happen in the runtime (what a container's process does): the
// instance is exited with the code, the reason containerd writes, and the fake clock's time.
func (h *podHarness) exit(e pendingExit) {
	h.cri.Lock()
	c, ok := h.cri.Containers[e.id]
	if !ok || c.State != runtimeapi.ContainerState_CONTAINER_RUNNING {
		h.cri.Unlock()
		return
	}
	c.State, c.ExitCode, c.FinishedAt = runtimeapi.ContainerState_CONTAINER_EXITED, e.code, h.clk.Now().UnixNano()
	c.Reason = "Error"
	if e.code == 0 {
		c.Reason = "Completed"
	}
	name := c.Metadata.Name
	h.cri.Unlock()
	h.changed = true
	h.record(podEvent{Event: "Exited", Container: name, Detail: fmt.Sprint(e.code)})
}

func (h *podHarness) podStatus() (*kubecontainer.PodStatus, error) {
	return rmPodStatus(h.rm, h.ctx, h.pod.UID, h.pod.Name, h.pod.Namespace)
}

// setStatus stores the kubelet's status (status manager) and, at once, the API server's copy
// of the Pod (the status manager's sync to the API server is not modelled as a delay).
func (h *podHarness) setStatus(s corev1.PodStatus) {
	setPodStatus(h.sm, h.pod, s)
	if cur, ok := h.sm.GetPodStatus(h.pod.UID); ok {
		h.pod.Status = *cur.DeepCopy()
	}
	if p := h.pod.Status.Phase; p != h.phase {
		h.phase = p
		h.record(podEvent{Event: "Phase", Detail: string(p)})
	}
}

// sync restates Kubelet.SyncPod (pkg/kubelet/kubelet.go:2053) where it matters here: the API
// status from the runtime's (generateAPIPodStatus, :2108), terminal phase ⇒ the terminating path
// (:2121-2125), else the status is set (:2135), RestartAllContainers from the
// AllContainersRestarting condition (:2258-2266), the runtime manager's SyncPod with the
// kubelet's crashLoopBackOff, and the reason cache (:2267-2268). The re-sync after a reset
// (:2270-2292) is the harness's re-sync after any change at the same instant.
func (h *podHarness) sync() error {
	st, err := h.podStatus()
	if err != nil {
		return fmt.Errorf("GetPodStatus: %w", err)
	}
	h.lastStatus = st
	api := genStatus(h.kl, h.ctx, h.pod, st, false)
	if api.Phase == corev1.PodSucceeded || api.Phase == corev1.PodFailed {
		h.setStatus(api)
		return h.terminate()
	}
	h.setStatus(api)
	restartAll := false
	if gateOn("RestartAllContainersOnContainerExits") {
		for _, c := range api.Conditions {
			if c.Type == "AllContainersRestarting" && c.Status == corev1.ConditionTrue {
				restartAll = true
			}
		}
	}
	res := rmSync(h.rm, h.ctx, h.pod, st, h.bo, restartAll)
	h.reasons.Update(h.pod.UID, res)
	removed := false
	for _, r := range res.SyncResults {
		switch {
		case r.Action == kubecontainer.SyncAction("RemoveContainer") && r.Error == nil:
			removed = true
		case r.Action == kubecontainer.StartContainer && r.Error != nil && r.Error.Error() == kubecontainer.ErrCrashLoopBackOff.Error():
			// (1.35+: a BackoffError, which wraps ErrCrashLoopBackOff without Unwrap.)
			h.backedOff(st, fmt.Sprint(r.Target))
		case r.Error != nil:
			return fmt.Errorf("SyncPod: %s %v: %v (%s)", r.Action, r.Target, r.Error, r.Message)
		}
	}
	if res.SyncError != nil {
		return fmt.Errorf("SyncPod: %w", res.SyncError)
	}
	if removed {
		h.record(podEvent{Event: "RestartAllContainers"})
	}
	return nil
}

// container finds a container of the spec by name, init containers included.
func (h *podHarness) container(name string) *corev1.Container {
	for i := range h.pod.Spec.InitContainers {
		if h.pod.Spec.InitContainers[i].Name == name {
			return &h.pod.Spec.InitContainers[i]
		}
	}
	for i := range h.pod.Spec.Containers {
		if h.pod.Spec.Containers[i].Name == name {
			return &h.pod.Spec.Containers[i]
		}
	}
	return nil
}

// backedOff: doBackOff (kuberuntime_manager.go:2077) refused to start the container; the first
// refusal for an exited instance is the event restartkit records (its delay: the entry's).
func (h *podHarness) backedOff(st *kubecontainer.PodStatus, name string) {
	var last *kubecontainer.Status
	for _, c := range st.ContainerStatuses {
		if c.Name == name && c.State == kubecontainer.ContainerStateExited {
			last = c
			break
		}
	}
	c := h.container(name)
	if last == nil || c == nil {
		return
	}
	k := name + "@" + last.FinishedAt.String()
	if h.backoffSeen[k] {
		return
	}
	h.backoffSeen[k] = true
	h.record(podEvent{Event: "BackOff", Container: name, Detail: fmt.Sprint(h.bo.Get(backoffKey(h.pod, c)).Seconds())})
}

// terminate restates SyncTerminatingPod (kubelet.go:2340): the status, KillPod of what runs
// (:2377), the runtime's status after it, and the terminal status (SyncTerminatedPod's
// generateAPIPodStatus(..., true)).
func (h *podHarness) terminate() error {
	h.terminal = true
	st, err := h.podStatus()
	if err != nil {
		return err
	}
	running := kubecontainer.ConvertPodStatusToRunningPod("fakeRuntime", st)
	if err := rmKillPod(h.rm, h.ctx, h.pod, running, nil); err != nil {
		return fmt.Errorf("KillPod: %w", err)
	}
	st, err = h.podStatus()
	if err != nil {
		return err
	}
	h.setStatus(genStatus(h.kl, h.ctx, h.pod, st, true))
	return nil
}

// syncInstant: syncs at the current instant until nothing changes (the PLEG's events of the
// instant, each a sync).
func (h *podHarness) syncInstant() error {
	for i := 0; ; i++ {
		if h.terminal {
			return nil
		}
		if i > 60 {
			return fmt.Errorf("no progress at t=%gs (the Pod keeps changing)", h.now())
		}
		h.changed = false
		if err := h.sync(); err != nil {
			return err
		}
		if !h.changed {
			return nil
		}
	}
}

// machineInfo: the node's cadvisor MachineInfo with 32 GiB of memory, as
// createTestRuntimeManager gives it (kuberuntime_manager_test.go:94). Its type moved from
// cadvisor/info/v1 to cadvisor/lib/model in 1.37; naming either would put that module in every
// minor's module graph, so the type is read from NewKubeGenericRuntimeManager's parameters and
// the runtime manager's constructor is declared with an untyped pointer (the same ABI).
func machineInfo() unsafe.Pointer {
	ft := reflect.TypeOf(kuberuntime.NewKubeGenericRuntimeManager)
	for i := 0; i < ft.NumIn(); i++ {
		if t := ft.In(i); t.Kind() == reflect.Pointer && t.Elem().Name() == "MachineInfo" {
			v := reflect.New(t.Elem())
			v.Elem().FieldByName("MemoryCapacity").SetUint(32 << 30)
			return v.UnsafePointer()
		}
	}
	panic("kuberuntime.NewKubeGenericRuntimeManager takes no *MachineInfo")
}

// backoffEntries reads the kubelet's back-off entries (flowcontrol.Backoff.perItemBackoff: key →
// {backoff, lastUpdate}) for the harness's wake-ups.
func backoffEntries(b *flowcontrol.Backoff) map[string][2]any {
	v := reflect.ValueOf(b).Elem().FieldByName("perItemBackoff")
	m := reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	out := map[string][2]any{}
	for _, k := range m.MapKeys() {
		e := m.MapIndex(k).Elem()
		bo := e.FieldByName("backoff")
		lu := e.FieldByName("lastUpdate")
		out[k.String()] = [2]any{
			time.Duration(bo.Int()),
			reflect.NewAt(lu.Type(), unsafe.Pointer(lu.UnsafeAddr())).Elem().Interface().(time.Time),
		}
	}
	return out
}

// housekeeping is the kubelet's housekeeping period (kubelet.go housekeepingPeriod): the
// back-off's GC runs in HandlePodCleanups (kubelet_pods.go:1485), every 2 s from the start.
const housekeeping = 2 * time.Second

// housekeeping runs the back-off's garbage collection as the kubelet's housekeeping has by now
// (every 2 s from the start: GC at the last tick; GC drops what is idle more than 600 s at that
// tick, so the ticks before it dropped nothing it keeps).
func (h *podHarness) housekeeping() {
	now := h.clk.Now()
	tick := tlEpoch.Add(now.Sub(tlEpoch) / housekeeping * housekeeping)
	if tick.Before(h.lastGC) || tick.Equal(h.lastGC) {
		return
	}
	h.lastGC = tick
	h.clk.SetTime(tick)
	h.bo.GC()
	h.clk.SetTime(now)
}

// planWakeups: the instants the harness syncs at besides exits: each exited container's
// back-off expiry (its newest exit's finish + the entry's back-off, doBackOff's test) and each
// entry's garbage collection (the first housekeeping instant more than 600 s after its last
// update).
func (h *podHarness) planWakeups() error {
	h.wakeups = h.wakeups[:0]
	if h.terminal {
		return nil
	}
	now := h.clk.Now()
	// The status the instant's last sync read: that sync changed nothing.
	st := h.lastStatus
	if st == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range st.ContainerStatuses {
		if c.State != kubecontainer.ContainerStateExited || seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		spec := h.container(c.Name)
		if spec == nil {
			continue
		}
		// Only a container whose restart the back-off refused: the kubelet's pod worker
		// requeues at that refusal's end (SyncPod's BackoffError, 1.35+), not at the end of
		// the entry of a container it is not restarting (a completed init container, one
		// waiting for the Pod's initialization up to 1.36).
		if !h.backoffSeen[c.Name+"@"+c.FinishedAt.String()] {
			continue
		}
		if d := h.bo.Get(backoffKey(h.pod, spec)); d > 0 {
			if at := c.FinishedAt.Add(d); at.After(now) {
				h.wakeups = append(h.wakeups, at)
			}
		}
	}
	if !*flagPodGCWake {
		return nil
	}
	for _, e := range backoffEntries(h.bo) {
		gc := e[1].(time.Time).Add(600 * time.Second)
		off := gc.Sub(tlEpoch)
		tick := tlEpoch.Add((off/housekeeping + 1) * housekeeping)
		if tick.After(now) {
			h.wakeups = append(h.wakeups, tick)
		}
	}
	return nil
}

func newPodHarness(ctx context.Context, sc *podScenario, pod *corev1.Pod, boMax, boInitial time.Duration) (*podHarness, error) {
	h := &podHarness{ctx: ctx, clk: clocktesting.NewFakeClock(tlEpoch), sc: sc, pod: pod, cursors: map[string]*[2]int{},
		backoffSeen: map[string]bool{}, inits: map[string]bool{}}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			h.inits[c.Name] = true
		}
	}
	h.cri = &podCRI{FakeRuntimeService: apitest.NewFakeRuntimeService(), h: h, attempts: map[string]uint32{}}
	rec := &record.FakeRecorder{}
	rm, err := newRuntimeManager(ctx, h.cri, apitest.NewFakeImageService(), &containertest.FakeOS{}, &containertest.FakeRuntimeHelper{},
		noopoteltrace.NewTracerProvider().Tracer(""), rec)
	if err != nil {
		return nil, err
	}
	h.rm = rm
	// The kubelet's CrashLoopBackOff (kubelet.go:1085-1090): no jitter, the 600 s expiry.
	h.bo = flowcontrol.NewFakeBackOff(boInitial, boMax, h.clk)
	setCrashLoopExpiry(h.bo)
	// A Kubelet with what generateAPIPodStatus reads: the real status and prober managers.
	h.sm = newStatusManager()
	h.reasons = kubelet.NewReasonCache()
	h.kl = &kubelet.Kubelet{}
	setUnexported(h.kl, "statusManager", h.sm)
	setUnexported(h.kl, "probeManager", prober.NewManager(h.sm, proberesults.NewManager(), proberesults.NewManager(), proberesults.NewManager(), nil, rec))
	setUnexported(h.kl, "reasonCache", h.reasons)
	setUnexported(h.kl, "containerManager", newFakeContainerManager())
	setUnexported(h.kl, "recorder", rec)
	return h, nil
}

// play runs the scenario until its runFor or until the Pod is terminal.
func (h *podHarness) play() (podOutcome, error) {
	end := tlEpoch.Add(time.Duration(h.sc.runForSeconds * float64(time.Second)))
	if err := h.syncInstant(); err != nil {
		return h.out, err
	}
	atInstant := 0
	for !h.terminal {
		if err := h.planWakeups(); err != nil {
			return h.out, err
		}
		var next time.Time
		found := false
		for _, e := range h.exits {
			if !found || e.at.Before(next) {
				next, found = e.at, true
			}
		}
		for _, w := range h.wakeups {
			if !found || w.Before(next) {
				next, found = w, true
			}
		}
		if !found || next.After(end) {
			if h.onGap != nil && end.After(h.clk.Now()) {
				h.onGap(end)
			}
			break
		}
		if next.After(h.clk.Now()) {
			if h.onGap != nil {
				h.onGap(next)
			}
			h.clk.SetTime(next)
			atInstant = 0
		} else if atInstant++; atInstant > 1000 {
			return h.out, fmt.Errorf("no progress at t=%gs (the Pod's containers keep exiting at this instant)", h.now())
		}
		// The instant's exits, in script order.
		sort.SliceStable(h.exits, func(i, j int) bool { return h.exits[i].seq < h.exits[j].seq })
		var due []pendingExit
		kept := h.exits[:0]
		for _, e := range h.exits {
			if e.at.After(h.clk.Now()) {
				kept = append(kept, e)
			} else {
				due = append(due, e)
			}
		}
		h.exits = kept
		for _, e := range due {
			h.exit(e)
		}
		h.housekeeping()
		if err := h.syncInstant(); err != nil {
			return h.out, err
		}
		h.cri.collectGarbage()
	}
	// The final restart counts and phase: the kubelet's status.
	s, _ := h.sm.GetPodStatus(h.pod.UID)
	h.out.Phase = string(s.Phase)
	h.out.Restarts = map[string]int32{}
	for _, cs := range append(append([]corev1.ContainerStatus{}, s.InitContainerStatuses...), s.ContainerStatuses...) {
		h.out.Restarts[cs.Name] = cs.RestartCount
	}
	return h.out, nil
}

// runUpstreamPod plays one Pod scenario against the real kubelet code.
// onGap (optional) is the harness's onGap.
func runUpstreamPod(sc *podScenario, pod *corev1.Pod, boMax, boInitial time.Duration, onGap func(h *podHarness, until time.Time)) (out podOutcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in the kubelet's code: %v", r)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pod = pod.DeepCopy()
	pod.UID = types.UID("pod-uid-" + pod.Name)
	pod.Spec.NodeName = "node-0"
	h, err := newPodHarness(ctx, sc, pod, boMax, boInitial)
	if err != nil {
		return out, err
	}
	if onGap != nil {
		h.onGap = func(until time.Time) { onGap(h, until) }
	}
	out, err = h.play()
	if err != nil && strings.Contains(err.Error(), "no progress") {
		return out, err
	}
	return out, err
}
