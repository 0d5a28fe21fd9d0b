// What every kube-inference command promises: --version and help, suggestions for mistyped words, and
// no Node stack trace or hang on any input or output (pipes closed early, FIFOs, directories, /proc,
// blocked targets); -o writes all files or none.
import { spawn, spawnSync } from 'child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'fs';
import { join } from 'path';
import { BUILT_CLI, runBuiltCli } from './built-cli';
import { cli } from './run';
import { MANIFEST_LIMITS } from '../../src/cli/inputs';
import { EXIT_BROKEN_PIPE } from '../../src/cli/io';
import { makeRenderCommand, MAX_RENDER_OUTPUT_BYTES } from '../../src/cli/render-command';
import { writeFilesAtomically } from '../../src/io/files';
import { describeWhen } from '../sandbox/host';
import { tempDir } from '../temp-dir';

const FIXTURE = join(__dirname, '..', 'fixtures', 'llsd', 'two-stacks.yaml');
const VERSION = (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
const tmp = () => tempDir('cli-contract-');
/** A run of the built binary that does not end within 20 s is killed and reported (never waited on). */
const BOUNDED = { timeout: 20_000 };

describe('version and help', () => {
  test.each([['--version'], ['-V']])('%s prints the package version', async (flag) => {
    expect(await cli([flag])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  test('help <command> prints what <command> --help prints', async () => {
    for (const name of ['render', 'validate', 'merge-config', 'status']) {
      const help = await cli(['help', name]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`Usage: kube-inference ${name}`);
      expect(help).toEqual(await cli([name, '--help']));
    }
  });

  test('help alone lists the commands and the global options', async () => {
    const r = await cli(['help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('  render ');
    expect(r.stdout).toContain('-V, --version');
  });
});

describe('mistyped words', () => {
  test.each([
    [['rendr'], "error: unknown command 'rendr'; did you mean 'render'?"],
    [['merge-cofnig'], "error: unknown command 'merge-cofnig'; did you mean 'merge-config'?"],
    [['help', 'stauts'], "error: unknown command 'stauts'; did you mean 'status'?"],
    [['--verison'], "error: unknown option '--verison'; did you mean '--version'?"],
    [['deploy'], "error: unknown command 'deploy'\n"],
  ])('%j: exit 2, %s', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.startsWith(message)).toBe(true);
  });

  test.each([
    [['render', '--ouput-dir', 'x'], "error: unknown option '--ouput-dir'; did you mean '--output-dir'?"],
    [['merge-config', '--metadata-dri', 'x'], "error: unknown option '--metadata-dri'; did you mean '--metadata-dir'?"],
    [['validate', '--strcit'], "error: unknown option '--strcit'; did you mean '--strict'?"],
    [['render', '--fancy'], "error: unknown option '--fancy'\n"],
  ])('%j: exit 2, %s', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(message)).toBe(true);
    expect(r.stderr).toContain(`Usage: kube-inference ${args[0]}`);
  });
});

describe('inputs that are not regular files are refused, never waited on', () => {
  test('a FIFO: refused at once, even with nobody writing to it', () => {
    const fifo = join(tmp(), 'manifests.yaml');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    for (const command of ['render', 'validate', 'status']) {
      const r = runBuiltCli([command, fifo], BOUNDED);
      expect({ command, signal: r.signal, code: r.code, stdout: r.stdout })
        .toEqual({ command, signal: null, code: 1, stdout: '' });
      expect(r.stderr).toBe(`error: ${fifo} is a FIFO (named pipe), not a regular file: give a file, or '-' to read standard input.\n`);
    }
  });

  test('a directory and a device', async () => {
    const dir = tmp();
    expect((await cli(['render', dir])).stderr).toBe(`error: ${dir} is a directory, not a regular file: give a file, or '-' to read standard input.\n`);
    expect((await cli(['render', '/dev/zero'])).stderr).toBe("error: /dev/zero is a device, not a regular file: give a file, or '-' to read standard input.\n");
  });

  test('standard input over the limit is not read further either', () => {
    const r = runBuiltCli(['render', '-'], { ...BOUNDED, input: `# ${'x'.repeat(16 * 1024 * 1024)}\n` });
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr })
      .toEqual({ code: 1, stdout: '', stderr: 'error: <stdin> is larger than the limit of 16777216 bytes (16384 KiB); it was not read further.\n' });
  });

  test('a file over the input limit is not read further', async () => {
    const file = join(tmp(), 'big.yaml');
    writeFileSync(file, `# ${'x'.repeat(16 * 1024 * 1024)}\n`);
    const r = await cli(['render', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: ${file} is larger than the limit of 16777216 bytes (16384 KiB); it was not read further.\n`);
  });
});

describe('output that cannot be written', () => {
  test('a reader that stops early (render | head -c 10): a quiet exit, no stack trace', async () => {
    // Far more output than a pipe holds, so the writer is still writing when the reader goes.
    const text = readFileSync(FIXTURE, 'utf8');
    const many = join(tmp(), 'many.yaml');
    writeFileSync(many, Array.from({ length: 40 }, (_, i) => text.replace(/team-([ab])/g, `team-$1-${i}`)).join('\n---\n'));
    const child = spawn(process.execPath, [BUILT_CLI, 'render', many], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.once('data', () => child.stdout.destroy());
      child.on('close', (c) => resolve(c));
    });
    expect({ code, stderr }).toEqual({ code: EXIT_BROKEN_PIPE, stderr: '' });
  });

  test('-o under /proc fails at once with the path named', () => {
    const r = runBuiltCli(['render', FIXTURE, '-o', '/proc/kube-inference/out'], BOUNDED);
    expect({ signal: r.signal, code: r.code, stdout: r.stdout }).toEqual({ signal: null, code: 1, stdout: '' });
    expect(r.stderr).toBe('error: cannot write to /proc/kube-inference/out: /proc/kube-inference does not exist.\n');
  });

  test('-o is all or nothing when one target is blocked: nothing is renamed into place', async () => {
    const dir = tmp();
    mkdirSync(join(dir, 'ai.team-b.k8s.yaml'));
    writeFileSync(join(dir, 'ai.team-a.k8s.yaml'), 'old\n');
    const r = await cli(['render', FIXTURE, '-o', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot write to ${dir}: ${join(dir, 'ai.team-b.k8s.yaml')} is a directory, where a file must be written: `
      + 'move it away or choose another output directory. Nothing was written.\n');
    expect(readdirSync(dir).sort()).toEqual(['ai.team-a.k8s.yaml', 'ai.team-b.k8s.yaml']);
    expect(readFileSync(join(dir, 'ai.team-a.k8s.yaml'), 'utf8')).toBe('old\n');
  });

  test('temporary files are new files: a symlink planted where one could go is never followed', () => {
    const dir = tmp();
    const victim = join(tmp(), 'victim');
    writeFileSync(victim, 'untouched\n');
    // Every name the old scheme could pick (name + pid) now points at the victim.
    symlinkSync(victim, join(dir, `.out.yaml.${process.pid}.tmp`));
    writeFilesAtomically(dir, [{ name: 'out.yaml', text: 'new\n' }]);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(readFileSync(join(dir, 'out.yaml'), 'utf8')).toBe('new\n');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp') && !f.includes(String(process.pid)))).toEqual([]);
  });
});

const mountNamespaces = spawnSync('unshare', ['-rm', 'true']).status === 0
  ? { ok: true as const } : { ok: false as const, reason: 'unshare -rm (a user and mount namespace) is not permitted here' };

describeWhen('a full disk (a 16 KiB tmpfs in a mount namespace of its own)', mountNamespaces, 'user namespaces (unshare -rm)', () => {
  /** Runs the built binary with `dir` a 16 KiB tmpfs, standard output sent where `shell` says. */
  const onFullDisk = (shell: string) => {
    const dir = tmp();
    const script = `mount -t tmpfs -o size=16k tmpfs "$1" && ${shell}`;
    const r = spawnSync('unshare', ['-rm', 'sh', '-c', script, 'sh', dir, process.execPath, BUILT_CLI, FIXTURE], { encoding: 'utf8', timeout: 20_000 });
    return { dir, code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test('-o: the error names the directory, and nothing is left there', () => {
    const r = onFullDisk('"$2" "$3" render "$4" -o "$1/out"; code=$?; ls -A "$1/out"; exit $code');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot write to ${r.dir}/out: No space left on the device holding ${r.dir}/out.\n`);
    expect(r.stdout).toBe('');
  });

  test('standard output on a full disk: one line, exit 1', () => {
    const r = onFullDisk('"$2" "$3" render "$4" > "$1/out.yaml"');
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: 'error: cannot write standard output: no space left on the device\n' });
  });
});

/** The built binary run as `nobody` (root reads every directory, so permission errors need another user). */
const asNobody = (args: string[]) => spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, BUILT_CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
const otherUser = process.getuid?.() === 0 && asNobody(['--version']).status === 0
  ? { ok: true as const } : { ok: false as const, reason: 'running the built binary as another user needs root and setpriv (util-linux)' };

describeWhen('a directory the user cannot read', otherUser, 'root and setpriv', () => {
  test('validate names it and exits 1, for the directory given and for one below it', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'a.yaml'), readFileSync(FIXTURE));
    spawnSync('chmod', ['0755', dir]);
    spawnSync('chmod', ['0700', join(dir, 'sub')]);
    const below = asNobody(['validate', dir]);
    expect({ code: below.status, stderr: below.stderr }).toEqual({ code: 1, stderr: `error: cannot list the directory ${dir}/sub: permission denied for this user.\n` });
    spawnSync('chmod', ['0700', dir]);
    const given = asNobody(['validate', dir]);
    expect({ code: given.status, stderr: given.stderr }).toEqual({ code: 1, stderr: `error: cannot list the directory ${dir}: permission denied for this user.\n` });
  });
});

describe('output bounded by the input limit', () => {
  test('render stops, writing nothing, once the manifests would exceed its output limit', async () => {
    const text = readFileSync(FIXTURE, 'utf8');
    const input = Array.from({ length: 6 }, (_, i) => text.replace(/team-([ab])/g, `team-$1-${i}`)).join('\n---\n');
    const whole = await cli(['render', '-'], { stdin: input });
    expect(whole.code).toBe(0);
    const limit = Math.floor(Buffer.byteLength(whole.stdout) / 2);
    let stdout = '';
    let stderr = '';
    const io = { readStdin: async () => input, stdout: (t: string) => { stdout += t; }, stderr: (t: string) => { stderr += t; }, cwd: process.cwd() };
    const dir = tmp();
    expect(await makeRenderCommand(limit).run(['-', '-o', dir], io)).toBe(1);
    expect(stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    expect(stderr).toMatch(new RegExp(`^error: <stdin> document \\d+ \\(LlamaStackDistribution "team-[ab]-\\d"\\): the rendered manifests would exceed ${limit} bytes `));
    expect(stderr).toContain('Render the documents in several runs');
    expect(MAX_RENDER_OUTPUT_BYTES).toBe(16 * MANIFEST_LIMITS.maxBytes);
  });
});

describe('the same object from two documents', () => {
  const twice = () => {
    const text = readFileSync(FIXTURE, 'utf8');
    return `${text}\n---\n${text}`;
  };

  test('fails on standard output as it does with -o, naming both documents and the object', async () => {
    const onStdout = await cli(['render', '-'], { stdin: twice() });
    const dir = tmp();
    const inDir = await cli(['render', '-', '-o', dir], { stdin: twice() });
    for (const r of [onStdout, inDir]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('error: <stdin> document 3 (LlamaStackDistribution "team-a") and <stdin> document 1 (LlamaStackDistribution "team-a") '
        + 'both render Deployment.apps ai/team-a: give the documents different names or namespaces.\n');
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});
