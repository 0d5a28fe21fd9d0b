/**
 * The single-node cluster itself (test/cluster/cluster.ts): a Deployment rolls out on the real kubelet,
 * its Service answers through kube-proxy from the host and from a pod, by name through the cluster's
 * DNS, `kubectl exec` and `logs` reach
 * the containers through the API server, a killed container is restarted, Pod Security's `restricted`
 * profile holds under runc, and stopping gives the host back as it was.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { clusterSupport, KubeCluster, NODE_NAME } from './cluster';
import { CLUSTER_DNS_IP } from './cluster-dns';
import { request } from './http';
import { acquireClusterLock, CLUSTER_DIR, NODE_BRIDGE, releaseClusterLock, RUNTIME_PATHS, sweepNodeHost } from './node-host';
import { describeWhen } from '../sandbox/host';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const NAMESPACE = 'cluster-smoke';

/** A server of the node base image that answers every request with its pod's name. */
const SERVER = 'require("http").createServer((q, s) => s.end(require("os").hostname())).listen(8080)';

/** The host's state the cluster must give back: sysctls, iptables chains, mounts, cgroups. */
function hostState() {
  const sysctl = (name: string) => fs.readFileSync(`/proc/sys/${name}`, 'utf8').trim();
  return {
    ipForward: sysctl('net/ipv4/ip_forward'),
    routeLocalnet: sysctl('net/ipv4/conf/all/route_localnet'),
    overcommit: sysctl('vm/overcommit_memory'),
    panic: sysctl('kernel/panic'),
    kubeChains: ['iptables-save', 'ip6tables-save'].flatMap((save) => ['filter', 'nat', 'mangle']
      .flatMap((t) => execFileSync(save, ['-t', t], { encoding: 'utf8' }).split('\n').filter((l) => /KUBE-/.test(l)))),
    runtimePaths: RUNTIME_PATHS.filter((p) => fs.existsSync(p)),
    kubectlCache: fs.existsSync(path.join(os.homedir(), '.kube', 'cache')),
    mounts: fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(CLUSTER_DIR)),
    bridge: fs.existsSync(`/sys/class/net/${NODE_BRIDGE}`),
    kubepods: fs.readdirSync('/sys/fs/cgroup').filter((c) => fs.existsSync(path.join('/sys/fs/cgroup', c, 'kubepods'))),
    clusterDir: fs.existsSync(CLUSTER_DIR),
  };
}

/** A GET's body: the name of the pod that answered. */
const get = async (url: string): Promise<string> => (await request(url, undefined, 10_000)).body;

describeWhen('a real single-node cluster', clusterSupport(), 'the single-node cluster (its Kubernetes programs, containerd, runc, CNI plugins)', () => {
  let cluster: KubeCluster;
  let before: ReturnType<typeof hostState>;

  beforeAll(async () => {
    // The host as it is without a cluster: after another test file's cluster (the lock) and whatever a
    // crashed run left (the sweep), which KubeCluster.start would otherwise find.
    await acquireClusterLock(20 * 60_000);
    sweepNodeHost();
    before = hostState();
    cluster = await KubeCluster.start();
    const image = execFileSync('bash', [path.join(REPO_ROOT, 'scripts', 'merge-image', 'local-base.sh')], { encoding: 'utf8' }).trim();
    cluster.loadImage(image);
    const labels = { app: 'echo' };
    const restricted = {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 1000,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    };
    const objects = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'echo', namespace: NAMESPACE },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              automountServiceAccountToken: false,
              containers: [{
                name: 'echo',
                image,
                imagePullPolicy: 'IfNotPresent',
                command: ['node', '-e', SERVER],
                ports: [{ containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
                securityContext: restricted,
              }],
            },
          },
        },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: NAMESPACE }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
    ];
    cluster.kubectl(['apply', '--server-side', '-f', '-'], objects.map((o) => JSON.stringify(o)).join('\n'));
    await cluster.waitFor('deployment echo available', () => {
      const d = cluster.get(['deployment', 'echo', '-n', NAMESPACE]);
      return d.status?.availableReplicas === 2 ? d : undefined;
    }, 300_000, ['describe', 'pods', '-n', NAMESPACE]);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const pods = () => cluster.get(['pods', '-n', NAMESPACE, '-l', 'app=echo']).items as any[];

  test('the node is registered under its own name by the kubelet, as the Node authorizer requires', () => {
    const node = cluster.get(['node', NODE_NAME]);
    expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.37\./);
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
  });

  test('the Service answers through kube-proxy, from the host and from a pod, with both replicas behind it', async () => {
    const clusterIP = cluster.get(['service', 'echo', '-n', NAMESPACE]).spec.clusterIP;
    const names = new Set(pods().map((p) => p.metadata.name));
    // kube-proxy writes the Service's rules once it sees the ready endpoints, a moment after the rollout;
    // until then the Service refuses connections (its "has no endpoints" rule).
    await cluster.waitFor('the Service answering', () => get(`http://${clusterIP}/`), 120_000, ['get', 'endpointslices', '-n', NAMESPACE, '-o', 'yaml']);
    const seen = new Set<string>();
    for (let i = 0; i < 40 && seen.size < 2; i++) seen.add(await get(`http://${clusterIP}/`));
    expect(seen).toEqual(names);
    // Through `kubectl exec` (API server → kubelet → containerd), by the Service's DNS-free address.
    const fromPod = cluster.kubectl(['exec', '-n', NAMESPACE, [...names][0], '--', 'node', '-e',
      `require("http").get("http://${clusterIP}/", (r) => r.pipe(process.stdout))`]);
    expect(names).toContain(fromPod);
  });

  test('a pod finds Services by name through the cluster DNS, CoreDNS behind the kube-dns Service', () => {
    const ip = (name: string, namespace: string) => cluster.get(['service', name, '-n', namespace]).spec.clusterIP;
    expect(ip('kube-dns', 'kube-system')).toBe(CLUSTER_DNS_IP);
    const pod = pods()[0].metadata.name;
    // The pod's resolver (getaddrinfo) with the resolv.conf the kubelet wrote: its namespace's search path first.
    const lookup = 'Promise.all(process.argv.slice(1).map((n) => require("dns").promises.lookup(n))).then((a) => console.log(a.map((x) => x.address).join(" ")))';
    const names = ['echo', `echo.${NAMESPACE}.svc.cluster.local`, 'kubernetes.default'];
    expect(cluster.kubectl(['exec', '-n', NAMESPACE, pod, '--', 'node', '-e', lookup, ...names]).trim())
      .toBe([ip('echo', NAMESPACE), ip('echo', NAMESPACE), ip('kubernetes', 'default')].join(' '));
    const byName = cluster.kubectl(['exec', '-n', NAMESPACE, pod, '--', 'node', '-e', 'require("http").get("http://echo/", (r) => r.pipe(process.stdout))']);
    expect(pods().map((p) => p.metadata.name)).toContain(byName);
  });

  test('the containers run as the non-root user on a read-only root, and say so in their logs', () => {
    const pod = pods()[0].metadata.name;
    const probe = cluster.kubectl(['exec', '-n', NAMESPACE, pod, '--', 'node', '-e',
      'try { require("fs").writeFileSync("/x", "") } catch (e) { console.log(process.getuid(), e.code) }']);
    expect(probe.trim()).toBe('1000 EROFS');
    expect(cluster.kubectl(['logs', '-n', NAMESPACE, pod])).toBe('');
  });

  test('a container killed on the node is restarted by the kubelet and becomes ready again', async () => {
    const pod = pods()[0];
    expect(cluster.killContainer(pod.status.containerStatuses[0].containerID)).toBe(1);
    await cluster.waitFor(`pod ${pod.metadata.name} restarted and ready`, () => {
      const p = cluster.get(['pod', pod.metadata.name, '-n', NAMESPACE]);
      const status = p.status.containerStatuses[0];
      return status.restartCount === 1 && status.ready ? status : undefined;
    }, 300_000, ['describe', 'pod', pod.metadata.name, '-n', NAMESPACE]);
  });

  test('a privileged pod is refused in the restricted namespace', () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'root', namespace: NAMESPACE }, spec: { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] } };
    expect(() => cluster.kubectl(['apply', '--server-side', '-f', '-'], JSON.stringify(pod))).toThrow(/violates PodSecurity "restricted:latest"/);
  });

  test('stopping gives the host back as it was', async () => {
    await cluster.stop();
    expect(hostState()).toEqual(before);
  });

  test('what a test process that died with its cluster left is swept by the next start', async () => {
    const { KIC_RENDERED_DIR: _recorded, ...env } = process.env;
    const crashed = spawnSync(process.execPath, [
      require.resolve('jest/bin/jest'), '--ci', '--rootDir', REPO_ROOT,
      '--testPathIgnorePatterns', '/node_modules/', '--testMatch', '<rootDir>/test/fixtures/cluster/*.test.ts',
    ], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 600_000 });
    expect(crashed.signal).toBe('SIGKILL');
    expect(crashed.stdout).toContain('CLUSTER RUNNING');
    // What KubeCluster.start does first: take the dead process's lock over, then sweep.
    await acquireClusterLock(0);
    try {
      const found = sweepNodeHost().join('; ');
      // The containers (pause) by their kubepods cgroup, the rest by the cluster's directory in their command line.
      expect(found).toMatch(/processes .*containerd.*etcd.*kube-apiserver.*kubelet, pause;/);
      expect(found).toMatch(/mount\(s\) under .*bridge kicnode0; \d+ iptables chain\(s\) KUBE-\*; .*\d+ kubepods cgroup\(s\)/);
    } finally {
      releaseClusterLock();
    }
    expect(hostState()).toEqual(before);
  });
});
