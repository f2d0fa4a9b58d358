package main

// The JobSet controller's Reconcile for the oracle's timeline leg. The oracle's harness holds the
// cluster (the Job controller of the Kubernetes minor under test, its fake API server, the
// scripted kubelet); this process is the JobSet controller, which in a cluster is a binary of its
// own talking to that API server. Each reconcile the oracle sends the JobSet and every Job as the
// API server has them; the reconciler runs on controller-runtime's fake client seeded with them,
// and its writes to Jobs go back to the oracle as calls, answered synchronously (the oracle's API
// server admits, stores or refuses them), while its writes to the JobSet and to objects the
// cluster's timeline does not use (the headless Service) stay here:
//
//	oracle -> {"op": "reconcile", "input": {"session", "now", "featureGates", "jobset", "jobs", "end"}}
//	helper -> {"call": "create", "object": Job}                 oracle -> {"object": Job} | {"status": Status}
//	helper -> {"call": "delete", "object": Job, "propagationPolicy"}  oracle -> {"object": Job|null} | {"status"}
//	helper -> {"call": "put", "object": Job}                    oracle -> {"object": Job} | {"status"}
//	helper -> {"done": true, "requeueAfter": ns, "error": "...", "jobset": JobSet|null}

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	ctrlruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	jobsetcontrollers "sigs.k8s.io/jobset/pkg/controllers"
)

type reconcileInput struct {
	Session      string            `json:"session"`
	Now          time.Time         `json:"now"`
	FeatureGates map[string]bool   `json:"featureGates"`
	JobSet       json.RawMessage   `json:"jobset"`
	Jobs         []json.RawMessage `json:"jobs"`
	// End closes the session (its other objects are dropped); nothing is reconciled.
	End bool `json:"end"`
}

// session: what the controller wrote that the oracle's cluster does not hold (the Service).
type session struct {
	extras []client.Object
}

var sessions = map[string]*session{}

var reconcileScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme, jobset.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// builderIndexer hands the controller's field indexes to the fake client (the manager's cache
// would index them in a cluster).
type builderIndexer struct{ b *crfake.ClientBuilder }

func (x builderIndexer) IndexField(_ context.Context, obj client.Object, field string, fn client.IndexerFunc) error {
	x.b.WithIndex(obj, field, fn)
	return nil
}

// callMu serialises the calls back to the oracle: the controller creates a restart's Jobs from
// parallel goroutines.
var callMu sync.Mutex

type callAnswer struct {
	Object json.RawMessage `json:"object"`
	Status *metav1.Status  `json:"status"`
}

// callOracle asks the oracle's API server to do a write to a Job and returns what it stored
// (nil for a Job that is gone) or its refusal.
func callOracle(call string, job *batchv1.Job, extra map[string]any) (*batchv1.Job, error) {
	callMu.Lock()
	defer callMu.Unlock()
	req := map[string]any{"call": call, "object": job}
	for k, v := range extra {
		req[k] = v
	}
	reply(req)
	if !in.Scan() {
		return nil, fmt.Errorf("the oracle stopped during a reconcile")
	}
	var a callAnswer
	if err := json.Unmarshal(in.Bytes(), &a); err != nil {
		return nil, err
	}
	if a.Status != nil {
		return nil, &apierrors.StatusError{ErrStatus: *a.Status}
	}
	if len(a.Object) == 0 || string(a.Object) == "null" {
		return nil, nil
	}
	got := &batchv1.Job{}
	return got, json.Unmarshal(a.Object, got)
}

// mirror makes the helper's store hold what the oracle stored for a Job, so that reads later in
// the same Reconcile see it as they would in a cluster.
func mirror(ctx context.Context, c client.WithWatch, stored *batchv1.Job, key client.ObjectKey) error {
	cur := &batchv1.Job{}
	err := c.Get(ctx, key, cur)
	switch {
	case stored == nil && apierrors.IsNotFound(err):
		return nil
	case stored == nil:
		return c.Delete(ctx, cur)
	case apierrors.IsNotFound(err):
		s := stored.DeepCopy()
		s.ResourceVersion = ""
		return c.Create(ctx, s)
	case err != nil:
		return err
	case stored.DeletionTimestamp != nil && cur.DeletionTimestamp == nil:
		// The fake client keeps deletionTimestamp immutable on update; its own Delete sets it
		// (the Job holds the foregroundDeletion finalizer, so it stays).
		if len(cur.Finalizers) == 0 {
			cur.Finalizers = stored.Finalizers
			if err := c.Update(ctx, cur); err != nil {
				return err
			}
		}
		return c.Delete(ctx, cur)
	case stored.DeletionTimestamp != nil:
		return nil // already deleting here too
	}
	s := stored.DeepCopy()
	s.ResourceVersion = cur.ResourceVersion
	return c.Update(ctx, s)
}

func reconcile(raw []byte) (map[string]any, error) {
	var rin reconcileInput
	if err := json.Unmarshal(raw, &rin); err != nil {
		return nil, err
	}
	if rin.End {
		delete(sessions, rin.Session)
		return map[string]any{"done": true}, nil
	}
	s := sessions[rin.Session]
	if s == nil {
		s = &session{}
		sessions[rin.Session] = s
	}
	if err := setGates(rin.FeatureGates); err != nil {
		return nil, err
	}
	js := &jobset.JobSet{}
	if err := json.Unmarshal(rin.JobSet, js); err != nil {
		return nil, fmt.Errorf("jobset: %v", err)
	}
	objs := []client.Object{js}
	for _, r := range rin.Jobs {
		job := &batchv1.Job{}
		if err := json.Unmarshal(r, job); err != nil {
			return nil, fmt.Errorf("job: %v", err)
		}
		objs = append(objs, job)
	}
	for _, o := range s.extras {
		objs = append(objs, o.DeepCopyObject().(client.Object))
	}
	ctx := context.Background()
	var local client.WithWatch
	b := crfake.NewClientBuilder().WithScheme(reconcileScheme).WithObjects(objs...).
		WithStatusSubresource(&jobset.JobSet{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				job, ok := obj.(*batchv1.Job)
				if !ok {
					if err := c.Create(ctx, obj, opts...); err != nil {
						return err
					}
					s.extras = append(s.extras, obj.DeepCopyObject().(client.Object))
					return nil
				}
				stored, err := callOracle("create", job, nil)
				if err != nil {
					return err
				}
				if stored == nil {
					return fmt.Errorf("the oracle stored nothing for Job %s", job.Name)
				}
				stored.DeepCopyInto(job)
				return mirror(ctx, c, stored, client.ObjectKeyFromObject(stored))
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				job, ok := obj.(*batchv1.Job)
				if !ok {
					return c.Delete(ctx, obj, opts...)
				}
				do := client.DeleteOptions{}
				do.ApplyOptions(opts)
				var pp any
				if do.PropagationPolicy != nil {
					pp = string(*do.PropagationPolicy)
				}
				stored, err := callOracle("delete", job, map[string]any{"propagationPolicy": pp})
				if err != nil {
					return err
				}
				return mirror(ctx, c, stored, client.ObjectKeyFromObject(job))
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				return putJob(ctx, c, obj, func() error { return c.Update(ctx, obj, opts...) })
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				return putJob(ctx, c, obj, func() error { return c.Patch(ctx, obj, patch, opts...) })
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				return putJob(ctx, local, obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
				return putJob(ctx, local, obj, func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
			},
		})
	if err := jobsetcontrollers.SetupJobSetIndexes(ctx, builderIndexer{b}); err != nil {
		return nil, err
	}
	local = b.Build()
	rec := jobsetcontrollers.NewJobSetReconciler(local, reconcileScheme, &events.FakeRecorder{})
	setUnexported(rec, "clock", clock.Clock(clocktesting.NewFakeClock(rin.Now)))
	res, rerr := rec.Reconcile(ctx, ctrlruntime.Request{NamespacedName: types.NamespacedName{Namespace: js.Namespace, Name: js.Name}})
	out := map[string]any{"done": true, "requeueAfter": res.RequeueAfter.Nanoseconds()}
	if rerr != nil {
		out["error"] = rerr.Error()
	}
	final := &jobset.JobSet{}
	if err := local.Get(ctx, client.ObjectKeyFromObject(js), final); err == nil {
		out["jobset"] = final
	} else if !apierrors.IsNotFound(err) {
		return nil, err
	}
	return out, nil
}

// putJob applies the controller's update of a Job here, then has the oracle store the result;
// updates of other objects stay here.
func putJob(ctx context.Context, c client.WithWatch, obj client.Object, apply func() error) error {
	if err := apply(); err != nil {
		return err
	}
	job, ok := obj.(*batchv1.Job)
	if !ok {
		return nil
	}
	stored, err := callOracle("put", job, nil)
	if err != nil {
		return err
	}
	if stored != nil {
		stored.DeepCopyInto(job)
	}
	return mirror(ctx, c, stored, client.ObjectKeyFromObject(job))
}

// setUnexported writes an unexported field (the reconciler's clock): the controller offers no
// option to inject it.
func setUnexported(obj any, field string, value any) {
	f := reflect.ValueOf(obj).Elem().FieldByName(field)
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.ValueOf(value))
}
