// `engine.args` names checked at synth as Ray Serve LLM checks them when it builds the application: a name
// that is not an argument of the vLLM the Ray release pins is refused there ("Unknown engine argument"),
// which a user would otherwise first see in the RayService's status once a GPU cluster is up.
import { RAY_SERVE_LLM_ENGINE_ARGS } from './engine-args.generated';
import { Problem } from '../../../errors';
import { closest } from '../../../suggest';
import { ResolvedModelDeployment } from '../../resolved-spec';

/**
 * Problems for `engine.args` names vLLM does not have. Checked only where the vLLM is known: Ray's own
 * image of the release the names were read from (scripts/import-vllm-engine-args.mjs); another release or
 * image may carry another vLLM.
 */
export function engineArgNameProblems(d: ResolvedModelDeployment, rayVersion: string, ownImage: boolean): Problem[] {
  const { ray, vllm, names } = RAY_SERVE_LLM_ENGINE_ARGS;
  if (rayVersion !== ray || !ownImage) return [];
  return Object.keys(d.engine.args).sort().flatMap((key) => {
    // serve-config.ts writes each key with underscores, the spelling of vLLM's fields.
    const name = key.replace(/-/g, '_');
    if (names.includes(name)) return [];
    const near = closest(name, names);
    const suggestion = near === undefined ? '' : `; did you mean "${key.includes('-') ? near.replace(/_/g, '-') : near}"?`;
    return [{
      field: `engine.args.${key}`,
      message: `Ray Serve LLM ${ray} hands engine_kwargs to vLLM ${vllm}, which has no engine argument "${name}": `
        + `Ray would refuse the application ("Unknown engine argument: ${name}")${suggestion}`,
    }];
  });
}
