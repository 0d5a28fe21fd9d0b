// Environment variables of the pod's containers: the release's, the user's with PYTHONPATH, values kept literal.
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import { PYTHON_PACKAGES_DIR } from './paths';
import type { PodPlan } from './plan';
import type { ServerRelease } from '../../run-config/releases';

/** The release's run command and Python package, for the scripts that run the server's Python. */
export function releaseEnv(release: ServerRelease): IEnvVar[] {
  return [
    { name: 'SERVER_COMMAND', value: release.runCommand.join(' ') },
    { name: 'SERVER_PACKAGE', value: release.pythonPackage },
  ];
}

/**
 * The user's env with, when there are providers, PYTHONPATH starting with the provider packages: what
 * decides which Python packages the server's interpreter imports.
 */
export function userEnv(plan: PodPlan): IEnvVar[] {
  if (plan.providers.length === 0) {
    return [...plan.env];
  }
  const env = plan.env.filter((e) => e.name !== 'PYTHONPATH');
  const userPythonPath = plan.env.find((e) => e.name === 'PYTHONPATH');
  if (userPythonPath?.valueFrom) {
    // The user's PYTHONPATH comes from a ConfigMap or Secret: keep it under another name and
    // let Kubernetes expand it after ours.
    env.push({ ...userPythonPath, name: 'USER_PYTHONPATH' });
    env.push({ name: 'PYTHONPATH', value: `${PYTHON_PACKAGES_DIR}:$(USER_PYTHONPATH)` });
  } else {
    const rest = userPythonPath?.value ? `:${userPythonPath.value}` : '';
    env.push({ name: 'PYTHONPATH', value: `${PYTHON_PACKAGES_DIR}${rest}` });
  }
  return env;
}

/**
 * An env value that reaches the container exactly as written. Kubernetes expands `$(NAME)` in env
 * values and turns `$$` into `$`; doubling every `$` keeps user data (a password in a provider
 * config, say) from being rewritten on its way into the pod.
 */
export function literalEnvValue(text: string): string {
  return text.replace(/\$/g, '$$$$');
}
