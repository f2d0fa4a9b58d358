package main

// The trainer's published TrainJobs and runtimes (conformance/realworld, the INDEX.json entries
// whose file starts with kubeflow-trainer__), checked like the generated pairs, so that the
// verdicts the corpus expects are the trainer's own: each TrainJob with the runtime it names
// (in its own file or in a file its entry lists under `runtimes`), and each runtime of a file
// without a TrainJob with the TrainJob restartkit reads a runtime alone with (one that sets
// nothing but its runtimeRef).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

type publishedPair struct {
	file   string
	rt, tj map[string]any
}

type indexEntry struct {
	File     string   `json:"file"`
	Runtimes []string `json:"runtimes"`
}

func isRuntime(o map[string]any) bool {
	k, _ := o["kind"].(string)
	return k == "TrainingRuntime" || k == "ClusterTrainingRuntime"
}

func readObjects(path string) ([]map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(raw), 4096)
	var out []map[string]any
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(m) > 0 {
			out = append(out, m)
		}
	}
}

func publishedPairs(dir string) ([]publishedPair, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "INDEX.json"))
	if err != nil {
		return nil, err
	}
	var index []indexEntry
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, err
	}
	var pairs []publishedPair
	for _, e := range index {
		if !strings.HasPrefix(e.File, "kubeflow-trainer__") {
			continue
		}
		own, err := readObjects(filepath.Join(dir, e.File))
		if err != nil {
			return nil, err
		}
		var runtimes, trainJobs []map[string]any
		for _, o := range own {
			if isRuntime(o) {
				runtimes = append(runtimes, o)
			} else if o["kind"] == "TrainJob" {
				trainJobs = append(trainJobs, o)
			}
		}
		if len(trainJobs) == 0 {
			for _, rt := range runtimes {
				md, _ := rt["metadata"].(map[string]any)
				meta := map[string]any{"name": "trainjob"}
				if ns, ok := md["namespace"]; ok {
					meta["namespace"] = ns
				}
				pairs = append(pairs, publishedPair{e.File, rt, map[string]any{
					"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": meta,
					"spec": map[string]any{"runtimeRef": map[string]any{"name": md["name"], "kind": rt["kind"], "apiGroup": "trainer.kubeflow.org"}},
				}})
			}
			continue
		}
		for _, f := range e.Runtimes {
			objs, err := readObjects(filepath.Join(dir, f))
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				if isRuntime(o) {
					runtimes = append(runtimes, o)
				}
			}
		}
		for _, tj := range trainJobs {
			ref := dig(tj, "spec", "runtimeRef")
			var found map[string]any
			for _, rt := range runtimes {
				if dig(rt, "metadata")["name"] == ref["name"] {
					found = rt
					break
				}
			}
			if found == nil {
				return nil, fmt.Errorf("%s: no runtime named %v in the file or its entry's runtimes", e.File, ref["name"])
			}
			pairs = append(pairs, publishedPair{e.File, found, tj})
		}
	}
	return pairs, nil
}
