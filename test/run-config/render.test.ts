import { thrown } from './helpers';
import { FINITE_NUMBERS, hostileConfig, HOSTILE_STRINGS, NON_FINITE_NUMBERS } from './hostile-values';
import { firstDifference, verifyReadBack } from '../../src/run-config/read-back';
import { renderJson, renderYaml, UnwritableValueError } from '../../src/run-config/render';

const unwritable = (fn: () => unknown): UnwritableValueError => thrown(fn, UnwritableValueError);

describe('renderYaml', () => {
  test('quotes and escapes what YAML 1.1 readers would read otherwise', () => {
    expect(renderYaml({
      'tab': 'a\tb',
      'ls': 'x\u2028y',
      'ps': '\u2029',
      'nel': 'a\u0085b',
      'bom': '\ufeff',
      'del': '\u007f',
      'yes': 'yes',
      'y': 'y',
      'on': 'On',
      'eq': '=',
      '<<': 'm',
      'tilde': '~',
      'nul': 'null',
      'date': '2024-01-01',
      'sexagesimal': '12:30',
      'octal': '0o17',
      'exp': '1e-7',
      'dot': '.',
      'lead': ' x',
      'colon': 'a: b',
      'hash': 'a #b',
      'dash': '- a',
      'empty': '',
      'multiline': 'a\nb',
    })).toBe([
      'tab: "a\\tb"', 'ls: "x\\u2028y"', 'ps: "\\u2029"', 'nel: "a\\u0085b"', 'bom: "\\ufeff"', 'del: "\\u007f"', '"yes": "yes"',
      '"y": "y"', '"on": "On"', 'eq: "="', '"<<": m', 'tilde: "~"', 'nul: "null"', 'date: "2024-01-01"', 'sexagesimal: "12:30"',
      'octal: "0o17"', 'exp: "1e-7"', 'dot: "."', 'lead: " x"', 'colon: "a: b"', 'hash: "a #b"', 'dash: "- a"', 'empty: ""',
      'multiline: "a\\nb"', '',
    ].join('\n'));
  });

  test('writes numbers so that PyYAML reads the same value and kind', () => {
    expect(renderYaml([1e-7, -1.5e-7, 0.1, 1e21, 2 ** 60, -0, 0, 42, Infinity, -Infinity, NaN, true, null])).toBe([
      '- 1.0e-7', '- -1.5e-7', '- 0.1', '- 1000000000000000000000', '- 1152921504606846976', '- -0.0', '- 0', '- 42', '- .inf', '- -.inf',
      '- .nan', '- true', '- null', '',
    ].join('\n'));
  });

  test('leaves ordinary values plain, in llama-stack\'s layout', () => {
    expect(renderYaml({ providers: { inference: [{ provider_id: 'vllm', config: { url: '${env.VLLM_URL:=http://localhost:8000/v1}', tls: false } }] } }))
      .toBe('providers:\n  inference:\n  - provider_id: vllm\n    config:\n      url: ${env.VLLM_URL:=http://localhost:8000/v1}\n      tls: false\n');
    expect(renderYaml({ a: [{ b: [1] }], c: {}, d: [] }, { indent: 4, indentSeq: true })).toBe('a:\n    - b:\n          - 1\nc: {}\nd: []\n');
  });

  test('writes a bigint (a whole number a JavaScript number cannot hold) digit for digit', () => {
    const big = BigInt('123456789012345678901234567890');
    expect(renderYaml({ big, small: BigInt(-5) })).toBe('big: 123456789012345678901234567890\nsmall: -5\n');
    expect(renderJson([big])).toBe('[123456789012345678901234567890]');
    expect(() => verifyReadBack(renderYaml({ big, n: 2 ** 60 }), { big, n: 2 ** 60 }, 'test.yaml')).not.toThrow();
  });

  test('a key too long for an implicit key takes the explicit form', () => {
    const key = 'k'.repeat(1100);
    expect(renderYaml({ [key]: { a: 1 }, b: 2 })).toBe(`? ${key}\n:\n  a: 1\nb: 2\n`);
  });

  test.each([undefined, { indent: 4, indentSeq: true }, { indent: 1, indentSeq: true }, { indent: 3, indentSeq: false }])('every hostile value reads back unchanged (layout %j)', (layout) => {
    const config = hostileConfig();
    expect(() => verifyReadBack(renderYaml(config, layout), config, 'test.yaml')).not.toThrow();
    for (const s of HOSTILE_STRINGS) {
      expect(() => verifyReadBack(renderYaml({ [s]: s, l: [s] }, layout), { [s]: s, l: [s] }, 'test.yaml')).not.toThrow();
    }
  });

  test('leaves out members set to undefined, as JSON does', () => {
    expect(renderYaml({ a: undefined, b: 1, c: { d: undefined } })).toBe('b: 1\nc: {}\n');
  });

  test.each<[string, () => unknown, string, string]>([
    ['a date', () => ({ when: new Date('2024-01-01T00:00:00Z') }), '.when', 'a date (2024-01-01T00:00:00.000Z)'],
    ['a Map', () => ({ a: [new Map()] }), '.a[0]', 'an object of class Map'],
    ['a class instance', () => ({ a: new (class Endpoint {})() }), '.a', 'an object of class Endpoint'],
    ['a function', () => ({ f: () => 1 }), '.f', 'a function'],
    ['undefined in a list', () => ({ l: [1, undefined] }), '.l[1]', 'undefined (or a hole) in a list'],
    ['a cycle', () => { const o: any = { a: {} }; o.a.b = o; return o; }, '.a.b', 'a value that contains itself (a cycle)'],
    ['deep nesting', () => ({ d: Array.from({ length: 120 }).reduce<unknown>((v) => [v], 1) }), '', 'collections nested more than 100 levels deep'],
    ['an odd key', () => ({ 'a b': { c: Symbol('s') } }), '["a b"].c', 'a symbol'],
  ])('refuses %s, naming its path', (_, make, path, found) => {
    for (const render of [() => renderYaml(make()), () => renderJson(make())]) {
      const e = unwritable(render);
      if (path) expect(e.message).toMatch(new RegExp(`^${path.replace(/[.[\]"]/g, '\\$&')}: `));
      expect(e.found).toBe(found);
    }
  });
});

describe('renderJson (crd-config.yaml)', () => {
  test('is JSON that JSON.parse and our YAML 1.1 reader read back as the same values', () => {
    const config = hostileConfig({ json: true });
    const text = renderJson(config);
    expect(firstDifference(JSON.parse(text), config)).toBeUndefined();
    expect(() => verifyReadBack(text, config, 'crd-config.yaml')).not.toThrow();
  });

  test('is byte-identical to JSON.stringify for ordinary data', () => {
    const settings = { providerId: 'custom-vllm', api: 'inference', crdSection: 'inference', image: 'quay.io/acme/p:1', order: 3, config: { url: '${env.X}', n: 0.5, l: [true, null, 'é'] } };
    expect(renderJson(settings)).toBe(JSON.stringify(settings));
  });

  test('escapes what JSON.stringify leaves raw and writes numbers PyYAML reads as numbers', () => {
    expect(renderJson({ s: 'a\u2028b\u2029c\u0085d\ufeff', n: [1e-7, 1e21, -0] })).toBe('{"s":"a\\u2028b\\u2029c\\u0085d\\ufeff","n":[1.0e-7,1000000000000000000000,-0.0]}');
  });

  test.each(NON_FINITE_NUMBERS)('refuses %p, which JSON cannot carry, naming its path', (n) => {
    const e = unwritable(() => renderJson({ a: { threshold: n } }));
    expect(e.message).toBe(`.a.threshold: the number ${n} cannot be written; JSON carries only finite numbers; give a finite number, or a string such as "inf" if the setting accepts one`);
  });

  test('refuses a key longer than YAML 1.1 readers accept in JSON', () => {
    expect(unwritable(() => renderJson({ a: { ['k'.repeat(1100)]: 1 } })).found).toBe('a key of 1100 characters');
  });

  test('every finite number keeps its value', () => {
    for (const n of FINITE_NUMBERS) expect(Object.is(JSON.parse(renderJson([n]))[0], n)).toBe(true);
  });
});

describe('verifyReadBack', () => {
  test('names the file and the first path where the text differs from the intended value', () => {
    expect(() => verifyReadBack('a:\n  b: [1, yes]\n', { a: { b: [1, 'yes'] } }, 'config.yaml'))
      .toThrow('internal error: config.yaml as written does not read back as intended at .a.b[1] (read true, intended "yes"); please report this with the inputs.');
    expect(() => verifyReadBack('a: 1\nz: 2\n', { a: 1 }, 'x.yaml')).toThrow('at .z (read 2, intended nothing)');
    expect(() => verifyReadBack('a: [\n', { a: 1 }, 'x.yaml')).toThrow('internal error: x.yaml as written does not parse');
  });

  test('compares numbers exactly: NaN equals NaN, -0 differs from 0', () => {
    expect(firstDifference([NaN, -0], [NaN, -0])).toBeUndefined();
    expect(firstDifference([0], [-0])).toEqual([0]);
    expect(firstDifference({ a: 1 }, { a: 1, b: undefined })).toBeUndefined();
    expect(firstDifference({ a: new Date(0) }, { a: new Date(1) })).toEqual(['a']);
  });
});
