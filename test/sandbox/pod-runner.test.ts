import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describeWithSandbox, freePort, hostPython } from './host';
import { pythonImageEnv } from './images';
import { expandRefs, PodRun, rootFileSystem, runPod } from './pod-runner';

/** A Deployment with the given pod spec, as a chart would render it. */
function deployment(spec: any): any {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'runner-test' }, spec: { template: { spec } } };
}

const BASE = 'registry.test/base:1';

describe('expandRefs (the kubelet $(VAR) expansion)', () => {
  const env = new Map([['A', 'x'], ['B', 'y']]);
  test('replaces defined names, keeps undefined ones and unescapes $$', () => {
    expect(expandRefs('$(A):$(B):$(C):$$(A):$$', env)).toBe('x:y:$(C):$(A):$');
  });
});

describe('rootFileSystem', () => {
  test('binds a single-layer directory whole and merges shared directories one level down', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-rootfs-'));
    fs.mkdirSync(path.join(dir, 'opt', 'app'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'etc', 'llama-stack'), { recursive: true });
    const args = rootFileSystem({ dir }, ['/opt/llama-stack/scripts']).join(' ');
    expect(args).toContain('--ro-bind /usr /usr');
    expect(args).toContain('--dir /opt'); // holds a mount point
    expect(args).toContain(`--ro-bind ${dir}/opt/app /opt/app`);
    expect(args).toContain('--dir /etc'); // in the host and the image
    expect(args).toContain(`--ro-bind ${dir}/etc/llama-stack /etc/llama-stack`);
    expect(args).toContain('--ro-bind /etc/passwd /etc/passwd');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describeWithSandbox('runPod (bubblewrap)', () => {
  let work: string;
  let base: string;
  const runs: PodRun[] = [];
  const images = () => ({ [BASE]: { dir: base, env: pythonImageEnv() } });

  beforeAll(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'kic-runner-'));
    base = path.join(work, 'base-image');
    fs.mkdirSync(path.join(base, 'app'), { recursive: true });
    fs.writeFileSync(path.join(base, 'app', 'hello.txt'), 'from the image\n');
    // Answers /hello.txt (its probe); holds every other request open without an answer.
    fs.writeFileSync(path.join(base, 'app', 'silent.py'), [
      'import http.server, sys, time',
      'class H(http.server.BaseHTTPRequestHandler):',
      '    def do_GET(self):',
      '        if self.path == "/hello.txt":',
      '            self.send_response(200); self.end_headers(); self.wfile.write(b"ok"); return',
      '        print("holding " + self.path, flush=True); time.sleep(3600)',
      'http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()',
      '',
    ].join('\n'));
  });
  afterAll(() => {
    runs.forEach((r) => r.dispose());
    fs.rmSync(work, { recursive: true, force: true });
  });
  const go = async (spec: any, options: Partial<Parameters<typeof runPod>[1]> = {}) => {
    const r = await runPod(deployment(spec), { images: images(), timeoutMs: 30_000, ...options });
    runs.push(r);
    return r;
  };

  test('runs init containers in order, then the main container, sharing an emptyDir', async () => {
    const sh = (name: string, script: string, extra: any = {}) => ({
      name,
      image: BASE,
      command: ['/bin/sh', '-c', script],
      volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
      ...extra,
    });
    const pod = await go({
      securityContext: { runAsUser: 1001, runAsGroup: 1001 },
      initContainers: [
        sh('first', 'echo first >> /shared/order; id -u; hostname'),
        sh('second', 'echo "$GREETING" >> /shared/order', { env: [{ name: 'WHO', value: 'world' }, { name: 'GREETING', value: 'hello $(WHO)' }] }),
      ],
      containers: [sh('main', 'cat /shared/order; cat /app/hello.txt; python3 -c "import sys; print(sys.version_info[0])"; pip --version >/dev/null && echo pip-ok; echo "args:$0:$1"', {
        args: ['$(X)', 'two'], env: [{ name: 'X', value: 'one' }],
      })],
      volumes: [{ name: 'shared', emptyDir: {} }],
    });
    expect(pod.describe()).toContain('Pod Succeeded (Completed)');
    expect(pod.initContainers.map((c) => [c.name, c.reason])).toEqual([['first', 'Completed'], ['second', 'Completed']]);
    expect(pod.container('first').stdout).toBe('1001\nrunner-test\n');
    expect(pod.container('main').stdout).toBe('first\nhello world\nfrom the image\n3\npip-ok\nargs:one:two\n');
    expect(pod.container('main').argv.slice(-2)).toEqual(['one', 'two']);
    expect(pod.volumeFile('shared', 'order')).toBe('first\nhello world\n');
  });

  test('stops at the first failing init container, like the kubelet', async () => {
    const pod = await go({
      initContainers: [
        { name: 'ok', image: BASE, command: ['/bin/sh', '-c', 'echo fine'] },
        { name: 'broken', image: BASE, command: ['/bin/sh', '-c', 'echo starting; echo "ERROR: it broke" >&2; exit 3'], terminationMessagePolicy: 'FallbackToLogsOnError' },
        { name: 'never', image: BASE, command: ['/bin/sh', '-c', 'echo never'] },
      ],
      containers: [{ name: 'main', image: BASE, command: ['/bin/true'] }],
    });
    expect(pod.phase).toBe('Failed');
    expect(pod.status).toBe('Init:Error');
    expect(pod.container('broken')).toMatchObject({ state: 'terminated', reason: 'Error', exitCode: 3, stderr: 'ERROR: it broke\n' });
    expect(pod.container('broken').message).toBe('starting\nERROR: it broke');
    expect(pod.container('never')).toMatchObject({ state: 'waiting', reason: 'PodInitializing' });
    expect(pod.container('main')).toMatchObject({ state: 'waiting', reason: 'PodInitializing' });
    expect(pod.failed?.name).toBe('broken');
  });

  test('honours readOnly mounts and mounts configMaps read-only with the kubelet layout', async () => {
    const pod = await go({
      containers: [{
        name: 'main',
        image: BASE,
        command: ['/bin/sh', '-c', [
          'touch /rw/x && echo rw-ok',
          'touch /ro/x 2>/dev/null || echo ro-denied',
          'touch /cm/x 2>/dev/null || echo cm-denied',
          'cat /cm/renamed.sh', 'readlink /cm/..data >/dev/null && echo has-data-link',
          'test -e /cm/other || echo only-items',
          'touch /usr/x 2>/dev/null || echo usr-denied',
          'touch /written-to-root && echo root-writable',
        ].join('; ')],
        volumeMounts: [
          { name: 'data', mountPath: '/rw' }, { name: 'data', mountPath: '/ro', readOnly: true },
          { name: 'cm', mountPath: '/cm' },
        ],
      }],
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'cm', configMap: { name: 'scripts', items: [{ key: 'a.sh', path: 'renamed.sh' }] } },
      ],
    }, { manifests: [{ kind: 'ConfigMap', metadata: { name: 'scripts' }, data: { 'a.sh': 'echo a', 'other': 'x' } }] });
    expect(pod.container('main').stdout).toBe('rw-ok\nro-denied\ncm-denied\necho ahas-data-link\nonly-items\nusr-denied\nroot-writable\n');
  });

  test('init containers have no network; the main container shares the pod network', async () => {
    const probe = 'python3 -c "import socket; print(sorted(n for _, n in socket.if_nameindex()))"';
    const pod = await go({
      initContainers: [{ name: 'init', image: BASE, command: ['/bin/sh', '-c', probe] }],
      containers: [{ name: 'main', image: BASE, command: ['/bin/sh', '-c', probe] }],
    });
    expect(pod.container('init').stdout.trim()).toBe("['lo']");
    const hostInterfaces = execFileSync('python3', ['-c', 'import socket; print(sorted(n for _, n in socket.if_nameindex()))'], { encoding: 'utf8' }).trim();
    expect(pod.container('main').stdout.trim()).toBe(hostInterfaces);
  });

  test('reports a missing image, a missing configMap and a container over its deadline', async () => {
    const missingImage = await go({ initContainers: [{ name: 'pull', image: 'registry.test/missing:1', command: ['/bin/true'] }], containers: [{ name: 'm', image: BASE, command: ['/bin/true'] }] });
    expect(missingImage.status).toBe('Init:ErrImagePull');
    expect(missingImage.container('pull').message).toContain('Failed to pull image "registry.test/missing:1"');

    const missingConfigMap = await go({ containers: [{ name: 'm', image: BASE, command: ['/bin/true'], volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', configMap: { name: 'nope' } }] });
    expect(missingConfigMap.phase).toBe('Failed');
    expect(missingConfigMap.container('m').message).toContain('configmap "nope" not found');

    const slow = await go({ containers: [{ name: 'm', image: BASE, command: ['/bin/sh', '-c', 'sleep 30'] }] }, { timeoutMs: 500 });
    expect(slow.container('m')).toMatchObject({ reason: 'DeadlineExceeded', exitCode: 137 });
  });

  test('a rootfs image sees only its own files', async () => {
    // A minimal root file system: dash and the libraries it links, nothing else.
    const rootfs = path.join(work, 'rootfs');
    const sh = fs.realpathSync('/bin/sh');
    const libs = execFileSync('ldd', [sh], { encoding: 'utf8' }).split('\n').map((l) => /(\/\S+)\s+\(0x/.exec(l)?.[1]).filter((x): x is string => Boolean(x));
    for (const file of [sh, ...libs]) {
      const target = path.join(rootfs, file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.copyFileSync(file, target);
      fs.chmodSync(target, 0o755);
    }
    fs.symlinkSync(sh, path.join(rootfs, 'sh'));
    const pod = await go({ containers: [{ name: 'm', image: 'rootfs', command: ['/sh', '-c', 'test -e /usr/bin/python3 || echo no-host-python; test -e /etc/passwd || echo no-host-etc; echo ok'] }] }, {
      images: { rootfs: { dir: rootfs, mode: 'rootfs' } },
    });
    expect(pod.container('m').stdout).toBe('no-host-python\nno-host-etc\nok\n');
  });

  test('a non-root container writes only /tmp and its volumes: the image\'s files belong to root', async () => {
    const pod = await go({
      securityContext: { runAsUser: 1001, runAsGroup: 1001 },
      volumes: [{ name: 'data', emptyDir: {} }],
      containers: [{
        name: 'main',
        image: BASE,
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        command: ['/bin/sh', '-c', 'touch /tmp/a /data/b && echo ok; mkdir /.llama 2>&1; touch /app/c 2>&1; true'],
      }],
    });
    expect(pod.container('main').stdout).toMatch(/^ok\n/);
    expect(pod.container('main').stdout.match(/Read-only file system/g)).toHaveLength(2);
  });

  const serving = (command: string[], port: number) => ({
    containers: [{
      name: 'server',
      image: BASE,
      command,
      ports: [{ name: 'http', containerPort: port }],
      startupProbe: { httpGet: { path: '/hello.txt', port: 'http' } },
    }],
  });

  test('serve: returns once the startup probe answers, talks to the server, then stops it', async () => {
    const port = await freePort();
    const pod = await go(serving(['python3', '-m', 'http.server', '--bind', '127.0.0.1', String(port), '--directory', '/app'], port), { serve: {} });
    expect(pod.phase).toBe('Running');
    expect(pod.container('server')).toMatchObject({ state: 'running', reason: 'Started' });
    expect(pod.container('server').readyAtMs).toBeGreaterThan(0);
    expect(await pod.server!.request('GET', '/hello.txt')).toEqual({ status: 200, body: 'from the image\n' });
    expect(pod.server!.logs()).toContain('GET /hello.txt');
    const ended = await pod.stop();
    expect(ended).toMatchObject({ name: 'server', state: 'terminated' });
    expect(pod.container('server').state).toBe('terminated');
  });

  test('serve: a request the server never answers fails at its deadline, naming it and showing the server\'s last lines', async () => {
    const port = await freePort();
    const pod = await go(serving(['python3', '/app/silent.py', String(port)], port), { serve: {} });
    expect(pod.phase).toBe('Running');
    await expect(pod.server!.request('GET', '/never', undefined, 1_000)).rejects.toThrow(/^GET \/never on server: no answer in 1 s; its last lines:\n.*holding \/never/s);
    await pod.stop(0);
  });

  test('serve: a server that exits before its probe answers fails the pod with its logs', async () => {
    const port = await freePort();
    const pod = await go(serving(['/bin/sh', '-c', 'echo cannot start >&2; exit 3'], port), { serve: { readyTimeoutMs: 10_000 } });
    expect(pod.phase).toBe('Failed');
    expect(pod.container('server')).toMatchObject({ state: 'terminated', reason: 'Error', exitCode: 3 });
    expect(pod.container('server').probe).toContain('exited before its probe succeeded');
    expect(pod.container('server').logs).toContain('cannot start');
    expect(pod.server).toBeUndefined();
  });

  test('serve: a server that never answers its probe in time is ended and reported Unready', async () => {
    const port = await freePort();
    const pod = await go(serving(['/bin/sh', '-c', 'echo starting; sleep 60'], port), { serve: { readyTimeoutMs: 1_000 } });
    expect(pod.phase).toBe('Failed');
    expect(pod.status).toBe('Unready');
    expect(pod.container('server')).toMatchObject({ state: 'terminated', reason: 'Unready' });
    expect(pod.container('server').probe).toMatch(/^Startup probe failed: Get "http:\/\/127\.0\.0\.1:\d+\/hello\.txt"/);
    expect(pod.container('server').logs).toContain('starting');
  });

  test('the host Python is the images\' Python', () => {
    expect(hostPython().version).toMatch(/^3\.\d+$/);
  });
});

