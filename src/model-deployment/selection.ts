// Provider selection (seed 003 §4.4), driven by the providers' CEL selection rules (§3.9).
//
// Among providers whose capabilities fit the spec, the one with the highest-priority matching rule
// wins (ties: provider name). If rules match only providers that cannot run the spec, the highest
// of those is still chosen so its compatibility check names the real obstacle, as §4.4 would.
// The built-in rules are priorities chosen so that this reproduces §4.4 exactly:
//   500 kaito   no GPU requested                 400 dynamo  engine trtllm / sglang
//   300 kaito   engine llamacpp                  200 dynamo  mode disaggregated
//   100 dynamo  default                          kuberay     no rules: never auto-selected
import { Problem } from '../errors';
import { InferenceProvider, SelectionRule } from './provider';
import { ProviderRegistry } from './registry';
import { celSpecView, ResolvedModelDeployment } from './resolved-spec';
import { CelEvaluationError, CelExpression } from '../schema/cel';

/** The reason recorded when `provider.name` is set. */
export const EXPLICIT_SELECTION_REASON = 'explicit provider selection';

/** The chosen provider and why. */
export interface ProviderSelection {
  /** The provider. */
  readonly provider: InferenceProvider;
  /** Why it was chosen, as recorded on the rendered resource. */
  readonly reason: string;
  /** Whether `provider.name` named it. */
  readonly explicit: boolean;
}

/** The outcome of selection: a provider, or the problem that prevented one; plus warnings. */
export interface SelectionResult {
  /** The selection, when one was made. */
  readonly selection?: ProviderSelection;
  /** Why no provider could be chosen. */
  readonly problem?: Problem;
  /** Rules that could not be evaluated (treated as not matching). */
  readonly warnings: readonly string[];
}

const parsed = new Map<string, CelExpression>();

function expression(provider: InferenceProvider, rule: SelectionRule, index: number): CelExpression {
  let compiled = parsed.get(rule.condition);
  if (!compiled) {
    try {
      compiled = CelExpression.parse(rule.condition);
    } catch (e) {
      throw new Error(`provider '${provider.name}': selection rule ${index + 1} is not valid CEL: ${(e as Error).message}`);
    }
    parsed.set(rule.condition, compiled);
  }
  return compiled;
}

/** Whether a provider's capabilities cover the deployment's engine, mode and GPU use. */
export function supports(provider: InferenceProvider, deployment: ResolvedModelDeployment): boolean {
  const caps = provider.capabilities;
  return caps.engines.includes(deployment.engine.type)
    && caps.servingModes.includes(deployment.mode)
    && (deployment.usesGpu ? caps.gpuSupport : caps.cpuSupport);
}

/** The reason recorded for a rule. */
export function ruleReason(provider: InferenceProvider, rule: SelectionRule): string {
  return rule.reason ?? `selection rule ${rule.condition} (priority ${rule.priority}) → ${provider.name}`;
}

/** Chooses the provider for a validated deployment. */
export function selectProvider(deployment: ResolvedModelDeployment, registry: ProviderRegistry): SelectionResult {
  const named = deployment.spec.provider?.name;
  if (named !== undefined) {
    const provider = registry.get(named);
    if (!provider) {
      return {
        warnings: [],
        problem: { field: 'provider.name', message: `unknown provider '${named}'; registered providers: ${registry.names.join(', ')}` },
      };
    }
    return { selection: { provider, reason: EXPLICIT_SELECTION_REASON, explicit: true }, warnings: [] };
  }

  const view = { spec: celSpecView(deployment.spec) };
  const warnings: string[] = [];
  const matches: { provider: InferenceProvider; rule: SelectionRule; supported: boolean }[] = [];
  for (const provider of registry.providers) {
    const supported = supports(provider, deployment);
    provider.selectionRules.forEach((rule, index) => {
      try {
        if (expression(provider, rule, index).evaluateBoolean(view)) {
          matches.push({ provider, rule, supported });
        }
      } catch (e) {
        if (!(e instanceof CelEvaluationError)) throw e;
        warnings.push(`provider '${provider.name}': selection rule ${index + 1} could not be evaluated and counts as not matching: ${e.message}`);
      }
    });
  }
  const best = (pool: typeof matches) => pool.reduce<(typeof matches)[number] | undefined>(
    (winner, m) => (!winner || m.rule.priority > winner.rule.priority) ? m : winner, undefined);
  const winner = best(matches.filter((m) => m.supported)) ?? best(matches);
  if (!winner) {
    return {
      warnings,
      problem: {
        field: 'provider.name',
        message: `no registered provider's selection rules match this spec; set provider.name to one of: ${registry.names.join(', ')}`,
      },
    };
  }
  return { selection: { provider: winner.provider, reason: ruleReason(winner.provider, winner.rule), explicit: false }, warnings };
}
