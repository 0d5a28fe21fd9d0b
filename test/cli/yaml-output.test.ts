import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { Yaml } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { asInput, CONFIG_KEY_STRINGS, hostileConfigMap } from './hostile-manifests';
import { cli } from './run';
import { mustQuote, someReaderResolves, stringifyYaml } from '../../src/cli/yaml-output';
import { HOSTILE_STRINGS } from '../run-config/hostile-values';
import { pythonDifference, pythonLoad, pyyamlSupport } from '../run-config/pyyaml';
import { describeWhen } from '../sandbox/host';

const EXAMPLES = join(__dirname, '..', '..', 'examples');

/** Every hostile string as a value, as a key at the top and nested, and in a list. */
const hostileObject = (): Record<string, unknown> => ({
  ...Object.fromEntries(HOSTILE_STRINGS.map((s, i) => [s, i])),
  spec: { values: Object.fromEntries(HOSTILE_STRINGS.map((s, i) => [`v${i}`, s])), keys: Object.fromEntries(HOSTILE_STRINGS.map((s) => [s, 's'])) },
  list: [...HOSTILE_STRINGS],
});

describe('render writes manifests every YAML reader reads alike', () => {
  test('the same bytes as cdk8s synth where no string needs quoting: the examples\' manifests, read and written again', () => {
    const files = readdirSync(EXAMPLES).flatMap((e) => {
      try {
        return readdirSync(join(EXAMPLES, e, 'dist')).map((f) => join(EXAMPLES, e, 'dist', f));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const objects = parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS());
      expect(stringifyYaml(objects)).toBe(text);
      expect(Yaml.stringify(...objects)).toBe(text);
    }
  });

  test('strings some reader takes for numbers or dates are quoted; ordinary ones are not', () => {
    // Go's strconv after goyaml.v2 drops every '_': base prefixes in either case, signs.
    for (const s of ['0O17', '0B11', '-0o17', '+0x1F', '0_x1F', '1__0', '1_.5', '.5e3', '<<']) expect({ s, quoted: mustQuote(s) }).toEqual({ s, quoted: true });
    // What the yaml library's YAML 1.1 reader resolves and its writer leaves plain: NaN, 30, a date.
    for (const s of ['.', '0:30', '2024-1-2']) expect({ s, quoted: mustQuote(s) }).toEqual({ s, quoted: true });
    // Strings to every reader.
    for (const s of ['-c', '--port=8000', '0.1.0', '8000m', '1.29-release', '2024-release', 'a b', 'nbsp\u00a0']) {
      expect({ s, quoted: mustQuote(s) }).toEqual({ s, quoted: false });
    }
  });

  test('the first-character filter drops no text a reader resolves', () => {
    // Every text of up to two printable ASCII characters, three of the characters numbers, dates and words
    // are made of, the hostile strings, and the readers' words in every case.
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i));
    const numeric = [...'0123456789+-._:eExXoObBiInNfFaAtTzZ '];
    const words = ['yes', 'no', 'on', 'off', 'true', 'false', 'null', 'y', 'n', '.inf', '.nan', '~', '<<', '=', 'e5', 'E+5', '0e5'];
    const texts = new Set<string>(['', ...HOSTILE_STRINGS, ...words.flatMap((w) => [w, w.toUpperCase(), w[0].toUpperCase() + w.slice(1)])]);
    for (const a of printable) for (const b of ['', ...printable]) texts.add(a + b);
    for (const a of numeric) for (const b of numeric) for (const c of numeric) texts.add(a + b + c);
    const resolved = [...texts].filter(someReaderResolves);
    expect(resolved.length).toBeGreaterThan(100);
    expect(resolved.filter((t) => !mustQuote(t))).toEqual([]);
  });

  test('the yaml library reads back every hostile string, as YAML 1.1 and as YAML 1.2', () => {
    const object = hostileObject();
    const text = stringifyYaml([object]);
    for (const version of ['1.1', '1.2'] as const) {
      expect(parseAllDocuments(text, { version }).map((d) => d.toJS())).toEqual([object]);
    }
  });

  test('a tab, controls and line separators are escaped in double quotes; `<<` is a quoted key', () => {
    const text = stringifyYaml([{ data: { 'a': 'a\tb', 'b': 'x\u2028y', 'c': 'a\u0085b', 'd': '\u007f', 'e': '0O17', '<<': 'merge?' } }]);
    expect(text).toBe('data:\n  a: "a\\tb"\n  b: "x\\u2028y"\n  c: "a\\u0085b"\n  d: "\\u007f"\n  e: "0O17"\n  "<<": merge?\n');
  });
});

describeWhen('render\'s manifests read by real PyYAML', pyyamlSupport(), 'python3 with PyYAML', () => {
  test('every hostile string as a value, a key at the top and nested, and in a list', () => {
    const object = hostileObject();
    const [read] = pythonLoad([stringifyYaml([object])]);
    expect(read.error).toBeUndefined();
    expect(pythonDifference(read.value, object)).toBeUndefined();
  });

  test('a ConfigMap passed through `kube-inference render` keeps every value and key', async () => {
    const configMap = hostileConfigMap('hostile', HOSTILE_STRINGS, CONFIG_KEY_STRINGS);
    const r = await cli(['render', '-'], { stdin: asInput([configMap]) });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const [read] = pythonLoad([r.stdout]);
    expect(pythonDifference(read.value, configMap)).toBeUndefined();
  });
});
