import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { apiGroupOf } from './checks';

/**
 * Context key that turns the check off, for an app whose caller checks the objects itself: `render`
 * (which names the input documents) synthesises its documents beside the objects it passes through.
 */
export const OBJECTS_CHECKED_BY_CALLER_CONTEXT = 'kube-inference:objects-checked-by-caller';

/** The apps whose objects are checked already (one validation per app, whatever the number of constructs). */
const checked = new WeakSet<IConstruct>();

/**
 * Makes `cdk8s synth` refuse an app in which two objects have one identity (API group, kind, namespace
 * and name), in one chart or in two: applied together, the second silently replaces the first.
 * `kube-inference render` refuses the same of its documents. The check runs when the app validates
 * (`app.synth()`, and a chart's `toJson()`, as `Testing.synth` calls it), once all charts are built; the
 * constructs of this library add it.
 */
export function checkObjectsUniqueInApp(scope: IConstruct): void {
  const app = scope.node.root;
  if (checked.has(app)) return;
  checked.add(app);
  app.node.addValidation({ validate: () => (app.node.tryGetContext(OBJECTS_CHECKED_BY_CALLER_CONTEXT) === true ? [] : duplicateObjects(app)) });
}

function duplicateObjects(app: IConstruct): string[] {
  const owners = new Map<string, string>();
  const errors: string[] = [];
  for (const o of app.node.findAll().filter((c): c is ApiObject => ApiObject.isApiObject(c))) {
    const group = apiGroupOf(o.apiVersion);
    const namespace = o.metadata.namespace;
    const identity = `${o.kind}${group ? `.${group}` : ''} ${namespace ? `${namespace}/` : ''}${o.name}`;
    const other = owners.get(identity);
    if (other === undefined) {
      owners.set(identity, o.node.path);
    } else {
      errors.push(`${identity} is rendered by ${other} and by ${o.node.path}: applied together, the second replaces the first. `
        + 'Give them different names (the constructs\' name or metadata.name) or namespaces.');
    }
  }
  return errors;
}
