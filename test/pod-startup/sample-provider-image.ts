/**
 * The sample provider's image (examples/sample-provider), built from its Containerfile with buildah as
 * a provider author builds it. No registry is reachable here, so it is built on an empty base
 * (`--build-arg PYTHON_IMAGE=scratch`) and laid over the host's root, which provides /bin/sh and
 * python3 as a python base image would; everything else (the wheels, the metadata, the service part's
 * command and environment) comes from the built image.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Scenario } from './helpers';
import { buildImage, extractImage } from '../sandbox/buildah';
import { pythonImageEnv } from '../sandbox/images';
import type { ContainerImage } from '../sandbox/pod-runner';
import { buildProjectWheel, SAMPLE_PROVIDER_DIR } from '../sandbox/wheels';

/**
 * Builds the image as `tag` from a copy of the example with its wheels built into `dist/`, and returns
 * its root file system as a sandbox image (the caller removes the tag with `removeImage`).
 */
export function buildSampleProviderImage(s: Scenario, tag: string): ContainerImage {
  const context = s.path('sample-provider-context');
  prepareSampleProviderContext(context);
  buildImage(context, path.join(context, 'Containerfile'), tag, { PYTHON_IMAGE: 'scratch' });
  const built = extractImage(tag, s.path('sample-provider-rootfs'), 'overlay');
  // The host stands in for the python base image, whose PATH leads to its python3.
  return { ...built, env: { ...pythonImageEnv(), ...built.env, PATH: pythonImageEnv().PATH } };
}

/** The build context of the sample provider's Containerfile in `context`: a copy of the example, its wheels built into `dist/`. */
export function prepareSampleProviderContext(context: string): void {
  fs.cpSync(SAMPLE_PROVIDER_DIR, context, { recursive: true });
  buildProjectWheel(context, path.join(context, 'dist'));
  buildProjectWheel(path.join(context, 'deps', 'acme-text-utils'), path.join(context, 'dist'));
}
