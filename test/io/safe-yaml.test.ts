import { CONFIG_LIMITS, METADATA_LIMITS, parseUntrustedYaml, YamlLimits } from '../../src/io/safe-yaml';
import { WholeFloat } from '../../src/io/scalars';
import { aliasBomb } from '../run-config/fuzz-inputs';
import { runConfigError } from '../run-config/helpers';

const where = { source: 'input.yaml', providerId: 'p', image: 'quay.io/p:1', resolution: 'Fix it.' };
const fails = (text: string, limits: YamlLimits = METADATA_LIMITS): string => runConfigError(() => parseUntrustedYaml(text, limits, where)).message;


describe('parseUntrustedYaml', () => {
  test('parses a document, keeping the source for edits', () => {
    const parsed = parseUntrustedYaml('a: 1 # note\n', CONFIG_LIMITS, where);
    expect(parsed.value).toEqual({ a: 1 });
    expect(parsed.doc.toString()).toBe('a: 1 # note\n');
  });

  test('reads YAML 1.1 as llama-stack (PyYAML) does: yes/on are booleans, << merges', () => {
    const parsed = parseUntrustedYaml('a: yes\nb: on\nbase: &b {x: 1}\nc:\n  <<: *b\n  z: 2\n', CONFIG_LIMITS, where);
    expect(parsed.value).toEqual({ a: true, b: true, base: { x: 1 }, c: { x: 1, z: 2 } });
  });

  test('a tag no reader here resolves is refused, not dropped: PyYAML\'s safe_load refuses it too', () => {
    expect(fails('x: !!python/object:os.system {}\n', CONFIG_LIMITS))
      .toContain('The tag !!python/object:os.system at line 1, column 4 is not a YAML type that can be read here (strings, numbers, booleans, null, mappings and lists): remove it.');
    expect(fails('a:\n  z: !custom 5\n')).toContain('The tag !custom at line 2, column 6 is not a YAML type');
    // The types the readers share stay.
    expect(parseUntrustedYaml('a: !!str 5\nb: !!int "7"\n', CONFIG_LIMITS, where).value).toEqual({ a: '5', b: 7 });
  });

  test('an empty or comment-only document is null', () => {
    expect(parseUntrustedYaml('', CONFIG_LIMITS, where).value).toBeNull();
    expect(parseUntrustedYaml('# only a comment\n', CONFIG_LIMITS, where).value).toBeNull();
  });

  test('every error names the provider, the image, the file and the fix', () => {
    const message = fails('a: [');
    expect(message).toMatch(/^ERROR: Cannot read input.yaml\n\nProvider 'p' \(image: quay.io\/p:1\)\nFile: input.yaml\nYAML parse error at line 1, column \d+: .+\n\nResolution: Fix it.$/);
  });

  test('rejects input over the size limit before parsing it', () => {
    expect(fails(`a: "${'x'.repeat(METADATA_LIMITS.maxBytes)}"`)).toContain(`The file is ${METADATA_LIMITS.maxBytes + 5} bytes; the limit is 65536 bytes.`);
  });

  test('rejects nesting deeper than the limit, flow or block', () => {
    expect(fails(`${'['.repeat(17)}${']'.repeat(17)}`)).toContain('Collections are nested more than 16 levels deep.');
    const block = Array.from({ length: 20 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n');
    expect(fails(block)).toContain('Collections are nested more than 16 levels deep');
  });

  test('nesting deep enough to exhaust the parser\'s stack is a clear error, not a crash', () => {
    expect(fails('['.repeat(60000), CONFIG_LIMITS)).toMatch(/YAML parse error at line 1, column \d+: collections are nested too deeply \(the limit is 64 levels\)|nested more than 64 levels/);
  });

  test('rejects more nodes than the limit, before building them', () => {
    const text = Array.from({ length: 400 }, (_, i) => `k${i}: v`).join('\n');
    expect(fails(text)).toContain('The document holds more than 1000 keys, values and list items, the limit that bounds the memory of the merge.');
  });

  test('rejects alias bombs', () => {
    expect(fails(aliasBomb(9), CONFIG_LIMITS)).toContain('The document cannot be resolved: Excessive alias count indicates a resource exhaustion attack (more than 1000 alias expansions are refused).');
  });

  test('rejects duplicate keys, also in flow mappings and nested ones', () => {
    expect(fails('a: 1\nb:\n  c: 1\n  c: 2\n')).toContain("Duplicate key 'c' in a mapping (at line 4, column 3).");
    expect(fails('{a: 1, a: 2}')).toContain("Duplicate key 'a'");
  });

  test('rejects characters YAML does not allow, as llama-stack\'s parser would', () => {
    expect(fails('a: 1\nb: x\u0000y\n')).toContain('Character U+0000 at line 2, column 5 is not allowed in YAML');
    expect(fails('a: \ud800\n')).toContain('Character U+D800 at line 1, column 4');
    expect(fails('a: \u001b[31m\n')).toContain('Character U+001B');
    expect(parseUntrustedYaml('\ufeffa: "\u00e9 \u{1F600}"\n', CONFIG_LIMITS, where).value).toEqual({ a: '\u00e9 \u{1F600}' });
  });

  test('real configs are far below the nesting limit', () => {
    expect(() => parseUntrustedYaml(`a:\n${Array.from({ length: 12 }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')} [[1]]\n`, CONFIG_LIMITS, where)).not.toThrow();
  });

  test('rejects several documents', () => {
    expect(fails('a: 1\n---\nb: 2\n')).toContain('The file holds 2 YAML documents');
    expect(fails('a: 1\n...\nb: 2\n')).toContain('The file holds 2 YAML documents');
  });

  test('checks many keys in linear time', () => {
    const text = Array.from({ length: 16000 }, (_, i) => `k${i}: ${i}`).join('\n');
    const started = Date.now();
    expect(Object.keys(parseUntrustedYaml(text, CONFIG_LIMITS, where).value as object)).toHaveLength(16000);
    expect(Date.now() - started).toBeLessThan(20000);
  });

  test('resolves plain scalars as PyYAML safe_load does, where the yaml library\'s YAML 1.1 schema differs', () => {
    const text = 'a: y\nb: n\nc: 1e-7\nd: 1.0e-7\ne: .\nf: 09\ng: -0\nh: 0:30\ni: 1:30\nj: 017\nk: 2024-1-1\nl: 2024-01-01\nm: 0o17\nn2: 1.\n';
    const value = parseUntrustedYaml(text, CONFIG_LIMITS, where).value as Record<string, unknown>;
    expect(value).toEqual({
      a: 'y',
      b: 'n',
      c: '1e-7',
      d: 1e-7,
      e: '.',
      f: '09',
      g: 0,
      h: '0:30',
      i: 90,
      j: 15,
      k: '2024-1-1',
      l: new Date('2024-01-01T00:00:00Z'),
      m: '0o17',
      n2: new WholeFloat(1),
    });
    expect(Object.is(value.g, -0)).toBe(false);
  });

  test('a whole number beyond 2^53 is a bigint, kept exactly as Python keeps it', () => {
    expect(parseUntrustedYaml('a: 12345678901234567890\nb: -0x1_0000_0000_0000_0000\nc: 9007199254740991\nd: 1:0:0:0:0:0:0:0:0:0\n', CONFIG_LIMITS, where).value)
      .toEqual({ a: BigInt('12345678901234567890'), b: -(BigInt(2) ** BigInt(64)), c: 9007199254740991, d: BigInt(60) ** BigInt(9) });
  });

  test('refuses a plain = and a plain << outside a key, which PyYAML safe_load cannot load', () => {
    expect(fails('a: =\n', CONFIG_LIMITS)).toContain('a plain "=" is the YAML 1.1 value key, which llama-stack\'s YAML reader (PyYAML safe_load) refuses; quote it: "="');
    expect(fails('a: [x, <<]\n', CONFIG_LIMITS)).toContain('A plain << at line 1, column 8 is the YAML 1.1 merge key outside a key');
    expect(parseUntrustedYaml('a: "="\nb: "<<"\nc: {<<: {x: 1}}\n', CONFIG_LIMITS, where).value).toEqual({ a: '=', b: '<<', c: { x: 1 } });
  });

  test('refuses NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR, line breaks to PyYAML only; their escapes are fine', () => {
    expect(fails('a: "x\u2028y"\n', CONFIG_LIMITS)).toContain('Character U+2028 at line 1, column 6 is a line break for llama-stack\'s YAML reader (PyYAML)');
    expect(fails('# note\u0085\na: 1\n', CONFIG_LIMITS)).toContain('escape \\N');
    expect(fails('a: x\u2029\n', CONFIG_LIMITS)).toContain('escape \\P');
    expect(parseUntrustedYaml('a: "x\\Ly\\u2029\\N"\n', CONFIG_LIMITS, where).value).toEqual({ a: 'x\u2028y\u2029\u0085' });
  });
});
