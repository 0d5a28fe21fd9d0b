// A Service (rendered by a construct, or by an operator from a construct's resource) as an object of
// the app's own cdk8s-plus, for the cdk8s-plus APIs that take a `Service` (`IngressBackend.fromService`).
// cdk8s-plus's `Service` is a class with private fields, so nothing but an instance of it fits: the
// instance is made with the class the app passes in (whichever major it uses), in a chart that is never
// synthesised, so it stands for the Service and renders nothing.
import { App, Chart } from 'cdk8s';
import type { Construct } from 'constructs';

/** The props this package gives a cdk8s-plus `Service`: those every cdk8s-plus major takes. */
export interface PlusServiceProps {
  /** The Service's name and namespace. */
  readonly metadata: { readonly name: string; readonly namespace?: string };
  /** Its ports, by number and name. */
  readonly ports: { readonly port: number; readonly name?: string }[];
}

/** A cdk8s-plus module (`import * as kplus from 'cdk8s-plus-33'`): what has its `Service` class. */
export interface CdkPlusModule<S> {
  /** cdk8s-plus's `Service` class. */
  readonly Service: new (scope: Construct, id: string, props: PlusServiceProps) => S;
}

/** The Service of `props` as a `Service` of `plus`. */
export function plusServiceOf<S>(plus: CdkPlusModule<S>, props: PlusServiceProps): S {
  const detached = new Chart(new App(), 'reference', { namespace: props.metadata.namespace });
  return new plus.Service(detached, 'service', props);
}
