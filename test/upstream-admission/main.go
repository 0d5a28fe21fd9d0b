// upstream-admission reads rendered Kubernetes objects (a JSON array on standard input) and runs the
// admission validation their operator's own Go code performs (for a Deployment: the Pod Security
// admission controller's, restricted profile), printing one JSON result per object.
// Kinds whose upstream Go module cannot be had here are reported as not validated, never as accepted:
// the caller decides what that means.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Result is what the tests read for one object.
type Result struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	// Validator names the upstream module whose code judged the object; empty when none is available.
	Validator string `json:"validator,omitempty"`
	// Accepted is nil when no upstream validation is available for the kind.
	Accepted *bool    `json:"accepted"`
	Errors   []string `json:"errors"`
	// Note says why an object was not validated.
	Note string `json:"note,omitempty"`
	// Derived holds what upstream computes from the object on its way to the workload (for a RayService:
	// the JSON body KubeRay sends to the Ray dashboard for spec.serveConfigV2).
	Derived map[string]json.RawMessage `json:"derived,omitempty"`
}

// validator judges one object of its kind, given as raw JSON.
type validator struct {
	module   string
	validate func(raw []byte) (errs []string, derived map[string]json.RawMessage)
}

// validators by "apiVersion/kind". A KAITO or Dynamo validator is one more entry here once its Go
// module can be built.
var validators = map[string]validator{
	"ray.io/v1/RayService": rayServiceValidator,
	"apps/v1/Deployment":   deploymentValidator,
}

// unavailable says why a known kind has no validator here.
var unavailable = map[string]string{
	"kaito.sh/v1beta1/Workspace":                "github.com/kaito-project/kaito is not served by this machine's Go module proxy",
	"kaito.sh/v1alpha1/Workspace":               "github.com/kaito-project/kaito is not served by this machine's Go module proxy",
	"kaito.sh/v1alpha1/InferenceSet":            "github.com/kaito-project/kaito is not served by this machine's Go module proxy",
	"nvidia.com/v1alpha1/DynamoGraphDeployment": "github.com/ai-dynamo/dynamo is not served by this machine's Go module proxy",
	"nvidia.com/v1beta1/DynamoGraphDeployment":  "github.com/ai-dynamo/dynamo is not served by this machine's Go module proxy",
}

type header struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("cannot read standard input: %v", err)
	}
	var objects []json.RawMessage
	if err := json.Unmarshal(input, &objects); err != nil {
		fail("standard input is not a JSON array of objects: %v", err)
	}
	results := make([]Result, 0, len(objects))
	for i, raw := range objects {
		results = append(results, judge(i, raw))
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	if err := out.Encode(results); err != nil {
		fail("cannot write the results: %v", err)
	}
}

func judge(index int, raw []byte) Result {
	var h header
	if err := json.Unmarshal(raw, &h); err != nil {
		return Result{Errors: []string{fmt.Sprintf("object %d is not a Kubernetes object: %v", index, err)}, Accepted: boolPtr(false)}
	}
	r := Result{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Metadata.Name, Errors: []string{}}
	key := h.APIVersion + "/" + h.Kind
	v, ok := validators[key]
	if !ok {
		r.Note = "no upstream validation here"
		if why, known := unavailable[key]; known {
			r.Note += ": " + why
		}
		return r
	}
	r.Validator = v.module
	r.Errors, r.Derived = v.validate(raw)
	if r.Errors == nil {
		r.Errors = []string{}
	}
	r.Accepted = boolPtr(len(r.Errors) == 0)
	return r
}

func boolPtr(b bool) *bool { return &b }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "upstream-admission: "+format+"\n", args...)
	os.Exit(2)
}
