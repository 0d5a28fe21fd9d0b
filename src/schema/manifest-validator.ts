import { existsSync, readdirSync, readFileSync } from 'fs';
import { basename, join } from 'path';
import { CrdValidationResult, CrdValidator } from './crd-validator';
import { apiGroupOf } from '../checks';
import { DEFAULT_KUBERNETES_MINOR } from './kubernetes/openapi';
import { validateKubernetesObject } from './kubernetes-validator';

/**
 * The CRDs vendored with this package (KAITO, Dynamo, KubeRay, OGX, OpenShift Route; crds/SOURCES.md), next
 * to `lib/` and `src/`, as JSON (`crds-json/`, written from `crds/` by scripts/crds-json.mjs): reading the
 * Dynamo CRD's 1.6 MB of YAML took a quarter of a 220-object validate.
 */
export const VENDORED_CRDS_DIR = join(__dirname, '..', '..', 'crds-json');

/** How one object fared. */
export interface ManifestValidation extends CrdValidationResult {
  /** `kubernetes` (core schema), `crd` (a loaded CRD) or `unknown` (no schema: not validated). */
  readonly against: 'kubernetes' | 'crd' | 'unknown';
}

/**
 * Validates any Kubernetes object: core and built-in kinds against the Kubernetes OpenAPI schema,
 * custom resources against the vendored CRDs and any others given.
 */
export class ManifestValidator {
  /**
   * A validator with the vendored CRDs plus the CRD files given (which win over a vendored CRD of the
   * same kind). A vendored CRD file is read only when an object of its API group comes: they are
   * megabytes, and most manifests hold none of their kinds.
   */
  public static withVendoredCrds(extraCrdFiles: readonly string[] = [], kubernetesMinor: string = DEFAULT_KUBERNETES_MINOR): ManifestValidator {
    const vendored = existsSync(VENDORED_CRDS_DIR)
      ? readdirSync(VENDORED_CRDS_DIR).filter((f) => f.endsWith('.json')).sort().map((f) => join(VENDORED_CRDS_DIR, f))
      : [];
    return new ManifestValidator(CrdValidator.fromFiles(extraCrdFiles), vendored, kubernetesMinor);
  }

  private readonly loadedGroups = new Set<string>();

  /**
   * @param crds the CRDs to validate custom resources against
   * @param crdFilesByGroup more CRD files, JSON lists of CRDs named `<group>_<plural>.json` (after
   *   controller-gen's file names), read into `crds` when an object of that group is first validated
   * @param kubernetesMinor the Kubernetes minor whose built-in kinds to check against (`1.37`; see
   *   `KUBERNETES_MINORS`)
   */
  public constructor(
    private readonly crds: CrdValidator,
    private readonly crdFilesByGroup: readonly string[] = [],
    private readonly kubernetesMinor: string = DEFAULT_KUBERNETES_MINOR,
  ) {}

  /** Validates one object. */
  public validate(object: any): ManifestValidation {
    if (object === null || typeof object !== 'object' || typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
      return { against: 'unknown', valid: false, violations: [{ path: '', message: 'not a Kubernetes object: apiVersion and kind must be strings' }], notes: [] };
    }
    this.loadGroup(apiGroupOf(object.apiVersion));
    if (this.crds.supports(object.apiVersion, object.kind)) {
      return { against: 'crd', ...this.crds.validate(object, this.kubernetesMinor) };
    }
    const core = validateKubernetesObject(object, this.kubernetesMinor);
    if (core) {
      return { against: 'kubernetes', ...core };
    }
    return { against: 'unknown', valid: true, violations: [], notes: [`no schema for ${object.apiVersion} ${object.kind}: pass its CRD with --crd to validate it`] };
  }

  /** Reads the CRD files of `group` into the validator, once. */
  private loadGroup(group: string): void {
    if (group === '' || this.loadedGroups.has(group)) return;
    this.loadedGroups.add(group);
    const files = this.crdFilesByGroup.filter((f) => basename(f).startsWith(`${group}_`));
    this.crds.addFallbacks(files.flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as unknown[]));
  }
}
