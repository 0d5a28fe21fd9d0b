// Image references as the container runtimes parse them (github.com/distribution/reference):
// what they refuse leaves a pod in InvalidImageName, so synth refuses it first.
import { Testing } from 'cdk8s';
import { LlamaStackWithProviders, ModelDeployment } from '../src';
import { imageReferenceProblem } from '../src/image-reference';

describe('imageReferenceProblem', () => {
  test.each([
    'nginx', 'library/nginx:1.27', 'docker.io/ogxai/distribution-starter:1.5.0', 'localhost:5000/a/b:1', 'localhost/kube-inference/merge:0.1.0',
    'registry.example.com:443/org/name__x.y-z:tag_1.2-3', `quay.io/acme/p@sha256:${'0'.repeat(64)}`, `quay.io/acme/p:1.0@sha256:${'a'.repeat(64)}`,
    '[::1]:5000/x/y:z', 'Registry.Example.COM/org/name:1',
  ])('%s parses', (image) => {
    expect(imageReferenceProblem(image)).toBeUndefined();
  });

  test.each([
    ['quay.io/Acme/UPPER:1.0', "the repository path must be lower-case ('Acme')"],
    ['Acme/upper:1.0', "the repository path must be lower-case ('Acme')"],
    ['quay.io/acme/x:-1', "the tag '-1' is not a tag"],
    ['quay.io/acme/x@sha256:abc', "the digest 'sha256:abc' is not <algorithm>:<hex>"],
    ['quay.io/acme/a..b:1', "'a..b' is not a repository path component"],
    ['quay.io/acme/-a:1', "'-a' is not a repository path component"],
    ['-bad.io/a:1', "the registry '-bad.io' is not a host name"],
    [`quay.io/${'a'.repeat(250)}:1`, 'the repository name is longer than 255 characters'],
  ])('%s is refused: %s', (image, problem) => {
    expect(imageReferenceProblem(image)).toContain(problem);
  });
});

describe('the constructs refuse what the kubelet would', () => {
  test('LlamaStackWithProviders: distribution, provider and merge images', () => {
    expect(() => new LlamaStackWithProviders(Testing.chart(), 's', {
      distribution: { image: 'quay.io/Acme/UPPER:1.0' },
      serverVersion: '1.5',
      mergeImage: 'ghcr.io/kube-inference/merge:-x',
      externalProviders: { inference: [{ providerId: 'p', image: 'Quay.io/acme/P:1' }] },
    })).toThrow(expect.objectContaining({
      message: expect.stringMatching(new RegExp([
        "distribution.image: 'quay.io/Acme/UPPER:1.0' is not a valid image reference for the distribution: the repository path must be lower-case \\('Acme'\\) "
          + '\\(the kubelet would refuse it as InvalidImageName\\)',
        "mergeImage: 'ghcr.io/kube-inference/merge:-x' is not a valid image reference for the merge step: the tag '-x' is not a tag",
        "externalProviders.inference\\[0\\].image: 'Quay.io/acme/P:1' is not a valid image reference .*: the repository path must be lower-case \\('P'\\)",
      ].join('[^]*'))),
    }));
  });

  test('ModelDeployment: image', () => {
    expect(() => new ModelDeployment(Testing.chart(), 'm', {
      model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } }, image: 'nvcr.io/NVIDIA/vllm:1',
    })).toThrow('image: "nvcr.io/NVIDIA/vllm:1" is not an image reference the kubelet accepts (InvalidImageName): the repository path must be lower-case (\'NVIDIA\').');
  });
});
