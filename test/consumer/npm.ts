// What the tests that install the packed library from the npm registry share: the releases they pin,
// and whether the registry answers.
import { spawnSync } from 'child_process';

/** The oldest releases the peer ranges allow, and the newest the registry served when these were last raised. */
export const VERSIONS = {
  lowest: { 'cdk8s': '2.68.12', 'constructs': '10.3.0', '@pulumi/pulumi': '3.100.0', '@pulumi/kubernetes': '4.10.0' },
  newest: { 'cdk8s': '2.70.106', 'constructs': '10.8.1', '@pulumi/pulumi': '3.270.0', '@pulumi/kubernetes': '4.34.2' },
} as const;

/** Whether the npm registry serves `spec` (`cdk8s`, `@pulumi/pulumi@3.270.0`): undefined, or why not. */
export function registryProblem(spec: string): string | undefined {
  const r = spawnSync('npm', ['view', spec, 'version'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? undefined : `the npm registry cannot be reached (npm view ${spec} version: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()})`;
}
