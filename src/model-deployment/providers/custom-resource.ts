import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import type { Construct } from 'constructs';

/**
 * Defines a provider's custom resource as the JSON the API server reads, through cdk8s's own
 * ApiObject (undefined values dropped, keys sorted). `Props` are the props of the class cdk8s
 * generated from the CRD (`src/imports/`), imported as a type only, so that the build still checks
 * every field name against the CRD: the classes themselves are the whole schema as JavaScript
 * (RayService's alone is 1.6 MB), which every run rendering one would load and compile.
 */
export function defineCustomResource<Props extends { readonly metadata?: ApiObjectMetadata }>(
  scope: Construct, id: string, type: { readonly apiVersion: string; readonly kind: string }, props: Props,
): ApiObject {
  return new ApiObject(scope, id, { apiVersion: type.apiVersion, kind: type.kind, ...props });
}
