import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultMergeImage, MERGE_IMAGE_REPOSITORY, packageVersion } from '../../src/run-config/merge-image';

const REPO = path.join(__dirname, '..', '..');
const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;

test('the default merge image is the one released with this package version', () => {
  expect(packageVersion()).toBe(version);
  expect(defaultMergeImage()).toBe(`ghcr.io/kube-inference/merge:${version}`);
});

test('the release workflow publishes that repository, tagged with the package version', () => {
  const workflow = fs.readFileSync(path.join(REPO, '.github', 'workflows', 'release.yml'), 'utf8');
  expect(workflow).toContain(`${MERGE_IMAGE_REPOSITORY}:\${{ steps.version.outputs.version }}`);
  expect(workflow).toContain('file: containers/merge/Containerfile');
  expect(workflow).toContain('scripts/merge-image/bundle.sh');
});

test('the same release publishes the npm package, and only when the tag is the package version', () => {
  const workflow = fs.readFileSync(path.join(REPO, '.github', 'workflows', 'release.yml'), 'utf8');
  expect(workflow).toContain('npm publish');
  expect(workflow).toContain('if [ "$version" != "$package_version" ]; then');
});
