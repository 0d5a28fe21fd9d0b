package main

import (
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	strictjson "sigs.k8s.io/json"
)

const podSecurityModule = "k8s.io/pod-security-admission@v0.35.0"

var deploymentValidator = validator{module: podSecurityModule, validate: validateDeploymentPodSecurity}

// validateDeploymentPodSecurity decodes a Deployment strictly into the Kubernetes Go type and judges its
// pod template by the Pod Security Standards `restricted` profile, latest version, with the Pod
// Security admission controller's own checks (k8s.io/pod-security-admission/policy): what a namespace
// labelled `pod-security.kubernetes.io/enforce: restricted` admits.
func validateDeploymentPodSecurity(raw []byte) ([]string, map[string]json.RawMessage) {
	var d appsv1.Deployment
	strictErrs, err := strictjson.UnmarshalStrict(raw, &d)
	if err != nil {
		return []string{"decoding: " + err.Error()}, nil
	}
	var errs []string
	for _, e := range strictErrs {
		errs = append(errs, "strict decoding: "+e.Error())
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return append(errs, "pod security: cannot build the evaluator: "+err.Error()), nil
	}
	level := psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}
	for _, r := range evaluator.EvaluatePod(level, &d.Spec.Template.ObjectMeta, &d.Spec.Template.Spec) {
		if !r.Allowed {
			errs = append(errs, fmt.Sprintf("pod security restricted: %s (%s)", r.ForbiddenReason, r.ForbiddenDetail))
		}
	}
	return errs, nil
}
