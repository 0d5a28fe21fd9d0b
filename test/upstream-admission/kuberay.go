package main

import (
	"context"
	"encoding/json"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	webhooks "github.com/ray-project/kuberay/ray-operator/pkg/webhooks/v1"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	strictjson "sigs.k8s.io/json"
)

const kuberayModule = "github.com/ray-project/kuberay/ray-operator@v1.6.2"

var rayServiceValidator = validator{module: kuberayModule, validate: validateRayService}

// validateRayService runs, in order, what a RayService meets on its way to a Ray cluster:
//   - strict decoding into KubeRay's Go type (the API server's strict field validation reports unknown
//     and duplicate fields the same way);
//   - KubeRay's validating admission webhook (pkg/webhooks/v1/rayservice_webhook.go ValidateCreate);
//   - the validation the RayService controller runs before reconciling (controllers/ray/rayservice_controller.go
//     validateRayService: utils.ValidateRayServiceMetadata and utils.ValidateRayServiceSpec), which refuses
//     the object with a ValidationFailed condition when the webhook is not installed.
func validateRayService(raw []byte) ([]string, map[string]json.RawMessage) {
	var rs rayv1.RayService
	strictErrs, err := strictjson.UnmarshalStrict(raw, &rs)
	if err != nil {
		return []string{"decoding: " + err.Error()}, nil
	}
	var errs []string
	for _, e := range strictErrs {
		errs = append(errs, "strict decoding: "+e.Error())
	}
	if _, err := (&webhooks.RayServiceWebhook{}).ValidateCreate(context.Background(), &rs); err != nil {
		errs = append(errs, "admission webhook: "+err.Error())
	}
	if err := utils.ValidateRayServiceMetadata(rs.ObjectMeta); err != nil {
		errs = append(errs, "controller: "+err.Error())
	}
	if err := utils.ValidateRayServiceSpec(&rs); err != nil {
		errs = append(errs, "controller: "+err.Error())
	}
	body, err := serveConfigForDashboard(rs.Spec.ServeConfigV2)
	if err != nil {
		errs = append(errs, "serveConfigV2: "+err.Error())
		return errs, nil
	}
	return errs, map[string]json.RawMessage{"serveConfigV2": body}
}

// serveConfigForDashboard turns spec.serveConfigV2 into the JSON body KubeRay PUTs to the Ray dashboard
// (/api/serve/applications/), with the calls KubeRay makes: controllers/ray/rayservice_controller.go
// updateServeDeployment unmarshals the text with k8s.io/apimachinery/pkg/util/yaml.Unmarshal into a
// map[string]any (sigs.k8s.io/yaml, that is go-yaml's YAML 1.1 rules, numbers kept as int64/float64) and
// marshals it with encoding/json. The method itself needs a reconciler and a dashboard client, so the same
// two library calls are made here. (KubeRay adds target_capacity only for incremental upgrades, which we do
// not render.)
func serveConfigForDashboard(serveConfigV2 string) (json.RawMessage, error) {
	serveConfig := make(map[string]any)
	if err := k8syaml.Unmarshal([]byte(serveConfigV2), &serveConfig); err != nil {
		return nil, err
	}
	return json.Marshal(serveConfig)
}
