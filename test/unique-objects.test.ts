// Two objects with one identity in a cdk8s app: applied together, the second would replace the
// first. `cdk8s synth` (app.synth(), which runs the app's validations) refuses them, as render does.
import { ApiObject, Chart, Testing } from 'cdk8s';
import { LlamaStackWithProviders, ModelDeployment } from '../src';

const stack = (chart: Chart) => new LlamaStackWithProviders(chart, 'server', { name: 'llama-stack', distribution: { name: 'starter' } });

describe('one identity, one object, across the charts of an app', () => {
  test('the same stack in two charts of one namespace: every object named, with both paths', () => {
    const app = Testing.app();
    stack(new Chart(app, 'team-a', { namespace: 'ai' }));
    stack(new Chart(app, 'team-b', { namespace: 'ai' }));
    expect(() => app.synth()).toThrow(expect.objectContaining({
      message: expect.stringMatching(new RegExp([
        'ServiceAccount ai/llama-stack-sa is rendered by team-a/server/service-account and by team-b/server/service-account: applied together, the second replaces the first',
        'Deployment.apps ai/llama-stack is rendered by team-a/server/deployment and by team-b/server/deployment',
        'Service ai/llama-stack-service is rendered by team-a/server/service and by team-b/server/service',
      ].join('[^]*'))),
    }));
  });

  test('Testing.synth of a chart validates the app too: a snapshot test sees the clash', () => {
    const chart = Testing.chart();
    stack(chart);
    new LlamaStackWithProviders(chart, 'again', { name: 'llama-stack', distribution: { name: 'starter' } });
    expect(() => Testing.synth(chart)).toThrow('Deployment.apps llama-stack is rendered by test/server/deployment and by test/again/deployment');
  });

  test('in two namespaces, or under two names, they are different objects', () => {
    const app = Testing.app();
    stack(new Chart(app, 'team-a', { namespace: 'a' }));
    stack(new Chart(app, 'team-b', { namespace: 'b' }));
    const chart = new Chart(app, 'models', { namespace: 'a' });
    new ModelDeployment(chart, 'model', { metadata: { name: 'llama-stack' }, model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } });
    expect(() => app.synth()).not.toThrow();
  });

  test('a ModelDeployment and an object of the user\'s own with its identity', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'models', { namespace: 'ai' });
    new ModelDeployment(chart, 'model', { metadata: { name: 'llama-8b' }, model: { id: 'meta-llama/Llama-3.1-8B-Instruct' }, engine: { type: 'vllm' }, resources: { gpu: { count: 1 } } });
    new ApiObject(new Chart(app, 'other', { namespace: 'ai' }), 'copy', { apiVersion: 'nvidia.com/v1alpha1', kind: 'DynamoGraphDeployment', metadata: { name: 'llama-8b' } });
    expect(() => app.synth()).toThrow(/DynamoGraphDeployment\.nvidia\.com ai\/llama-8b is rendered by models\/model\/.* and by other\/copy/);
  });
});
