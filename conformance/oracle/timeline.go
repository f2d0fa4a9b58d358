package main

// The timeline leg, upstream side: the real Job controller (k8s.io/kubernetes/pkg/controller/job)
// runs a generated scenario against the fake clientset its unit tests use, on a fake clock, with
// a scripted kubelet. Everything that is asynchronous in a cluster is driven here, one step at a
// time, so that upstream's timeline is a function of the scenario alone (docs/oracle.md,
// "Timeline"):
//   - informers: the controller is given informers whose event handlers the harness captures;
//     after every write (by the controller or the kubelet) the harness copies the clientset's
//     objects into the informers' stores and calls the handlers itself, in key order;
//   - the work queue: the controller's queue is replaced by a deterministic one whose delays are
//     read on the fake clock; the harness syncs the Job (syncJob) whenever its key is due;
//   - the API server: reactors on the fake clientset give created Pods a name, UID, creation
//     time and resourceVersion, and do graceful deletion as kube-apiserver's Pod strategy does
//     (deletionTimestamp = now + grace period; 0 for a Pod that is terminal or unscheduled; an
//     object whose graceful deletion is over goes once its finalizers are gone).

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	jobcontroller "k8s.io/kubernetes/pkg/controller/job"
	jobregistry "k8s.io/kubernetes/pkg/registry/batch/job"
	clocktesting "k8s.io/utils/clock/testing"
)

// The controller's constructor with an injected clock (jobctrl_*.go: its signature changes
// between minors) and its sync function are unexported; the harness pulls them by name, as the
// other legs pull matchPodFailurePolicy (signatures must match job_controller.go exactly).
//
//go:linkname jobSync k8s.io/kubernetes/pkg/controller/job.(*Controller).syncJob
func jobSync(jm *jobcontroller.Controller, ctx context.Context, key string) error

// traceHarness: ORACLE_KLOG is set (main.go): the harness marks each sync with the fake clock's
// time among the controllers' log lines.
var traceHarness = os.Getenv("ORACLE_KLOG") != ""

// tlEpoch is the scenario's time 0 on the fake clock.
var tlEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ---- informers whose handlers the harness calls ----

type capturedInformer struct {
	cache.SharedIndexInformer
	handlers []cache.ResourceEventHandler
}

func (c *capturedInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	c.handlers = append(c.handlers, h)
	return nil, nil
}
func (c *capturedInformer) HasSynced() bool { return true }

type podInformer struct {
	coreinformers.PodInformer
	inf *capturedInformer
}

func (p podInformer) Informer() cache.SharedIndexInformer { return p.inf }

type jobInformer struct {
	batchinformers.JobInformer
	inf *capturedInformer
}

func (j jobInformer) Informer() cache.SharedIndexInformer { return j.inf }

// ---- a deterministic work queue ----

// tlQueue holds each key with the instant it is due (the earliest asked, as client-go's delaying
// queue keeps); the harness pops due keys in (time, insertion) order. Retries after a sync error
// use the controller's own rate limiter figures (exponential, 1 s doubling to 1 min).
type tlQueue struct {
	clock   *clocktesting.FakeClock
	due     map[string]time.Time
	order   map[string]int
	seq     int
	limiter workqueue.TypedRateLimiter[string]
	// lowPriority is the JobSet controller's key (see later).
	lowPriority string
}

func newTLQueue(c *clocktesting.FakeClock) *tlQueue {
	return &tlQueue{clock: c, due: map[string]time.Time{}, order: map[string]int{},
		limiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](jobcontroller.DefaultJobApiBackOff, jobcontroller.MaxJobApiBackOff)}
}

func (q *tlQueue) AddAfter(k string, d time.Duration) {
	at := q.clock.Now().Add(d)
	if cur, ok := q.due[k]; ok && !at.Before(cur) {
		return
	}
	q.due[k] = at
	q.seq++
	q.order[k] = q.seq
}
func (q *tlQueue) Add(k string)            { q.AddAfter(k, 0) }
func (q *tlQueue) AddRateLimited(k string) { q.AddAfter(k, q.limiter.When(k)) }
func (q *tlQueue) Forget(k string)         { q.limiter.Forget(k) }
func (q *tlQueue) NumRequeues(k string) int {
	return q.limiter.NumRequeues(k)
}
func (q *tlQueue) Len() int            { return len(q.due) }
func (q *tlQueue) Get() (string, bool) { panic("the harness drives the queue") }
func (q *tlQueue) Done(string)         {}
func (q *tlQueue) ShutDown()           {}
func (q *tlQueue) ShutDownWithDrain()  {}
func (q *tlQueue) ShuttingDown() bool  { return false }
func (q *tlQueue) next() (string, time.Time, bool) {
	best, found := "", false
	var at time.Time
	for k, t := range q.due {
		if !found || t.Before(at) || (t.Equal(at) && q.later(best, k)) {
			best, at, found = k, t, true
		}
	}
	return best, at, found
}

// later says whether key b goes before key a when both are due at one instant: in insertion
// order, except that the JobSet controller's key waits until no Job is due at that instant (the
// two controllers race in a cluster; the harness settles the Jobs first, as restartkit does).
func (q *tlQueue) later(a, b string) bool {
	if q.lowPriority != "" && (a == q.lowPriority) != (b == q.lowPriority) {
		return a == q.lowPriority
	}
	return q.order[b] < q.order[a]
}

// setUnexported writes an unexported field of the controller (the queue): the controller offers
// no option to inject it.
func setUnexported(obj any, field string, value any) {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}

// unexported reads an unexported field of the controller.
func unexported[T any](obj any, field string) T {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(T)
}

// ---- scenario events ----

// tlEvent is one Job-level event, as both sides are reduced to for the comparison.
type tlEvent struct {
	T      float64 `json:"t"`
	Event  string  `json:"event"`           // PodCreated, PodDeleted, PodFailed, PodSucceeded, Condition; JobSet scenarios also JobCreated, JobDeleted, JobGone, JobSet
	Job    string  `json:"job,omitempty"`   // the Job of a Pod or Job event (JobSet scenarios only)
	Index  string  `json:"index,omitempty"` // completion index ("" for NonIndexed); a JobCreated's restart-attempt label
	Type   string  `json:"type,omitempty"`  // condition type
	Reason string  `json:"reason,omitempty"`
	Msg    string  `json:"message,omitempty"`
}

type tlOutcome struct {
	Events    []tlEvent `json:"events"`
	Failed    int32     `json:"failed"`
	Succeeded int32     `json:"succeeded"`
	Final     string    `json:"final"` // Complete, Failed or Running at the end
}

// ---- the harness ----

type kubeletAction struct {
	at   time.Time
	seq  int
	pod  string // pod key
	kind string // bind, start, exit, restart, node, kill
	ctr  string // the container of an exit or restart
	code int32
	rsn  string
}

type tlHarness struct {
	sc     *tlScenario
	clock  *clocktesting.FakeClock
	client *fake.Clientset
	ctrl   *jobcontroller.Controller
	queue  *tlQueue
	podInf *capturedInformer
	jobInf *capturedInformer
	mu     sync.Mutex
	// generated counts the Pods created per GenerateName (guarded by mu).
	generated map[string]int
	rv        int
	actions   []kubeletAction
	aseq      int
	cursors   map[string]*[2]int // per completion index: (exit entry, runs used)
	out       tlOutcome
	seenPod   map[string]*corev1.Pod
	// NonIndexed Pods' slots (see index).
	slotOf   map[string]int
	doneSlot map[slotKey]bool
	// Indexes (or slots) that had a Pod: the next one is a replacement.
	created map[string]bool
	// CrashLoopBackOff entries per Pod (restartPolicy OnFailure).
	crash           map[string]*crashEntry
	kubeletDeleting bool
	// dirty: something was written since the informers last caught up (see sync).
	dirty bool
	// The JobSet controller's part (timeline_jobset.go); nil in Job scenarios.
	js *jsHarness
	// The cluster's handling of a lost node (timeline_nodeloss.go); nil in scenarios without one.
	nl *nlCluster
	// onGap, when set, is called once an instant's actions and syncs are done, before the clock
	// moves on to the next instant anything happens at (`until`); the explain leg snapshots
	// the objects there.
	onGap func(until time.Time)
}

func (h *tlHarness) now() float64 { return h.clock.Now().Sub(tlEpoch).Seconds() }

// record may run on the controller's goroutines (it deletes Pods in parallel).
func (h *tlHarness) record(e tlEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.T = h.now()
	h.out.Events = append(h.out.Events, e)
}

// index is a Pod's identity for scripts and events: its completion index, or for a NonIndexed
// Job the slot the harness gave it when it appeared (the lowest slot that has not succeeded and
// holds no running Pod: restartkit's slots; NonIndexed Pods created at one instant are
// interchangeable, so which of them gets which slot does not matter).
func (h *tlHarness) index(p *corev1.Pod) string {
	if ix, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		return ix
	}
	if s, ok := h.slotOf[string(p.UID)]; ok {
		return strconv.Itoa(s)
	}
	return ""
}

func (h *tlHarness) assignSlot(p *corev1.Pod) {
	if _, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		return
	}
	// Slots are per Job (restartkit's are the Job's own): only the Pods of the same Job object
	// hold one, and a Job recreated by a JobSet restart (a new UID) starts with all free.
	owner := ownerUID(p)
	held := map[int]bool{}
	for _, q := range h.seenPod {
		s, ok := h.slotOf[string(q.UID)]
		terminating := q.DeletionTimestamp != nil
		if terminating && h.replacesOnlyFailed(q) {
			// A Terminating Pod whose Job replaces only Failed Pods keeps its slot until it
			// fails (restartkit's slots): on a lost node until Pod GC fails it, when preempted
			// or evicted until the kubelet ends it.
			terminating = false
		}
		if ok && ownerUID(q) == owner && !terminating && q.Status.Phase != corev1.PodFailed && q.Status.Phase != corev1.PodSucceeded {
			held[s] = true
		}
	}
	for s := 0; ; s++ {
		if !held[s] && !h.doneSlot[slotKey{owner, s}] {
			h.slotOf[string(p.UID)] = s
			return
		}
	}
}

// replacesOnlyFailed: Pod p's Job counts and replaces a Pod only once it is Failed (a
// podFailurePolicy, or podReplacementPolicy Failed). The Job as stored: in a JobSet scenario each
// replicatedJob's template says it for its own Jobs.
func (h *tlHarness) replacesOnlyFailed(p *corev1.Pod) bool {
	obj, err := h.client.Tracker().Get(jobsGVR, p.Namespace, h.jobOf(p))
	if err != nil {
		return false
	}
	job, ok := obj.(*batchv1.Job)
	return ok && (job.Spec.PodFailurePolicy != nil ||
		(job.Spec.PodReplacementPolicy != nil && *job.Spec.PodReplacementPolicy == batchv1.Failed))
}

// slotKey names a NonIndexed Job's slot: the Job object's UID and the slot.
type slotKey struct {
	job  types.UID
	slot int
}

// ownerUID is the UID of the Job that controls a Pod.
func ownerUID(p *corev1.Pod) types.UID {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return ref.UID
	}
	return ""
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// reactors make the fake clientset behave as kube-apiserver does where the controller's timeline
// depends on it: generated names, UIDs, creation times, graceful Pod deletion.
func (h *tlHarness) installReactors() {
	defer h.client.PrependReactor("*", "*", func(clienttesting.Action) (bool, runtime.Object, error) {
		h.dirty = true // every write through the clientset (the controllers', the kubelet's deletes)
		return false, nil, nil
	})
	// kube-apiserver validates a Job's status update (the registry's StatusStrategy: e.g. "cannot
	// set more ready pods than active"); the fake clientset does not, and a controller whose
	// update a cluster refuses (up to 1.35 the Job controller wrote active 0 while Pods were
	// ready when its pod-failure backoff held back a replacement) must see it refused here too.
	h.client.PrependReactor("update", "jobs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		u, ok := a.(clienttesting.UpdateAction)
		if !ok || u.GetSubresource() != "status" {
			return false, nil, nil
		}
		newJob, ok := u.GetObject().(*batchv1.Job)
		if !ok {
			return false, nil, nil
		}
		cur, err := h.client.Tracker().Get(jobsGVR, newJob.Namespace, newJob.Name)
		if err != nil {
			return false, nil, nil
		}
		var oldI, newI batch.Job
		if err := legacyscheme.Scheme.Convert(cur.(*batchv1.Job), &oldI, nil); err != nil {
			return true, nil, err
		}
		if err := legacyscheme.Scheme.Convert(newJob, &newI, nil); err != nil {
			return true, nil, err
		}
		jobregistry.StatusStrategy.PrepareForUpdate(ctxNS(), &newI, &oldI)
		if errs := jobregistry.StatusStrategy.ValidateUpdate(ctxNS(), &newI, &oldI); len(errs) > 0 {
			return true, nil, apierrors.NewInvalid(batchv1.SchemeGroupVersion.WithKind("Job").GroupKind(), newJob.Name, errs)
		}
		return false, nil, nil
	})
	h.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		// The controller creates Pods from parallel goroutines: a name numbered by one counter
		// for all Pods depended on their order (and the informers deliver in name order). Numbered
		// per GenerateName, an Indexed Pod's name depends only on its Job, index and how many
		// Pods that index had; NonIndexed Pods created at one instant share a GenerateName and
		// are interchangeable. The UID follows from the name.
		h.mu.Lock()
		if h.generated == nil {
			h.generated = map[string]int{}
		}
		h.generated[pod.GenerateName]++
		n := h.generated[pod.GenerateName]
		h.mu.Unlock()
		if pod.Name == "" {
			pod.Name = pod.GenerateName + strconv.Itoa(n)
		}
		pod.UID = types.UID("pod-uid-" + pod.Name)
		pod.CreationTimestamp = metav1.NewTime(h.clock.Now())
		if h.nl != nil {
			// The DefaultTolerationSeconds admission plugin (kube-apiserver's default set).
			if err := h.nl.admit(pod); err != nil {
				return true, nil, err
			}
		}
		if pod.Spec.TerminationGracePeriodSeconds == nil {
			g := int64(corev1.DefaultTerminationGracePeriodSeconds)
			pod.Spec.TerminationGracePeriodSeconds = &g
		}
		return false, nil, nil // the tracker stores it
	})
	h.client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		d := a.(clienttesting.DeleteActionImpl)
		obj, err := h.client.Tracker().Get(d.GetResource(), d.GetNamespace(), d.GetName())
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*corev1.Pod).DeepCopy()
		if h.nl != nil {
			h.nl.podEvents(pod)
		}
		// kube-apiserver's Pod strategy: no grace for a Pod that never ran on a node or is terminal.
		grace := *pod.Spec.TerminationGracePeriodSeconds
		if d.DeleteOptions.GracePeriodSeconds != nil {
			grace = *d.DeleteOptions.GracePeriodSeconds
		}
		if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
			grace = 0
		}
		// (Pod GC's force delete of a lost node's Pod it has just failed is part of its PodGC
		// event, timeline_nodeloss.go.)
		gcDelete := h.nl != nil && h.nl.lostPod(podKey(pod)) && pod.Status.Phase == corev1.PodFailed
		if !h.kubeletDeleting && pod.DeletionTimestamp == nil && !gcDelete {
			h.record(h.podEvent("PodDeleted", pod))
		}
		if grace == 0 && len(pod.Finalizers) == 0 {
			return true, nil, h.client.Tracker().Delete(d.GetResource(), d.GetNamespace(), d.GetName())
		}
		if pod.DeletionTimestamp == nil || grace == 0 {
			ts := metav1.NewTime(h.clock.Now().Add(time.Duration(grace) * time.Second))
			pod.DeletionTimestamp = &ts
			pod.DeletionGracePeriodSeconds = &grace
		}
		return true, nil, h.client.Tracker().Update(d.GetResource(), pod, d.GetNamespace())
	})
}

var podsGVR = corev1.SchemeGroupVersion.WithResource("pods")
var jobsGVR = batchv1.SchemeGroupVersion.WithResource("jobs")

// sync plays the informers: the clientset's objects go into the stores, and the controller's
// handlers see every change, in key order. The harness's kubelet sees the same changes.
func (h *tlHarness) sync() error {
	// Nothing was written since the last delivery: nothing to deliver (the common case after
	// a sync that changed nothing; listing and comparing every object is the harness's cost).
	if !h.dirty {
		return nil
	}
	h.dirty = false
	for round := 0; ; round++ {
		if round > 100 {
			return fmt.Errorf("objects keep changing at t=%gs", h.now())
		}
		changed, err := h.syncPods()
		if err != nil {
			return err
		}
		jchanged, err := h.syncJobs()
		if err != nil {
			return err
		}
		if h.nl != nil {
			nchanged, err := h.nl.syncNodes()
			if err != nil {
				return err
			}
			if err := h.nl.syncLeases(); err != nil {
				return err
			}
			jchanged = jchanged || nchanged
		}
		if h.js != nil {
			// The JobSet's changes, then the garbage collector (timeline_jobset.go).
			jschanged, err := h.js.syncJobSet(h)
			if err != nil {
				return err
			}
			gcchanged, err := h.js.collectGarbage(h)
			if err != nil {
				return err
			}
			jchanged = jchanged || jschanged || gcchanged
		}
		if !changed && !jchanged {
			return nil
		}
	}
}

// fakeTimes puts the fake clock's now in the Pod condition times a controller stamped with the
// real clock (utilpod.UpdatePodCondition and apipod.UpdatePodCondition use metav1.Now: the node
// lifecycle controller's Ready=False, the taint manager's and Pod GC's DisruptionTarget). The Job
// controller reads the Ready=False transition time as a lost Pod's finish time for its back-off
// (job/backoff_utils.go getFinishedTime): it is the instant of the write.
func (h *tlHarness) fakeTimes(p *corev1.Pod) {
	now := h.clock.Now()
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.LastTransitionTime.Time.After(now) {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		if c.LastProbeTime.Time.After(now) {
			c.LastProbeTime = metav1.NewTime(now)
		}
	}
}

func (h *tlHarness) bumpRV(obj metav1.Object) string {
	h.rv++
	obj.SetResourceVersion(strconv.Itoa(h.rv))
	return obj.GetResourceVersion()
}

func sameIgnoringRV(a, b metav1.Object, ao, bo runtime.Object) bool {
	ar, br := a.GetResourceVersion(), b.GetResourceVersion()
	a.SetResourceVersion("")
	b.SetResourceVersion("")
	same := reflect.DeepEqual(ao, bo)
	a.SetResourceVersion(ar)
	b.SetResourceVersion(br)
	return same
}

func (h *tlHarness) syncPods() (bool, error) {
	list, err := h.client.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
	if err != nil {
		return false, err
	}
	items := list.(*corev1.PodList).Items
	// An object whose graceful deletion is over goes once its finalizers are gone.
	live := map[string]*corev1.Pod{}
	for i := range items {
		p := &items[i]
		if p.DeletionTimestamp != nil && len(p.Finalizers) == 0 && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0 {
			if err := h.client.Tracker().Delete(podsGVR, p.Namespace, p.Name); err != nil {
				return false, err
			}
			continue
		}
		live[podKey(p)] = p
	}
	keys := make([]string, 0, len(live)+len(h.seenPod))
	for k := range live {
		keys = append(keys, k)
	}
	for k := range h.seenPod {
		if live[k] == nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	changed := false
	store := h.podInf.GetIndexer()
	for _, k := range keys {
		cur, old := live[k], h.seenPod[k]
		switch {
		case cur == nil:
			delete(h.seenPod, k)
			if err := store.Delete(old); err != nil {
				return false, err
			}
			for _, hd := range h.podInf.handlers {
				hd.OnDelete(old)
			}
			changed = true
		case old == nil:
			cur = cur.DeepCopy()
			h.fakeTimes(cur)
			h.bumpRV(cur)
			if err := h.client.Tracker().Update(podsGVR, cur.DeepCopy(), cur.Namespace); err != nil {
				return false, err
			}
			h.assignSlot(cur)
			h.seenPod[k] = cur
			if err := store.Add(cur); err != nil {
				return false, err
			}
			h.record(h.podEvent("PodCreated", cur))
			for _, hd := range h.podInf.handlers {
				hd.OnAdd(cur, false)
			}
			h.kubeletSees(nil, cur)
			changed = true
		case !sameIgnoringRV(cur, old, cur, old):
			cur = cur.DeepCopy()
			h.fakeTimes(cur)
			h.bumpRV(cur)
			if err := h.client.Tracker().Update(podsGVR, cur.DeepCopy(), cur.Namespace); err != nil {
				return false, err
			}
			h.seenPod[k] = cur
			if err := store.Update(cur); err != nil {
				return false, err
			}
			if h.nl != nil {
				h.nl.podEvents(cur)
			}
			for _, hd := range h.podInf.handlers {
				hd.OnUpdate(old, cur)
			}
			h.kubeletSees(old, cur)
			changed = true
		}
	}
	return changed, nil
}

func (h *tlHarness) syncJobs() (bool, error) {
	list, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), "")
	if err != nil {
		return false, err
	}
	changed := false
	store := h.jobInf.GetIndexer()
	live := map[string]bool{}
	for i := range list.(*batchv1.JobList).Items {
		cur := list.(*batchv1.JobList).Items[i].DeepCopy()
		live[cur.Namespace+"/"+cur.Name] = true
		oldObj, exists, _ := store.Get(cur)
		if exists && oldObj.(*batchv1.Job).UID != cur.UID {
			// Deleted and recreated under the same name between two deliveries: the informer
			// sees the deletion first.
			if err := h.jobGone(oldObj.(*batchv1.Job)); err != nil {
				return false, err
			}
			exists = false
		}
		if !exists {
			h.bumpRV(cur)
			if err := h.client.Tracker().Update(jobsGVR, cur.DeepCopy(), cur.Namespace); err != nil {
				return false, err
			}
			if err := store.Add(cur); err != nil {
				return false, err
			}
			if h.js != nil {
				h.record(tlEvent{Event: "JobCreated", Job: cur.Name, Index: cur.Labels[jobsetRestartsLabel]})
				h.js.enqueue()
			}
			for _, hd := range h.jobInf.handlers {
				hd.OnAdd(cur, false)
			}
			changed = true
			continue
		}
		old := oldObj.(*batchv1.Job)
		if sameIgnoringRV(cur, old, cur, old) {
			continue
		}
		h.bumpRV(cur)
		if err := h.client.Tracker().Update(jobsGVR, cur.DeepCopy(), cur.Namespace); err != nil {
			return false, err
		}
		if err := store.Update(cur); err != nil {
			return false, err
		}
		for _, c := range cur.Status.Conditions {
			if c.Status == corev1.ConditionTrue && !hasJobCondition(old, c.Type) {
				h.record(tlEvent{Event: "Condition", Job: h.jobLabel(cur.Name), Type: string(c.Type), Reason: c.Reason, Msg: c.Message})
			}
		}
		if h.js != nil {
			if cur.DeletionTimestamp != nil && old.DeletionTimestamp == nil {
				h.record(tlEvent{Event: "JobDeleted", Job: cur.Name})
			}
			h.js.enqueue()
		} else {
			h.out.Failed, h.out.Succeeded = cur.Status.Failed, cur.Status.Succeeded
		}
		for _, hd := range h.jobInf.handlers {
			hd.OnUpdate(old, cur)
		}
		changed = true
	}
	for _, k := range store.ListKeys() {
		if live[k] {
			continue
		}
		obj, _, _ := store.GetByKey(k)
		if err := h.jobGone(obj.(*batchv1.Job)); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// jobGone delivers a Job's removal from the API server.
func (h *tlHarness) jobGone(old *batchv1.Job) error {
	if err := h.jobInf.GetIndexer().Delete(old); err != nil {
		return err
	}
	if h.js != nil {
		h.record(tlEvent{Event: "JobGone", Job: old.Name})
		h.js.enqueue()
	}
	for _, hd := range h.jobInf.handlers {
		hd.OnDelete(old)
	}
	return nil
}

// jobLabel is the Job's name in events: only JobSet scenarios have several Jobs.
func (h *tlHarness) jobLabel(name string) string {
	if h.js == nil {
		return ""
	}
	return name
}

// jobOf is the name of the Job a Pod belongs to (its controller's).
func (h *tlHarness) jobOf(p *corev1.Pod) string {
	if ref := metav1.GetControllerOf(p); ref != nil {
		return ref.Name
	}
	return ""
}

// podEvent is a Pod event as compared: its index, and in JobSet scenarios its Job.
func (h *tlHarness) podEvent(kind string, p *corev1.Pod) tlEvent {
	return tlEvent{Event: kind, Job: h.jobLabel(h.jobOf(p)), Index: h.index(p)}
}

func hasJobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// ---- the scripted kubelet ----

func (h *tlHarness) schedule(at time.Time, pod, kind string, code int32, reason string) {
	h.scheduleFor(at, pod, kind, "", code, reason)
}

func (h *tlHarness) scheduleFor(at time.Time, pod, kind, ctr string, code int32, reason string) {
	h.aseq++
	h.actions = append(h.actions, kubeletAction{at: at, seq: h.aseq, pod: pod, kind: kind, ctr: ctr, code: code, rsn: reason})
}

// kubeletSees reacts to a Pod change: a new Pod is bound and starts at once (the generated
// scenarios have no start-up or rescheduling time) and its script decides when it ends; a Pod
// whose deletion was asked for is killed when its grace period is over.
func (h *tlHarness) kubeletSees(old, cur *corev1.Pod) {
	terminal := cur.Status.Phase == corev1.PodFailed || cur.Status.Phase == corev1.PodSucceeded
	if old == nil && cur.DeletionTimestamp == nil {
		// Bound to a node at once; its container runs startupSeconds later, and a replacement
		// (a Pod for an index or slot that had one before) podRescheduleSeconds before that.
		// Init containers (the generated ones complete as soon as they run; sidecars run on)
		// come first, each startupSeconds after the one before, as restartkit's kubelet
		// starts them.
		delay := 0.0
		ix := h.jobOf(cur) + "/" + h.index(cur)
		if h.created[ix] {
			delay += h.sc.PodRescheduleSeconds
		}
		h.created[ix] = true
		if delay+h.sc.StartupSeconds > 0 {
			h.schedule(h.clock.Now(), podKey(cur), "bind", 0, "")
		}
		for _, c := range cur.Spec.InitContainers {
			delay += h.sc.StartupSeconds
			h.scheduleFor(h.clock.Now().Add(time.Duration(delay*float64(time.Second))), podKey(cur), "init", c.Name, 0, "")
		}
		delay += h.sc.StartupSeconds
		h.schedule(h.clock.Now().Add(time.Duration(delay*float64(time.Second))), podKey(cur), "start", 0, "")
		return
	}
	if cur.DeletionTimestamp != nil && (old == nil || old.DeletionTimestamp == nil) && !terminal && cur.Spec.NodeName != "" {
		// Running containers get the grace period; a Pod with none running (not started yet,
		// or waiting in CrashLoopBackOff) has nothing to stop and ends at once.
		at := h.clock.Now()
		for _, cs := range append(cur.Status.ContainerStatuses, cur.Status.InitContainerStatuses...) {
			if cs.State.Running != nil {
				at = cur.DeletionTimestamp.Time
			}
		}
		h.schedule(at, podKey(cur), "kill", 137, "Error")
	}
}

func (h *tlHarness) getPod(key string) (*corev1.Pod, error) {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	obj, err := h.client.Tracker().Get(podsGVR, ns, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod).DeepCopy(), nil
}

func (h *tlHarness) updatePod(p *corev1.Pod) error {
	h.dirty = true
	h.setReadiness(p)
	return h.client.Tracker().Update(podsGVR, p, p.Namespace)
}

// setReadiness gives the Pod the ContainersReady and Ready conditions the kubelet's status
// manager gives it (pkg/kubelet/status GenerateContainersReadyCondition and
// GeneratePodReadyCondition, without probes or readiness gates, which no scenario has): ready
// while it is Running and every regular container and every sidecar is ready. The Job
// controller counts ready Pods (status.ready), and the API server refuses a status with more
// ready Pods than active ones.
func (h *tlHarness) setReadiness(p *corev1.Pod) {
	ready := p.Status.Phase == corev1.PodRunning && len(p.Status.ContainerStatuses) == len(p.Spec.Containers)
	for _, cs := range p.Status.ContainerStatuses {
		ready = ready && cs.Ready
	}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			continue
		}
		cs := initContainerStatus(p, c.Name)
		ready = ready && cs != nil && cs.Ready
	}
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	for _, t := range []corev1.PodConditionType{corev1.ContainersReady, corev1.PodReady} {
		found := false
		for i := range p.Status.Conditions {
			c := &p.Status.Conditions[i]
			if c.Type != t {
				continue
			}
			found = true
			if c.Status != status {
				c.Status, c.LastTransitionTime = status, metav1.NewTime(h.clock.Now())
			}
		}
		if !found {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: status, LastTransitionTime: metav1.NewTime(h.clock.Now())})
		}
	}
}

func initContainerStatus(p *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range p.Status.InitContainerStatuses {
		if p.Status.InitContainerStatuses[i].Name == name {
			return &p.Status.InitContainerStatuses[i]
		}
	}
	return nil
}

// nextScript consumes the next run of the scenario's exits for the Pod's completion index (the
// same cursor semantics as restartkit's: entries in order, `times` runs each, omitted = every
// run from there on).
func (h *tlHarness) nextScript(pod *corev1.Pod, ctr string) *tlExit {
	index := h.index(pod)
	rj, jobIndex := pod.Labels[jobsetReplicatedJobLabel], pod.Labels[jobsetJobIndexLabel]
	key := h.jobOf(pod) + "/" + index + "/" + ctr
	cur := h.cursors[key]
	if cur == nil {
		cur = &[2]int{}
		h.cursors[key] = cur
	}
	for cur[0] < len(h.sc.Exits) {
		e := &h.sc.Exits[cur[0]]
		if (e.PodIndex != nil && strconv.Itoa(*e.PodIndex) != index) || (e.Container != "" && e.Container != ctr) ||
			(e.ReplicatedJob != "" && e.ReplicatedJob != rj) || (e.JobIndex != nil && strconv.Itoa(*e.JobIndex) != jobIndex) {
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

func (h *tlHarness) act(a kubeletAction) error {
	if h.nl != nil {
		if a.kind == "nodeDelete" || a.kind == "outOfService" {
			return h.nl.operator(a)
		}
		if h.nl.lostPod(a.pod) {
			return nil // the node is lost: its kubelet does nothing more
		}
	}
	pod, err := h.getPod(a.pod)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	nodeName := "node-0"
	if h.nl != nil {
		if nodeName, err = h.nl.nodeFor(a.pod); err != nil {
			return err
		}
	}
	terminal := pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded
	now := metav1.NewTime(h.clock.Now())
	switch a.kind {
	case "bind":
		pod.Spec.NodeName = nodeName
		return h.updatePod(pod)
	case "init":
		if terminal || pod.DeletionTimestamp != nil {
			return nil
		}
		pod.Spec.NodeName = nodeName
		for _, c := range pod.Spec.InitContainers {
			if c.Name != a.ctr {
				continue
			}
			if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
				// A sidecar: it runs until the Pod ends (no script applies to it).
				pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, corev1.ContainerStatus{
					Name: c.Name, Ready: true, Started: ptrTo(true),
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
			} else {
				pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, corev1.ContainerStatus{
					Name: c.Name, Started: ptrTo(false),
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
						ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}}})
			}
		}
		return h.updatePod(pod)
	case "start":
		if terminal || pod.DeletionTimestamp != nil {
			return nil // the kubelet starts nothing in a Pod that is being deleted
		}
		pod.Spec.NodeName = nodeName
		pod.Status.Phase = corev1.PodRunning
		pod.Status.StartTime = &now
		pod.Status.ContainerStatuses = nil
		for _, c := range pod.Spec.Containers {
			pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Ready: true, Started: ptrTo(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}})
		}
		for _, c := range pod.Spec.Containers {
			h.scheduleScript(a.pod, pod, c.Name)
		}
		return h.updatePod(pod)
	case "restart":
		if terminal || pod.DeletionTimestamp != nil {
			return nil
		}
		cs := containerStatus(pod, a.ctr)
		if cs == nil {
			return nil
		}
		cs.RestartCount++
		cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		cs.Ready, cs.Started = true, ptrTo(true)
		h.scheduleScript(a.pod, pod, a.ctr)
		return h.updatePod(pod)
	case "disrupt":
		// What the scheduler's preemption (framework/preemption executor.go) or the Eviction
		// API (registry/core/pod/storage/eviction.go) does to a live Pod: DisruptionTarget by a
		// status update, then a delete with the Pod's own grace period.
		if terminal || pod.DeletionTimestamp != nil {
			return nil
		}
		msg := "Eviction API: evicting"
		if a.rsn == "PreemptionByScheduler" {
			msg = "default-scheduler: preempting to accommodate a higher priority pod"
		}
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
			Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: a.rsn, Message: msg, LastTransitionTime: now})
		if err := h.updatePod(pod); err != nil {
			return err
		}
		ev := h.podEvent("Disrupted", pod)
		ev.Reason = a.rsn
		h.record(ev)
		return h.client.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{})
	case "node":
		// The Pod's node is lost (timeline_nodeloss.go): the cluster takes it from here.
		if !terminal {
			h.nl.lose(pod)
		}
		return nil
	case "exit", "kill", "idealnode":
		if terminal {
			return nil
		}
		terminate := func(cs *corev1.ContainerStatus, code int32, reason string) {
			started := now
			if cs.State.Running != nil {
				started = cs.State.Running.StartedAt
			}
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: now}}
			cs.Ready, cs.Started = false, ptrTo(false)
		}
		if a.kind == "exit" {
			cs := containerStatus(pod, a.ctr)
			if cs == nil || cs.State.Running == nil {
				return nil
			}
			if a.code != 0 && pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && pod.DeletionTimestamp == nil {
				// OnFailure: the kubelet restarts the container in place after its
				// CrashLoopBackOff (restartkit's curve, see crashLoopDelay); the Pod stays Running.
				terminate(cs, a.code, a.rsn)
				cs.LastTerminationState, cs.State = cs.State, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
				delay := h.crashLoopDelay(a.pod + "/" + a.ctr)
				h.scheduleFor(h.clock.Now().Add(delay+time.Duration(h.sc.StartupSeconds*float64(time.Second))), a.pod, "restart", a.ctr, 0, "")
				return h.updatePod(pod)
			}
			terminate(cs, a.code, a.rsn)
		} else {
			// The end of the grace period, or the idealised instant node failure: what still
			// runs, waits to restart or never started ends with 137.
			for _, c := range pod.Spec.Containers {
				if containerStatus(pod, c.Name) == nil {
					pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c.Name})
				}
			}
			for i := range pod.Status.ContainerStatuses {
				if cs := &pod.Status.ContainerStatuses[i]; cs.State.Terminated == nil {
					terminate(cs, 137, "Error")
				}
			}
		}
		if a.kind == "idealnode" {
			pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{
				Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "DeletionByTaintManager",
				Message: "Taint manager: deleting due to NoExecute taint", LastTransitionTime: now})
		}
		// The Pod ends when every container has: Succeeded if all exited 0. Sidecars do not
		// count; the kubelet stops them then (killed, 137: restartkit's worst case).
		allZero := true
		for _, cs := range pod.Status.ContainerStatuses {
			if cs.State.Terminated == nil {
				return h.updatePod(pod)
			}
			allZero = allZero && cs.State.Terminated.ExitCode == 0
		}
		for i := range pod.Status.InitContainerStatuses {
			if cs := &pod.Status.InitContainerStatuses[i]; cs.State.Running != nil {
				terminate(cs, 137, "Error")
			}
		}
		if allZero {
			if s, ok := h.slotOf[string(pod.UID)]; ok {
				h.doneSlot[slotKey{ownerUID(pod), s}] = true
			}
			pod.Status.Phase = corev1.PodSucceeded
			h.record(h.podEvent("PodSucceeded", pod))
		} else {
			pod.Status.Phase = corev1.PodFailed
			h.record(h.podEvent("PodFailed", pod))
		}
		if err := h.updatePod(pod); err != nil {
			return err
		}
		if pod.DeletionTimestamp != nil {
			// The kubelet's final delete once the Pod's containers are gone.
			h.kubeletDeleting = true
			defer func() { h.kubeletDeleting = false }()
			zero := int64(0)
			return h.client.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
		}
	}
	return nil
}

func containerStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == name {
			return &pod.Status.ContainerStatuses[i]
		}
	}
	return nil
}

func ptrTo[T any](v T) *T { return &v }

// scheduleScript schedules how the container's run that starts now ends, from the scenario's
// exits (restartkit's cursor per index or slot and container).
func (h *tlHarness) scheduleScript(key string, pod *corev1.Pod, ctr string) {
	e := h.nextScript(pod, ctr)
	if e == nil {
		return
	}
	at := h.clock.Now().Add(time.Duration(e.AfterSeconds * float64(time.Second)))
	if e.Disruption != "" {
		h.schedule(at, key, "disrupt", 0, e.Disruption)
		return
	}
	if e.NodeFailure {
		kind := "node"
		if h.sc.idealisedNodeLoss() {
			kind = "idealnode"
		}
		h.schedule(at, key, kind, 137, "")
		return
	}
	reason := e.Reason
	if reason == "" {
		reason = "Error"
		if e.ExitCode == 0 {
			reason = "Completed"
		}
	}
	h.scheduleFor(at, key, "exit", ctr, e.ExitCode, reason)
}

// crashLoopDelay is the kubelet's CrashLoopBackOff before it restarts the Pod's container (a
// kubelet decision: restartkit's figures, from its backoff op, checked by the kubelet legs): the
// first restart at once, then initial, doubling to max; the curve starts again after a wait of
// more than resetAfterRun since the last restart.
func (h *tlHarness) crashLoopDelay(key string) time.Duration {
	now := h.clock.Now()
	c, ok := h.crash[key]
	if ok && now.Sub(c.last) <= kubeletCurve.resetAfterRun {
		d := c.backoff
		c.last = now.Add(d)
		c.backoff = min(2*c.backoff, kubeletCurve.max)
		return d
	}
	h.crash[key] = &crashEntry{backoff: kubeletCurve.initial, last: now}
	return 0
}

type crashEntry struct {
	backoff time.Duration
	last    time.Time
}

// kubeletCurve holds restartkit's CrashLoopBackOff figures for the scenarios' release (asked
// once per run, runTimeline).
var kubeletCurve struct{ initial, max, resetAfterRun time.Duration }

func (h *tlHarness) nextAction() (int, bool) {
	best := -1
	for i, a := range h.actions {
		if best < 0 || a.at.Before(h.actions[best].at) || (a.at.Equal(h.actions[best].at) && a.seq < h.actions[best].seq) {
			best = i
		}
	}
	return best, best >= 0
}

// newTLHarness builds the harness around a real Job controller: the fake clientset with the
// API server's reactors, captured informers, the deterministic queue.
func newTLHarness(ctx context.Context, sc *tlScenario) (*tlHarness, func(), error) {
	clk := clocktesting.NewFakeClock(tlEpoch)
	client := fake.NewSimpleClientset() //nolint:staticcheck // the plain tracker: no managed fields on every write
	factory := informers.NewSharedInformerFactory(client, 0)
	h := &tlHarness{sc: sc, clock: clk, client: client, cursors: map[string]*[2]int{}, seenPod: map[string]*corev1.Pod{},
		slotOf: map[string]int{}, doneSlot: map[slotKey]bool{}, created: map[string]bool{}, crash: map[string]*crashEntry{}}
	h.podInf = &capturedInformer{SharedIndexInformer: factory.Core().V1().Pods().Informer()}
	h.jobInf = &capturedInformer{SharedIndexInformer: factory.Batch().V1().Jobs().Informer()}
	ctrl, err := newJobController(ctx, client, clk,
		podInformer{factory.Core().V1().Pods(), h.podInf}, jobInformer{factory.Batch().V1().Jobs(), h.jobInf}, factory)
	if err != nil {
		return nil, nil, err
	}
	h.ctrl = ctrl
	h.queue = newTLQueue(clk)
	setUnexported(ctrl, "queue", workqueue.TypedRateLimitingInterface[string](h.queue))
	h.installReactors()
	// The controller's event broadcaster runs a goroutine until it is shut down (Run would);
	// without this every scenario would leave one behind, holding its controller.
	shutdown := unexported[record.EventBroadcaster](ctrl, "broadcaster").Shutdown
	if sc.hasNodeLoss() {
		if h.nl, err = newNLCluster(ctx, h, factory); err != nil {
			return nil, nil, err
		}
		jobShutdown := shutdown
		shutdown = func() { jobShutdown(); h.nl.shutdown() }
	}
	return h, shutdown, nil
}

// withTLHarness runs play with a fresh harness for sc and releases the harness after it.
func withTLHarness(sc *tlScenario, play func(context.Context, *tlHarness) (tlOutcome, error)) (tlOutcome, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, shutdown, err := newTLHarness(ctx, sc)
	if err != nil {
		return tlOutcome{}, err
	}
	defer shutdown()
	return play(ctx, h)
}

// runUpstreamTimeline plays one scenario against the real Job controller.
// onGap (optional) is the harness's onGap.
func runUpstreamTimeline(sc *tlScenario, job *batchv1.Job, onGap func(h *tlHarness, until time.Time)) (tlOutcome, error) {
	return withTLHarness(sc, func(ctx context.Context, h *tlHarness) (tlOutcome, error) {
		if onGap != nil {
			h.onGap = func(until time.Time) { onGap(h, until) }
		}
		return playJob(ctx, h, job)
	})
}

// playJob creates the scenario's Job and plays the scenario until the Job is finished.
func playJob(ctx context.Context, h *tlHarness, job *batchv1.Job) (tlOutcome, error) {
	job = job.DeepCopy()
	job.UID = "job-uid"
	job.CreationTimestamp = metav1.NewTime(h.clock.Now())
	job.Generation = 1
	if _, err := h.client.BatchV1().Jobs(job.Namespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return tlOutcome{}, err
	}
	final := func() string {
		if j, err := h.client.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{}); err == nil {
			if hasJobCondition(j, batchv1.JobFailed) {
				return "Failed"
			} else if hasJobCondition(j, batchv1.JobComplete) {
				return "Complete"
			}
		}
		return ""
	}
	return h.play(ctx, final)
}

// play runs the scenario until its runFor, or until final names the workload's final state.
func (h *tlHarness) play(ctx context.Context, final func() string) (tlOutcome, error) {
	clk := h.clock
	if err := h.sync(); err != nil {
		return tlOutcome{}, err
	}
	end := tlEpoch.Add(time.Duration(h.sc.runForSeconds * float64(time.Second)))
	syncsAtInstant := 0
	var lastInstant time.Time
	for {
		// Due kubelet actions first (a Pod event at an instant precedes the sync it triggers),
		// then due syncs, each followed by the informers' delivery.
		ai, okA := h.nextAction()
		key, qAt, okQ := h.queue.next()
		if !okA && !okQ && h.nl == nil {
			break
		}
		var at time.Time
		useAction := okA && (!okQ || !h.actions[ai].at.After(qAt))
		if useAction {
			at = h.actions[ai].at
		} else {
			at = qAt
		}
		// The cluster's steps for a lost node come before the kubelet's (lease renewals) or
		// between the kubelet's and the Job syncs (timeline_nodeloss.go).
		nlClass := -1
		if h.nl != nil {
			nAt, class := h.nl.next()
			if (!okA && !okQ) || nAt.Before(at) || (nAt.Equal(at) && (class == nlClassLease || !useAction)) {
				at, nlClass = nAt, class
			}
		}
		if at.After(end) {
			if h.onGap != nil && end.After(clk.Now()) {
				h.onGap(end)
			}
			break
		}
		if at.After(clk.Now()) {
			if h.onGap != nil {
				h.onGap(at)
			}
			clk.SetTime(at)
		}
		if clk.Now().Equal(lastInstant) {
			syncsAtInstant++
			if syncsAtInstant > 500 {
				return tlOutcome{}, fmt.Errorf("no progress at t=%gs (the controller keeps requeueing)", h.now())
			}
		} else {
			lastInstant, syncsAtInstant = clk.Now(), 0
		}
		switch {
		case nlClass >= 0:
			if err := h.nl.step(ctx, nlClass); err != nil {
				return tlOutcome{}, fmt.Errorf("node lifecycle: %w", err)
			}
		case useAction:
			a := h.actions[ai]
			h.actions = append(h.actions[:ai], h.actions[ai+1:]...)
			if err := h.act(a); err != nil {
				return tlOutcome{}, fmt.Errorf("kubelet: %w", err)
			}
		case h.js != nil && key == h.js.queueKey:
			delete(h.queue.due, key)
			if err := h.js.reconcile(ctx, h); err != nil {
				return tlOutcome{}, fmt.Errorf("jobset controller: %w", err)
			}
		default:
			delete(h.queue.due, key)
			if traceHarness {
				fmt.Fprintf(os.Stderr, "--- t=%gs sync %s (backoff record %s; pods %s)\n", h.now(), key, backoffRecordOf(h.ctrl), h.tracePods())
			}
			if err := jobSync(h.ctrl, ctx, key); err != nil {
				// What processNextWorkItem does; a harness run counts it as a harness note.
				h.queue.AddRateLimited(key)
				h.out.Events = append(h.out.Events, tlEvent{T: h.now(), Event: "SyncError", Job: h.jobLabel(key[strings.Index(key, "/")+1:]), Msg: err.Error()})
			} else {
				h.queue.Forget(key)
			}
		}
		if err := h.sync(); err != nil {
			return tlOutcome{}, err
		}
		if h.out.Final != "" {
			break
		}
		h.out.Final = final()
	}
	if h.onGap != nil {
		h.onGap(clk.Now()) // the last instant's end
	}
	if h.out.Final == "" {
		h.out.Final = "Running"
	}
	return h.out, nil
}

func jobValidate(j *batch.Job) field.ErrorList {
	return jobregistry.Strategy.Validate(ctxNS(), j)
}

// setTimelineGates: StaleControllerConsistencyJob (from 1.36) makes the controller wait for its
// informer to have seen its own writes, which the harness's deliveries settle anyway.
func setTimelineGates() error {
	return setGates(onlyKnown(map[string]bool{"StaleControllerConsistencyJob": false, "NodeControllerLeaseCircuitBreaker": false}))
}

// backoffRecordOf prints the controller's pod-failure back-off records (its unexported
// podBackoffStore), for tracing.
func backoffRecordOf(ctrl *jobcontroller.Controller) string {
	store := reflect.ValueOf(ctrl).Elem().FieldByName("podBackoffStore")
	if !store.IsValid() || store.IsNil() {
		return "?"
	}
	s := reflect.NewAt(store.Type(), unsafe.Pointer(store.UnsafeAddr())).Elem().Elem().FieldByName("store")
	cs := reflect.NewAt(s.Type(), unsafe.Pointer(s.UnsafeAddr())).Elem().Interface().(cache.Store)
	var out []string
	for _, r := range cs.List() {
		v := reflect.ValueOf(r).Elem()
		f := v.FieldByName("failuresAfterLastSuccess")
		t := v.FieldByName("lastFailureTime")
		failures := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Int()
		last := reflect.NewAt(t.Type(), unsafe.Pointer(t.UnsafeAddr())).Elem().Interface().(*time.Time)
		at := "nil"
		if last != nil {
			at = fmt.Sprintf("%gs", last.Sub(tlEpoch).Seconds())
		}
		out = append(out, fmt.Sprintf("%d failures, last %s", failures, at))
	}
	return strings.Join(out, "; ")
}

// tracePods: each Pod's name, phase and whether it holds the Job's tracking finalizer.
func (h *tlHarness) tracePods() string {
	list, err := h.client.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
	if err != nil {
		return "?"
	}
	var out []string
	for _, p := range list.(*corev1.PodList).Items {
		fin := ""
		for _, f := range p.Finalizers {
			if f == batchv1.JobTrackingFinalizer {
				fin = "+fin"
			}
		}
		out = append(out, fmt.Sprintf("%s:%s%s", p.Name, p.Status.Phase, fin))
	}
	if jl, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), ""); err == nil {
		for _, j := range jl.(*batchv1.JobList).Items {
			out = append(out, fmt.Sprintf("job %s failed=%d active=%d ready=%v uncounted=%v", j.Name, j.Status.Failed, j.Status.Active, ptrDeref(j.Status.Ready), j.Status.UncountedTerminatedPods))
		}
	}
	return strings.Join(out, " ")
}

func ptrDeref(p *int32) int32 {
	if p == nil {
		return -1
	}
	return *p
}
