package main

// The timeline leg's lost node (issue 28 part 3; the contract is restartkit's docs/simulation.md
// and docs/oracle.md "Timeline: a lost node"): when a scripted exit has `nodeFailure: true`, the
// Pod's node is lost at that instant and the cluster handles it with upstream's own code, driven
// by the harness on the fake clock like syncJob:
//   - the node lifecycle controller (pkg/controller/nodelifecycle): monitorNodeHealth and the
//     NoExecute tainting pass, every nodeMonitorPeriod from t=0 (the tainting pass right after
//     the monitor, at the same instant), over fake Nodes whose Leases (kube-node-lease) the
//     harness renews on the 10 s grid while the node is alive;
//   - the taint eviction controller (pkg/controller/tainteviction): its node and Pod update
//     queues drained after the tainting pass, its TimedWorkerQueue's timers on the fake clock;
//   - Pod GC (pkg/controller/podgc): gc every 20 s from t=0, its orphan quarantine queue on the
//     fake clock;
//   - the DefaultTolerationSeconds admission plugin on every Pod create.
// Order within an instant: lease renewals, the scripted kubelet (and the operator's Node deletion
// or out-of-service taint), monitorNodeHealth + tainting pass, taint eviction, Pod GC, then the
// Job (and JobSet) controllers' syncs. Every Pod runs on a node of its own, from a pool of Nodes
// that exist (and were seen by the node lifecycle controller) from t=0, topped up at the Lease
// renewal instants (topUp).

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"time"
	"unsafe"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coordinformers "k8s.io/client-go/informers/coordination/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle"
	"k8s.io/kubernetes/pkg/controller/nodelifecycle/scheduler"
	"k8s.io/kubernetes/pkg/controller/podgc"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
	"k8s.io/utils/clock"
)

// The controllers' periodic functions are unexported; the harness pulls them by name (their
// signatures are the same 1.31-1.37: node_lifecycle_controller.go monitorNodeHealth and
// doNoExecuteTaintingPass, taint_eviction.go handleNodeUpdate and handlePodUpdate, gc_controller.go gc).
//
//go:linkname nlMonitorNodeHealth k8s.io/kubernetes/pkg/controller/nodelifecycle.(*Controller).monitorNodeHealth
func nlMonitorNodeHealth(nc *nodelifecycle.Controller, ctx context.Context) error

//go:linkname nlNoExecuteTaintingPass k8s.io/kubernetes/pkg/controller/nodelifecycle.(*Controller).doNoExecuteTaintingPass
func nlNoExecuteTaintingPass(nc *nodelifecycle.Controller, ctx context.Context)

//go:linkname teHandleNodeUpdate k8s.io/kubernetes/pkg/controller/tainteviction.(*Controller).handleNodeUpdate
func teHandleNodeUpdate(tc *tainteviction.Controller, ctx context.Context, item teNodeUpdateItem)

//go:linkname teHandlePodUpdate k8s.io/kubernetes/pkg/controller/tainteviction.(*Controller).handlePodUpdate
func teHandlePodUpdate(tc *tainteviction.Controller, ctx context.Context, item tePodUpdateItem)

//go:linkname podGCPass k8s.io/kubernetes/pkg/controller/podgc.(*PodGCController).gc
func podGCPass(gcc *podgc.PodGCController, ctx context.Context)

// The taint eviction controller's queue items (taint_eviction.go nodeUpdateItem and
// podUpdateItem, the same fields in the same order 1.31-1.37).
type teNodeUpdateItem struct{ nodeName string }
type tePodUpdateItem struct{ podName, podNamespace, nodeName string }

// tlNodeLoss is the scenario's optional `nodeLoss` block (restartkit's format, passed unchanged).
type tlNodeLoss struct {
	NodeMonitorGracePeriodSeconds *float64 `json:"nodeMonitorGracePeriodSeconds,omitempty"`
	NodeMonitorPeriodSeconds      *float64 `json:"nodeMonitorPeriodSeconds,omitempty"`
	NodeDeletedAfterSeconds       *float64 `json:"nodeDeletedAfterSeconds,omitempty"`
	OutOfServiceAfterSeconds      *float64 `json:"outOfServiceAfterSeconds,omitempty"`
	// restartkit's idealisation kept for controller tests: the Pod fails at the loss with
	// DisruptionTarget and every container ended with 137; no node lifecycle runs.
	IdealisedInstantFailure bool `json:"idealisedInstantFailure,omitempty"`
}

// defaultNodeMonitorGracePeriod: kube-controller-manager's --node-monitor-grace-period default
// (pkg/controller/nodelifecycle/config/v1alpha1/defaults.go RecommendedDefaultNodeLifecycleControllerConfiguration:
// 40 s at 1.31, nodeloss_before_1_32.go; 50 s from 1.32).
var defaultNodeMonitorGracePeriod = 50 * time.Second

const (
	nlLeaseRenew      = 10 * time.Second // kubelet: leaseDuration 40 s x 0.25 (kubelet.go renewInterval)
	nlGCPeriod        = 20 * time.Second // podgc gcCheckPeriod
	nlQuarantine      = 40 * time.Second // podgc quarantineTime
	nlTerminatedLimit = 12500            // --terminated-pod-gc-threshold default
	nlPool            = 8                // Nodes that exist from t=0 (with the free ones kept ahead)
	nlPoolAhead       = 8                // free Nodes kept ahead, at least (nlCluster.ahead)
	nlEvictionQPS     = 0.1              // --node-eviction-rate
	nlSecondaryQPS    = 0.01             // --secondary-node-eviction-rate
	nlLargeCluster    = 50               // --large-cluster-size-threshold
	nlUnhealthyZone   = 0.55             // --unhealthy-zone-threshold
	nlStartupGrace    = 60 * time.Second // --node-startup-grace-period
)

// hasNodeLoss: the scenario loses a node somewhere (the cluster's machinery is set up only then:
// without a loss it changes nothing).
func (sc *tlScenario) hasNodeLoss() bool {
	if sc.idealisedNodeLoss() {
		return false
	}
	if sc.NodeLoss != nil {
		return true
	}
	for _, e := range sc.Exits {
		if e.NodeFailure {
			return true
		}
	}
	return false
}

// idealisedNodeLoss: the scenario asks for the idealised instant failure of a lost node.
func (sc *tlScenario) idealisedNodeLoss() bool {
	return sc.NodeLoss != nil && sc.NodeLoss.IdealisedInstantFailure
}

type nodeInformerW struct {
	coreinformers.NodeInformer
	inf *capturedInformer
}

func (n nodeInformerW) Informer() cache.SharedIndexInformer { return n.inf }

type leaseInformerW struct {
	coordinformers.LeaseInformer
	inf *capturedInformer
}

func (n leaseInformerW) Informer() cache.SharedIndexInformer { return n.inf }

type dsInformerW struct {
	appsinformers.DaemonSetInformer
	inf *capturedInformer
}

func (n dsInformerW) Informer() cache.SharedIndexInformer { return n.inf }

// sortedNodeLister lists the Nodes that are not Ready in the order they stopped being Ready, then
// the others, each in the order they were added. monitorNodeHealth takes a not-yet-tainted Unknown node out of the zone's
// NoExecute tainter and puts it back at every pass, in the order it lists the nodes
// (node_lifecycle_controller.go markNodeForTainting: Remove, then Add with ProcessAt = now), so
// when several wait for the tainter's token the next one tainted is the first listed at the last
// pass: in a cluster the informer's map order, any order. The harness picks first come, first
// tainted, ties in the order the nodes were lost, then added (restartkit's order).
type sortedNodeLister struct {
	corelisters.NodeLister
	c *nlCluster
}

func (l sortedNodeLister) List(sel labels.Selector) ([]*corev1.Node, error) {
	ns, err := l.NodeLister.List(sel)
	// Ready nodes last (they are listed before the pass decides), the others in the order they
	// stopped being Ready.
	readySince := func(n *corev1.Node) time.Time {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
				return c.LastTransitionTime.Time
			}
		}
		return time.Unix(1<<40, 0)
	}
	sort.Slice(ns, func(i, j int) bool {
		if a, b := readySince(ns[i]), readySince(ns[j]); !a.Equal(b) {
			return a.Before(b)
		}
		// Not Ready at the same instant: in the order the nodes were lost (the ones not lost
		// after them: one key for all, or the order is not total).
		lostAt := func(n *corev1.Node) time.Time {
			if l := l.c.lost[n.Name]; l != nil {
				return l.at
			}
			return time.Unix(1<<40, 0)
		}
		if a, b := lostAt(ns[i]), lostAt(ns[j]); !a.Equal(b) {
			return a.Before(b)
		}
		return nodeNum(ns[i].Name) < nodeNum(ns[j].Name)
	})
	return ns, err
}

func nodeNum(name string) int {
	n, _ := strconv.Atoi(name[len("node-"):])
	return n
}

// nlTimer is a timer of the taint eviction controller's TimedWorkerQueue on the fake clock.
type nlTimer struct {
	at             time.Time
	seq            int
	f              func()
	stopped, fired bool
}

func (t *nlTimer) C() <-chan time.Time { return nil }
func (t *nlTimer) Stop() bool {
	was := !t.stopped && !t.fired
	t.stopped = true
	return was
}
func (t *nlTimer) Reset(d time.Duration) bool { panic("the taint eviction queue never resets a timer") }

// nlClock is the TimedWorkerQueue's clock: AfterFunc registers a timer the harness fires.
type nlClock struct {
	clock.WithTicker
	c *nlCluster
}

func (k nlClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	k.c.tseq++
	t := &nlTimer{at: k.c.h.clock.Now().Add(d), seq: k.c.tseq, f: f}
	k.c.timers = append(k.c.timers, t)
	return t
}

// nlDelayQueue replaces Pod GC's orphan quarantine queue (a delaying work queue on the real
// clock): AddAfter keeps the earliest due time, Len and Get see the items that are due.
type nlDelayQueue struct {
	clock interface{ Now() time.Time }
	due   map[string]time.Time
}

func (q *nlDelayQueue) AddAfter(k string, d time.Duration) {
	at := q.clock.Now().Add(d)
	if cur, ok := q.due[k]; ok && !at.Before(cur) {
		return
	}
	q.due[k] = at
}
func (q *nlDelayQueue) Add(k string) { q.AddAfter(k, 0) }
func (q *nlDelayQueue) Len() int {
	n := 0
	for _, at := range q.due {
		if !at.After(q.clock.Now()) {
			n++
		}
	}
	return n
}
func (q *nlDelayQueue) Get() (string, bool) {
	best, found := "", false
	for k, at := range q.due {
		if at.After(q.clock.Now()) {
			continue
		}
		if !found || at.Before(q.due[best]) || (at.Equal(q.due[best]) && k < best) {
			best, found = k, true
		}
	}
	if !found {
		panic("nlDelayQueue: Get with nothing due")
	}
	delete(q.due, best)
	return best, false
}
func (q *nlDelayQueue) Done(string)        {}
func (q *nlDelayQueue) ShutDown()          {}
func (q *nlDelayQueue) ShutDownWithDrain() {}
func (q *nlDelayQueue) ShuttingDown() bool { return false }

// nlLost is a lost node: when, and the Pod it held (its event labels).
type nlLost struct {
	at                                 time.Time
	pod                                string
	job, ix                            string
	notReady, tainted, evicted, failed bool
	// the instants of the above, for ORACLE_NODELOSS_TRACE
	times map[string]float64
	tols  []corev1.Toleration
	grace *int64
}

// nlCluster is the cluster side of a lost node: Nodes, Leases and the three controllers.
type nlCluster struct {
	h       *tlHarness
	nc      *nodelifecycle.Controller
	te      *tainteviction.Controller
	gc      *podgc.PodGCController
	adm     *defaulttolerationseconds.Plugin
	nodeInf *capturedInformer
	leaseIn *capturedInformer
	teQueue *tainteviction.TimedWorkerQueue
	period  time.Duration
	grace   time.Duration
	// next instants of the periodic passes
	nextLease, nextMonitor, nextGC time.Time
	timers                         []*nlTimer
	tseq                           int
	limiters                       map[string]flowcontrol.RateLimiter
	nodeOf                         map[string]string // Pod key -> its node
	free                           []string
	nodes                          int
	// ahead: free Nodes the pool gets back to at every lease renewal (see topUp).
	ahead int
	// born: the Nodes added between two lease renewals (the pool ran out), when.
	born      map[string]time.Time
	lost      map[string]*nlLost
	shutdowns []func()
	// done counts the taint eviction works finished per Pod (guarded by doneMu: they run on
	// goroutines).
	done   map[string]int
	doneMu sync.Mutex
	// nextTaintPass: the NoExecute tainting pass runs every 100 ms (scheduler.NodeEvictionPeriod);
	// besides the monitor's instants the harness runs it while a node waits in a tainter's queue
	// (a pass with the queues empty does nothing).
	nextTaintPass *time.Time
	// nodesDirty, leasesDirty: written since their last delivery.
	nodesDirty, leasesDirty bool
	// started: the pool is made (Nodes added later are born during the run).
	started bool
}

// nlTrace: ORACLE_NODELOSS_TRACE names a file that gets, per lost node of every scenario played
// upstream, the instants of its chain (to check the contract's timing rules by hand).
var nlTrace = func() *os.File {
	if p := os.Getenv("ORACLE_NODELOSS_TRACE"); p != "" {
		f, err := os.Create(p)
		if err == nil {
			return f
		}
	}
	return nil
}()

// nlLateNodes counts, over a run, the Nodes the harness had to add between two lease renewals
// (the free pool ran out), and nlLateLosses those of them lost before their first renewal on the
// grid: such a node is first seen by the monitor after its creation, not at the grid instant
// restartkit's contract assumes (a fidelity bound; see topUp). Both 0 in the runs of docs/oracle.md.
var nlLateNodes, nlLateLosses int

func secondsOr(p *float64, d time.Duration) time.Duration {
	if p == nil {
		return d
	}
	return time.Duration(*p * float64(time.Second))
}

// newNLCluster sets the node side up beside the harness's Job controller (before any Pod exists:
// the controllers add an index to the Pod informer).
func newNLCluster(ctx context.Context, h *tlHarness, factory informers.SharedInformerFactory) (*nlCluster, error) {
	nl := h.sc.NodeLoss
	if nl == nil {
		nl = &tlNodeLoss{}
	}
	c := &nlCluster{h: h, period: secondsOr(nl.NodeMonitorPeriodSeconds, 5*time.Second),
		grace:     secondsOr(nl.NodeMonitorGracePeriodSeconds, defaultNodeMonitorGracePeriod),
		nextLease: tlEpoch, nextMonitor: tlEpoch, nextGC: tlEpoch,
		limiters: map[string]flowcontrol.RateLimiter{}, nodeOf: map[string]string{}, born: map[string]time.Time{}, lost: map[string]*nlLost{}, done: map[string]int{}}
	if c.period <= 0 {
		return nil, fmt.Errorf("nodeLoss.nodeMonitorPeriodSeconds must be positive")
	}
	c.nodeInf = &capturedInformer{SharedIndexInformer: factory.Core().V1().Nodes().Informer()}
	c.leaseIn = &capturedInformer{SharedIndexInformer: factory.Coordination().V1().Leases().Informer()}
	dsInf := &capturedInformer{SharedIndexInformer: factory.Apps().V1().DaemonSets().Informer()}
	pods := podInformer{factory.Core().V1().Pods(), h.podInf}
	nodes := nodeInformerW{factory.Core().V1().Nodes(), c.nodeInf}
	nc, err := nodelifecycle.NewNodeLifecycleController(ctx, leaseInformerW{factory.Coordination().V1().Leases(), c.leaseIn},
		pods, nodes, dsInformerW{factory.Apps().V1().DaemonSets(), dsInf}, h.client,
		c.period, nlStartupGrace, c.grace, nlEvictionQPS, nlSecondaryQPS, nlLargeCluster, nlUnhealthyZone)
	if err != nil {
		return nil, err
	}
	c.nc = nc
	setUnexported(nc, "now", func() metav1.Time { return metav1.NewTime(h.clock.Now()) })
	setUnexported(nc, "nodeUpdateWorkerSize", 1) // the nodes one after the other, in name order
	setUnexported(nc, "nodeLister", corelisters.NodeLister(sortedNodeLister{unexported[corelisters.NodeLister](nc, "nodeLister"), c}))
	c.shutdowns = append(c.shutdowns, unexported[record.EventBroadcaster](nc, "broadcaster").Shutdown,
		unexported[workqueue.TypedInterface[string]](nc, "nodeUpdateQueue").ShutDown,
		func() { shutDownQueue(nc, "podUpdateQueue") })
	te, err := tainteviction.New(ctx, h.client, pods, nodes, "taint-eviction-controller")
	if err != nil {
		return nil, err
	}
	c.te = te
	c.teQueue = unexported[*tainteviction.TimedWorkerQueue](te, "taintEvictionQueue")
	// Count each finished work (the eviction: DisruptionTarget and delete) per Pod, to wait for
	// the ones that run on goroutines.
	work := unexported[func(context.Context, time.Time, *tainteviction.WorkArgs) error](c.teQueue, "workFunc")
	setUnexported(c.teQueue, "workFunc", func(ctx context.Context, fireAt time.Time, args *tainteviction.WorkArgs) error {
		err := work(ctx, fireAt, args)
		c.doneMu.Lock()
		c.done[args.KeyFromWorkArgs()]++
		c.doneMu.Unlock()
		return err
	})
	setUnexported(c.teQueue, "clock", clock.WithDelayedExecution(nlClock{WithTicker: h.clock, c: c}))
	c.shutdowns = append(c.shutdowns, unexported[record.EventBroadcaster](te, "broadcaster").Shutdown,
		func() { shutDownQueue(te, "nodeUpdateQueue") }, func() { shutDownQueue(te, "podUpdateQueue") })
	h.client.PrependReactor("*", "nodes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			c.nodesDirty = true
		}
		return false, nil, nil
	})
	c.gc = podgc.NewPodGCInternal(ctx, h.client, pods, nodes, nlTerminatedLimit, nlGCPeriod, nlQuarantine)
	setUnexported(c.gc, "nodeQueue", workqueue.TypedDelayingInterface[string](&nlDelayQueue{clock: h.clock, due: map[string]time.Time{}}))
	c.adm = defaulttolerationseconds.NewDefaultTolerationSeconds()
	if p, ok := any(c.adm).(interface{ InspectFeatureGates(featuregate.FeatureGate) }); ok {
		p.InspectFeatureGates(utilfeature.DefaultFeatureGate) // 1.34+: the tolerations are set here
	}
	c.ahead = max(nlPoolAhead, 2*podsAtOnce(h.sc.Workload))
	for i := 0; i < nlPool+c.ahead; i++ {
		if err := c.addNode(false); err != nil {
			return nil, err
		}
	}
	c.started = true
	return c, nil
}

// podsAtOnce is how many Pods the workload runs at once at most: a Job's parallelism, the sum
// over a JobSet's replicatedJobs of replicas x parallelism (a restart creates them all at one
// instant).
func podsAtOnce(w map[string]any) int {
	num := func(m map[string]any, k string, d int) int {
		switch v := m[k].(type) {
		case int:
			return v
		case float64:
			return int(v)
		}
		return d
	}
	spec, _ := w["spec"].(map[string]any)
	if spec == nil {
		return 1
	}
	if rjs, ok := spec["replicatedJobs"].([]any); ok {
		n := 0
		for _, rj := range rjs {
			rjm, _ := rj.(map[string]any)
			tmpl, _ := rjm["template"].(map[string]any)
			js, _ := tmpl["spec"].(map[string]any)
			if js == nil {
				continue
			}
			n += num(rjm, "replicas", 1) * num(js, "parallelism", 1)
		}
		return max(n, 1)
	}
	return max(num(spec, "parallelism", 1), 1)
}

// shutDownQueue stops one of a controller's work queues (each runs a goroutine for its metrics).
func shutDownQueue(obj any, field string) {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	q := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	q.MethodByName("ShutDown").Call(nil)
}

func (c *nlCluster) shutdown() {
	if nlTrace != nil {
		names := make([]string, 0, len(c.lost))
		for n := range c.lost {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			l := c.lost[n]
			nlTrace.Write(append(mustJSON(map[string]any{"scenario": c.h.sc.Name, "node": n, "pod": l.pod, "index": l.ix,
				"times": l.times, "nodeLoss": c.h.sc.NodeLoss, "grace": c.grace.Seconds(), "period": c.period.Seconds(),
				"tolerations": l.tols, "terminationGracePeriodSeconds": l.grace, "runFor": c.h.sc.runForSeconds}), '\n'))
		}
	}
	for _, f := range c.shutdowns {
		f()
	}
}

var nodesGVR = corev1.SchemeGroupVersion.WithResource("nodes")
var leasesGVR = coordv1.SchemeGroupVersion.WithResource("leases")

// addNode: a healthy Node (status posted once, Ready) and its Lease. Pool Nodes exist before t=0;
// a Node added later is added at a lease renewal instant of the 10 s grid (topUp), its Lease
// renewed then, before the monitor's pass of that instant: from then on it is a pool Node like
// the others (the monitor first sees it at its first pass at or after the renewal, as it sees a
// pool Node's renewal). One added between two renewals (the pool ran out) renews its Lease at
// its creation and is counted (nlLateNodes).
func (c *nlCluster) addNode(late bool) error {
	c.nodes++
	name := "node-" + strconv.Itoa(c.nodes)
	now := c.h.clock.Now()
	created := metav1.NewTime(tlEpoch.Add(-time.Hour))
	if c.started {
		created = metav1.NewTime(now)
		if late {
			c.born[name] = now
			nlLateNodes++
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-uid-" + name), CreationTimestamp: created,
		Labels: map[string]string{corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: "amd64",
			"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}}}
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeReady} {
		st, reason := corev1.ConditionFalse, "KubeletHas"+string(t)[len("Node"):]
		if t == corev1.NodeReady {
			st, reason = corev1.ConditionTrue, "KubeletReady"
		}
		node.Status.Conditions = append(node.Status.Conditions, corev1.NodeCondition{Type: t, Status: st, Reason: reason,
			LastHeartbeatTime: created, LastTransitionTime: created})
	}
	if err := c.h.client.Tracker().Add(node); err != nil {
		return err
	}
	renew := metav1.NewMicroTime(tlEpoch.Add(-nlLeaseRenew))
	if c.started {
		renew = metav1.NewMicroTime(now)
	}
	lease := &coordv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease},
		Spec: coordv1.LeaseSpec{HolderIdentity: ptrTo(name), LeaseDurationSeconds: ptrTo(int32(40)), RenewTime: &renew}}
	if err := c.h.client.Tracker().Add(lease); err != nil {
		return err
	}
	c.free = append(c.free, name)
	c.h.dirty, c.nodesDirty, c.leasesDirty = true, true, true
	return nil
}

// topUp adds Nodes at a lease renewal instant until c.ahead are free again (the Pods created
// before the next renewal take them), and at least as many as there are lost Nodes: the zone
// stays Normal (fewer than 55 % of its Nodes not Ready), as restartkit's contract has it. A
// Node lost since is Unknown only a grace period later, after the next renewals.
func (c *nlCluster) topUp() error {
	for len(c.free) < max(c.ahead, len(c.lost)) {
		if err := c.addNode(false); err != nil {
			return err
		}
	}
	return nil
}

// nodeFor is the node a Pod runs on: a node of its own, the next free one of the pool.
func (c *nlCluster) nodeFor(podKey string) (string, error) {
	if n, ok := c.nodeOf[podKey]; ok {
		return n, nil
	}
	if len(c.free) == 0 {
		// The pool ran out between two renewals (topUp keeps c.ahead free at each).
		if err := c.addNode(true); err != nil {
			return "", err
		}
	}
	n := c.free[0]
	c.free = c.free[1:]
	c.nodeOf[podKey] = n
	return n, nil
}

// lostPod: the Pod's node is lost (its kubelet does nothing more for it).
func (c *nlCluster) lostPod(podKey string) bool {
	n, ok := c.nodeOf[podKey]
	return ok && c.lost[n] != nil
}

// lose: the Pod's node is lost now; the operator's part is scheduled.
func (c *nlCluster) lose(pod *corev1.Pod) {
	key := podKey(pod)
	n, ok := c.nodeOf[key]
	if !ok || c.lost[n] != nil {
		return
	}
	now := c.h.clock.Now()
	ev := c.h.podEvent("NodeLost", pod)
	c.lost[n] = &nlLost{at: now, pod: key, job: ev.Job, ix: ev.Index, times: map[string]float64{"lost": c.h.now()},
		tols: pod.Spec.Tolerations, grace: pod.Spec.TerminationGracePeriodSeconds}
	if born, ok := c.born[n]; ok && now.Before(tlEpoch.Add(born.Sub(tlEpoch).Truncate(nlLeaseRenew)+nlLeaseRenew)) {
		nlLateLosses++
	}
	c.h.record(ev)
	if nl := c.h.sc.NodeLoss; nl != nil {
		if nl.NodeDeletedAfterSeconds != nil {
			c.h.scheduleFor(now.Add(secondsOr(nl.NodeDeletedAfterSeconds, 0)), key, "nodeDelete", n, 0, "")
		}
		if nl.OutOfServiceAfterSeconds != nil {
			c.h.scheduleFor(now.Add(secondsOr(nl.OutOfServiceAfterSeconds, 0)), key, "outOfService", n, 0, "")
		}
	}
}

// operator plays what an operator (or the cloud controller) does to a lost node: delete the Node
// object, or taint it node.kubernetes.io/out-of-service=nodeshutdown:NoExecute.
func (c *nlCluster) operator(a kubeletAction) error {
	ctx := context.Background()
	switch a.kind {
	case "nodeDelete":
		return c.h.client.CoreV1().Nodes().Delete(ctx, a.ctr, metav1.DeleteOptions{})
	case "outOfService":
		node, err := c.h.client.CoreV1().Nodes().Get(ctx, a.ctr, metav1.GetOptions{})
		if err != nil {
			return nil // deleted meanwhile
		}
		now := metav1.NewTime(c.h.clock.Now())
		node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeOutOfService, Value: "nodeshutdown",
			Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		_, err = c.h.client.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err
	}
	return nil
}

// admit runs the DefaultTolerationSeconds admission plugin on a Pod being created.
func (c *nlCluster) admit(pod *corev1.Pod) error {
	var ip api.Pod
	if err := legacyscheme.Scheme.Convert(pod, &ip, nil); err != nil {
		return err
	}
	attrs := admission.NewAttributesRecord(&ip, nil, api.Kind("Pod").WithVersion("v1"), pod.Namespace, pod.Name,
		api.Resource("pods").WithVersion("v1"), "", admission.Create, &metav1.CreateOptions{}, false, nil)
	if err := c.adm.Admit(context.Background(), attrs, nil); err != nil {
		return err
	}
	var tols []corev1.Toleration
	for _, t := range ip.Spec.Tolerations {
		tols = append(tols, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	pod.Spec.Tolerations = tols
	return nil
}

// Classes of the harness's steps within one instant (the kubelet's are 1, the Job syncs' 5).
const (
	nlClassLease   = 0
	nlClassMonitor = 20
	// nlClassTaintPass is a tainting pass between monitor passes (the same place in the instant).
	nlClassTaintPass = 21
	nlClassTaint     = 30
	nlClassGC        = 40
)

// next is the cluster's next step: its instant and class.
func (c *nlCluster) next() (time.Time, int) {
	at, class := c.nextLease, nlClassLease
	consider := func(t time.Time, k int) {
		if t.Before(at) || (t.Equal(at) && k < class) {
			at, class = t, k
		}
	}
	consider(c.nextMonitor, nlClassMonitor)
	if c.nextTaintPass != nil && c.nextTaintPass.Before(c.nextMonitor) {
		consider(*c.nextTaintPass, nlClassTaintPass)
	}
	consider(c.nextGC, nlClassGC)
	if c.teQueuesLen() > 0 {
		consider(c.h.clock.Now(), nlClassTaint)
	}
	for _, t := range c.timers {
		if !t.stopped && !t.fired {
			consider(t.at, nlClassTaint)
		}
	}
	return at, class
}

// step runs the cluster's step of that class at the current instant.
func (c *nlCluster) step(ctx context.Context, class int) error {
	h := c.h
	now := h.clock.Now()
	switch class {
	case nlClassLease:
		c.nextLease = c.nextLease.Add(nlLeaseRenew)
		if err := c.topUp(); err != nil {
			return err
		}
		renew := metav1.NewMicroTime(now)
		for i := 1; i <= c.nodes; i++ {
			name := "node-" + strconv.Itoa(i)
			if c.lost[name] != nil {
				continue
			}
			obj, err := h.client.Tracker().Get(leasesGVR, corev1.NamespaceNodeLease, name)
			if err != nil {
				return err
			}
			l := obj.(*coordv1.Lease).DeepCopy()
			l.Spec.RenewTime = &renew
			if err := h.client.Tracker().Update(leasesGVR, l, corev1.NamespaceNodeLease); err != nil {
				return err
			}
		}
		h.dirty, c.leasesDirty = true, true
	case nlClassMonitor:
		c.nextMonitor = c.nextMonitor.Add(c.period)
		if traceHarness {
			fmt.Printf("--- t=%gs monitorNodeHealth\n", h.now())
		}
		if err := nlMonitorNodeHealth(c.nc, ctx); err != nil {
			return fmt.Errorf("monitorNodeHealth: %w", err)
		}
		if err := c.checkZones(); err != nil {
			return err
		}
		c.fakeClockLimiters()
		// The tainting pass reads the Node's Ready condition from its informer.
		if err := h.sync(); err != nil {
			return err
		}
		c.taintingPass(ctx)
	case nlClassTaintPass:
		c.taintingPass(ctx)
	case nlClassTaint:
		before := c.evictionState()
		c.drainTaintQueues(ctx)
		if err := c.waitEvictions(before, ""); err != nil {
			return err
		}
		for {
			var due *nlTimer
			for _, t := range c.timers {
				if !t.stopped && !t.fired && !t.at.After(now) && (due == nil || t.at.Before(due.at) || (t.at.Equal(due.at) && t.seq < due.seq)) {
					due = t
				}
			}
			if due == nil {
				break
			}
			before := c.evictionState()
			key := ""
			c.teQueue.Lock()
			for k, w := range unexported[map[string]*tainteviction.TimedWorker](c.teQueue, "workers") {
				if w != nil && w.Timer == clock.Timer(due) {
					key = k
				}
			}
			c.teQueue.Unlock()
			due.fired = true
			due.f()
			if err := c.waitEvictions(before, key); err != nil {
				return err
			}
		}
		live := c.timers[:0]
		for _, t := range c.timers {
			if !t.stopped && !t.fired {
				live = append(live, t)
			}
		}
		c.timers = live
	case nlClassGC:
		c.nextGC = c.nextGC.Add(nlGCPeriod)
		podGCPass(c.gc, ctx)
	}
	return nil
}

// taintingPass runs doNoExecuteTaintingPass and, while a node still waits in a zone's tainter
// queue (for the token), asks for the next pass 100 ms later.
func (c *nlCluster) taintingPass(ctx context.Context) {
	nlNoExecuteTaintingPass(c.nc, ctx)
	c.nextTaintPass = nil
	for _, q := range unexported[map[string]*scheduler.RateLimitedTimedQueue](c.nc, "zoneNoExecuteTainter") {
		f := reflect.ValueOf(q).Elem().FieldByName("queue")
		uq := (*scheduler.UniqueQueue)(unsafe.Pointer(f.UnsafeAddr()))
		if _, waiting := uq.Head(); waiting {
			next := c.h.clock.Now().Add(scheduler.NodeEvictionPeriod)
			c.nextTaintPass = &next
		}
	}
}

// checkZones: the contract's zone stays Normal (enough healthy nodes); a disrupted zone changes
// the eviction rate, which neither side models.
func (c *nlCluster) checkZones() error {
	for z, s := range unexported[map[string]nodelifecycle.ZoneState](c.nc, "zoneStates") {
		if s != "Normal" {
			return fmt.Errorf("zone %q is %s (the harness keeps every zone Normal)", z, s)
		}
	}
	return nil
}

// fakeClockLimiters puts each zone's NoExecute tainter on a token bucket on the fake clock
// (qps, burst 1: NewTokenBucketRateLimiter(evictionLimiterQPS, EvictionRateLimiterBurst) on the
// real clock otherwise), once, as the zone's tainter is created (the first monitor pass).
func (c *nlCluster) fakeClockLimiters() {
	for zone, q := range unexported[map[string]*scheduler.RateLimitedTimedQueue](c.nc, "zoneNoExecuteTainter") {
		cur := unexported[flowcontrol.RateLimiter](q, "limiter")
		if mine, ok := c.limiters[zone]; ok && mine == cur {
			continue
		}
		if cur.QPS() <= 0 {
			continue
		}
		l := flowcontrol.NewTokenBucketRateLimiterWithClock(cur.QPS(), scheduler.EvictionRateLimiterBurst, c.h.clock)
		setUnexported(q, "limiter", l)
		c.limiters[zone] = l
	}
}

func (c *nlCluster) teQueuesLen() int {
	n := 0
	for _, f := range []string{"nodeUpdateQueue", "podUpdateQueue"} {
		n += int(teQueue(c.te, f).MethodByName("Len").Call(nil)[0].Int())
	}
	return n
}

func teQueue(te *tainteviction.Controller, field string) reflect.Value {
	f := reflect.ValueOf(te).Elem().FieldByName(field)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// drainTaintQueues does what the taint eviction controller's workers do with its queues: the
// node updates first, then the Pod updates (worker: node updates have priority).
func (c *nlCluster) drainTaintQueues(ctx context.Context) {
	for _, f := range []string{"nodeUpdateQueue", "podUpdateQueue"} {
		q := teQueue(c.te, f)
		for q.MethodByName("Len").Call(nil)[0].Int() > 0 {
			r := q.MethodByName("Get").Call(nil)
			item := r[0]
			if f == "nodeUpdateQueue" {
				teHandleNodeUpdate(c.te, ctx, teNodeUpdateItem{nodeName: item.Field(0).String()})
			} else {
				teHandlePodUpdate(c.te, ctx, tePodUpdateItem{podName: item.Field(0).String(), podNamespace: item.Field(1).String(), nodeName: item.Field(2).String()})
			}
			q.MethodByName("Done").Call([]reflect.Value{item})
		}
	}
}

// evictionState is the taint eviction queue's workers (nil: a work that ran at once, in progress
// or, up to 1.34, done) and how many works finished per Pod.
type evictionState struct {
	workers map[string]*tainteviction.TimedWorker
	done    map[string]int
}

func (c *nlCluster) evictionState() evictionState {
	st := evictionState{workers: map[string]*tainteviction.TimedWorker{}, done: map[string]int{}}
	c.teQueue.Lock()
	for k, w := range unexported[map[string]*tainteviction.TimedWorker](c.teQueue, "workers") {
		st.workers[k] = w
	}
	c.teQueue.Unlock()
	c.doneMu.Lock()
	for k, n := range c.done {
		st.done[k] = n
	}
	c.doneMu.Unlock()
	return st
}

// waitEvictions waits for the evictions started since before: the works that run at once (on a
// goroutine, their worker nil) and the fired timer's (key; from 1.35 on a goroutine too).
func (c *nlCluster) waitEvictions(before evictionState, key string) error {
	want := map[string]bool{}
	if key != "" {
		want[key] = true
	}
	c.teQueue.Lock()
	for k, w := range unexported[map[string]*tainteviction.TimedWorker](c.teQueue, "workers") {
		if old, had := before.workers[k]; w == nil && (!had || old != nil) {
			want[k] = true
		}
	}
	c.teQueue.Unlock()
	start := time.Now()
	for k := range want {
		for {
			c.doneMu.Lock()
			n := c.done[k]
			c.doneMu.Unlock()
			if n > before.done[k] {
				break
			}
			if time.Since(start) > 30*time.Second {
				return fmt.Errorf("taint eviction: the eviction of %s did not finish", k)
			}
			time.Sleep(20 * time.Microsecond)
		}
	}
	return nil
}

// ---- deliveries and the events compared ----

func (c *nlCluster) syncNodes() (bool, error) {
	if !c.nodesDirty {
		return false, nil
	}
	c.nodesDirty = false
	h := c.h
	list, err := h.client.Tracker().List(nodesGVR, corev1.SchemeGroupVersion.WithKind("Node"), "")
	if err != nil {
		return false, err
	}
	items := list.(*corev1.NodeList).Items
	store := c.nodeInf.GetIndexer()
	live := map[string]bool{}
	changed := false
	for i := range items {
		cur := &items[i]
		live[cur.Name] = true
		oldObj, exists, _ := store.Get(cur)
		if exists && sameIgnoringRV(cur, oldObj.(*corev1.Node), cur, oldObj.(*corev1.Node)) {
			continue
		}
		h.bumpRV(cur)
		if err := h.client.Tracker().Update(nodesGVR, cur.DeepCopy(), ""); err != nil {
			return false, err
		}
		changed = true
		if !exists {
			if err := store.Add(cur); err != nil {
				return false, err
			}
			for _, hd := range c.nodeInf.handlers {
				hd.OnAdd(cur, false)
			}
			continue
		}
		old := oldObj.(*corev1.Node)
		if err := store.Update(cur); err != nil {
			return false, err
		}
		c.nodeEvents(old, cur)
		for _, hd := range c.nodeInf.handlers {
			hd.OnUpdate(old, cur)
		}
	}
	for _, k := range store.ListKeys() {
		if live[k] {
			continue
		}
		obj, _, _ := store.GetByKey(k)
		if err := store.Delete(obj); err != nil {
			return false, err
		}
		for _, hd := range c.nodeInf.handlers {
			hd.OnDelete(obj)
		}
		changed = true
	}
	return changed, nil
}

// syncLeases: the node lifecycle controller reads Leases through its lister only.
func (c *nlCluster) syncLeases() error {
	if !c.leasesDirty {
		return nil
	}
	c.leasesDirty = false
	list, err := c.h.client.Tracker().List(leasesGVR, coordv1.SchemeGroupVersion.WithKind("Lease"), corev1.NamespaceNodeLease)
	if err != nil {
		return err
	}
	store := c.leaseIn.GetIndexer()
	for i := range list.(*coordv1.LeaseList).Items {
		cur := &list.(*coordv1.LeaseList).Items[i]
		oldObj, exists, _ := store.Get(cur)
		if exists && oldObj.(*coordv1.Lease).Spec.RenewTime.Equal(cur.Spec.RenewTime) {
			continue
		}
		c.h.bumpRV(cur)
		if err := store.Update(cur); err != nil {
			return err
		}
	}
	return nil
}

func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	for _, cd := range n.Status.Conditions {
		if cd.Type == corev1.NodeReady {
			return cd.Status
		}
	}
	return ""
}

func hasTaint(n *corev1.Node, key string, effect corev1.TaintEffect) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return true
		}
	}
	return false
}

// nodeEvents: a lost node's Ready condition went Unknown (NodeNotReady), it got the unreachable
// NoExecute taint (Tainted): events on the Pod it held.
func (c *nlCluster) nodeEvents(old, cur *corev1.Node) {
	l := c.lost[cur.Name]
	if l == nil {
		if nodeReady(cur) != corev1.ConditionTrue || hasTaint(cur, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute) {
			c.h.record(tlEvent{Event: "HarnessNote", Msg: "a node that was not lost is " + string(nodeReady(cur)) + ": " + cur.Name})
		}
		return
	}
	if !l.notReady && nodeReady(cur) == corev1.ConditionUnknown && nodeReady(old) != corev1.ConditionUnknown {
		l.notReady = true
		l.times["notReady"] = c.h.now()
		c.h.record(tlEvent{Event: "NodeNotReady", Job: l.job, Index: l.ix})
	}
	if !l.tainted && hasTaint(cur, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute) && !hasTaint(old, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute) {
		l.tainted = true
		l.times["tainted"] = c.h.now()
		c.h.record(tlEvent{Event: "Tainted", Job: l.job, Index: l.ix})
	}
}

func disruptionReason(p *corev1.Pod) string {
	for _, cd := range p.Status.Conditions {
		if cd.Type == corev1.DisruptionTarget && cd.Status == corev1.ConditionTrue {
			return cd.Reason
		}
	}
	return ""
}

// podEvents: a lost node's Pod got the taint manager's DisruptionTarget (Evicted), or was failed by
// Pod GC (PodGC, with the Job-level PodFailed: nobody else fails a Pod whose kubelet is gone). It
// sees each Pod as delivered, and as it is when it is deleted (Pod GC fails and force-deletes a Pod
// in one go: a Pod without finalizers is gone before any delivery).
func (c *nlCluster) podEvents(cur *corev1.Pod) {
	key := podKey(cur)
	if !c.lostPod(key) {
		return
	}
	l := c.lost[c.nodeOf[key]]
	if disruptionReason(cur) == "DeletionByTaintManager" && !l.evicted {
		l.evicted = true
		l.times["evicted"] = c.h.now()
		ev := c.h.podEvent("Evicted", cur)
		ev.Reason = "DeletionByTaintManager"
		c.h.record(ev)
	}
	if cur.Status.Phase == corev1.PodFailed && !l.failed {
		l.failed = true
		l.times["failed"] = c.h.now()
		ev := c.h.podEvent("PodGC", cur)
		ev.Reason = "TerminatingOutOfService" // gcTerminating: no condition
		if disruptionReason(cur) == "DeletionByPodGC" {
			ev.Reason = "DeletionByPodGC"
		}
		c.h.record(ev)
		c.h.record(c.h.podEvent("PodFailed", cur))
	}
}
