import * as pulumi from '@pulumi/pulumi';
import { Construct } from 'constructs';
import { synthesizeObjects } from '../synth';
import { DeferredValues } from './deferred-values';
import { registerObjects } from './register-objects';

/**
 * The shared body of the Pulumi components: build the cdk8s construct in memory from props that
 * hold placeholders for the deferred values, log its warnings on the component, swap the
 * placeholders for the outputs (re-validating the real values through the construct once known, after
 * `checkResolved`: what the placeholders rendered differently), and register every rendered object as a child.
 */
export function renderComponent<P, C extends Construct>(
  component: pulumi.ComponentResource,
  name: string,
  props: P,
  deferred: DeferredValues,
  create: (scope: Construct, id: string, props: P) => C,
  checkResolved?: (props: P) => void,
): { construct: C; resources: pulumi.CustomResource[]; registered: (kind: string, name: string) => pulumi.CustomResource } {
  let construct: C | undefined;
  const render = (p: P) => synthesizeObjects(undefined, (scope) => {
    construct = create(scope, name, p);
  });
  // A warning about a placeholder (an image without a version tag) is not the user's: it waits for the
  // real values, whose render logs what it warns about that the first did not.
  const { manifests, warnings } = render(props);
  const built = construct!;
  const logged = warnings.filter((w) => !deferred.mentionedIn(w));
  logged.forEach((w) => void pulumi.log.warn(w, component));
  const objects = deferred.substitute(manifests, (values) => {
    const resolved = deferred.resolve(props, values);
    checkResolved?.(resolved);
    render(resolved).warnings.filter((w) => !logged.includes(w)).forEach((w) => void pulumi.log.warn(w, component));
  });
  const resources = registerObjects(component, name, objects);
  // The resource of one rendered object; the objects are registered in order, one resource each.
  const registered = (kind: string, objectName: string) => resources[objects.findIndex((o) => o.kind === kind && o.metadata?.name === objectName)];
  return { construct: built, resources, registered };
}
