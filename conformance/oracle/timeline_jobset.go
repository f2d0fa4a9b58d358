package main

// The timeline leg, JobSet part: the real JobSet controller (sigs.k8s.io/jobset pkg/controllers,
// JobSetReconciler) beside the real Job controller (timeline.go). In a cluster the JobSet
// controller is a binary of its own, built on its own client libraries, talking to the API
// server of whatever Kubernetes minor the cluster runs; here it runs in the jobset-upstream
// helper (jobset/reconcile.go) and this harness is its API server: every reconcile is sent the
// JobSet and the Jobs as they are here, and the controller's writes to Jobs come back as calls,
// admitted as kube-apiserver admits them (jsCreate) before the Job controller's informer sees
// them. What a cluster does asynchronously is driven here (docs/oracle.md, "Timeline: the real
// JobSet controller"):
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
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

const (
	jobsetRestartsLabel       = "jobset.sigs.k8s.io/restart-attempt"
	jobsetReplicatedJobLabel  = "jobset.sigs.k8s.io/replicatedjob-name"
	jobsetJobIndexLabel       = "jobset.sigs.k8s.io/job-index"
	foregroundDeletionFinaliz = metav1.FinalizerDeleteDependents
)

// jobSetView is what the harness reads of a JobSet (its status); the object itself is kept as
// the helper returns it.
type jobSetView struct {
	Status struct {
		Restarts                int32              `json:"restarts"`
		RestartsCountTowardsMax int32              `json:"restartsCountTowardsMax"`
		Conditions              []metav1.Condition `json:"conditions"`
		ReplicatedJobsStatus    []struct {
			JobRestarts []int32 `json:"jobRestarts"`
		} `json:"replicatedJobsStatus"`
	} `json:"status"`
}

func viewOf(js map[string]any) (*jobSetView, error) {
	v := &jobSetView{}
	return v, json.Unmarshal(mustJSON(js), v)
}

type jsHarness struct {
	helper   *helper
	session  string
	key      types.NamespacedName
	queueKey string
	queue    *tlQueue
	gates    map[string]bool
	// cur is the JobSet as stored (the controller's last write), seen as delivered last.
	cur, seen map[string]any
	seenView  *jobSetView
	// created counts the Jobs created per name.
	created map[string]int
}

func (j *jsHarness) enqueue() { j.queue.Add(j.queueKey) }

var jobsetSessions int

// runUpstreamJobSetTimeline plays one JobSet scenario against the real JobSet and Job controllers.
// onGap (optional) is the harness's onGap.
func runUpstreamJobSetTimeline(sc *tlScenario, js map[string]any, onGap func(h *tlHarness, until time.Time)) (tlOutcome, error) {
	hp, err := jobsetHelper()
	if err != nil {
		return tlOutcome{}, err
	}
	jobsetSessions++
	session := fmt.Sprint(jobsetSessions)
	defer func() {
		var done map[string]any
		_ = hp.call(map[string]any{"op": "reconcile", "input": map[string]any{"session": session, "end": true}}, &done)
	}()
	return withTLHarness(sc, func(ctx context.Context, h *tlHarness) (tlOutcome, error) {
		if onGap != nil {
			h.onGap = func(until time.Time) { onGap(h, until) }
		}
		return playJobSet(ctx, h, hp, session, js)
	})
}

// playJobSet sets the JobSet controller up beside the harness's Job controller, creates the
// JobSet and plays the scenario until the JobSet is finished.
func playJobSet(ctx context.Context, h *tlHarness, hp *helper, session string, js map[string]any) (tlOutcome, error) {
	meta, _ := js["metadata"].(map[string]any)
	if meta == nil {
		return tlOutcome{}, errors.New("JobSet without metadata")
	}
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	j := &jsHarness{helper: hp, session: session, key: types.NamespacedName{Namespace: ns, Name: name},
		queue: h.queue, gates: h.sc.FeatureGates}
	j.queueKey = "jobset:" + j.key.String()
	h.queue.lowPriority = j.queueKey
	h.js = j
	h.installJobReactors()

	meta["uid"] = "jobset-uid"
	meta["creationTimestamp"] = h.clock.Now().UTC().Format(time.RFC3339)
	meta["generation"] = 1
	meta["resourceVersion"] = "1"
	j.cur = js
	h.dirty = true
	final := func() string {
		if j.seenView == nil {
			return ""
		}
		for _, c := range j.seenView.Status.Conditions {
			if c.Status == metav1.ConditionTrue && (c.Type == "Failed" || c.Type == "Completed") {
				return c.Type
			}
		}
		return ""
	}
	out, err := h.play(ctx, final)
	if err != nil {
		return out, err
	}
	if j.seenView != nil {
		out.Failed, out.Succeeded = j.seenView.Status.Restarts, j.seenView.Status.RestartsCountTowardsMax
	}
	return out, nil
}

// reconcile is one Reconcile of the JobSet, as controller-runtime's worker runs it: an error or
// an explicit requeue puts the key back (rate-limited), RequeueAfter on the fake clock.
func (j *jsHarness) reconcile(ctx context.Context, h *tlHarness) error {
	h.dirty = true
	jl, err := h.client.Tracker().List(jobsGVR, batchv1.SchemeGroupVersion.WithKind("Job"), "")
	if err != nil {
		return err
	}
	jobs := jl.(*batchv1.JobList).Items
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].Name < jobs[b].Name })
	for i := range jobs {
		jobs[i].APIVersion, jobs[i].Kind = "batch/v1", "Job"
	}
	if err := j.helper.send(map[string]any{"op": "reconcile", "input": map[string]any{
		"session": j.session, "now": h.clock.Now(), "featureGates": j.gates, "jobset": j.cur, "jobs": jobs}}); err != nil {
		return err
	}
	for {
		var m struct {
			Call              string          `json:"call"`
			Object            json.RawMessage `json:"object"`
			PropagationPolicy *string         `json:"propagationPolicy"`
			Done              bool            `json:"done"`
			RequeueAfter      int64           `json:"requeueAfter"`
			Error             string          `json:"error"`
			JobSet            map[string]any  `json:"jobset"`
			Skip              string          `json:"skip"`
		}
		if err := j.helper.receive(&m); err != nil {
			return err
		}
		switch {
		case m.Skip != "":
			return fmt.Errorf("jobset reconcile: %s", m.Skip)
		case m.Done:
			if m.JobSet == nil {
				return errors.New("the JobSet controller deleted the JobSet")
			}
			j.cur = m.JobSet
			switch {
			case m.Error != "":
				j.queue.AddRateLimited(j.queueKey)
				h.out.Events = append(h.out.Events, tlEvent{T: h.now(), Event: "SyncError", Msg: "JobSet: " + m.Error})
			case m.RequeueAfter > 0:
				j.queue.Forget(j.queueKey)
				j.queue.AddAfter(j.queueKey, time.Duration(m.RequeueAfter))
			default:
				j.queue.Forget(j.queueKey)
			}
			return nil
		}
		job := &batchv1.Job{}
		if err := json.Unmarshal(m.Object, job); err != nil {
			return err
		}
		var stored *batchv1.Job
		var werr error
		switch m.Call {
		case "create":
			stored, werr = h.jsCreate(ctx, job)
		case "delete":
			stored, werr = h.jsDelete(ctx, job, m.PropagationPolicy)
		case "put":
			stored, werr = h.jsPut(job)
		default:
			return fmt.Errorf("jobset helper: unknown call %q", m.Call)
		}
		answer := map[string]any{"object": stored}
		if werr != nil {
			var status apierrors.APIStatus
			if !errors.As(werr, &status) {
				return werr
			}
			answer = map[string]any{"status": status.Status()}
		}
		if err := j.helper.send(answer); err != nil {
			return err
		}
	}
}

// jsCreate is the API server for what the JobSet controller creates: a Job is admitted as
// kube-apiserver would (UID, v1 defaults, PrepareForCreate's selector and labels, validation)
// and stored through the clientset, so the Job controller's informer sees it.
func (h *tlHarness) jsCreate(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	// The UID names the Job and its incarnation, not the order in which the controller's
	// goroutines asked.
	if h.js.created == nil {
		h.js.created = map[string]int{}
	}
	h.js.created[job.Name]++
	job.UID = types.UID(fmt.Sprintf("job-uid-%s-%d", job.Name, h.js.created[job.Name]))
	internal, admitted, err := admitJob(mustJSON(job))
	if err != nil {
		return nil, err
	}
	if errs := jobValidate(internal); len(errs) > 0 {
		return nil, apierrors.NewInvalid(batchv1.SchemeGroupVersion.WithKind("Job").GroupKind(), job.Name, errs)
	}
	admitted.CreationTimestamp = metav1.NewTime(h.clock.Now())
	admitted.Generation = 1
	return h.client.BatchV1().Jobs(job.Namespace).Create(ctx, admitted, metav1.CreateOptions{})
}

// jsDelete routes the JobSet controller's Job deletions through the clientset (its reactor does
// what kube-apiserver does with the propagation policy); it returns the Job as left (nil: gone).
func (h *tlHarness) jsDelete(ctx context.Context, job *batchv1.Job, propagation *string) (*batchv1.Job, error) {
	opts := metav1.DeleteOptions{}
	if propagation != nil {
		pp := metav1.DeletionPropagation(*propagation)
		opts.PropagationPolicy = &pp
	}
	if err := h.client.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, opts); err != nil {
		return nil, err
	}
	return h.storedJob(job)
}

// jsPut stores the JobSet controller's update of a Job (suspend, resume, scaling).
func (h *tlHarness) jsPut(job *batchv1.Job) (*batchv1.Job, error) {
	h.dirty = true
	if err := h.client.Tracker().Update(jobsGVR, job, job.Namespace); err != nil {
		return nil, err
	}
	return h.storedJob(job)
}

func (h *tlHarness) storedJob(job *batchv1.Job) (*batchv1.Job, error) {
	obj, err := h.client.Tracker().Get(jobsGVR, job.Namespace, job.Name)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return obj.(*batchv1.Job), nil
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

// withoutRV is a JobSet with its resourceVersion left out, for comparing two of them.
func withoutRV(js map[string]any) any {
	var c map[string]any
	_ = json.Unmarshal(mustJSON(js), &c)
	if meta, ok := c["metadata"].(map[string]any); ok {
		delete(meta, "resourceVersion")
	}
	return c
}

// syncJobSet delivers the JobSet's changes: its condition changes and restarts are recorded and
// the controller (For(JobSet)) reconciles again.
func (j *jsHarness) syncJobSet(h *tlHarness) (bool, error) {
	if j.seen != nil && reflect.DeepEqual(withoutRV(j.cur), withoutRV(j.seen)) {
		return false, nil
	}
	cur, err := viewOf(j.cur)
	if err != nil {
		return false, err
	}
	old := j.seenView
	if old == nil {
		old = &jobSetView{}
	}
	// Conditions as the comparison reduces them: a restart (status.restarts went up) with the
	// Restarting condition it set; Failed and Completed when they become True.
	if cur.Status.Restarts != old.Status.Restarts {
		// The counters themselves are compared at the end (status.restarts and
		// restartsCountTowardsMax), as restartkit's timeline does not carry them per event.
		e := tlEvent{Event: "JobSet", Type: "Restarting"}
		for _, c := range cur.Status.Conditions {
			if c.Type == "RestartingJobSet" && c.Status == metav1.ConditionTrue {
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
		if c.Status != metav1.ConditionTrue || (c.Type != "Failed" && c.Type != "Completed") {
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
	h.rv++
	if meta, ok := j.cur["metadata"].(map[string]any); ok {
		meta["resourceVersion"] = fmt.Sprint(h.rv)
	}
	j.seen, j.seenView = j.cur, cur
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

func sumJobRestarts(js *jobSetView) int32 {
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
