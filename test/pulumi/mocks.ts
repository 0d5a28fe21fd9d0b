import * as pulumi from '@pulumi/pulumi';

/** A resource registered with the Pulumi engine mocks. */
export interface Registered {
  readonly type: string;
  readonly name: string;
  readonly inputs: any;
}

/** Installs Pulumi's engine mocks and returns the list they record registrations into. */
export function mockPulumi(): Registered[] {
  const registered: Registered[] = [];
  void pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: (args) => args.inputs,
  }, 'project', 'stack', false);
  return registered;
}

/** The value of an output (rejects when the output fails). */
export function valueOf<T>(output: pulumi.Output<T>): Promise<T> {
  // An output carries sibling promises (known-ness, secrecy) that reject with its value; they are
  // observed here so a failing output is reported once, through the returned promise.
  for (const sibling of [(output as any).isKnown, (output as any).isSecret]) {
    (sibling as Promise<unknown> | undefined)?.catch(() => undefined);
  }
  return (output as any).promise();
}

/** Waits until every registration started so far has reached the mocks. */
export async function settled(resources: readonly pulumi.CustomResource[]): Promise<void> {
  await Promise.all(resources.map((r) => valueOf(r.urn)));
}
