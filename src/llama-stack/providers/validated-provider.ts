// A provider as validation leaves it for the pod and the synth-time merge: placed, its secrets resolved, its service planned.
import type { SecretEnvVar } from './config';
import type { PlacedProvider } from './external-providers';
import type { PlannedService } from './service';
import type { PlannedSidecar } from './sidecar';
import type { ServiceAddress } from '../../run-config/service-address';

/** A provider after validation, with its config's secrets resolved. */
export interface ValidatedProvider extends PlacedProvider {
  readonly config?: { [key: string]: unknown };
  readonly secretEnv: SecretEnvVar[];
  /** Its service's sidecar, when it has one. */
  readonly sidecar?: PlannedSidecar;
  /** Its service in pods of its own, when it has one. */
  readonly service?: PlannedService;
  /** Its sidecar's or Service's address, which the merge writes into its config. */
  readonly serviceAddress?: ServiceAddress;
}
