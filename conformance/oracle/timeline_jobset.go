package main

// The timeline leg, JobSet part: the real JobSet controller (sigs.k8s.io/jobset pkg/controllers,
// JobSetReconciler) reconciles on controller-runtime's fake client, which shares ONE object
// tracker with the fake clientset the real Job controller runs against (timeline.go): the Jobs
// the JobSet controller creates are the Jobs the Job controller syncs, and their Pods are the
// scripted kubelet's. What a cluster does asynchronously is driven here (docs/oracle.md,
// "Timeline: the real JobSet controller"):
//   - Reconcile runs from the harness's deterministic queue, asked after every change of the
//     JobSet or one of its Jobs (the controller watches both: For(JobSet), Owns(Job)), and again
//     when it asks to be requeued, on the fake clock;
//   - the API server: the Jobs the controller creates get what kube-apiserver gives them (UID,
//     v1 defaults, the generated selector and labels); a Job deleted with foreground propagation
//     gets deletionTimestamp and the foregroundDeletion finalizer;
//   - the garbage collector: a Job in foreground deletion has its Pods deleted (gracefully: the
//     kubelet ends them after their grace period) and goes once none is left.

import (
	"context"
	"fmt"
	"sort"
	_ "unsafe" // go:linkname

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrlruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	jobsetcontrollers "sigs.k8s.io/jobset/pkg/controllers"
)

// The fake clientset's tracker decodes by this scheme (k8s.io/client-go/kubernetes/fake); the
// JobSet type must be in it for the one tracker to hold JobSets too. It is unexported: pulled
// by name, as the controllers' functions are.
//
//go:linkname fakeClientsetScheme k8s.io/client-go/kubernetes/fake.scheme
var fakeClientsetScheme *runtime.Scheme

const (
	jobsetRestartsLabel       = "jobset.sigs.k8s.io/restart-attempt"
	jobsetReplicatedJobLabel  = "jobset.sigs.k8s.io/replicatedjob-name"
	jobsetJobIndexLabel       = "jobset.sigs.k8s.io/job-index"
	foregroundDeletionFinaliz = metav1.FinalizerDeleteDependents
)

var jobsetsGVR = jobset.GroupVersion.WithResource("jobsets")

type jsHarness struct {
	rec      *jobsetcontrollers.JobSetReconciler
	cr       client.Client
	key      types.NamespacedName
	queueKey string
	queue    *tlQueue
	seen     *jobset.JobSet
	// created counts the Jobs created per name (guarded by tlHarness.mu: the controller creates
	// a restart's Jobs from parallel goroutines).
	created map[string]int
}

func (j *jsHarness) enqueue() { j.queue.Add(j.queueKey) }

// runUpstreamJobSetTimeline plays one JobSet scenario against the real JobSet and Job controllers.
func runUpstreamJobSetTimeline(sc *tlScenario, js *jobset.JobSet) (tlOutcome, error) {
	return withTLHarness(sc, func(ctx context.Context, h *tlHarness) (tlOutcome, error) {
		return playJobSet(ctx, h, js)
	})
}

// playJobSet sets the JobSet controller up beside the harness's Job controller, creates the
// JobSet and plays the scenario until the JobSet is finished.
func playJobSet(ctx context.Context, h *tlHarness, js *jobset.JobSet) (tlOutcome, error) {
	if err := addJobSetToFakeScheme(); err != nil {
		return tlOutcome{}, err
	}
	j := &jsHarness{key: types.NamespacedName{Namespace: js.Namespace, Name: js.Name}, queue: h.queue}
	j.queueKey = "jobset:" + j.key.String()
	h.queue.lowPriority = j.queueKey
	h.js = j

	crScheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, jobset.AddToScheme} {
		if err := add(crScheme); err != nil {
			return tlOutcome{}, err
		}
	}
	b := crfake.NewClientBuilder().WithScheme(crScheme).WithObjectTracker(h.client.Tracker()).
		WithStatusSubresource(&jobset.JobSet{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: h.jsCreate, Delete: h.jsDelete})
	if err := jobsetcontrollers.SetupJobSetIndexes(ctx, builderIndexer{b}); err != nil {
		return tlOutcome{}, err
	}
	j.cr = b.Build()
	j.rec = jobsetcontrollers.NewJobSetReconciler(j.cr, crScheme, &events.FakeRecorder{})
	setUnexported(j.rec, "clock", clock.Clock(h.clock))
	h.installJobReactors()

	js = js.DeepCopy()
	js.UID = "jobset-uid"
	js.CreationTimestamp = metav1.NewTime(h.clock.Now())
	js.Generation = 1
	js.ResourceVersion = "1"
	h.dirty = true
	if err := h.client.Tracker().Create(jobsetsGVR, js, js.Namespace); err != nil {
		return tlOutcome{}, err
	}
	final := func() string {
		if j.seen == nil {
			return ""
		}
		for _, c := range j.seen.Status.Conditions {
			if c.Status == metav1.ConditionTrue && (c.Type == string(jobset.JobSetFailed) || c.Type == string(jobset.JobSetCompleted)) {
				return c.Type
			}
		}
		return ""
	}
	out, err := h.play(ctx, final)
	if err != nil {
		return out, err
	}
	if j.seen != nil {
		out.Failed, out.Succeeded = j.seen.Status.Restarts, j.seen.Status.RestartsCountTowardsMax
	}
	return out, nil
}

var jobsetSchemeAdded bool

func addJobSetToFakeScheme() error {
	if jobsetSchemeAdded {
		return nil
	}
	jobsetSchemeAdded = true
	return jobset.AddToScheme(fakeClientsetScheme)
}

// builderIndexer hands the controller's field indexes to the fake client (the manager's cache
// would index them in a cluster).
type builderIndexer struct{ b *crfake.ClientBuilder }

func (x builderIndexer) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	x.b.WithIndex(obj, field, fn)
	return nil
}

// reconcile is one Reconcile of the JobSet, as controller-runtime's worker runs it: an error or
// an explicit requeue puts the key back (rate-limited), RequeueAfter on the fake clock.
func (j *jsHarness) reconcile(ctx context.Context, h *tlHarness) {
	// Its writes go to the shared tracker through controller-runtime's client, past the
	// clientset's reactors.
	h.dirty = true
	res, err := j.rec.Reconcile(ctx, ctrlruntime.Request{NamespacedName: j.key})
	switch {
	case err != nil:
		j.queue.AddRateLimited(j.queueKey)
		h.out.Events = append(h.out.Events, tlEvent{T: h.now(), Event: "SyncError", Msg: "JobSet: " + err.Error()})
	case res.RequeueAfter > 0:
		j.queue.Forget(j.queueKey)
		j.queue.AddAfter(j.queueKey, res.RequeueAfter)
	default:
		j.queue.Forget(j.queueKey)
	}
}

// jsCreate is the API server for what the JobSet controller creates: a Job is admitted as
// kube-apiserver would (UID, v1 defaults, PrepareForCreate's selector and labels, validation)
// and stored through the clientset, so the Job controller's informer sees it.
func (h *tlHarness) jsCreate(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	job, ok := obj.(*batchv1.Job)
	if !ok {
		return c.Create(ctx, obj, opts...)
	}
	// The UID names the Job and its incarnation, not the order in which the controller's
	// goroutines got here: a shared counter raced (two Jobs could get one UID) and made
	// upstream's runs irreproducible.
	h.mu.Lock()
	if h.js.created == nil {
		h.js.created = map[string]int{}
	}
	h.js.created[job.Name]++
	job.UID = types.UID(fmt.Sprintf("job-uid-%s-%d", job.Name, h.js.created[job.Name]))
	h.mu.Unlock()
	raw := mustJSON(job)
	internal, admitted, err := admitJob(raw)
	if err != nil {
		return err
	}
	if errs := jobValidate(internal); len(errs) > 0 {
		return apierrors.NewInvalid(batchv1.SchemeGroupVersion.WithKind("Job").GroupKind(), job.Name, errs)
	}
	admitted.CreationTimestamp = metav1.NewTime(h.clock.Now())
	admitted.Generation = 1
	created, err := h.client.BatchV1().Jobs(job.Namespace).Create(ctx, admitted, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	created.DeepCopyInto(job)
	return nil
}

// jsDelete routes the JobSet controller's Job deletions through the clientset (its reactor does
// what kube-apiserver does with the propagation policy).
func (h *tlHarness) jsDelete(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
	if _, ok := obj.(*batchv1.Job); !ok {
		return c.Delete(ctx, obj, opts...)
	}
	do := client.DeleteOptions{}
	do.ApplyOptions(opts)
	return h.client.BatchV1().Jobs(obj.GetNamespace()).Delete(ctx, obj.GetName(), *do.AsDeleteOptions())
}

// installJobReactors: a Job delete as kube-apiserver does it. Foreground propagation: the Job
// gets deletionTimestamp and the foregroundDeletion finalizer (the garbage collector removes it
// once the Job's Pods are gone); background (the default for Jobs through the API is orphan,
// but the controllers always say): the Job goes at once and the collector deletes its Pods.
func (h *tlHarness) installJobReactors() {
	h.client.PrependReactor("delete", "jobs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		h.dirty = true
		d := a.(clienttesting.DeleteActionImpl)
		obj, err := h.client.Tracker().Get(d.GetResource(), d.GetNamespace(), d.GetName())
		if err != nil {
			return true, nil, err
		}
		job := obj.(*batchv1.Job).DeepCopy()
		if job.DeletionTimestamp != nil {
			return true, nil, nil
		}
		pp := d.DeleteOptions.PropagationPolicy
		if pp != nil && *pp == metav1.DeletePropagationForeground {
			job.Finalizers = append(job.Finalizers, foregroundDeletionFinaliz)
		}
		if len(job.Finalizers) == 0 {
			return true, nil, h.client.Tracker().Delete(d.GetResource(), d.GetNamespace(), d.GetName())
		}
		ts := metav1.NewTime(h.clock.Now())
		zero := int64(0)
		job.DeletionTimestamp, job.DeletionGracePeriodSeconds = &ts, &zero
		return true, nil, h.client.Tracker().Update(d.GetResource(), job, d.GetNamespace())
	})
}

// syncJobSet delivers the JobSet's changes: its condition changes and restarts are recorded and
// the controller (For(JobSet)) reconciles again.
func (j *jsHarness) syncJobSet(h *tlHarness) (bool, error) {
	obj, err := h.client.Tracker().Get(jobsetsGVR, j.key.Namespace, j.key.Name)
	if err != nil {
		return false, err
	}
	cur := obj.(*jobset.JobSet).DeepCopy()
	if j.seen != nil && sameIgnoringRV(cur, j.seen, cur, j.seen) {
		return false, nil
	}
	old := j.seen
	if old == nil {
		old = &jobset.JobSet{}
	}
	// Conditions as the comparison reduces them: a restart (status.restarts went up) with the
	// Restarting condition it set; Failed and Completed when they become True.
	if cur.Status.Restarts != old.Status.Restarts {
		// The counters themselves are compared at the end (status.restarts and
		// restartsCountTowardsMax), as restartkit's timeline does not carry them per event.
		e := tlEvent{Event: "JobSet", Type: "Restarting"}
		for _, c := range cur.Status.Conditions {
			if c.Type == string(jobset.JobSetRestarting) && c.Status == metav1.ConditionTrue {
				e.Reason, e.Msg = c.Reason, c.Message
			}
		}
		h.record(e)
	}
	// A RestartJob action: a Job's restart counter (replicatedJobsStatus[].jobRestarts) went up.
	if sumJobRestarts(cur) > sumJobRestarts(old) {
		h.record(tlEvent{Event: "JobSet", Type: "RestartJob"})
	}
	for _, c := range cur.Status.Conditions {
		if c.Status != metav1.ConditionTrue || (c.Type != string(jobset.JobSetFailed) && c.Type != string(jobset.JobSetCompleted)) {
			continue
		}
		was := false
		for _, o := range old.Status.Conditions {
			was = was || (o.Type == c.Type && o.Status == metav1.ConditionTrue)
		}
		if !was {
			h.record(tlEvent{Event: "JobSet", Type: c.Type, Reason: c.Reason, Msg: c.Message})
		}
	}
	h.bumpRV(cur)
	if err := h.client.Tracker().Update(jobsetsGVR, cur.DeepCopy(), cur.Namespace); err != nil {
		return false, err
	}
	j.seen = cur
	j.enqueue()
	return true, nil
}

// collectGarbage plays kube-controller-manager's garbage collector for what the JobSet
// controller relies on: a Job in foreground deletion has its Pods deleted (each with its own
// grace period, as the collector deletes without one) and goes when none is left. (The Jobs are
// only ever deleted so: no Pod is orphaned, and nothing else needs collecting.)
func (j *jsHarness) collectGarbage(h *tlHarness) (bool, error) {
	// The informer's store is the clientset's state after syncJobs: no copy needed to find the
	// Jobs in deletion, the common case being none.
	deleting := false
	for _, obj := range h.jobInf.GetIndexer().List() {
		deleting = deleting || obj.(*batchv1.Job).DeletionTimestamp != nil
	}
	if !deleting {
		return false, nil
	}
	jl, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), "")
	if err != nil {
		return false, err
	}
	pl, err := h.client.Tracker().List(podsGVR, corev1.SchemeGroupVersion.WithKind("Pod"), "")
	if err != nil {
		return false, err
	}
	pods := pl.(*corev1.PodList).Items
	sort.Slice(pods, func(a, b int) bool { return pods[a].Name < pods[b].Name })
	jobs := map[types.UID]*batchv1.Job{}
	for i := range jl.(*batchv1.JobList).Items {
		job := &jl.(*batchv1.JobList).Items[i]
		jobs[job.UID] = job
	}
	changed := false
	owned := map[types.UID]int{}
	for i := range pods {
		p := &pods[i]
		ref := metav1.GetControllerOf(p)
		if ref == nil {
			continue
		}
		job := jobs[ref.UID]
		owned[ref.UID]++
		if p.DeletionTimestamp != nil {
			continue
		}
		if job != nil && job.DeletionTimestamp != nil && hasFinalizer(job.Finalizers, foregroundDeletionFinaliz) {
			err := h.client.CoreV1().Pods(p.Namespace).Delete(context.Background(), p.Name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return false, err
			}
			changed = true
		}
	}
	for _, job := range jobs {
		if job.DeletionTimestamp == nil || !hasFinalizer(job.Finalizers, foregroundDeletionFinaliz) || owned[job.UID] > 0 {
			continue
		}
		job = job.DeepCopy()
		var keep []string
		for _, f := range job.Finalizers {
			if f != foregroundDeletionFinaliz {
				keep = append(keep, f)
			}
		}
		job.Finalizers = keep
		if len(keep) == 0 {
			err = h.client.Tracker().Delete(jobsGVR, job.Namespace, job.Name)
		} else {
			err = h.client.Tracker().Update(jobsGVR, job, job.Namespace)
		}
		if err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

func sumJobRestarts(js *jobset.JobSet) int32 {
	var n int32
	for _, r := range js.Status.ReplicatedJobsStatus {
		for _, x := range r.JobRestarts {
			n += x
		}
	}
	return n
}

func hasFinalizer(fs []string, f string) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

func init() {
	// The JobSet controller logs through controller-runtime's logger; unset, it complains once.
	ctrlruntime.SetLogger(logr.Discard())
}
