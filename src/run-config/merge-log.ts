import { MergeResult } from './merge';
import { releaseName } from './releases';
import { keyChooser } from './service-address';

/** File name of the merge log written next to the merged config. */
export const MERGE_LOG_FILE = 'merge-log.txt';

/** Where the merge read and wrote, for the log. */
export interface MergeLogContext {
  /** The base config read. */
  readonly baseConfig: string;
  /** The metadata directory scanned, when the providers came from one. */
  readonly metadataDir?: string;
  /** The files written. */
  readonly outputs: readonly string[];
}

/**
 * The merge log (`merge-log.txt`, also printed by the merge init container): what each external
 * provider did to the config, then every warning in full. It carries no timestamps, so identical
 * inputs give identical logs.
 */
export function formatMergeLog(result: MergeResult, context: MergeLogContext): string {
  const lines = ['kube-inference merge-config', `Server release: ${releaseName(result.release)}`, `Base config: ${context.baseConfig}`];
  const from = context.metadataDir !== undefined ? ` (from ${context.metadataDir})` : '';
  lines.push(`External providers: ${result.changes.length}${from}`);
  for (const c of result.changes) {
    const what = `${c.providerId} (${c.providerType}, module ${c.module}, image ${c.image ?? 'unknown'})`;
    const replaced = c.replaced.map((r) => `${r.providerId}${r.providerType ? ` (${r.providerType})` : ''}`).join(', ');
    const note = c.newSection ? `; new section providers.${c.api}` : '';
    lines.push(c.replaced.length > 0
      ? `  ${c.api}: replaced base provider ${replaced} with ${what}${note}`
      : `  ${c.api}: added ${what}${note}`);
    const a = c.serviceAddress;
    if (a) lines.push(`    its ${a.mode}'s address ${a.value} at config.${a.key} (${keyChooser(a.mode, a)})`);
  }
  if (result.servedModels.length > 0) {
    lines.push(`Served models: ${result.servedModels.length}`);
    for (const m of result.servedModels) {
      const replaced = m.replaced.length > 0 ? ` replacing base provider ${m.replaced.map((r) => r.providerId).join(', ')}` : '';
      lines.push(`  inference: ${m.providerId} (remote::vllm, ${m.url})${replaced}; model registered as ${m.id}`);
    }
  }
  if (result.apisAdded.length > 0) {
    lines.push(`apis: appended ${result.apisAdded.join(', ')} so that the server serves the new sections`);
  }
  const settings = Object.entries(result.serverSettings);
  if (settings.length > 0) {
    lines.push(`server: set ${settings.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ')} (${transportNote(result.serverSettings)})`);
  }
  lines.push(`Warnings: ${result.warnings.length}`);
  for (const w of result.warnings) {
    lines.push('', `WARNING: ${w.message}`);
  }
  lines.push('', 'Outputs:', ...context.outputs.map((o) => `  ${o}`), '');
  return lines.join('\n');
}

/** Why the merge set the `server` keys it set. */
function transportNote(settings: Readonly<Record<string, unknown>>): string {
  return 'insecure' in settings
    ? 'the pod serves plain HTTP inside the cluster; ogx 1.2 and later refuse to start without TLS unless told so'
    : 'the pod serves TLS with the certificate the construct mounts';
}
